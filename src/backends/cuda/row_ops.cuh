#pragma once
// Shared by the row kernels (layer_norm.cu, softmax.cu): warp and block reductions, the per-thread
// register cache of a row, and grid sizes from the occupancy the runtime reports.
#include <atomic>

#include "backends/cuda/common.cuh"
#include "backends/cuda/nn_launch.hpp"

namespace accelera::cuda::kernels {

template <typename C>
__device__ inline C warp_sum(C v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// max that propagates nan, as NumPy's does.
template <typename C>
__device__ inline C max_nan(C a, C b) {
  return (b > a || b != b) ? b : a;
}

template <typename C>
__device__ inline C warp_max(C v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = max_nan(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Sum (or nan-propagating max) over the block; every thread gets the result. blockDim.x is a multiple of
// 32. `scratch` holds 32 values; the leading barrier keeps a previous call's readers ahead of the writes.
template <bool Max, typename C>
__device__ inline C block_reduce(C v, C* scratch) {
  v = Max ? warp_max(v) : warp_sum(v);
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int warps = static_cast<int>(blockDim.x) >> 5;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const C identity = Max ? -static_cast<C>(INFINITY) : C(0);
  const C partial = lane < warps ? scratch[lane] : identity;  // each warp combines the partials itself
  return Max ? warp_max(partial) : warp_sum(partial);
}

// f(j, k) for this thread's columns of a row of n: k = threadIdx.x + j * blockDim.x. With Cached > 0
// (n <= Cached * blockDim.x) the loop is unrolled, so j is a constant that indexes registers.
template <int Cached, typename F>
__device__ inline void for_each_column(std::int64_t n, F&& f) {
  if constexpr (Cached > 0) {
#pragma unroll
    for (int j = 0; j < Cached; ++j) {
      const std::int64_t k = threadIdx.x + static_cast<std::int64_t>(j) * blockDim.x;
      if (k < n) f(j, k);
    }
  } else {
    for (std::int64_t k = threadIdx.x; k < n; k += blockDim.x) f(0, k);
  }
}

// A thread's elements of one row: held in registers when Cached > 0, else re-read from memory each time.
template <typename T, int Cached>
struct RowSlice {
  using C = compute_t<T>;
  const T* row;
  C v[Cached > 0 ? Cached : 1];

  __device__ RowSlice(const T* r, std::int64_t n) : row(r) {
    if constexpr (Cached > 0) {
      for_each_column<Cached>(n, [&](int j, std::int64_t k) { v[j] = load(row[k]); });
    }
  }
  // The value at this thread's j-th position, column k.
  __device__ C at(int j, std::int64_t k) const {
    if constexpr (Cached > 0) {
      return v[j];
    } else {
      return load(row[k]);
    }
  }
};

inline constexpr int kMaxDevices = 64;

// Blocks to launch for `rows` independent rows: as many as fit on the device at once (the occupancy the
// runtime computes for this kernel and block width, cached per kernel and device), never more than the rows.
template <auto Kernel>
unsigned row_grid(int threads, std::int64_t rows, const Target& target) {
  static std::atomic<int> cached[kMaxDevices][33] = {};  // [device][threads / 32]
  int per_sm = 0;
  const bool cacheable = target.ordinal >= 0 && target.ordinal < kMaxDevices && threads % 32 == 0 && threads <= 1024;
  if (cacheable) per_sm = cached[target.ordinal][threads / 32].load(std::memory_order_relaxed);
  if (per_sm == 0) {
    check_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, threads, 0),
                 "querying the occupancy of a row kernel");
    per_sm = per_sm < 1 ? 1 : per_sm;
    if (cacheable) cached[target.ordinal][threads / 32].store(per_sm, std::memory_order_relaxed);
  }
  const std::int64_t fill = static_cast<std::int64_t>(per_sm) * target.sm_count;
  const std::int64_t grid = rows < fill ? rows : fill;
  return static_cast<unsigned>(grid < 1 ? 1 : grid);
}

// Calls f(std::integral_constant<int, Cached>) for the row plan's cache width.
template <typename F>
bool with_cache_width(int cached, F&& f) {
  switch (cached) {
    case 0: f(std::integral_constant<int, 0>{}); return true;
    case 4: f(std::integral_constant<int, 4>{}); return true;
    case 8: f(std::integral_constant<int, 8>{}); return true;
    default: return false;
  }
}

// Calls f(T{}, std::integral_constant<int, Cached>{}) for a floating dtype and a plan's cache width; false,
// calling nothing, for another dtype.
template <typename F>
bool with_row_types(DType dtype, int cached, F&& f) {
  bool width_known = false;
  const bool dtype_known =
      with_float_type(dtype, [&](auto t) { width_known = with_cache_width(cached, [&](auto width) { f(t, width); }); });
  return dtype_known && width_known;
}

}  // namespace accelera::cuda::kernels
