#pragma once
// The reduction kernels sum, prod, mean, max and min: out has x's rank with the reduced axes of extent 1;
// `axes` are sorted and unique; x and out have the same dtype (the op casts first: NumPy sums and
// multiplies int32 and bool as int64 and averages integers in float64); x has any strides and at least
// one element.
#include <cstdint>
#include <span>

#include "accelera/core/tensor.hpp"
#include "accelera/ops.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

// out has x's dtype, except for sum and prod kernels registered for integer dtypes: those write int64
// (Note [Integer accumulation] in ops/common.hpp).
using ReduceKernel = void(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out);

// The sum over `axes` of (x - center)^2, the second pass of var: center and out have x's rank with the
// reduced axes of extent 1 and the same (contiguous) layout; x, center and out share one real floating dtype;
// x has at least one element. Accumulates in double (float for the half formats on devices without it).
using CenteredReduceKernel = void(const Tensor& x, const Tensor& center, std::span<const std::int64_t> axes,
                                  const Tensor& out);

namespace op {
inline constexpr OpSchema<CenteredReduceKernel> sum_squared_deviations{"sum_squared_deviations"};
inline constexpr OpSchema<ReduceKernel> sum{"sum"};
inline constexpr OpSchema<ReduceKernel> mean{"mean"};
inline constexpr OpSchema<ReduceKernel> max{"max"};
inline constexpr OpSchema<ReduceKernel> min{"min"};
inline constexpr OpSchema<ReduceKernel> prod{"prod"};
}  // namespace op

// The op of sum_squared_deviations (kernel above): out keeps the reduced axes with extent 1. x has elements;
// center has out's shape and x's dtype and device.
Tensor sum_squared_deviations(const Tensor& x, const Tensor& center, const Axes& axes);

}  // namespace accelera
