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

namespace accelera {

// `indices` as the index kernels take them: int32 and int64 stay, the other integer dtypes convert to
// int64 (uint64 values of 2^63 and more raise IndexError instead of wrapping negative); another dtype is a
// DTypeError naming `op`.
Tensor index_dtype_tensor(const Tensor& indices, const char* op);

// The two views take and put index through (Note [Gather and index checks]), both with `shape`, which is
// x.shape[:axis] + indices.shape + x.shape[axis + 1:]: x with one element along the axis and one unit
// axis per index axis, and the indices with unit axes before and after them, each broadcast.
struct AxisIndexViews {
  Tensor x, indices;
};
inline AxisIndexViews axis_index_views(const Tensor& x, const Tensor& indices, std::int64_t axis, const Shape& shape) {
  Tensor s = x.slice(axis, 0, 1);
  if (indices.ndim() == 0) s = s.select(axis, 0);
  for (std::int64_t k = 1; k < indices.ndim(); ++k) s = s.unsqueeze(axis);
  Tensor i = indices;
  for (std::int64_t k = 0; k < axis; ++k) i = i.unsqueeze(0);
  for (std::int64_t k = axis + 1; k < x.ndim(); ++k) i = i.unsqueeze(i.ndim());
  return {s.broadcast_to(shape), i.broadcast_to(shape)};
}

}  // namespace accelera
