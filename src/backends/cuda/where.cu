// The where kernel on CUDA (Note [where] in ops/where.hpp): elements moved by size.
#include "backends/cuda/common.cuh"
#include "backends/cuda/where_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

template <typename Bits>
__global__ void where_strided(Layout L, Bits* out, const std::uint8_t* condition, const Bits* x) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[3];
    offsets_of<3>(L, i, off);
    if (condition[off[1]]) out[off[0]] = x[off[2]];
  }
}

template <typename Bits>
void launch_where(const Layout& L, void* out, const void* condition, const void* x, Launch launch) {
  where_strided<Bits><<<blocks_for(L.numel, launch), kThreads, 0, launch.stream>>>(
      L, static_cast<Bits*>(out), static_cast<const std::uint8_t*>(condition), static_cast<const Bits*>(x));
  check_launch("where");
}

}  // namespace

bool where(const Layout& L, void* out, const void* condition, const void* x, std::size_t itemsize, Launch launch) {
  switch (itemsize) {
    case 1: launch_where<std::uint8_t>(L, out, condition, x, launch); return true;
    case 2: launch_where<std::uint16_t>(L, out, condition, x, launch); return true;
    case 4: launch_where<std::uint32_t>(L, out, condition, x, launch); return true;
    case 8: launch_where<std::uint64_t>(L, out, condition, x, launch); return true;
    default: return false;
  }
}

}  // namespace accelera::cuda::kernels
