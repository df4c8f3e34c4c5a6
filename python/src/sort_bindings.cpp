// sort, argsort, searchsorted and unique. Arguments arrive checked by accelera/_sorting.py.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

void bind_sort(nb::module_& m) {
  m.def(
      "sort", [](const Tensor& x, std::int64_t axis, bool descending) { return sort(x, axis, descending); },
      nb::arg("x"), nb::arg("axis"), nb::arg("descending"), nb::call_guard<ReleaseGil>());
  m.def(
      "argsort", [](const Tensor& x, std::int64_t axis, bool descending) { return argsort(x, axis, descending); },
      nb::arg("x"), nb::arg("axis"), nb::arg("descending"), nb::call_guard<ReleaseGil>());
  m.def(
      "searchsorted",
      [](const Tensor& x1, const Tensor& x2, bool right, std::optional<Tensor> sorter) {
        return searchsorted(x1, x2, right, sorter);
      },
      nb::arg("x1"), nb::arg("x2"), nb::arg("right"), nb::arg("sorter").none(), nb::call_guard<ReleaseGil>());
  // (values, indices, inverse_indices, counts); the fields not asked for are None.
  m.def(
      "unique",
      [](const Tensor& x, bool with_indices, bool with_inverse, bool with_counts) {
        UniqueResult r;
        {
          nb::gil_scoped_release release;
          r = unique(x, with_indices, with_inverse, with_counts);
        }
        const auto field = [](const Tensor& t) { return t.defined() ? nb::cast(t) : nb::none(); };
        return nb::make_tuple(r.values, field(r.indices), field(r.inverse_indices), field(r.counts));
      },
      nb::arg("x"), nb::arg("with_indices"), nb::arg("with_inverse"), nb::arg("with_counts"));
}

}  // namespace accelera::python
