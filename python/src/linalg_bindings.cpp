// tensordot, vecdot and accelera.linalg (include/accelera/linalg.hpp); the Python package converts
// arguments and names the results (python/accelera/linalg.py).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

void bind_linalg(nb::module_& m) {
  const auto gil = nb::call_guard<ReleaseGil>();
  m.def("tensordot", [](const Tensor& a, const Tensor& b, std::int64_t axes) { return tensordot(a, b, axes); }, gil);
  m.def(
      "tensordot_axes",
      [](const Tensor& a, const Tensor& b, const std::vector<std::int64_t>& axes_a,
         const std::vector<std::int64_t>& axes_b) { return tensordot(a, b, axes_a, axes_b); },
      gil);
  m.def("vecdot", &vecdot, gil);
  nb::module_ l = m.def_submodule("_linalg", "Linear algebra kernels (accelera.linalg is the public face).");
  l.def("solve", &linalg::solve, gil);
  l.def("inv", &linalg::inv, gil);
  l.def("det", &linalg::det, gil);
  l.def("slogdet", [](const Tensor& a) {
    auto r = linalg::slogdet(a);
    return std::make_tuple(r.sign, r.logabsdet);
  }, gil);
  l.def("cholesky", &linalg::cholesky, gil);
  l.def("eigh", [](const Tensor& a) {
    auto r = linalg::eigh(a);
    return std::make_tuple(r.eigenvalues, r.eigenvectors);
  }, gil);
  l.def("eigvalsh", &linalg::eigvalsh, gil);
  l.def("svd", [](const Tensor& a, bool full) {
    auto r = linalg::svd(a, full);
    return std::make_tuple(r.U, r.S, r.Vh);
  }, gil);
  l.def("svdvals", &linalg::svdvals, gil);
  l.def("qr", [](const Tensor& a, const std::string& mode) {
    auto r = linalg::qr(a, mode);
    return std::make_tuple(r.Q, r.R);
  }, gil);
  l.def("pinv", &linalg::pinv, nb::arg("a"), nb::arg("rtol").none(), gil);
  l.def("matrix_rank", &linalg::matrix_rank, nb::arg("a"), nb::arg("rtol").none(), gil);
  l.def("matrix_norm", &linalg::matrix_norm, gil);
  l.def("vector_norm", &linalg::vector_norm, nb::arg("x"), nb::arg("axes").none(), nb::arg("ord"),
        nb::arg("keepdims"), gil);
  l.def("matrix_power", &linalg::matrix_power, gil);
  l.def("diagonal", &linalg::diagonal, gil);
  l.def("trace", &linalg::trace, gil);
  l.def("outer", &linalg::outer, gil);
  l.def("cross", &linalg::cross, gil);
}

}  // namespace accelera::python
