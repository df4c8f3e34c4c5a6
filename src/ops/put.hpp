#pragma once
// Note [Scatter]
// put is take's mirror (Note [Gather and index checks] in ops/take.hpp): it writes values into x along an
// axis, x[..., indices[j...], ...] = values[..., j..., ...], in place. The op builds the same views as
// take: `dest`, x with stride 0 along the axis and broadcast to the values' shape, and the indices
// broadcast alike; then dest[o + wrap(indices[o]) * axis_stride] = values[o]. Unlike the gather, indices
// are checked before anything is written (one flag read back), so a call with a bad index leaves x
// untouched. Where an index repeats, which of its values lands is unspecified (as in NumPy and the array
// API standard): the kernels write in parallel.
#include <cstdint>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// Registered for the dtypes of `dest`; values has dest's dtype and shape; indices are int64, in range.
inline constexpr OpSchema<void(const Tensor& dest, std::int64_t axis_stride, std::int64_t axis_size,
                               const Tensor& indices, const Tensor& values)>
    put{"put"};

}  // namespace accelera::op
