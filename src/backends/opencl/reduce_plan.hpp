#pragma once
// How the OpenCL reductions launch (reduce.cl, arg_extremum.cl): one work-item per output for column
// reductions, else work-groups, split into parts when there are too few outputs to occupy the device.
#include <algorithm>

#include "backends/common/strided_loop.hpp"
#include "backends/opencl/opencl_interface.hpp"

namespace accelera::opencl {

struct ReducePlan {
  bool per_item = false;
  std::int64_t parts = 1;
};

// Whether x's dense axis is a kept one (adjacent outputs read adjacent elements) and not a reduced one.
inline bool is_column_reduction(const backends::LoopLayout<2>& kept, const backends::LoopLayout<2>& reduced) {
  const bool kept_dense = !kept.dims.empty() && kept.strides[1][kept.dims.size() - 1] == 1;
  const bool reduced_dense = !reduced.dims.empty() && reduced.strides[1][reduced.dims.size() - 1] == 1;
  return kept_dense && !reduced_dense;
}

// allow_per_item: the kernel has the per-item form (reduce.cl does, arg_extremum.cl does not).
inline ReducePlan plan_reduction(const ClDevice& d, const backends::LoopLayout<2>& kept,
                                 const backends::LoopLayout<2>& reduced, bool allow_per_item = true) {
  ReducePlan plan;
  const std::int64_t outputs = kept.numel, count = reduced.numel;
  if (allow_per_item && is_column_reduction(kept, reduced) && outputs >= 256) {
    plan.per_item = true;
    return plan;
  }
  const std::int64_t groups_wanted = 8 * std::max(d.compute_units, 1);
  if (outputs < groups_wanted && count >= 8192) {
    plan.parts = std::min<std::int64_t>({(groups_wanted + outputs - 1) / outputs, count / 4096, 1024});
  }
  return plan;
}

// Whether the chunked form runs (reduce.cl: CPU devices, one contiguous reduced run per output).
inline bool chunked_reduction(const ClDevice& d, const backends::LoopLayout<2>& reduced) {
  return d.cpu_forms && reduced.dims.size() == 1 && reduced.strides[1][0] == 1;
}

// reduce.cl's ROW_BLOCKS form (CPU devices): outputs per work-item, and how many parts split the rows.
inline constexpr std::int64_t kColumnChunk = 1024;
struct RowBlocks {
  std::size_t items = 0;  // 0: the form does not apply
  std::int64_t parts = 1;
};
inline RowBlocks row_blocks(const ClDevice& d, const backends::LoopLayout<2>& kept,
                            const backends::LoopLayout<2>& reduced) {
  if (!d.cpu_forms || !is_column_reduction(kept, reduced)) return {};
  const std::int64_t rows = reduced.numel;
  const std::int64_t width = kept.dims.back(), chunks = (width + kColumnChunk - 1) / kColumnChunk;
  const std::int64_t blocks = kept.numel / width * chunks;
  // Several items per compute unit, each over at least 64 rows.
  const std::int64_t wanted = 8 * std::max(d.compute_units, 1);
  const std::int64_t parts =
      std::clamp<std::int64_t>((wanted + blocks - 1) / blocks, 1, std::max<std::int64_t>(rows / 64, 1));
  return {static_cast<std::size_t>(blocks * parts), parts};
}

}  // namespace accelera::opencl
