// Compaction on CUDA (Note [Compaction] in ops/compress.hpp): a block per chunk. Flags are ranked within
// a warp by a ballot and a population count, and across the block's warps through shared memory.
#include "backends/cuda/common.cuh"
#include "backends/cuda/compress_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

constexpr int kWarp = 32;

__global__ void mask_counts_kernel(std::int64_t n, std::int64_t chunk, const std::uint8_t* mask,
                                   std::int64_t* counts) {
  __shared__ long long warp_sums[kThreads / kWarp];
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * chunk;
  const std::int64_t end = n < begin + chunk ? n : begin + chunk;
  long long sum = 0;
  for (std::int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) sum += mask[i] != 0;
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % kWarp == 0) warp_sums[threadIdx.x / kWarp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long total = 0;
    for (int w = 0; w < static_cast<int>(blockDim.x) / kWarp; ++w) total += warp_sums[w];
    counts[blockIdx.x] = total;
  }
}

struct Positions {
  __device__ std::int64_t operator()(std::int64_t i) const { return i; }
};

template <typename Bits>
struct Values {
  const Bits* x;
  __device__ Bits operator()(std::int64_t i) const { return x[i]; }
};

// Tiles of one element per thread: a kept element's slot is the chunk's base, the kept elements of the
// tile's earlier warps, and its rank within its warp.
template <typename Out, typename Value>
__global__ void compress_kernel(std::int64_t n, std::int64_t chunk, const std::uint8_t* mask,
                                const std::int64_t* offsets, Out* out, Value value) {
  __shared__ int warp_totals[kThreads / kWarp];
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * chunk;
  const std::int64_t end = n < begin + chunk ? n : begin + chunk;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  std::int64_t base = offsets[blockIdx.x];
  for (std::int64_t t = begin; t < end; t += blockDim.x) {
    const std::int64_t i = t + threadIdx.x;
    const bool flag = i < end && mask[i] != 0;
    const unsigned bits = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_totals[warp] = __popc(bits);
    __syncthreads();
    int before = 0, tile_total = 0;
    for (int w = 0; w < warps; ++w) {
      if (w < warp) before += warp_totals[w];
      tile_total += warp_totals[w];
    }
    if (flag) out[base + before + __popc(bits & ((1u << lane) - 1u))] = value(i);
    base += tile_total;
    __syncthreads();  // before the next tile overwrites warp_totals
  }
}

template <typename Out, typename Value>
void launch_compress(std::int64_t n, std::int64_t chunk, const std::uint8_t* mask, const std::int64_t* offsets,
                     Out* out, Value value, Launch launch) {
  const auto chunks = static_cast<unsigned>((n + chunk - 1) / chunk);
  compress_kernel<<<chunks, kThreads, 0, launch.stream>>>(n, chunk, mask, offsets, out, value);
  check_launch("compress");
}

template <typename Bits>
void compress_values(std::int64_t n, std::int64_t chunk, const void* x, const std::uint8_t* mask,
                     const std::int64_t* offsets, void* out, Launch launch) {
  launch_compress(n, chunk, mask, offsets, static_cast<Bits*>(out), Values<Bits>{static_cast<const Bits*>(x)},
                  launch);
}

}  // namespace

void mask_counts(std::int64_t n, std::int64_t chunk, const std::uint8_t* mask, std::int64_t* counts, Launch launch) {
  const auto chunks = static_cast<unsigned>((n + chunk - 1) / chunk);
  mask_counts_kernel<<<chunks, kThreads, 0, launch.stream>>>(n, chunk, mask, counts);
  check_launch("mask_counts");
}

bool compress(std::int64_t n, std::int64_t chunk, const void* x, std::size_t itemsize, const std::uint8_t* mask,
              const std::int64_t* offsets, void* out, Launch launch) {
  if (x == nullptr) {
    launch_compress(n, chunk, mask, offsets, static_cast<std::int64_t*>(out), Positions{}, launch);
    return true;
  }
  switch (itemsize) {
    case 1: compress_values<std::uint8_t>(n, chunk, x, mask, offsets, out, launch); return true;
    case 2: compress_values<std::uint16_t>(n, chunk, x, mask, offsets, out, launch); return true;
    case 4: compress_values<std::uint32_t>(n, chunk, x, mask, offsets, out, launch); return true;
    case 8: compress_values<std::uint64_t>(n, chunk, x, mask, offsets, out, launch); return true;
    default: return false;
  }
}

}  // namespace accelera::cuda::kernels
