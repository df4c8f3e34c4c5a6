#pragma once
// The reduction kernels sum, prod, mean, max and min: out has x's rank with the reduced axes of extent 1;
// `axes` are sorted and unique; x and out have the same dtype (the op casts first: NumPy sums and
// multiplies int32 and bool as int64 and averages integers in float64); x has any strides and at least
// one element.
#include <cstdint>
#include <span>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

// out has x's dtype, except for sum and prod kernels registered for integer dtypes: those write int64
// (Note [Integer accumulation] in ops/common.hpp).
using ReduceKernel = void(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out);

namespace op {
inline constexpr OpSchema<ReduceKernel> sum{"sum"};
inline constexpr OpSchema<ReduceKernel> mean{"mean"};
inline constexpr OpSchema<ReduceKernel> max{"max"};
inline constexpr OpSchema<ReduceKernel> min{"min"};
inline constexpr OpSchema<ReduceKernel> prod{"prod"};
}  // namespace op

}  // namespace accelera
