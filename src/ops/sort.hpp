#pragma once
// Note [Sort keys]
// sort, argsort, searchsorted and unique order elements by one unsigned key per element, the same on every
// backend, so that they agree bit for bit:
//   floats: NaN (any sign or payload) -> all ones (the largest key, so NaNs sort last as NumPy's do);
//           -0.0 -> +0.0 (equal keys, so the stable order of zeros is kept); otherwise the IEEE bits with the
//           sign bit flipped for positives and all bits flipped for negatives (the order of the values);
//   int32/int64: the bits with the sign bit flipped; bool: 0 or 1.
// Keys have the element's width (float16 and bfloat16: 16 bits). Sorting is stable: equal keys keep the order
// of their positions. Descending order sorts the complemented keys ascending, which is the exact reverse of
// the ascending order of the values with equal elements still in their original order: NaNs come first, as
// the array API's reference (array-api-strict: flip, stable sort, flip) places them.
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// Sorts each row of x, a contiguous (rows, n) matrix with n >= 1. values (x's dtype) and indices (int64, the
// positions within the row) are contiguous (rows, n); either may be undefined when not wanted, not both.
inline constexpr OpSchema<void(const Tensor& x, const Tensor& values, const Tensor& indices, bool descending)> sort{
    "sort"};

// out[i] = the number of elements of `sorted` (contiguous, 1-D, ascending by key) whose key is below
// (right: at most) the key of values[i]; values is contiguous in sorted's dtype, out contiguous int64.
inline constexpr OpSchema<void(const Tensor& sorted, const Tensor& values, const Tensor& out, bool right)>
    searchsorted{"searchsorted"};

}  // namespace accelera::op
