#pragma once
// argmax and argmin kernels: out (int64, x's rank with the reduced axes of extent 1) receives, for every
// kept index, the position of the first largest (smallest) element among the reduced ones, counted in
// row-major order over the reduced axes. A nan counts as larger (smaller) than everything, so the first
// nan wins, as in NumPy. `axes` are sorted and unique; x has any strides and every output has at least one
// element to choose from. Registered by x's dtype.
#include <cstdint>
#include <span>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

using ArgExtremumKernel = void(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out);

namespace op {
inline constexpr OpSchema<ArgExtremumKernel> argmax{"argmax"};
inline constexpr OpSchema<ArgExtremumKernel> argmin{"argmin"};
}  // namespace op

}  // namespace accelera
