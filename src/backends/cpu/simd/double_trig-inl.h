// sin, cos and tan of double lanes (no include guard on purpose: see math-inl.h).
//
// Note [Double sin, cos and tan]
// For |x| <= 2^20 (kSinCosLimit): n = round(x 2/pi) and r = x - n pi/2 as a double-double r_hi + r_lo,
// with pi/2 in three 53-bit parts C1 + C2 + C3 (to 2^-163) and fused multiply-adds: x - n C1 is exact (a
// multiple of x's ulp or of C1's, whichever is smaller, below 1 in magnitude: it fits 53 bits; or n is 0),
// n C2 is carried exactly (its rounding error by a fused multiply-add) into a two-sum, and n C3 (below
// 2^-88) is added to the low part. r is then within about 2^-140 absolutely, so within 2^-70 of itself
// unless |r| < 2^-70: such lanes (n != 0) go to libm (the caller's domain; none are known below 2^20).
// Then sin r = r_hi + (r_lo (1 - z/2) + r_hi z s(z)) and cos r = w + (((1 - w) - z/2) - z_lo/2 +
// (z^2 c(z) - r_hi r_lo)), w = 1 - z/2, z = r_hi^2 = z + z_lo exactly, with Cephes' polynomials s and c
// (math-inl.h): each adds its small terms before one final rounding. sin x and cos x are those chosen and
// signed by n mod 4; tan x the quotient of the two as double-doubles, corrected by its residual. Measured
// against long double (tests/cpp/test_simd_lane_functions.cpp): sin and cos within 0.7 ulp, tan within
// 0.8, at a fraction of libm's time. Only targets with a fused multiply-add compile this (the exact steps
// need one); the others keep libm.
#if defined(ACCELERA_SIMD_DOUBLE_TRIG_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACCELERA_SIMD_DOUBLE_TRIG_INL_H_
#undef ACCELERA_SIMD_DOUBLE_TRIG_INL_H_
#else
#define ACCELERA_SIMD_DOUBLE_TRIG_INL_H_
#endif

#include <hwy/highway.h>

#include "backends/cpu/simd/double_double-inl.h"
#include "backends/cpu/simd/math-inl.h"

#if HWY_NATIVE_FMA
HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {

// x = n pi/2 + (hi + lo): Note [Double sin, cos and tan].
template <class D>
struct DoubleRemainder {
  Vec<D> n, hi, lo;
};

template <class D>
HWY_INLINE DoubleRemainder<D> remainder_by_half_pi_double(D d, Vec<D> x) {
  static_assert(sizeof(hn::TFromD<D>) == 8, "needs double lanes");
  const auto n = hn::Round(hn::Mul(x, hn::Set(d, 0x1.45f306dc9c883p-1)));  // 2/pi
  const auto minus_n = hn::Neg(n);
  const auto first = hn::MulAdd(minus_n, hn::Set(d, 0x1.921fb54442d18p+0), x);  // exact
  const auto c2 = hn::Set(d, 0x1.1a62633145c07p-54);
  const auto second = hn::Mul(minus_n, c2);
  const auto second_low = exact_product_low(d, minus_n, c2, second);
  const Double2<D> sum = two_sum(d, first, second);
  const auto low = hn::MulAdd(minus_n, hn::Set(d, -0x1.f1976b7ed8fbcp-110), hn::Add(sum.lo, second_low));
  const Double2<D> r = fast_two_sum(d, sum.hi, low);
  return {n, r.hi, r.lo};
}

// The lanes the functions below compute: finite, |x| <= kSinCosLimit, and a remainder not too small for
// its reduction's accuracy.
template <class D>
HWY_INLINE hn::Mask<D> in_double_trig_domain(D d, Vec<D> x) {
  const auto small = hn::Le(hn::Abs(x), hn::Set(d, kSinCosLimit));  // false for nan
  const DoubleRemainder<D> r = remainder_by_half_pi_double(d, hn::IfThenElseZero(small, x));
  const auto accurate = hn::Or(hn::Eq(r.n, hn::Zero(d)), hn::Ge(hn::Abs(r.hi), hn::Set(d, 0x1p-70)));
  return hn::And(small, accurate);
}

// sin r and cos r as double-doubles: each its leading term plus the small terms, added last.
template <class D>
struct SinCosDouble2 {
  Vec<D> n;
  Double2<D> sin, cos;
};

template <class D>
HWY_INLINE SinCosDouble2<D> sin_cos_of_double_remainder(D d, const DoubleRemainder<D>& r) {
  const auto one = hn::Set(d, 1.0), half = hn::Set(d, 0.5);
  const auto z = hn::Mul(r.hi, r.hi);
  const auto z_low = exact_square_low(d, r.hi, z);
  const auto half_z = hn::Mul(z, half);
  const auto sin_small = hn::MulAdd(hn::Mul(r.hi, z), sin_tail(d, z), hn::Mul(r.lo, hn::Sub(one, half_z)));
  const auto w = hn::Sub(one, half_z);
  auto cos_small = hn::NegMulAdd(r.hi, r.lo, hn::Mul(hn::Mul(z, z), cos_tail(d, z)));
  cos_small = hn::Add(cos_small, hn::NegMulAdd(z_low, half, hn::Sub(hn::Sub(one, w), half_z)));
  return {r.n, fast_two_sum(d, r.hi, sin_small), fast_two_sum(d, w, cos_small)};
}

// sin x and cos x rounded once: the double-doubles' high parts, chosen and signed by the quadrant.
template <class D>
HWY_INLINE SinCos<D> sin_and_cos_double(D d, Vec<D> x) {
  const SinCosDouble2<D> sc = sin_cos_of_double_remainder(d, remainder_by_half_pi_double(d, x));
  return signed_sin_and_cos(d, HalfPiReduction<D>{sc.n, sc.sin.hi, sc.cos.hi});
}

template <class D>
HWY_INLINE Vec<D> sin_double(D d, Vec<D> x) {
  return keep_zero(d, x, sin_and_cos_double(d, x).sin);
}

template <class D>
HWY_INLINE Vec<D> cos_double(D d, Vec<D> x) {
  return sin_and_cos_double(d, x).cos;
}

// tan x = sin r / cos r, or -cos r / sin r for odd n: the quotient of the double-doubles, q = a / b
// corrected by (a - q b) / b (the residual exact to its last term), so that it rounds about once.
template <class D>
HWY_INLINE Vec<D> tan_double(D d, Vec<D> x) {
  const SinCosDouble2<D> sc = sin_cos_of_double_remainder(d, remainder_by_half_pi_double(d, x));
  const auto odd = is_odd(d, sc.n);
  const auto a_hi = hn::IfThenElse(odd, hn::Neg(sc.cos.hi), sc.sin.hi);
  const auto a_lo = hn::IfThenElse(odd, hn::Neg(sc.cos.lo), sc.sin.lo);
  const auto b_hi = hn::IfThenElse(odd, sc.sin.hi, sc.cos.hi);
  const auto b_lo = hn::IfThenElse(odd, sc.sin.lo, sc.cos.lo);
  const auto inverse = hn::Div(hn::Set(d, 1.0), b_hi);
  const auto q = hn::Mul(a_hi, inverse);
  const auto residual = hn::NegMulAdd(q, b_lo, hn::Add(hn::NegMulAdd(q, b_hi, a_hi), a_lo));
  return keep_zero(d, x, hn::MulAdd(residual, inverse, q));
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif  // HWY_NATIVE_FMA

#endif  // ACCELERA_SIMD_DOUBLE_TRIG_INL_H_
