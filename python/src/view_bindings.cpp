// Views and device copies for the array API namespace (accelera/_manipulation.py, _creation.py):
// stride-0 broadcasts, reshapes that must not copy, and copies into a view on the view's own device.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

void bind_views(nb::module_& m) {
  m.def(
      "_broadcast_to", [](const Tensor& t, const std::vector<std::int64_t>& shape) { return t.broadcast_to(Shape(shape)); },
      nb::arg("tensor"), nb::arg("shape"));
  // A reshape that never copies: None when the strides do not allow a view.
  m.def(
      "_view", [](const Tensor& t, const std::vector<std::int64_t>& shape) { return t.view(shape); },
      nb::arg("tensor"), nb::arg("shape"));
  // dst[...] = src (converted to dst's dtype, broadcast to dst's shape), on their shared device: views,
  // the in-place operators and Generator.shuffle write through it.
  m.def("_copy_into", &copy_into, nb::arg("src"), nb::arg("dst"), nb::call_guard<ReleaseGil>());
}

}  // namespace accelera::python
