// conv and conv_backward on the CPU (Note [Convolution kernels] in ops/conv.hpp): float32 on oneDNN's
// direct convolutions in builds with oneDNN, float64 (and everything without oneDNN) as im2col and GEMM.
#include "ops/conv_gemm.hpp"

#ifdef ACCELERA_HAVE_ONEDNN
#include "backends/cpu/onednn/conv.hpp"
#endif

namespace accelera::cpu {

namespace {

void conv_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, const WindowGeometry& g, const Tensor& y) {
#ifdef ACCELERA_HAVE_ONEDNN
  if (x.dtype() == DType::f32) return onednn::conv(x, weight, bias, g, y);
#endif
  conv_gemm_kernel(x, weight, bias, g, y);
}

void conv_backward_kernel(const Tensor& grad, const Tensor& x, const Tensor& weight, const WindowGeometry& g,
                          const Tensor& dx, const Tensor& dw, const Tensor& db) {
#ifdef ACCELERA_HAVE_ONEDNN
  if (x.dtype() == DType::f32) return onednn::conv_backward(grad, x, weight, g, dx, dw, db);
#endif
  conv_backward_gemm_kernel(grad, x, weight, g, dx, dw, db);
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::conv, DeviceKind::cpu, dtypes::floating, &conv_kernel);
  register_kernel(op::conv_backward, DeviceKind::cpu, dtypes::floating, &conv_backward_kernel);
}

}  // namespace accelera::cpu
