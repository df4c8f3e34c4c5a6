// Loops over contiguous runs for Highway kernels (no include guard on purpose: see math-inl.h): whole
// vectors with unaligned loads, a partial last vector through a padded buffer (never reading or writing
// past the run), and streaming stores on an aligned body when asked.
#if defined(ACCELERA_SIMD_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACCELERA_SIMD_LOOPS_INL_H_
#undef ACCELERA_SIMD_LOOPS_INL_H_
#else
#define ACCELERA_SIMD_LOOPS_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <cstdint>
#include <cstring>

#include "backends/cpu/simd/simd_kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// The first `count` (< Lanes) elements of p, the other lanes set to `pad`.
template <class D>
HWY_INLINE hn::Vec<D> load_partial(D d, const hn::TFromD<D>* p, size_t count, hn::TFromD<D> pad = 0) {
  HWY_ALIGN hn::TFromD<D> lanes[hn::MaxLanes(d)];
  for (size_t i = 0; i < hn::Lanes(d); ++i) lanes[i] = pad;
  std::memcpy(lanes, p, count * sizeof(hn::TFromD<D>));
  return hn::Load(d, lanes);
}

template <class D>
HWY_INLINE void store_partial(D d, hn::Vec<D> v, hn::TFromD<D>* p, size_t count) {
  HWY_ALIGN hn::TFromD<D> lanes[hn::MaxLanes(d)];
  hn::Store(v, d, lanes);
  std::memcpy(p, lanes, count * sizeof(hn::TFromD<D>));
}

// Orders streaming stores before whatever the caller does next (the threads' join included).
HWY_INLINE void finish_stores(Store store) {
  if (store == Store::streaming) hwy::FlushStream();
}

// Elements before the first vector-aligned address of p (0 when p is aligned).
template <class D>
HWY_INLINE size_t elements_to_alignment(D d, const hn::TFromD<D>* p) {
  const size_t lanes = hn::Lanes(d);
  const size_t offset = (reinterpret_cast<std::uintptr_t>(p) / sizeof(hn::TFromD<D>)) % lanes;
  return offset == 0 ? 0 : lanes - offset;
}

// out[k] = fn(in[k]...) for k < n, in lane-wise vectors; fn(Vec...) -> Vec. out may be one of the inputs
// (in place). With Store::streaming the aligned body of out is written with non-temporal stores, which
// the entry point orders with finish_stores() once, after its last one (a fence per row would stall).
// Streaming stores leave the hardware prefetchers fewer line-fill buffers: asking for the inputs 2 KiB
// ahead kept a 64 MiB GELU at 23 GiB/s instead of 18 (the Sapphire Rapids VM of docs/benchmarks.md).
inline constexpr size_t kPrefetchBytes = 2048;

template <class D, class Fn, class... T>
HWY_INLINE void transform(D d, hn::TFromD<D>* out, size_t n, Store store, const Fn& fn, const T*... in) {
  const size_t lanes = hn::Lanes(d);
  size_t k = 0;
  if (store == Store::streaming && n >= 4 * lanes) {
    const size_t head = elements_to_alignment(d, out);
    if (head != 0) store_partial(d, fn(load_partial(d, in, head)...), out, head);
    for (k = head; k + lanes <= n; k += lanes) {
      (hwy::Prefetch(in + k + kPrefetchBytes / sizeof(T)), ...);
      hn::Stream(fn(hn::LoadU(d, in + k)...), d, out + k);
    }
  } else {
    for (; k + lanes <= n; k += lanes) hn::StoreU(fn(hn::LoadU(d, in + k)...), d, out + k);
  }
  if (k < n) store_partial(d, fn(load_partial(d, in + k, n - k)...), out + k, n - k);
}

// Sum over k < n of term(Vec...) of the inputs' lanes, in four independent accumulators; the lanes of a
// partial last vector are padded with `pad` before term() sees them.
template <class D, class Term, class... T>
HWY_INLINE hn::TFromD<D> sum_of(D d, size_t n, hn::TFromD<D> pad, const Term& term, const T* HWY_RESTRICT... in) {
  const size_t lanes = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t k = 0;
  for (; k + 4 * lanes <= n; k += 4 * lanes) {
    s0 = hn::Add(s0, term(hn::LoadU(d, in + k)...));
    s1 = hn::Add(s1, term(hn::LoadU(d, in + k + lanes)...));
    s2 = hn::Add(s2, term(hn::LoadU(d, in + k + 2 * lanes)...));
    s3 = hn::Add(s3, term(hn::LoadU(d, in + k + 3 * lanes)...));
  }
  for (; k + lanes <= n; k += lanes) s0 = hn::Add(s0, term(hn::LoadU(d, in + k)...));
  if (k < n) {
    const auto mask = hn::FirstN(d, n - k);
    s1 = hn::Add(s1, hn::IfThenElseZero(mask, term(load_partial(d, in + k, n - k, pad)...)));
  }
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ACCELERA_SIMD_LOOPS_INL_H_
