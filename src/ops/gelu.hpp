#pragma once
// The GELU kernels (Note [Fused kernel contract] in ops/nn_common.hpp).
#include "accelera/core/nn_types.hpp"
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// out = GELU(x + bias); x, out: (rows, n); bias: (n) or undefined (plain gelu).
inline constexpr OpSchema<void(const Tensor& x, const Tensor& bias, GeluApproximation approximation,
                               const Tensor& out)>
    gelu{"gelu"};
// dx = grad * GELU'(x); all (rows, n).
inline constexpr OpSchema<void(const Tensor& grad, const Tensor& x, GeluApproximation approximation,
                               const Tensor& dx)>
    gelu_backward{"gelu_backward"};

}  // namespace accelera::op
