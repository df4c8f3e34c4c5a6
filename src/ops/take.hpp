#pragma once
// Note [Gather and index checks]
// take and take_along_axis share one gather kernel. The op builds two views with the output's shape:
// `source`, the input with stride 0 along the gathered axis (and along the index axes take inserts),
// and `indices`, broadcast over the rest. Then out[o] = source[o + wrap(indices[o]) * axis_stride],
// where wrap adds axis_size to a negative index, as NumPy does. Indices are checked by the kernel where
// they are read: an index outside [-axis_size, axis_size) is skipped and sets `bad`, a 0-d int32 tensor
// on the device that starts at 0. The op then reads that one flag back (which waits for the kernel) and
// raises IndexError when it is set; only then does it copy the indices to the host, to name the first
// offending one. So valid calls move no data to the host, and a failed call leaves its inputs untouched
// and returns nothing.
#include <cstdint>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// Registered for the dtypes of `source`; indices are int32 or int64; out is contiguous.
inline constexpr OpSchema<void(const Tensor& source, std::int64_t axis_stride, std::int64_t axis_size,
                               const Tensor& indices, const Tensor& out, const Tensor& bad)>
    take{"take"};

}  // namespace accelera::op
