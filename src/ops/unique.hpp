#pragma once
// Note [Unique by groups]
// The unique_* functions sort x flattened stably (Note [Sort keys] in ops/sort.hpp), giving `sorted` and
// `order` (the original position of each sorted element). An element starts a group when it is the first,
// when its key differs from its predecessor's, or when it is NaN: the array API counts every NaN as distinct
// (NumPy >= 2 folds them into one). unique_groups writes each element's group number (a scan of the starts)
// and returns the number of groups, the one value read back to the host, which sizes the outputs.
// unique_scatter then writes, for each group g, values[g] (its first sorted element), first[g] (its smallest
// original position: the sort is stable), bounds[g + 1] (one past its last sorted position, with
// bounds[0] = 0: counts are bounds[1:] - bounds[:-1]) and, for each element, inverse[order[i]] = group[i].
#include <cstdint>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// sorted: contiguous 1-D with n >= 1 elements; group: contiguous int64 (n). Returns the number of groups.
inline constexpr OpSchema<std::int64_t(const Tensor& sorted, const Tensor& group)> unique_groups{"unique_groups"};

// sorted, order (int64) and group (int64): contiguous (n); values (sorted's dtype) and first (int64):
// contiguous (groups); bounds: contiguous int64 (groups + 1); inverse: contiguous int64 (n). order, first
// and inverse may be undefined (unique_values and unique_counts sort without positions); inverse and
// first need order.
inline constexpr OpSchema<void(const Tensor& sorted, const Tensor& order, const Tensor& group, const Tensor& values,
                               const Tensor& first, const Tensor& bounds, const Tensor& inverse)>
    unique_scatter{"unique_scatter"};

}  // namespace accelera::op
