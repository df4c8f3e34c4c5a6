// Double-double arithmetic for double lanes on targets with a fused multiply-add (no include guard on
// purpose: see math-inl.h): exact products and sums as a rounded value and its exact error.
#if defined(ACCELERA_SIMD_DOUBLE_DOUBLE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACCELERA_SIMD_DOUBLE_DOUBLE_INL_H_
#undef ACCELERA_SIMD_DOUBLE_DOUBLE_INL_H_
#else
#define ACCELERA_SIMD_DOUBLE_DOUBLE_INL_H_
#endif

#include <hwy/highway.h>

#include "backends/cpu/simd/math-inl.h"

#if HWY_NATIVE_FMA
HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {

// A double-double: hi + lo with |lo| at most half an ulp of hi (up to the rounding of its last step).
template <class D>
struct Double2 {
  Vec<D> hi, lo;
};

// The rounding error of a * b: a * b == hi + exact_product_low(a, b, hi) exactly (barring overflow and
// underflow).
template <class D>
HWY_INLINE Vec<D> exact_product_low(D, Vec<D> a, Vec<D> b, Vec<D> hi) {
  return hn::MulSub(a, b, hi);
}

// a + b exactly as hi + lo (Knuth's two-sum: no condition on the magnitudes).
template <class D>
HWY_INLINE Double2<D> two_sum(D, Vec<D> a, Vec<D> b) {
  const auto s = hn::Add(a, b);
  const auto b_virtual = hn::Sub(s, a);
  const auto a_virtual = hn::Sub(s, b_virtual);
  return {s, hn::Add(hn::Sub(a, a_virtual), hn::Sub(b, b_virtual))};
}

// a + b exactly as hi + lo where |a| >= |b| (or a is 0).
template <class D>
HWY_INLINE Double2<D> fast_two_sum(D, Vec<D> a, Vec<D> b) {
  const auto s = hn::Add(a, b);
  return {s, hn::Sub(b, hn::Sub(s, a))};
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif  // HWY_NATIVE_FMA

#endif  // ACCELERA_SIMD_DOUBLE_DOUBLE_INL_H_
