#pragma once
// The launch shape of a reduction on CUDA, shared by the reductions (reduce.cpp) and argmax/argmin
// (arg_extremum.cpp): one thread per output when each output is short, or when there are many outputs
// whose neighbours are neighbours in memory (column reductions: a warp then reads contiguous memory);
// otherwise one block per output, split into `parts` when a few outputs would leave most of the device idle
// and the caller can combine partial results.
#include <algorithm>
#include <span>

#include "backends/common/reduce_axes.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"

namespace accelera::cuda {

inline kernels::ReduceShape plan_reduction(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out,
                                           const CudaDevice& d, bool allow_parts, const char* op) {
  const auto split = backends::split_axes(x, axes, out);
  const auto kept = backends::make_layout<2>(split.kept_shape, {&split.kept_out, &split.kept_x});
  const auto reduced = backends::make_layout<1>(split.reduced_shape, {&split.reduced_x});
  kernels::ReduceShape shape;
  shape.kept = to_kernel_layout(kept, op);
  shape.reduced = to_kernel_layout(reduced, op);
  shape.outputs = kept.numel;
  shape.count = reduced.numel;
  const bool column = kept.strides[1].back() == 1 && reduced.strides[0].back() != 1;
  const std::int64_t threads_to_fill = static_cast<std::int64_t>(d.sm_count) * 2048;
  shape.per_thread = shape.count <= 32 || (column && shape.outputs >= threads_to_fill);
  if (allow_parts && !shape.per_thread && shape.outputs > 0 && shape.outputs < 4 * d.sm_count) {
    const std::int64_t by_size = shape.count / (16 * 256);  // at least 16 elements per thread and part
    const std::int64_t by_device = 8 * d.sm_count / shape.outputs;
    shape.parts = std::max<std::int64_t>(1, std::min(by_size, by_device));
  }
  return shape;
}

}  // namespace accelera::cuda
