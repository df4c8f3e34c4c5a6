#pragma once
// Convolution as im2col and one GEMM per image (Note [Convolution kernels] in ops/conv.hpp), built from ops
// that every device has: the conv kernels of devices without a direct convolution (OpenCL, CUDA, and
// float64 on the CPU), and every device's path for calls with an empty batch or channel axis.
#include "ops/conv.hpp"

namespace accelera {

// y (N, C_out, *out) of x (N, C_in, *spatial) and weight (C_out, C_in, *kernel) under g; bias may be
// undefined. Any extent may be zero.
Tensor conv_by_gemm(const Tensor& x, const Tensor& weight, const Tensor& bias, const WindowGeometry& g);
// The gradients of conv_by_gemm given grad (N, C_out, *out); input and bias only when asked for.
ConvGrads conv_backward_by_gemm(const Tensor& grad, const Tensor& x, const Tensor& weight, const WindowGeometry& g,
                                bool input_grad, bool bias_grad);

// The same as kernels of op::conv and op::conv_backward (they write into the outputs given).
void conv_gemm_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, const WindowGeometry& g,
                      const Tensor& y);
void conv_backward_gemm_kernel(const Tensor& grad, const Tensor& x, const Tensor& weight, const WindowGeometry& g,
                               const Tensor& dx, const Tensor& dw, const Tensor& db);

}  // namespace accelera
