#pragma once
// Convolution (accelera/nn_ops.hpp's conv and conv_backward). Note [Convolution kernels]: the CPU's float32
// kernels are oneDNN's direct convolutions (backends/cpu/onednn/), which never build the patch matrix:
// prod(kernel) times the input, at batch 128 on Fashion-MNIST's second layer 29 MB written and read back
// per call. The other kernels (OpenCL, CUDA until cuDNN is wired in, float64 on the CPU, and the CPU
// without oneDNN) are im2col and one GEMM per image (ops/conv_gemm.hpp) over the device's own im2col,
// BLAS and col2im. Calls with an empty batch or channel axis take that path on every device.
// Kernels receive C-contiguous operands of one floating dtype (offsets may be non-zero), x (N, C_in,
// *spatial) with N, C_in and C_out all non-zero, weight (C_out, C_in, *kernel), g the geometry of the
// window over x, and fresh outputs.
#include "ops/im2col.hpp"

namespace accelera::op {

// y (N, C_out, *out) = the cross-correlation of x with weight, plus bias (C_out,) when it is defined.
inline constexpr OpSchema<void(const Tensor& x, const Tensor& weight, const Tensor& bias, const WindowGeometry& g,
                               const Tensor& y)>
    conv{"conv"};
// Given grad (N, C_out, *out): dx (x's shape) when defined, dw (weight's shape), and db (C_out,) when
// defined.
inline constexpr OpSchema<void(const Tensor& grad, const Tensor& x, const Tensor& weight, const WindowGeometry& g,
                               const Tensor& dx, const Tensor& dw, const Tensor& db)>
    conv_backward{"conv_backward"};

}  // namespace accelera::op
