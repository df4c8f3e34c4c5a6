#pragma once
// Host entry points of the CUDA scans (scan.cu; Note [Scans] in ops/scan.hpp).
#include <cstdint>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

struct ScanShape {
  std::int64_t outer = 0, n = 0, inner = 0, blocks = 1, block = 0;
  bool include_initial = false;
};

// cumulative sum (prod = false) or product of contiguous x into contiguous out. `totals` holds
// outer * blocks * inner accumulators (8 bytes each) when blocks > 1. False for a dtype it does not compute.
bool scan(bool prod, DType dtype, const ScanShape& shape, const void* x, void* out, void* totals, Launch launch);

}  // namespace accelera::cuda::kernels
