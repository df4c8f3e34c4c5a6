#pragma once
// The LayerNorm kernels (Note [Fused kernel contract] in ops/nn_common.hpp).
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// Over the last axis of x: (rows, n), n >= 1. weight, bias: (n) or undefined; mean, rstd: (rows) in the
// compute precision (float64 for float64 rows, float32 otherwise).
inline constexpr OpSchema<void(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                               const Tensor& out, const Tensor& mean, const Tensor& rstd)>
    layer_norm{"layer_norm"};
// dx: (rows, n) with rows >= 1; dweight, dbias: (n), or undefined when weight (resp. bias) was not given.
inline constexpr OpSchema<void(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                               const Tensor& rstd, const Tensor& dx, const Tensor& dweight, const Tensor& dbias)>
    layer_norm_backward{"layer_norm_backward"};

}  // namespace accelera::op
