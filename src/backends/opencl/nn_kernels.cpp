// The OpenCL backend's fused neural-network kernels other than attention: GELU (forward, backward,
// with a bias), linear + GELU (CLBlast GEMM, then one fused bias + GELU pass in place), LayerNorm
// (forward, backward) and softmax / log-softmax (forward, backward).
#include <clblast.h>

#include <cmath>

#include "backends/opencl/nn_common.hpp"

namespace accelera::opencl {

using namespace nn;

namespace {

constexpr std::size_t kLocal = 64;

std::string gelu_options(const ClDevice& d, DType dtype, GeluApproximation approximation) {
  // The part of 1/sqrt(2) that the element type's constant misses (see gelu.cl).
  const double exact = 0.70710678118654752440;
  const double lo = dtype == DType::f32 ? exact - static_cast<double>(static_cast<float>(exact)) : -4.8336466567264567e-17;
  return fmt::format("{}{} -DSQRT1_2_LO={:.17g}{}", element_options(d, dtype),
                     approximation == GeluApproximation::tanh ? " -DGELU_TANH" : "", lo,
                     dtype == DType::f32 ? "f" : "");
}

void launch_gelu(ClDevice& d, const Tensor& x, const Tensor& bias, GeluApproximation approximation,
                 const Tensor& out) {
  const Kernel kernel =
      make_kernel(d, "gelu", gelu_options(d, out.dtype(), approximation) + (bias.defined() ? " -DHAS_BIAS" : ""));
  const cl_long rows = x.dim(0), n = x.dim(1);
  KernelArgs(kernel.get())
      .add(rows)
      .add(n)
      .add(buffer_of(x))
      .add(off(x))
      .add(buffer_or_null(bias))
      .add(off_or_zero(bias))
      .add(buffer_of(out))
      .add(off(out));
  launch(d, kernel, static_cast<std::size_t>(rows * n), kLocal, "launching gelu");
}

// A scalar kernel argument in the element type.
template <typename F>
void with_scalar(DType dtype, double value, F&& f) {
  if (dtype == DType::f32) {
    f(static_cast<cl_float>(value));
  } else {
    f(static_cast<cl_double>(value));
  }
}

}  // namespace

std::vector<std::string> OpenClBackend::compiled_kernels(int index) const {
  ClDevice& d = device(index);
  std::lock_guard lock(d.programs_mutex);
  std::vector<std::string> names;
  for (const auto& entry : d.programs) names.push_back(entry.first);
  return names;
}

void OpenClBackend::gelu(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out) {
  launch_gelu(device(out.device().index), x, bias, approximation, out);
}

void OpenClBackend::gelu_backward(const Tensor& grad, const Tensor& x, GeluApproximation approximation,
                                  const Tensor& dx) {
  ClDevice& d = device(dx.device().index);
  const Kernel kernel = make_kernel(
      d, "gelu_backward", element_options(d, dx.dtype()) + (approximation == GeluApproximation::tanh ? " -DGELU_TANH" : ""));
  const cl_long n = dx.numel();
  KernelArgs(kernel.get()).add(n).add(buffer_of(grad)).add(off(grad)).add(buffer_of(x)).add(off(x)).add(buffer_of(dx)).add(off(dx));
  launch(d, kernel, static_cast<std::size_t>(n), kLocal, "launching gelu_backward");
}

void OpenClBackend::linear_gelu(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                GeluApproximation approximation, const Tensor& out) {
  // out = x @ weight^T by CLBlast (row-major, weight transposed), then bias + GELU in place.
  matmul(x, weight.T(), out);
  launch_gelu(device(out.device().index), out, bias, approximation, out);
}

void OpenClBackend::layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                               const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  ClDevice& d = device(out.device().index);
  const std::string options = element_options(d, out.dtype()) + (weight.defined() ? " -DHAS_WEIGHT" : "") +
                              (bias.defined() ? " -DHAS_BIAS" : "");
  const Kernel kernel = make_kernel(d, "layer_norm", options);
  const std::size_t local = reduction_local(d, kernel.get());
  const cl_long rows = x.dim(0), n = x.dim(1);
  with_scalar(out.dtype(), eps, [&](auto eps_value) {
    KernelArgs(kernel.get())
        .add(n)
        .add(eps_value)
        .add(buffer_of(x))
        .add(off(x))
        .add(buffer_or_null(weight))
        .add(off_or_zero(weight))
        .add(buffer_or_null(bias))
        .add(off_or_zero(bias))
        .add(buffer_of(out))
        .add(off(out))
        .add(buffer_of(mean))
        .add(off(mean))
        .add(buffer_of(rstd))
        .add(off(rstd))
        .local(local * out.itemsize());
  });
  launch(d, kernel, static_cast<std::size_t>(rows) * local, local, "launching layer_norm");
}

void OpenClBackend::layer_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                        const Tensor& rstd, const Tensor& dx, const Tensor& dweight,
                                        const Tensor& dbias) {
  ClDevice& d = device(dx.device().index);
  const cl_long rows = x.dim(0), n = x.dim(1);
  const std::string base = element_options(d, dx.dtype());
  const Kernel kernel = make_kernel(d, "layer_norm_backward", base + (weight.defined() ? " -DHAS_WEIGHT" : ""));
  const std::size_t local = reduction_local(d, kernel.get());
  KernelArgs(kernel.get())
      .add(n)
      .add(buffer_of(grad))
      .add(off(grad))
      .add(buffer_of(x))
      .add(off(x))
      .add(buffer_or_null(weight))
      .add(off_or_zero(weight))
      .add(buffer_of(mean))
      .add(off(mean))
      .add(buffer_of(rstd))
      .add(off(rstd))
      .add(buffer_of(dx))
      .add(off(dx))
      .local(local * dx.itemsize());
  launch(d, kernel, static_cast<std::size_t>(rows) * local, local, "launching layer_norm_backward");
  if (!dweight.defined() && !dbias.defined()) return;
  const Kernel params = make_kernel(d, "layer_norm_param_grad", base + (dweight.defined() ? " -DHAS_WEIGHT" : "") +
                                                                    (dbias.defined() ? " -DHAS_BIAS" : ""));
  KernelArgs(params.get())
      .add(rows)
      .add(n)
      .add(buffer_of(grad))
      .add(off(grad))
      .add(buffer_of(x))
      .add(off(x))
      .add(buffer_of(mean))
      .add(off(mean))
      .add(buffer_of(rstd))
      .add(off(rstd))
      .add(buffer_or_null(dweight))
      .add(off_or_zero(dweight))
      .add(buffer_or_null(dbias))
      .add(off_or_zero(dbias));
  launch(d, params, static_cast<std::size_t>(n), kLocal, "launching layer_norm_param_grad");
}

void OpenClBackend::softmax(const Tensor& x, bool log, const Tensor& out) {
  ClDevice& d = device(out.device().index);
  const Kernel kernel = make_kernel(d, "softmax", element_options(d, out.dtype()) + (log ? " -DLOG_SOFTMAX" : ""));
  const std::size_t local = reduction_local(d, kernel.get());
  KernelArgs(kernel.get())
      .add(static_cast<cl_long>(x.dim(1)))
      .add(buffer_of(x))
      .add(off(x))
      .add(buffer_of(out))
      .add(off(out))
      .local(local * out.itemsize());
  launch(d, kernel, static_cast<std::size_t>(x.dim(0)) * local, local, "launching softmax");
}

void OpenClBackend::softmax_backward(const Tensor& grad, const Tensor& y, bool log, const Tensor& dx) {
  ClDevice& d = device(dx.device().index);
  const Kernel kernel =
      make_kernel(d, "softmax_backward", element_options(d, dx.dtype()) + (log ? " -DLOG_SOFTMAX" : ""));
  const std::size_t local = reduction_local(d, kernel.get());
  KernelArgs(kernel.get())
      .add(static_cast<cl_long>(y.dim(1)))
      .add(buffer_of(grad))
      .add(off(grad))
      .add(buffer_of(y))
      .add(off(y))
      .add(buffer_of(dx))
      .add(off(dx))
      .local(local * dx.itemsize());
  launch(d, kernel, static_cast<std::size_t>(y.dim(0)) * local, local, "launching softmax_backward");
}

}  // namespace accelera::opencl
