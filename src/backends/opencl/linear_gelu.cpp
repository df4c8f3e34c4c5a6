// linear + GELU on OpenCL: one CLBlast GEMM (the matmul kernel), then the bias + GELU pass in place.
#include "backends/opencl/gelu.hpp"
#include "ops/linear_gelu.hpp"
#include "ops/matmul.hpp"

namespace accelera::opencl {

namespace {

void linear_gelu_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, GeluApproximation approximation,
                        const Tensor& out) {
  // out = x @ weight^T by CLBlast (row-major, weight transposed), then bias + GELU in place.
  kernel_for(op::matmul, out.device(), out.dtype())(x, weight.T(), out, false);
  launch_gelu(cl_device(out.device()), out, bias, approximation, out);
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::linear_gelu, DeviceKind::opencl, dtypes::floating, &linear_gelu_kernel); }

}  // namespace accelera::opencl
