// tensordot, vecdot, accelera.linalg (include/accelera/linalg.hpp) and accelera.fft (accelera/fft.hpp);
// the Python package converts arguments and names the results (python/accelera/linalg.py, fft.py).
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
  // accelera.fft (python/accelera/fft.py names the arguments); norm arrives as its name.
  nb::module_ f = m.def_submodule("_fft", "Fourier transforms (accelera.fft is the public face).");
  using Length = std::optional<std::int64_t>;
  using List = std::optional<std::vector<std::int64_t>>;
#define ACC_BIND_FFT_1D(name)                                                                              \
  f.def(#name, [](const Tensor& x, Length n, std::int64_t axis, const std::string& norm) {                  \
    return fft::name(x, n, axis, fft::norm_from_name(norm));                                               \
  }, nb::arg("x"), nb::arg("n").none(), nb::arg("axis"), nb::arg("norm"), gil);
#define ACC_BIND_FFT_ND(name)                                                                              \
  f.def(#name, [](const Tensor& x, const List& s, const List& axes, const std::string& norm) {              \
    return fft::name(x, s, axes, fft::norm_from_name(norm));                                               \
  }, nb::arg("x"), nb::arg("s").none(), nb::arg("axes").none(), nb::arg("norm"), gil);
  ACC_BIND_FFT_1D(fft)
  ACC_BIND_FFT_1D(ifft)
  ACC_BIND_FFT_1D(rfft)
  ACC_BIND_FFT_1D(irfft)
  ACC_BIND_FFT_1D(hfft)
  ACC_BIND_FFT_1D(ihfft)
  ACC_BIND_FFT_ND(fftn)
  ACC_BIND_FFT_ND(ifftn)
  ACC_BIND_FFT_ND(rfftn)
  ACC_BIND_FFT_ND(irfftn)
#undef ACC_BIND_FFT_1D
#undef ACC_BIND_FFT_ND
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
