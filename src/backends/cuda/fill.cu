// Fills a strided tensor with one element's bit pattern (computed on the host by the CPU backend, so the
// value converts exactly as there).
#include "backends/cuda/common.cuh"

namespace accelera::cuda::kernels {

namespace {

template <typename E>
__global__ void fill_kernel(Layout L, E* dst, E pattern) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[1];
    offsets_of<1>(L, i, off);
    dst[off[0]] = pattern;
  }
}

template <typename E>
void launch_fill(const Layout& L, void* dst, std::uint64_t pattern, Launch launch) {
  fill_kernel<E><<<blocks_for(L.numel, launch), kThreads, 0, launch.stream>>>(L, static_cast<E*>(dst),
                                                                             static_cast<E>(pattern));
  check_launch("fill_kernel");
}

}  // namespace

void fill(const Layout& L, void* dst, std::uint64_t pattern, std::size_t itemsize, Launch launch) {
  switch (itemsize) {
    case 1: return launch_fill<std::uint8_t>(L, dst, pattern, launch);
    case 2: return launch_fill<std::uint16_t>(L, dst, pattern, launch);
    case 4: return launch_fill<std::uint32_t>(L, dst, pattern, launch);
    case 8: return launch_fill<std::uint64_t>(L, dst, pattern, launch);
    default: return;  // the host side only passes sizes of stored dtypes
  }
}

}  // namespace accelera::cuda::kernels
