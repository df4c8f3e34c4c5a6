// The where kernel on CUDA (Note [where] in ops/where.hpp): out = condition ? x1 : x2, elements moved by
// size.
#include "backends/cuda/common.cuh"
#include "backends/cuda/where_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

// The offset of flat index i in operand 0 of L2, whose dims are L's.
__device__ inline std::int64_t second_offset(const Layout& L2, std::int64_t i) {
  std::int64_t off[1];
  offsets_of<1>(L2, i, off);
  return off[0];
}

template <typename Bits>
__global__ void where_strided(Layout L, Layout L2, Bits* out, const std::uint8_t* condition, const Bits* x1,
                              const Bits* x2) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[3];
    offsets_of<3>(L, i, off);
    out[off[0]] = condition[off[1]] ? x1[off[2]] : x2[second_offset(L2, i)];
  }
}

template <typename Bits>
void launch_where(const Layout& L, const Layout& L2, void* out, const void* condition, const void* x1,
                  const void* x2, Launch launch) {
  where_strided<Bits><<<blocks_for(L.numel, launch), kThreads, 0, launch.stream>>>(
      L, L2, static_cast<Bits*>(out), static_cast<const std::uint8_t*>(condition),
      static_cast<const Bits*>(x1), static_cast<const Bits*>(x2));
  check_launch("where");
}

}  // namespace

bool where(const Layout& L, const Layout& L2, void* out, const void* condition, const void* x1, const void* x2,
           std::size_t itemsize, Launch launch) {
  switch (itemsize) {
    case 1: launch_where<std::uint8_t>(L, L2, out, condition, x1, x2, launch); return true;
    case 2: launch_where<std::uint16_t>(L, L2, out, condition, x1, x2, launch); return true;
    case 4: launch_where<std::uint32_t>(L, L2, out, condition, x1, x2, launch); return true;
    case 8: launch_where<std::uint64_t>(L, L2, out, condition, x1, x2, launch); return true;
    default: return false;
  }
}

}  // namespace accelera::cuda::kernels
