// The gather of take and take_along_axis: elements move as raw bits of their size.
#include "backends/cuda/common.cuh"
#include "backends/cuda/take_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

template <typename E, typename I>
__global__ void take_kernel(Layout L, E* out, const E* source, const I* indices, std::int64_t axis_stride,
                            std::int64_t axis_size, std::int32_t* bad) {
  for (std::int64_t g = first_index(); g < L.numel; g += grid_stride()) {
    std::int64_t off[3];
    offsets_of<3>(L, g, off);
    std::int64_t i = static_cast<std::int64_t>(indices[off[2]]);
    if (i < 0) i += axis_size;
    if (i < 0 || i >= axis_size) {
      *bad = 1;  // every writer stores the same value
      continue;
    }
    out[off[0]] = source[off[1] + i * axis_stride];
  }
}

template <typename E>
void launch_take(const Layout& L, void* out, const void* source, const void* indices, bool index_is_32,
                 std::int64_t axis_stride, std::int64_t axis_size, std::int32_t* bad, Launch launch) {
  const unsigned grid = blocks_for(L.numel, launch);
  if (index_is_32) {
    take_kernel<E, std::int32_t><<<grid, kThreads, 0, launch.stream>>>(
        L, static_cast<E*>(out), static_cast<const E*>(source), static_cast<const std::int32_t*>(indices),
        axis_stride, axis_size, bad);
  } else {
    take_kernel<E, std::int64_t><<<grid, kThreads, 0, launch.stream>>>(
        L, static_cast<E*>(out), static_cast<const E*>(source), static_cast<const std::int64_t*>(indices),
        axis_stride, axis_size, bad);
  }
  check_launch("take_kernel");
}

}  // namespace

void take(const Layout& L, void* out, const void* source, const void* indices, bool index_is_32,
          std::size_t itemsize, std::int64_t axis_stride, std::int64_t axis_size, std::int32_t* bad, Launch launch) {
  switch (itemsize) {
    case 1: return launch_take<std::uint8_t>(L, out, source, indices, index_is_32, axis_stride, axis_size, bad, launch);
    case 2: return launch_take<std::uint16_t>(L, out, source, indices, index_is_32, axis_stride, axis_size, bad, launch);
    case 4: return launch_take<std::uint32_t>(L, out, source, indices, index_is_32, axis_stride, axis_size, bad, launch);
    case 8: return launch_take<std::uint64_t>(L, out, source, indices, index_is_32, axis_stride, axis_size, bad, launch);
    default: return;  // the host side only passes sizes of stored dtypes
  }
}

}  // namespace accelera::cuda::kernels
