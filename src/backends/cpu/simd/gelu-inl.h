// GELU and its derivative on Highway vectors (no include guard on purpose: see math-inl.h).
// Exact form: GELU(x) = x Phi(x), evaluated as x (1 - Phi(-x)) for x >= 0 and x Phi(x) below, so that
// negative inputs keep their relative accuracy (no 1 + erf cancellation). Tanh form:
// 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3).
// Limits: GELU(-inf) = 0 and GELU(+inf) = +inf in both forms; GELU'(-inf) = 0, GELU'(+inf) = 1; nan stays.
#if defined(ACCELERA_SIMD_GELU_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACCELERA_SIMD_GELU_INL_H_
#undef ACCELERA_SIMD_GELU_INL_H_
#else
#define ACCELERA_SIMD_GELU_INL_H_
#endif

#include <hwy/highway.h>

#include <cmath>

#include "backends/cpu/simd/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {

inline constexpr double kSqrt2OverPi = 0.79788456080286535588;
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
inline constexpr double kTanhCubic = 0.044715;

// --- float exact form -------------------------------------------------------------------------------
// Note [Float exact GELU]: with a = |x|, Phi(-a) = erfc(a / sqrt 2) / 2 = exp(-a^2 / 2) G(a), and
// G(a) = t P(t) with t = k / (k + a), P a degree-8 polynomial fitted for relative error below 1.1e-8 on
// a in [0, 13.3] (k = 3.78 minimises the error for that degree; x Phi(x) is subnormal beyond 13.3).
// - The exp is specialised to its argument -a^2 / 2 in [-106, 0]: no overflow or special values. a^2 is
//   the unevaluated sum hi + lo (exact_square_low gives lo), so the tail keeps its relative accuracy
//   instead of losing a^2 ulp to the rounding of a^2; s = -a^2 - 2 n ln2 is reduced exactly (Cody-Waite)
//   with lo folded in, and exp(s / 2) = 1 + s q(s).
// - t is computed from u = k + a, whose rounding makes t stand for a + da, da = (u - k) - a: up to 1.6 ulp
//   of GELU near |x| = 0.5. G(a) = G(a + da) exp(-L(a) da) with L = (log G)' (fitted as linear in t), so
//   the exp's argument absorbs da for two FMAs. The density below shares that exp: its relative error
//   grows by at most 2e-7, well inside the derivative's error bound.
// - 2^n comes from the rounding trick's own bits, biased by 2^kScaleBias: Phi(-a) is carried scaled and
//   stays a normal float wherever x Phi(x) is, so the product with x is rounded before it is unscaled.
//   a is clamped at kTailEnd, where the biased exponent is exactly 0: the scale, and so Phi and phi, are
//   +0 there, and every |x| >= kTailEnd (infinities and NaN included) needs no select.
// One exp serves both Phi and the density phi(a) = exp(-a^2 / 2) / sqrt(2 pi) that the derivative needs.
// Accuracy over every float in [-15, 15] against double erfc, on every target: see test_simd_gelu.cpp.

inline constexpr float kTailEnd = 14.5f;  // a Phi(-a) < 2^-150 beyond: GELU(x) rounds to -0 below -14.5
inline constexpr int kScaleBias = 25;
inline constexpr float kUnbias = 0x1p-25f;  // 2^-kScaleBias
// n = round(-kTailEnd^2 log2(e) / 2) = -152 must cancel the exponent bias of the scale exactly.
static_assert(static_cast<int>(kTailEnd * kTailEnd * 0.72134752044448170368 + 0.5) == 127 + kScaleBias);

// min(|x|, kTailEnd) on the bits: non-negative floats order as their bit patterns, and NaN (above +inf)
// gives kTailEnd, in one integer min.
template <class D>
HWY_INLINE Vec<D> clamped_abs(D d, Vec<D> x) {
  const hn::RebindToSigned<D> di;
  const auto bits = hn::And(hn::BitCast(di, x), hn::Set(di, 0x7fffffff));
  return hn::BitCast(d, hn::Min(bits, hn::BitCast(di, hn::Set(d, kTailEnd))));
}

// Phi(-a) * 2^kScaleBias and phi(a), for 0 <= a <= kTailEnd.
template <class D>
HWY_INLINE void lower_tail(D d, Vec<D> a, Vec<D>& scaled_cdf, Vec<D>& density) {
  const hn::RebindToSigned<D> di;
  constexpr float k = 3.78f;
  const auto kv = hn::Set(d, k);
  const auto u = hn::Add(kv, a);
  const auto t = hn::Div(kv, u);
  const auto da = hn::Sub(hn::Sub(u, kv), a);
  constexpr double half = 0.5;  // folded into P: Phi = erfc / 2
  const auto p = polynomial(d, t, 6.2179709432e-02f * half, -2.9276616277e-01f * half, 4.4699172244e-01f * half,
                            -2.4466908711e-01f * half, 2.8385915843e-01f * half, 1.1737634417e-01f * half,
                            2.0586217254e-01f * half, 2.1003637287e-01f * half, 2.1112978020e-01f * half);
  const auto half_tp = hn::Mul(t, p);  // G(a + da) / 2

  const auto hi = hn::Mul(a, a);
  const auto lo = exact_square_low(d, a, hi);
  // exp(-a^2 / 2) = 2^n exp(s / 2), s = -(hi + lo) - 2 n ln2 - 2 L da in [-0.72, 0.72].
  constexpr float round_biased = 12582912.0f + (127 + kScaleBias);  // 1.5 * 2^23 + exponent bias
  const auto v = hn::MulAdd(hi, hn::Set(d, -0.72134752044448170368f), hn::Set(d, round_biased));  // -log2(e)/2
  const auto n = hn::Sub(v, hn::Set(d, round_biased));
  constexpr float two_ln2_hi = 1.38671875f, two_ln2_lo = -4.24388880e-4f;  // 2 ln2; n * hi part is exact
  const auto reduced_hi = hn::Sub(hn::NegMulAdd(n, hn::Set(d, two_ln2_hi), hn::Neg(hi)), lo);
  const auto reduced = hn::NegMulAdd(n, hn::Set(d, two_ln2_lo), reduced_hi);
  const auto minus_two_l = hn::MulAdd(hn::Set(d, 1.52046126f), t, hn::Set(d, -0.23203792f));  // -2 L(a)
  const auto s = hn::MulAdd(minus_two_l, da, reduced);
  // exp(s / 2) = 1 + s q(s), relative error 2.6e-9 on |s| <= 0.72
  const auto q = polynomial(d, s, 2.1624917743e-05f, 2.6179173052e-04f, 2.6042639320e-03f, 2.0832991770e-02f,
                            1.2499998181e-01f, 5.0000002005e-01f);
  const auto scale = hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(di, v)));  // 2^(n + kScaleBias)
  constexpr float inv_sqrt_2pi = static_cast<float>(kInvSqrt2Pi) * kUnbias;
  scaled_cdf = hn::Mul(hn::MulAdd(hn::Mul(half_tp, s), q, half_tp), scale);
  density = hn::Mul(hn::Mul(hn::MulAdd(s, q, hn::Set(d, 1.0f)), scale), hn::Set(d, inv_sqrt_2pi));
}

// x (1 - Phi(-x)) for x >= 0 and -a Phi(-a) below (a = |x| clamped, so -inf gives -0 rather than -inf * 0).
template <class D>
HWY_INLINE Vec<D> gelu_exact_f32(D d, Vec<D> x) {
  const auto a = clamped_abs(d, x);
  Vec<D> h, density;
  lower_tail(d, a, h, density);
  const auto below = hn::Mul(hn::Mul(a, h), hn::Set(d, -kUnbias));
  const auto above = hn::Mul(x, hn::MulAdd(h, hn::Set(d, -kUnbias), hn::Set(d, 1.0f)));
  return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), below, above);
}

template <class D>
HWY_INLINE Vec<D> gelu_exact_grad_f32(D d, Vec<D> x) {
  const auto a = clamped_abs(d, x);
  Vec<D> scaled_cdf, phi;
  lower_tail(d, a, scaled_cdf, phi);
  const auto h = hn::Mul(scaled_cdf, hn::Set(d, kUnbias));
  const auto signed_a = hn::CopySign(a, x);  // x, or +-kTailEnd where phi is 0: no inf * 0
  const auto cdf = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), h, hn::Sub(hn::Set(d, 1.0f), h));
  const auto g = hn::MulAdd(signed_a, phi, cdf);
  return hn::IfThenElse(hn::IsNaN(x), x, g);
}

// --- double exact form -------------------------------------------------------------------------------
// erfc in double comes from libm, lane by lane (within 1 ulp; no vectorised double erfc here yet); the
// rest is vectorised. c = erfc(|x| / sqrt(2)), phi = exp(-x^2 / 2) / sqrt(2 pi).
template <class D>
HWY_INLINE Vec<D> erfc_abs_over_sqrt2_f64(D d, Vec<D> x) {
  HWY_ALIGN double lanes[hn::MaxLanes(d)];
  hn::Store(hn::Mul(hn::Abs(x), hn::Set(d, 0.70710678118654752440)), d, lanes);
  for (size_t i = 0; i < hn::Lanes(d); ++i) lanes[i] = std::erfc(lanes[i]);
  return hn::Load(d, lanes);
}

template <class D>
HWY_INLINE Vec<D> gelu_exact_f64(D d, Vec<D> x) {
  const auto c = erfc_abs_over_sqrt2_f64(d, x);
  const auto half = hn::Set(d, 0.5);
  const auto above = hn::Mul(x, hn::NegMulAdd(half, c, hn::Set(d, 1.0)));
  // Beyond -40, c is 0: the clamp keeps -inf from giving -inf * 0.
  const auto below = hn::Mul(hn::Mul(half, hn::Max(x, hn::Set(d, -40.0))), c);
  return hn::IfThenElse(hn::IsNaN(x), x, hn::IfThenElse(hn::Lt(x, hn::Zero(d)), below, above));
}

template <class D>
HWY_INLINE Vec<D> gelu_exact_grad_f64(D d, Vec<D> x) {
  const auto c = erfc_abs_over_sqrt2_f64(d, x);
  const auto half = hn::Set(d, 0.5);
  const auto phi = hn::Mul(hn::Set(d, kInvSqrt2Pi), exp(d, hn::Mul(hn::Mul(hn::Set(d, -0.5), x), x)));
  const auto cdf = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Mul(half, c), hn::NegMulAdd(half, c, hn::Set(d, 1.0)));
  const auto xc = hn::Min(hn::Max(x, hn::Set(d, -40.0)), hn::Set(d, 40.0));  // phi is 0 there; no inf * 0
  return hn::IfThenElse(hn::IsNaN(x), x, hn::MulAdd(xc, phi, cdf));
}

// --- tanh form (float and double) ---------------------------------------------------------------------
// x / (1 + exp(-2u)). Far below zero exp(-2u) overflows to inf; the numerator is clamped to a finite value
// there so that the quotient is -0 (the true value underflows) instead of -inf / inf. nan is selected at
// the end, so the exp needs no special cases of its own.
template <class D>
HWY_INLINE Vec<D> gelu_tanh(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  const auto x2 = hn::Mul(x, x);
  const auto inner = hn::MulAdd(hn::Mul(hn::Set(d, T(kTanhCubic)), x2), x, x);  // x + c x^3
  const auto e = exp_unchecked(d, hn::Mul(hn::Set(d, T(-2 * kSqrt2OverPi)), inner));
  const auto numerator = hn::Max(x, hn::Set(d, sizeof(T) == 4 ? T(-20) : T(-60)));
  const auto out = hn::Div(numerator, hn::Add(hn::Set(d, T(1)), e));
  return hn::IfThenElse(hn::IsNaN(x), x, out);
}

template <class D>
HWY_INLINE Vec<D> gelu_tanh_grad(D d, Vec<D> x) {
  using T = hn::TFromD<D>;
  const auto one = hn::Set(d, T(1));
  const auto x2 = hn::Mul(x, x);
  const auto inner = hn::MulAdd(hn::Mul(hn::Set(d, T(kTanhCubic)), x2), x, x);
  const auto s = hn::Div(one, hn::Add(one, exp_unchecked(d, hn::Mul(hn::Set(d, T(-2 * kSqrt2OverPi)), inner))));
  const auto t = hn::Mul(s, hn::Sub(one, s));  // 0 once s saturates: the product term's limit, also at inf
  const auto slope = hn::MulAdd(hn::Set(d, T(3 * kTanhCubic)), x2, one);
  const auto term = hn::Mul(hn::Mul(x, hn::Mul(t, hn::Set(d, T(2 * kSqrt2OverPi)))), slope);
  return hn::IfThenElse(hn::IsNaN(x), x, hn::Add(s, hn::IfThenZeroElse(hn::Eq(t, hn::Zero(d)), term)));
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ACCELERA_SIMD_GELU_INL_H_
