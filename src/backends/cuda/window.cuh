#pragma once
// Device helpers shared by the sliding-window kernels (im2col.cu, max_pool.cu).
#include <cstdint>

#include "backends/cuda/im2col_launch.hpp"

namespace accelera::cuda::kernels {

// The output position along axis a whose window reads input i through kernel offset k, or -1:
// o = (i + pad - k dilation) / stride when that division is exact and o is in range.
__device__ inline std::int64_t window_reader(std::int64_t i, std::int64_t k, const Window& g, int a) {
  const std::int64_t t = i + g.pad[a] - k * g.dilation[a];
  if (t < 0 || t % g.stride[a] != 0 || t / g.stride[a] >= g.out[a]) return -1;
  return t / g.stride[a];
}

}  // namespace accelera::cuda::kernels
