#pragma once
// The GELU pass shared by gelu and linear_gelu (its epilogue) on OpenCL.
#include "backends/opencl/nn_common.hpp"

namespace accelera::opencl {

// out = GELU(x + bias) over (rows, n); bias (n) or undefined; out may be x (in place).
void launch_gelu(ClDevice& d, const Tensor& x, const Tensor& bias, GeluApproximation approximation,
                 const Tensor& out);

}  // namespace accelera::opencl
