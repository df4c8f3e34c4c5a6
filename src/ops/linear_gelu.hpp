#pragma once
// The linear + GELU kernel (Note [Fused kernel contract] in ops/nn_common.hpp).
#include "accelera/core/nn_types.hpp"
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// out = GELU(x @ weight^T + bias); x: (rows, in) with in >= 1, weight: (out_features, in), bias:
// (out_features) or undefined, out: (rows, out_features).
inline constexpr OpSchema<void(const Tensor& x, const Tensor& weight, const Tensor& bias,
                               GeluApproximation approximation, const Tensor& out)>
    linear_gelu{"linear_gelu"};

}  // namespace accelera::op
