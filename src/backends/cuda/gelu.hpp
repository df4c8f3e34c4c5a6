#pragma once
// The GELU launcher, shared by gelu and linear_gelu's GEMM-then-GELU path on CUDA.
#include "accelera/core/nn_types.hpp"
#include "backends/cuda/cuda_interface.hpp"

namespace accelera::cuda {

// out = GELU(x + bias) over (rows, n); bias (n) or undefined; out may be x (in place).
void gelu_kernel(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out);

}  // namespace accelera::cuda
