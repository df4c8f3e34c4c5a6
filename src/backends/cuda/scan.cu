// cumulative_sum and cumulative_prod (Note [Scans] in src/ops/scan.hpp) in three phases: block totals, a
// per-line exclusive scan of the totals, then each block scanned from its carry. Thread g works on
// (o, b, j) with j fastest, so adjacent threads read adjacent columns when inner > 1.
#include <type_traits>

#include "backends/cuda/common.cuh"
#include "backends/cuda/scan_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

// float32 and float64 accumulate in double, float16/bfloat16 in float, int64 as uint64 (wrapping).
template <typename T>
struct ScanAccumulator {
  using type = std::conditional_t<std::is_same_v<T, std::int64_t>, std::uint64_t,
                                  std::conditional_t<std::is_same_v<compute_t<T>, float> &&
                                                         !std::is_same_v<T, float>,
                                                     float, double>>;
};

template <bool Prod, typename A>
__device__ inline A identity() {
  return Prod ? A(1) : A(0);
}
template <bool Prod, typename A>
__device__ inline A combine(A a, A b) {
  return Prod ? a * b : a + b;
}

template <typename T, typename A>
__device__ inline A widen(T v) {
  return static_cast<A>(load(v));
}

template <bool Prod, typename T, typename A>
__global__ void scan_totals(ScanShape s, const T* x, A* totals) {
  for (std::int64_t g = first_index(); g < s.outer * s.blocks * s.inner; g += grid_stride()) {
    const std::int64_t j = g % s.inner, b = (g / s.inner) % s.blocks, o = g / (s.inner * s.blocks);
    const std::int64_t i0 = b * s.block, i1 = min(s.n, i0 + s.block);
    const T* line = x + o * s.n * s.inner + j;
    A total = identity<Prod, A>();
    for (std::int64_t i = i0; i < i1; ++i) total = combine<Prod>(total, widen<T, A>(line[i * s.inner]));
    totals[(o * s.blocks + b) * s.inner + j] = total;
  }
}

template <bool Prod, typename A>
__global__ void scan_carries(ScanShape s, A* totals) {
  for (std::int64_t g = first_index(); g < s.outer * s.inner; g += grid_stride()) {
    const std::int64_t j = g % s.inner, o = g / s.inner;
    A carry = identity<Prod, A>();
    for (std::int64_t b = 0; b < s.blocks; ++b) {
      A& slot = totals[(o * s.blocks + b) * s.inner + j];
      const A total = slot;
      slot = carry;
      carry = combine<Prod>(carry, total);
    }
  }
}

template <bool Prod, typename T, typename A>
__global__ void scan_apply(ScanShape s, const T* x, T* out, const A* carries) {
  const std::int64_t initial = s.include_initial ? 1 : 0;
  for (std::int64_t g = first_index(); g < s.outer * s.blocks * s.inner; g += grid_stride()) {
    const std::int64_t j = g % s.inner, b = (g / s.inner) % s.blocks, o = g / (s.inner * s.blocks);
    const std::int64_t i0 = b * s.block, i1 = min(s.n, i0 + s.block);
    const T* line = x + o * s.n * s.inner + j;
    T* dst = out + o * (s.n + initial) * s.inner + j;
    if (initial) {
      if (b == 0) dst[0] = store<T>(static_cast<compute_t<T>>(identity<Prod, A>()));
      dst += s.inner;
    }
    A carry = s.blocks > 1 ? carries[(o * s.blocks + b) * s.inner + j] : identity<Prod, A>();
    for (std::int64_t i = i0; i < i1; ++i) {
      carry = combine<Prod>(carry, widen<T, A>(line[i * s.inner]));
      dst[i * s.inner] = store<T>(static_cast<compute_t<T>>(carry));
    }
  }
}

template <bool Prod, typename T>
void launch_scan(const ScanShape& s, const void* x_bytes, void* out_bytes, void* totals_bytes, Launch launch) {
  using A = typename ScanAccumulator<T>::type;
  const T* x = static_cast<const T*>(x_bytes);
  T* out = static_cast<T*>(out_bytes);
  A* totals = static_cast<A*>(totals_bytes);
  const std::int64_t items = s.outer * s.blocks * s.inner;
  if (s.blocks > 1) {
    scan_totals<Prod, T, A><<<blocks_for(items, launch), kThreads, 0, launch.stream>>>(s, x, totals);
    check_launch("scan_totals");
    scan_carries<Prod, A><<<blocks_for(s.outer * s.inner, launch), kThreads, 0, launch.stream>>>(s, totals);
    check_launch("scan_carries");
  }
  scan_apply<Prod, T, A><<<blocks_for(items, launch), kThreads, 0, launch.stream>>>(s, x, out, totals);
  check_launch("scan_apply");
}

template <bool Prod>
bool scan_of(DType dtype, const ScanShape& s, const void* x, void* out, void* totals, Launch launch) {
  switch (dtype) {
    case DType::f32: launch_scan<Prod, float>(s, x, out, totals, launch); return true;
    case DType::f64: launch_scan<Prod, double>(s, x, out, totals, launch); return true;
    case DType::f16: launch_scan<Prod, Half>(s, x, out, totals, launch); return true;
    case DType::bf16: launch_scan<Prod, BFloat16>(s, x, out, totals, launch); return true;
    case DType::i64: launch_scan<Prod, std::int64_t>(s, x, out, totals, launch); return true;
    default: return false;
  }
}

}  // namespace

bool scan(bool prod, DType dtype, const ScanShape& shape, const void* x, void* out, void* totals, Launch launch) {
  return prod ? scan_of<true>(dtype, shape, x, out, totals, launch)
              : scan_of<false>(dtype, shape, x, out, totals, launch);
}

}  // namespace accelera::cuda::kernels
