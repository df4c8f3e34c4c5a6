// Vectorised math for any Highway target (no include guard on purpose: foreach_target.h includes this once
// per target): exp, expm1, log, log1p, tanh and sigmoid in float and double lanes; the pi/2 reduction of
// sin, cos and tan and pow of float operands for double lanes; cosh, log2, log10 and atan2 for either (Note [Vector
// transcendental functions] in lane_functions-inl.h; the inverse trigonometric and hyperbolic functions
// and sinh come from Highway's contrib/math). The polynomials of exp, log, tanh and sigmoid are those of
// the scalar forms the CPU backend used before (Cephes-style reductions; see the accuracy figures in
// tests/cpp/test_simd_accuracy.cpp): exp within 1.5 ulp, log, tanh and sigmoid within a few ulp; inf,
// nan, zero and subnormals follow libm.
#if defined(ACCELERA_SIMD_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACCELERA_SIMD_MATH_INL_H_
#undef ACCELERA_SIMD_MATH_INL_H_
#else
#define ACCELERA_SIMD_MATH_INL_H_
#endif

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

template <class D>
using Vec = hn::Vec<D>;

// Horner's scheme with the coefficients highest degree first.
template <class D, typename... C>
HWY_INLINE Vec<D> polynomial(D d, Vec<D> x, double c0, C... rest) {
  using T = hn::TFromD<D>;
  Vec<D> p = hn::Set(d, static_cast<T>(c0));
  ((p = hn::MulAdd(p, x, hn::Set(d, static_cast<T>(rest)))), ...);
  return p;
}

// The rounding error of a * a: a * a == hi + exact_square_low(a, hi) exactly (for |a| < 2^60). With a
// fused multiply-add it is one instruction; without one (SSE4, the scalar fallback) Dekker's splitting.
template <class D>
HWY_INLINE Vec<D> exact_square_low(D d, Vec<D> a, Vec<D> hi) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulSub(a, a, hi);
#else
  using T = hn::TFromD<D>;
  constexpr T split = sizeof(T) == 4 ? T(4097) : T(134217729);  // 2^ceil(p/2) + 1
  const auto c = hn::Mul(a, hn::Set(d, split));
  const auto a_hi = hn::Sub(c, hn::Sub(c, a));
  const auto a_lo = hn::Sub(a, a_hi);
  const auto err = hn::Sub(hn::Mul(a_hi, a_hi), hi);
  const auto cross = hn::Mul(hn::Add(a_hi, a_hi), a_lo);
  return hn::Add(hn::Add(err, cross), hn::Mul(a_lo, a_lo));
#endif
}

// 2^n for integral n (as a float vector) in [emin - mantissa bits, emax], as two factors whose product is
// exact, so that results in the subnormal range stay exact.
template <class D>
HWY_INLINE void two_to_the(D d, Vec<D> n, Vec<D>& s1, Vec<D>& s2) {
  using T = hn::TFromD<D>;
  const hn::RebindToSigned<D> di;
  constexpr int mantissa = sizeof(T) == 4 ? 23 : 52;
  const auto bias = hn::Set(di, sizeof(T) == 4 ? 127 : 1023);
  const auto ni = hn::ConvertTo(di, n);
  const auto n1 = hn::ShiftRight<1>(ni);
  s1 = hn::BitCast(d, hn::ShiftLeft<mantissa>(hn::Add(n1, bias)));
  s2 = hn::BitCast(d, hn::ShiftLeft<mantissa>(hn::Add(hn::Sub(ni, n1), bias)));
}

// r = x - n ln 2 in two parts (n * ln2_hi is exact), |r| <= ln 2 / 2 for n = round(x / ln 2).
template <class D>
HWY_INLINE Vec<D> reduce_by_ln2(D d, Vec<D> x, Vec<D> n) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  constexpr T ln2_hi = is_float ? T(0.693359375f) : T(6.93147180369123816490e-01);
  constexpr T ln2_lo = is_float ? T(-2.12194440e-4f) : T(1.90821492927058770002e-10);
  return hn::NegMulAdd(n, hn::Set(d, ln2_lo), hn::NegMulAdd(n, hn::Set(d, ln2_hi), x));
}

// n = round(x / ln 2), as a float vector: adding and subtracting 1.5 * 2^mantissa rounds to an integer.
template <class D>
HWY_INLINE Vec<D> nearest_ln2_multiple(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr T log2e = T(1.4426950408889634);
  const auto round = hn::Set(d, sizeof(T) == 4 ? T(12582912.0f) : T(6755399441055744.0));
  return hn::Sub(hn::MulAdd(x, hn::Set(d, log2e), round), round);
}

// e^r - 1 = r + r^2 p(r) for |r| <= ln 2 / 2: float, Cephes' expf polynomial; double, the Taylor series
// to degree 13 (truncation below 1e-17 relative).
template <class D>
HWY_INLINE Vec<D> exp_reduced_minus_one(D d, Vec<D> r) {
  using T = hn::TFromD<D>;
  Vec<D> p;
  if constexpr (sizeof(T) == 4) {
    p = polynomial(d, r, 1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
                   5.0000001201e-1);
  } else {
    p = polynomial(d, r, 1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0,
                   1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5);
  }
  return hn::MulAdd(p, hn::Mul(r, r), r);
}

// exp without its special cases: x is clamped to [-104, 89] (float; [-746, 710] double), so results past
// the overflow threshold come out as +inf from the scaling and those past underflow as 0 or the smallest
// subnormal; a nan input gives an unspecified number. For callers that select nan themselves.
template <class D>
HWY_INLINE Vec<D> exp_unchecked(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  constexpr T lo_clamp = is_float ? T(-104) : T(-746), hi_clamp = is_float ? T(89) : T(710);
  const auto xc = hn::Min(hn::Max(x, hn::Set(d, lo_clamp)), hn::Set(d, hi_clamp));
  const auto n = nearest_ln2_multiple(d, xc);
  const auto y = hn::Add(exp_reduced_minus_one(d, reduce_by_ln2(d, xc, n)), hn::Set(d, T(1)));
  Vec<D> s1, s2;
  two_to_the(d, n, s1, s2);
  return hn::Mul(hn::Mul(y, s1), s2);
}

// exp(x) for x <= 0 that is not nan (softmax's x - max(x)), in about half the work of exp(): nothing can
// overflow and no special value needs selecting. x is clamped where 2^n is the smallest normal, so
// results below about 1.2e-38 (float; 2.2e-308 double) come out as at most that, within 1.5 ulp above it.
// 2^n is read from the rounding constant's own bits: t = x log2(e) + (1.5 * 2^mantissa + bias) carries
// n + bias in its low bits, which shifted into the exponent field are 2^n.
template <class D>
HWY_INLINE Vec<D> exp_nonpositive(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  const hn::RebindToSigned<D> di;
  constexpr int mantissa = is_float ? 23 : 52;
  constexpr T lowest = is_float ? T(-87.33654475) : T(-708.39641853226408);  // ln of the smallest normal
  constexpr T log2e = T(1.4426950408889634);
  constexpr T magic = is_float ? T(12582912.0f + 127.0f) : T(6755399441055744.0 + 1023.0);
  const auto xc = hn::Max(x, hn::Set(d, lowest));
  const auto t = hn::MulAdd(xc, hn::Set(d, log2e), hn::Set(d, magic));
  const auto n = hn::Sub(t, hn::Set(d, magic));
  const auto y = hn::Add(exp_reduced_minus_one(d, reduce_by_ln2(d, xc, n)), hn::Set(d, T(1)));
  const auto scale = hn::BitCast(d, hn::ShiftLeft<mantissa>(hn::BitCast(di, t)));
  return hn::Mul(y, scale);
}

template <class D>
HWY_INLINE Vec<D> exp(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  constexpr T overflow = is_float ? T(88.72283935546875f) : T(709.782712893383973);
  constexpr T underflow = is_float ? T(-103.972084045410f) : T(-745.133219101941217);
  auto out = exp_unchecked(d, x);
  out = hn::IfThenElse(hn::Gt(x, hn::Set(d, overflow)), hn::Set(d, std::numeric_limits<T>::infinity()), out);
  out = hn::IfThenZeroElse(hn::Lt(x, hn::Set(d, underflow)), out);
  return hn::IfThenElse(hn::IsNaN(x), x, out);
}

// x = 2^e m with m in [sqrt(2)/2, sqrt(2)) (subnormals scaled first), and log(m), for x > 0 finite: the
// shared reduction of log, log2 and log10.
template <class D>
struct LogParts {
  Vec<D> e, log_m;
};

template <class D>
HWY_INLINE LogParts<D> log_parts(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  const hn::RebindToSigned<D> di;
  using I = hn::TFromD<decltype(di)>;
  constexpr int mantissa = is_float ? 23 : 52;
  constexpr T smallest_normal = std::numeric_limits<T>::min();
  constexpr T subnormal_scale = is_float ? T(8388608.0f) : T(4503599627370496.0);  // 2^mantissa
  constexpr I mantissa_mask = (I(1) << mantissa) - 1;
  constexpr I exponent_of_one = is_float ? I(0x3f800000) : I(0x3ff0000000000000LL);
  const auto sub = hn::Lt(x, hn::Set(d, smallest_normal));
  const auto xs = hn::IfThenElse(sub, hn::Mul(x, hn::Set(d, subnormal_scale)), x);
  const auto bits = hn::BitCast(di, xs);
  const auto biased = hn::And(hn::ShiftRight<mantissa>(bits), hn::Set(di, is_float ? I(0xff) : I(0x7ff)));
  const auto e_int = hn::Sub(biased, hn::Set(di, is_float ? I(127) : I(1023)));
  auto m = hn::BitCast(d, hn::Or(hn::And(bits, hn::Set(di, mantissa_mask)), hn::Set(di, exponent_of_one)));
  const auto big = hn::Gt(m, hn::Set(d, T(1.4142135623730951)));  // m in [sqrt(2)/2, sqrt(2))
  m = hn::IfThenElse(big, hn::Mul(m, hn::Set(d, T(0.5))), m);
  auto e = hn::ConvertTo(d, e_int);
  e = hn::Add(e, hn::IfThenElseZero(big, hn::Set(d, T(1))));
  e = hn::Sub(e, hn::IfThenElseZero(sub, hn::Set(d, T(mantissa))));
  const auto f = hn::Sub(m, hn::Set(d, T(1)));
  const auto s = hn::Div(f, hn::Add(hn::Set(d, T(2)), f));
  const auto z = hn::Mul(s, s);
  Vec<D> p;
  if constexpr (is_float) {
    p = polynomial(d, z, 1.0 / 9.0, 1.0 / 7.0, 1.0 / 5.0, 1.0 / 3.0);
  } else {  // |s| <= 0.1716, s^2 <= 0.0295
    p = polynomial(d, z, 1.0 / 23.0, 1.0 / 21.0, 1.0 / 19.0, 1.0 / 17.0, 1.0 / 15.0, 1.0 / 13.0, 1.0 / 11.0, 1.0 / 9.0,
                   1.0 / 7.0, 1.0 / 5.0, 1.0 / 3.0);
  }
  const auto two_s = hn::Add(s, s);
  return {e, hn::MulAdd(hn::Mul(two_s, z), p, two_s)};
}

template <class D>
HWY_INLINE Vec<D> log(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  const auto [e, log_m] = log_parts(d, x);
  constexpr T ln2_hi = is_float ? T(0.693359375f) : T(6.93147180369123816490e-01);
  constexpr T ln2_lo = is_float ? T(-2.12194440e-4f) : T(1.90821492927058770002e-10);
  auto out = hn::MulAdd(e, hn::Set(d, ln2_hi), hn::MulAdd(e, hn::Set(d, ln2_lo), log_m));
  const auto inf = hn::Set(d, std::numeric_limits<T>::infinity());
  out = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(inf), out);
  out = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Set(d, std::numeric_limits<T>::quiet_NaN()), out);
  out = hn::IfThenElse(hn::Eq(x, inf), x, out);
  return hn::IfThenElse(hn::IsNaN(x), x, out);
}

// log2 and log10 of finite x > 0 (callers route other lanes to libm), from log's reduction: in float
// within 2.5 and 3.5 ulp (log's 2 and one or two roundings). log2 adds the exponent exactly, so that
// powers of two give integers; log10 splits log10(2) so that e log10(2) rounds once.
template <class D>
HWY_INLINE Vec<D> log2_finite(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  const auto [e, log_m] = log_parts(d, x);
  return hn::MulAdd(log_m, hn::Set(d, T(1.4426950408889634)), e);
}

template <class D>
HWY_INLINE Vec<D> log10_finite(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  // log10(2) = hi + lo, hi with 13 trailing zero bits: e * hi is exact for every exponent.
  constexpr T log10_2_hi = is_float ? T(0.301025390625f) : T(3.01029995663611771306e-01);
  constexpr T log10_2_lo = is_float ? T(4.60503898119521e-06f) : T(3.69423907715893078616e-13);
  const auto [e, log_m] = log_parts(d, x);
  const auto low = hn::MulAdd(e, hn::Set(d, log10_2_lo), hn::Mul(log_m, hn::Set(d, T(0.43429448190325183))));
  return hn::MulAdd(e, hn::Set(d, log10_2_hi), low);
}

// expm1(x) = 2^n (1 + e) - 1 with e = e^r - 1 = r + r^2 p(r) from exp's reduction: s e + (s - 1), s = 2^n
// (in two factors, so that the overflow threshold is exp's), which is e itself, without cancellation, for
// |x| < ln 2 / 2 (n = 0). Within a few ulp; inf, nan and -0 as libm.
template <class D>
HWY_INLINE Vec<D> expm1(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  constexpr T lo_clamp = is_float ? T(-30) : T(-60), hi_clamp = is_float ? T(89) : T(710);  // -1 below
  constexpr T overflow = is_float ? T(88.72283935546875f) : T(709.782712893383973);
  const auto xc = hn::Min(hn::Max(x, hn::Set(d, lo_clamp)), hn::Set(d, hi_clamp));
  const auto n = nearest_ln2_multiple(d, xc);
  const auto e = exp_reduced_minus_one(d, reduce_by_ln2(d, xc, n));
  Vec<D> s1, s2;
  two_to_the(d, n, s1, s2);
  const auto one = hn::Set(d, T(1));
  // s e + (s - 1), with s - 1 exact where it matters (|n| small); near the overflow threshold s itself
  // overflows, and s1 (s2 (1 + e)) - 1 (the same there: 1 is below its rounding) does not.
  const auto s = hn::Mul(s1, s2);
  auto out = hn::MulAdd(s, e, hn::Sub(s, one));
  const auto near_overflow = hn::Gt(n, hn::Set(d, T(is_float ? 100 : 1000)));
  out = hn::IfThenElse(near_overflow, hn::Sub(hn::Mul(s1, hn::MulAdd(s2, e, s2)), one), out);
  out = hn::IfThenElse(hn::Gt(x, hn::Set(d, overflow)), hn::Set(d, std::numeric_limits<T>::infinity()), out);
  out = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, out);  // -0 stays -0
  return hn::IfThenElse(hn::IsNaN(x), x, out);
}

// log1p(x) = log(u) - ((u - 1) - x) / u with u = 1 + x rounded: the quotient undoes u's rounding error
// (Goldberg). Where u is 1 this gives x itself; -1, inf, below -1, nan and -0 as libm.
template <class D>
HWY_INLINE Vec<D> log1p(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  const auto one = hn::Set(d, T(1));
  const auto u = hn::Add(one, x);
  const auto correction = hn::Div(hn::Sub(hn::Sub(u, one), x), u);
  auto out = hn::Sub(log(d, u), correction);
  const auto inf = hn::Set(d, std::numeric_limits<T>::infinity());
  out = hn::IfThenElse(hn::Eq(x, hn::Set(d, T(-1))), hn::Neg(inf), out);
  out = hn::IfThenElse(hn::Eq(x, inf), x, out);
  out = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, out);
  return hn::IfThenElse(hn::IsNaN(x), x, out);
}

template <class D>
HWY_INLINE Vec<D> tanh(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  const auto a = hn::Abs(x);
  const auto z = hn::Mul(x, x);
  Vec<D> small;
  if constexpr (is_float) {  // odd polynomial (Cephes tanhf)
    const auto p =
        polynomial(d, z, -5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1);
    small = hn::MulAdd(hn::Mul(p, z), x, x);
  } else {  // Cephes' rational approximation
    const auto pn = polynomial(d, z, -9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3);
    const auto qd = polynomial(d, z, 1.0, 1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3);
    small = hn::MulAdd(hn::Mul(x, z), hn::Div(pn, qd), x);
  }
  // Large |x|: 1 - 2 / (e^{2|x|} + 1), saturated before e^{2|x|} overflows.
  const auto capped = hn::Min(a, hn::Set(d, is_float ? T(44) : T(40)));
  const auto e = exp(d, hn::Add(capped, capped));
  const auto t = hn::Sub(hn::Set(d, T(1)), hn::Div(hn::Set(d, T(2)), hn::Add(e, hn::Set(d, T(1)))));
  const auto large = hn::CopySign(t, x);
  const auto out = hn::IfThenElse(hn::Lt(a, hn::Set(d, T(0.625))), small, large);
  return hn::IfThenElse(hn::IsNaN(x), x, out);
}

// 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) below, so that e never overflows and results down to
// the subnormal range keep their accuracy.
template <class D>
HWY_INLINE Vec<D> sigmoid(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  const auto one = hn::Set(d, T(1));
  const auto e = exp(d, hn::Neg(hn::Abs(x)));
  return hn::Div(hn::IfThenElse(hn::Lt(x, hn::Zero(d)), e, one), hn::Add(one, e));
}

// x = n pi/2 + r: n = round(x 2/pi) and r = x - n pi/2 in three Cody-Waite parts (n * the first is exact
// for |n| < 2^29), so r in [-pi/4, pi/4] is accurate to a few units of 1e-16 absolute.
template <class D>
struct HalfPiRemainder {
  Vec<D> n, r;
};

template <class D>
HWY_INLINE HalfPiRemainder<D> remainder_by_half_pi(D d, Vec<D> x) {
  static_assert(sizeof(hn::TFromD<D>) == 8, "the reduction needs double lanes");
  const auto n = hn::Round(hn::Mul(x, hn::Set(d, 0.63661977236758134308)));  // 2/pi
  auto r = hn::NegMulAdd(n, hn::Set(d, 1.57079625129699707031e+00), x);
  r = hn::NegMulAdd(n, hn::Set(d, 7.54978941586159635335e-08), r);
  r = hn::NegMulAdd(n, hn::Set(d, 5.39030285815811905290e-15), r);
  return {n, r};
}

// x = n pi/2 + r, with sin(r) and cos(r) (Cephes' double polynomials).
template <class D>
struct HalfPiReduction {
  Vec<D> n, sin_r, cos_r;
};

// Cephes' double polynomials on [-pi/4, pi/4], z = r^2: sin r = r + r z sin_tail(z), cos r = 1 - z/2 +
// z^2 cos_tail(z).
template <class D>
HWY_INLINE Vec<D> sin_tail(D d, Vec<D> z) {
  return polynomial(d, z, 1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6,
                    -1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1);
}
template <class D>
HWY_INLINE Vec<D> cos_tail(D d, Vec<D> z) {
  return polynomial(d, z, -1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7,
                    2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2);
}

// sin(r) and cos(r) of a remainder r = x - n pi/2 in [-pi/4, pi/4] (a little past it where n was
// rounded from an inexact x 2/pi).
template <class D>
HWY_INLINE HalfPiReduction<D> sin_cos_of_remainder(D d, Vec<D> n, Vec<D> r) {
  const auto z = hn::Mul(r, r);
  const auto sin_p = sin_tail(d, z);
  const auto cos_p = cos_tail(d, z);
  return {n, hn::MulAdd(hn::Mul(r, z), sin_p, r),
          hn::MulAdd(hn::Mul(z, z), cos_p, hn::NegMulAdd(z, hn::Set(d, 0.5), hn::Set(d, 1.0)))};
}

template <class D>
HWY_INLINE HalfPiReduction<D> reduce_by_half_pi(D d, Vec<D> x) {
  const auto [n, r] = remainder_by_half_pi(d, x);
  return sin_cos_of_remainder(d, n, r);
}

// Whether m (an integer in double lanes) is odd, from floors (no integer lanes).
template <class D>
HWY_INLINE hn::Mask<D> is_odd(D d, Vec<D> m) {
  const auto half = hn::Floor(hn::Mul(m, hn::Set(d, 0.5)));
  return hn::Ne(hn::Add(half, half), m);
}

// sin(-0) and tan(-0) are -0: without an fma, x - n pi/2 of a negative zero comes out +0.
template <class D>
HWY_INLINE Vec<D> keep_zero(D d, Vec<D> x, Vec<D> value) {
  return hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, value);
}

// sin(x) (cosine: cos(x)) of double lanes with |x| <= kSinCosLimit (callers route other lanes, inf and nan
// to libm). n = round(x 2/pi) and r = x - n pi/2 in three Cody-Waite parts (n * the first is exact for
// |n| < 2^29), so r in [-pi/4, pi/4] is accurate to a few units of 1e-16 absolute; then Cephes' sin and
// cos polynomials on r, chosen and signed by the quadrant n mod 4 (one more for cos).
inline constexpr double kSinCosLimit = 1048576.0;  // 2^20

template <class D>
struct SinCos {
  Vec<D> sin, cos;
};

// sin(x) and cos(x) from a reduction of x (sin(-0) comes out +0 here: sin_cos_reduced keeps the sign).
template <class D>
HWY_INLINE SinCos<D> signed_sin_and_cos(D d, const HalfPiReduction<D>& red) {
  // The quadrant q = n mod 4 (n + 1 for the cosine): q odd takes the other polynomial, q >= 2 negates.
  const auto signed_value = [&](Vec<D> m) {
    const auto half = hn::Floor(hn::Mul(m, hn::Set(d, 0.5)));
    const auto value = hn::IfThenElse(is_odd(d, m), red.cos_r, red.sin_r);
    return hn::IfThenElse(is_odd(d, half), hn::Neg(value), value);
  };
  return {signed_value(red.n), signed_value(hn::Add(red.n, hn::Set(d, 1.0)))};
}

// Both from one reduction.
template <class D>
HWY_INLINE SinCos<D> sin_and_cos(D d, Vec<D> x) {
  return signed_sin_and_cos(d, reduce_by_half_pi(d, x));
}

template <class D>
HWY_INLINE Vec<D> sin_cos_reduced(D d, Vec<D> x, bool cosine) {
  const SinCos<D> both = sin_and_cos(d, x);
  return cosine ? both.cos : keep_zero(d, x, both.sin);
}

// tan(x) for |x| <= kSinCosLimit, for float results: tan(r) = r + r^3 p(r^2) on [-pi/4, pi/4] (a
// Chebyshev fit of degree 8 in r^2, within 6e-11 relative: far below a float ulp), then -1/tan(r) for odd
// n.
template <class D>
HWY_INLINE Vec<D> tan_reduced(D d, Vec<D> x) {
  const auto [n, r] = remainder_by_half_pi(d, x);
  const auto z = hn::Mul(r, r);
  const auto p = polynomial(d, z, 8.351189570282564e-4, -2.669653880130996e-4, 2.0561362353615008e-3,
                            3.355009460119506e-3, 8.917839590563813e-3, 2.1862352624167608e-2, 5.396873738437539e-2,
                            1.3333331950922003e-1, 3.333333334296844e-1);
  const auto t = hn::MulAdd(hn::Mul(r, z), p, r);
  const auto value = hn::IfThenElse(is_odd(d, n), hn::Div(hn::Set(d, -1.0), t), t);
  return keep_zero(d, x, value);
}

// cosh(x) = (e + 1/e) / 2 with e = exp(|x|), for |x| where e is finite (88.7 in float, 709 in double).
template <class D>
HWY_INLINE Vec<D> cosh_bounded(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  const auto e = exp(d, hn::Abs(x));
  const auto half = hn::Set(d, T(0.5));
  return hn::MulAdd(half, e, hn::Div(half, e));
}

// Note [Table-driven pow]
// pow of float operands in double lanes, as 2^(y log2 x), with no division and short polynomials (exp(y log x)
// from log() and exp() above took 7.2 ms for 4 Mi, NumPy's vector powf 3.2):
// - log2 x = k + log2 c_i + log2(1 + r): x = 2^k z with z in [0.707, 1.414), cut into 16 intervals by its
//   top mantissa bits; c_i is interval i's midpoint (1 for the one holding 1, so that log2 near x = 1 keeps
//   its relative accuracy), r = z / c_i - 1 = z * (1 / c_i) - 1 with |r| < 0.04, and log(1 + r) its Taylor
//   series to degree 8 (truncation below 2^-45 relative). log2 c_i is taken of the rounded 1 / c_i, so the
//   identity holds exactly whatever that rounding.
// - 2^t = 2^(e + j/16) 2^u with u = t - round(16 t) / 16, |u| <= 1/32: 2^(j/16) from a table, 2^u by its
//   Taylor series to degree 5 (below 2^-42), 2^e added to the exponent. t is clamped to [-200, 200], where
//   the float result is 0 or infinity anyway, so the double never overflows.
// Tables of 16 fit two AVX-512 or four AVX2 registers, so lookups are permutes, not gathers (lookup()).
// The double result is within about 2^-29 of pow's (the log's absolute error times |y|, for results in float's
// range), so rounding it to float gives the correctly rounded result or, next to a midpoint, its neighbour:
// within 1 ulp, and exact results (powers of two, squares of small integers) exact.
struct PowTables {
  static constexpr int kBits = 4, kSize = 1 << kBits;
  double inverse_center[kSize], log2_center[kSize], exp2_fraction[kSize];
};

// z's interval is the top kBits bits of its offset from kLowestZ in bit space (as an integer, z's bits
// minus those of 0.707...: the exponent's lowest bit splits [0.707, 1) from [1, 1.414)).
inline constexpr std::int64_t kLowestZ = 0x3fe6a00000000000LL;  // 0.70703125

inline const PowTables& pow_tables() {
  static const PowTables tables = [] {
    PowTables t{};
    const auto from_bits = [](std::int64_t bits) {
      double v;
      std::memcpy(&v, &bits, sizeof v);
      return v;
    };
    constexpr int shift = 52 - PowTables::kBits;
    for (int i = 0; i < PowTables::kSize; ++i) {
      const double lo = from_bits(kLowestZ + (std::int64_t{i} << shift));
      const double hi = from_bits(kLowestZ + (std::int64_t{i + 1} << shift));
      const double center = lo <= 1.0 && 1.0 < hi ? 1.0 : 0.5 * (lo + hi);
      t.inverse_center[i] = 1.0 / center;
      t.log2_center[i] = static_cast<double>(-std::log2(static_cast<long double>(t.inverse_center[i])));
      t.exp2_fraction[i] = static_cast<double>(std::exp2(static_cast<long double>(i) / PowTables::kSize));
    }
    return t;
  }();
  return tables;
}

// table[index] in every lane, index in [0, kSize). Where a vector holds 4 or more lanes, each vector-long slice
// of the table is permuted into place and selected for the lanes whose index falls in it: x86 gathers are
// microcoded, and slower still under the Gather Data Sampling mitigation (pow's three gathers took 3 of its
// 5.4 ms for 4 Mi on an AVX-512 Xeon). Narrower vectors gather (one or two scalar loads).
template <class D, size_t kSize>
HWY_INLINE Vec<D> lookup(D d, const hn::TFromD<D> (&table)[kSize], Vec<hn::RebindToSigned<D>> index) {
  const hn::RebindToSigned<D> di;
  using I = hn::TFromD<decltype(di)>;
  const size_t lanes = hn::Lanes(d);
  if (lanes < 8 || kSize % lanes != 0) return hn::GatherIndex(d, table, index);
  const auto slot = hn::IndicesFromVec(d, hn::And(index, hn::Set(di, static_cast<I>(lanes - 1))));
  auto result = hn::TableLookupLanes(hn::LoadU(d, table), slot);
  for (size_t first = lanes; first < kSize; first += lanes) {
    const auto in_slice = hn::RebindMask(d, hn::Gt(index, hn::Set(di, static_cast<I>(first - 1))));
    result = hn::IfThenElse(in_slice, hn::TableLookupLanes(hn::LoadU(d, table + first), slot), result);
  }
  return result;
}

// log2 x for double lanes holding positive finite floats (normal in double, so no subnormal scaling).
template <class D>
HWY_INLINE Vec<D> log2_of_float_value(D d, Vec<D> x) {
  static_assert(sizeof(hn::TFromD<D>) == 8, "needs double lanes");
  const hn::RebindToSigned<D> di;
  const PowTables& tables = pow_tables();
  const auto bits = hn::BitCast(di, x);
  const auto offset = hn::Sub(bits, hn::Set(di, kLowestZ));
  const auto interval = hn::And(hn::ShiftRight<52 - PowTables::kBits>(offset), hn::Set(di, PowTables::kSize - 1));
  const auto k = hn::ShiftRight<52>(offset);  // arithmetic: negative below kLowestZ
  const auto z = hn::BitCast(d, hn::Sub(bits, hn::ShiftLeft<52>(k)));
  const auto r = hn::MulAdd(z, lookup(d, tables.inverse_center, interval), hn::Set(d, -1.0));
  // log(1 + r) = r - r^2/2 + ... - r^8/8
  const auto log1p_r = hn::MulAdd(
      hn::Mul(r, r), polynomial(d, r, -1.0 / 8, 1.0 / 7, -1.0 / 6, 1.0 / 5, -1.0 / 4, 1.0 / 3, -1.0 / 2), r);
  const auto whole = hn::Add(hn::ConvertTo(d, k), lookup(d, tables.log2_center, interval));
  return hn::MulAdd(log1p_r, hn::Set(d, 1.4426950408889634), whole);  // 1 / ln 2
}

// 2^t for double lanes, t clamped to [-200, 200] (nan not allowed).
template <class D>
HWY_INLINE Vec<D> exp2_clamped(D d, Vec<D> t) {
  static_assert(sizeof(hn::TFromD<D>) == 8, "needs double lanes");
  const hn::RebindToSigned<D> di;
  const PowTables& tables = pow_tables();
  constexpr double size = PowTables::kSize;
  const auto scaled = hn::Mul(hn::Min(hn::Max(t, hn::Set(d, -200.0)), hn::Set(d, 200.0)), hn::Set(d, size));
  // Adding 1.5 * 2^52 rounds to an integer n, which the sum's low bits then hold.
  const auto shift = hn::Set(d, 6755399441055744.0);
  const auto rounded = hn::Add(scaled, shift);
  const auto n = hn::Sub(hn::BitCast(di, rounded), hn::BitCast(di, shift));
  const auto u = hn::Mul(hn::Sub(scaled, hn::Sub(rounded, shift)), hn::Set(d, 1.0 / size));
  const auto fraction = lookup(d, tables.exp2_fraction, hn::And(n, hn::Set(di, PowTables::kSize - 1)));
  const auto exponent = hn::ShiftLeft<52>(hn::ShiftRight<PowTables::kBits>(n));
  const auto scale = hn::BitCast(d, hn::Add(hn::BitCast(di, fraction), exponent));
  // 2^u = sum of (u ln 2)^k / k!, k <= 5
  constexpr double l1 = 0.6931471805599453, l2 = l1 * l1 / 2, l3 = l2 * l1 / 3, l4 = l3 * l1 / 4, l5 = l4 * l1 / 5;
  const auto two_u_minus_one = hn::Mul(u, polynomial(d, u, l5, l4, l3, l2, l1));
  return hn::MulAdd(scale, two_u_minus_one, scale);
}

// pow(x, y) of double lanes holding float operands with x > 0 finite and y finite (callers route the rest,
// where signs, zeros and infinities decide, to libm): Note [Table-driven pow].
template <class D>
HWY_INLINE Vec<D> pow_of_positive(D d, Vec<D> x, Vec<D> y) {
  return exp2_clamped(d, hn::Mul(y, log2_of_float_value(d, x)));
}

// atan2(y, x) of finite lanes: t = atan(min(|x|, |y|) / max(|x|, |y|)) in [0, pi/4], then by octant c + t
// or c - t with c in {0, pi/2, pi} carried as two parts (the low part below half an ulp of the high, so
// that +-pi/2 and +-pi come out exact), and y's sign. Both zero: t = 0, which gives the standard's +-0
// (x = +0) and +-pi (x = -0).
template <class D>
HWY_INLINE Vec<D> atan2_finite(D d, Vec<D> y, Vec<D> x) {
  using T = hn::TFromD<D>;
  constexpr bool is_float = sizeof(T) == 4;
  constexpr T half_pi_hi = is_float ? T(1.57079637f) : T(1.5707963267948966);
  constexpr T half_pi_lo = is_float ? T(-4.37113883e-8f) : T(6.123233995736766e-17);
  constexpr T pi_hi = is_float ? T(3.14159274f) : T(3.141592653589793);
  constexpr T pi_lo = is_float ? T(-8.74227766e-8f) : T(1.2246467991473532e-16);
  const auto ay = hn::Abs(y), ax = hn::Abs(x);
  const auto hi = hn::Max(ax, ay);
  const auto ratio = hn::Div(hn::Min(ax, ay), hi);
  const auto t = hn::Atan(d, hn::IfThenZeroElse(hn::Eq(hi, hn::Zero(d)), ratio));
  const auto steep = hn::Gt(ay, ax);  // the angle from the y axis: pi/2 -+ t
  const auto left = hn::Lt(hn::CopySign(hn::Set(d, T(1)), x), hn::Zero(d));  // x < 0 or x = -0: pi - (that)
  const auto c_hi = hn::IfThenElse(steep, hn::Set(d, half_pi_hi), hn::IfThenElseZero(left, hn::Set(d, pi_hi)));
  const auto c_lo = hn::IfThenElse(steep, hn::Set(d, half_pi_lo), hn::IfThenElseZero(left, hn::Set(d, pi_lo)));
  const auto t_left = hn::IfThenElse(left, hn::Neg(t), t);
  const auto signed_t = hn::IfThenElse(steep, hn::Neg(t_left), t_left);
  return hn::CopySign(hn::Add(hn::Add(c_hi, signed_t), c_lo), y);
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ACCELERA_SIMD_MATH_INL_H_
