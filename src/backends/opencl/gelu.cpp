// GELU forward (with an optional bias) and backward on OpenCL (gelu.cl, gelu_backward.cl).
#include "backends/opencl/gelu.hpp"

#include "ops/gelu.hpp"

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

}  // namespace

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

namespace {

void gelu_kernel(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out) {
  launch_gelu(cl_device(out.device()), x, bias, approximation, out);
}

void gelu_backward_kernel(const Tensor& grad, const Tensor& x, GeluApproximation approximation, const Tensor& dx) {
  ClDevice& d = cl_device(dx.device());
  const Kernel kernel = make_kernel(
      d, "gelu_backward", element_options(d, dx.dtype()) + (approximation == GeluApproximation::tanh ? " -DGELU_TANH" : ""));
  const cl_long n = dx.numel();
  KernelArgs(kernel.get()).add(n).add(buffer_of(grad)).add(off(grad)).add(buffer_of(x)).add(off(x)).add(buffer_of(dx)).add(off(dx));
  launch(d, kernel, static_cast<std::size_t>(n), kLocal, "launching gelu_backward");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::gelu, DeviceKind::opencl, dtypes::floating, &gelu_kernel);
  register_kernel(op::gelu_backward, DeviceKind::opencl, dtypes::floating, &gelu_backward_kernel);
}

}  // namespace accelera::opencl
