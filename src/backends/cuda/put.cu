// The scatter of put: elements move as raw bits of their size.
#include "backends/cuda/common.cuh"
#include "backends/cuda/put_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

template <typename E>
__global__ void put_kernel(Layout L, E* dest, const E* values, const std::int64_t* indices, std::int64_t axis_stride,
                           std::int64_t axis_size) {
  for (std::int64_t g = first_index(); g < L.numel; g += grid_stride()) {
    std::int64_t off[3];
    offsets_of<3>(L, g, off);
    std::int64_t i = indices[off[2]];
    if (i < 0) i += axis_size;
    dest[off[0] + i * axis_stride] = values[off[1]];
  }
}

template <typename E>
void launch_put(const Layout& L, void* dest, const void* values, const std::int64_t* indices,
                std::int64_t axis_stride, std::int64_t axis_size, Launch launch) {
  put_kernel<E><<<blocks_for(L.numel, launch), kThreads, 0, launch.stream>>>(
      L, static_cast<E*>(dest), static_cast<const E*>(values), indices, axis_stride, axis_size);
  check_launch("put_kernel");
}

}  // namespace

void put(const Layout& L, void* dest, const void* values, const std::int64_t* indices, std::size_t itemsize,
         std::int64_t axis_stride, std::int64_t axis_size, Launch launch) {
  switch (itemsize) {
    case 1: return launch_put<std::uint8_t>(L, dest, values, indices, axis_stride, axis_size, launch);
    case 2: return launch_put<std::uint16_t>(L, dest, values, indices, axis_stride, axis_size, launch);
    case 4: return launch_put<std::uint32_t>(L, dest, values, indices, axis_stride, axis_size, launch);
    case 8: return launch_put<std::uint64_t>(L, dest, values, indices, axis_stride, axis_size, launch);
    default: return;  // the host side only passes sizes of stored dtypes
  }
}

}  // namespace accelera::cuda::kernels
