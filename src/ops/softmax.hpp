#pragma once
// The softmax kernels over the last axis of (rows, n) (Note [Fused kernel contract] in ops/nn_common.hpp).
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

using RowKernel = void(const Tensor& x, const Tensor& out);
// y is the forward's result; dx = its vector-Jacobian product with grad.
using RowBackwardKernel = void(const Tensor& grad, const Tensor& y, const Tensor& dx);

namespace op {
inline constexpr OpSchema<RowKernel> softmax{"softmax"};
inline constexpr OpSchema<RowKernel> log_softmax{"log_softmax"};
inline constexpr OpSchema<RowBackwardKernel> softmax_backward{"softmax_backward"};
inline constexpr OpSchema<RowBackwardKernel> log_softmax_backward{"log_softmax_backward"};
}  // namespace op

}  // namespace accelera
