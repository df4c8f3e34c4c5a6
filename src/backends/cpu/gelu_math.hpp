#pragma once
// GELU and its derivative for one element, branch-free so that `#pragma omp simd` loops vectorise.
// Exact form: GELU(x) = x Phi(x) with Phi(x) = erfc(-x / sqrt(2)) / 2, evaluated from c = erfc(|x| / sqrt(2))
// as x (1 - c / 2) for x >= 0 and x c / 2 below, so negative inputs keep their relative accuracy (no
// 1 + erf cancellation). Tanh form: 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "accelera/core/nn_types.hpp"
#include "backends/cpu/vector_math.hpp"

namespace accelera::cpu::gelu_math {

inline constexpr double kSqrt2OverPi = 0.79788456080286535588;
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
inline constexpr double kTanhCubic = 0.044715;

// --- float exact form -------------------------------------------------------------------------------
// Note [Float exact GELU]: with a = |x|, Phi(-a) = erfc(a / sqrt 2) / 2 = exp(-a^2 / 2) G(a), and
// G(a) = t P(t) with t = k / (k + a), P a degree-8 polynomial fitted for relative error below 1.1e-8 on
// a in [0, 13.3] (k = 3.78 minimises the error for that degree; x Phi(x) is subnormal beyond 13.3).
// - The exp is specialised to its argument -a^2 / 2 in [-106, 0]: no overflow or special values. a^2 is
//   the unevaluated sum hi + lo (an FMA gives lo), so the tail keeps its relative accuracy instead of
//   losing a^2 ulp to the rounding of a^2; s = -a^2 - 2 n ln2 is reduced exactly (Cody-Waite) with lo
//   folded in, and exp(s / 2) = 1 + s q(s).
// - t is computed from u = k + a, whose rounding makes t stand for a + da, da = (u - k) - a: up to 1.6 ulp
//   of GELU near |x| = 0.5. G(a) = G(a + da) exp(-L(a) da) with L = (log G)' (fitted as linear in t), so
//   the exp's argument absorbs da for two FMAs. The density below shares that exp: its relative error
//   grows by at most 2e-7, well inside the derivative's error bound.
// - 2^n comes from the rounding trick's own bits, biased by 2^kScaleBias: Phi(-a) is carried scaled and
//   stays a normal float wherever x Phi(x) is, so the product with x is rounded before it is unscaled.
//   a is clamped at kTailEnd, where the biased exponent is exactly 0: the scale, and so Phi and phi, are
//   +0 there, and every |x| >= kTailEnd (infinities and NaN included) needs no select.
// One exp serves both Phi and the density phi(a) = exp(-a^2 / 2) / sqrt(2 pi) that the derivative needs.
// Every float in [-15, 15] against double erfc: GELU within 5.6 ulp (3.6e-7 relative where the result
// is normal), GELU' within 3.1 ulp of max(|GELU'|, 0.5).
namespace detail {

inline constexpr float kTailEnd = 14.5f;  // a Phi(-a) < 2^-150 beyond: GELU(x) rounds to -0 below -14.5
inline constexpr int kScaleBias = 25;
inline constexpr float kUnbias = 0x1p-25f;  // 2^-kScaleBias
// n = round(-kTailEnd^2 log2(e) / 2) = -152 must cancel the exponent bias of the scale exactly.
static_assert(static_cast<int>(kTailEnd * kTailEnd * 0.72134752044448170368 + 0.5) == 127 + kScaleBias);

// min(|x|, kTailEnd) on the bits: non-negative floats order as their bit patterns, and NaN (above +inf)
// gives kTailEnd, in one integer min.
inline float clamped_abs(float x) {
  const std::int32_t bits = std::bit_cast<std::int32_t>(x) & 0x7fffffff;
  return std::bit_cast<float>(std::min(bits, std::bit_cast<std::int32_t>(kTailEnd)));
}

struct LowerTail {
  float scaled_cdf;  // Phi(-a) * 2^kScaleBias
  float density;     // phi(a)
};

// Phi(-a) and phi(a) for 0 <= a <= kTailEnd.
inline LowerTail lower_tail(float a) {
  constexpr float k = 3.78f;
  const float u = k + a;
  const float t = k / u;
  const float da = (u - k) - a;
  constexpr float half = 0.5f;  // folded into P: Phi = erfc / 2
  float p = 6.2179709432e-02f * half;
  p = std::fma(p, t, -2.9276616277e-01f * half);
  p = std::fma(p, t, 4.4699172244e-01f * half);
  p = std::fma(p, t, -2.4466908711e-01f * half);
  p = std::fma(p, t, 2.8385915843e-01f * half);
  p = std::fma(p, t, 1.1737634417e-01f * half);
  p = std::fma(p, t, 2.0586217254e-01f * half);
  p = std::fma(p, t, 2.1003637287e-01f * half);
  p = std::fma(p, t, 2.1112978020e-01f * half);
  const float half_tp = t * p;  // G(a + da) / 2

  const float hi = a * a;
  const float lo = std::fma(a, a, -hi);
  // exp(-a^2 / 2) = 2^n exp(s / 2), s = -(hi + lo) - 2 n ln2 - 2 L da in [-0.72, 0.72].
  constexpr float round_biased = 12582912.0f + (127 + kScaleBias);  // 1.5 * 2^23 + exponent bias
  const float v = std::fma(hi, -0.72134752044448170368f, round_biased);  // -log2(e) / 2
  const float n = v - round_biased;
  constexpr float two_ln2_hi = 1.38671875f, two_ln2_lo = -4.24388880e-4f;  // 2 ln2; n * hi part is exact
  const float reduced = std::fma(n, -two_ln2_lo, std::fma(n, -two_ln2_hi, -hi) - lo);
  const float minus_two_l = std::fma(1.52046126f, t, -0.23203792f);  // -2 L(a), within 30%
  const float s = std::fma(minus_two_l, da, reduced);
  float q = 2.1624917743e-05f;  // exp(s / 2) = 1 + s q(s), relative error 2.6e-9 on |s| <= 0.72
  q = std::fma(q, s, 2.6179173052e-04f);
  q = std::fma(q, s, 2.6042639320e-03f);
  q = std::fma(q, s, 2.0832991770e-02f);
  q = std::fma(q, s, 1.2499998181e-01f);
  q = std::fma(q, s, 5.0000002005e-01f);
  const float scale = std::bit_cast<float>(std::bit_cast<std::int32_t>(v) << 23);  // 2^(n + kScaleBias)

  constexpr float inv_sqrt_2pi = static_cast<float>(kInvSqrt2Pi) * kUnbias;
  return {std::fma(half_tp * s, q, half_tp) * scale, std::fma(s, q, 1.0f) * scale * inv_sqrt_2pi};
}

}  // namespace detail

// x (1 - Phi(-x)) for x >= 0 and x Phi(x) below, so negative inputs keep their relative accuracy.
// x = -inf gives NaN (-inf * 0), as x Phi(x) does.
inline float gelu_exact(float x) {
  const float h = detail::lower_tail(detail::clamped_abs(x)).scaled_cdf;
  const bool negative = x < 0.0f;
  const float r = x * (negative ? h : std::fma(h, -detail::kUnbias, 1.0f));
  return negative ? r * detail::kUnbias : r;
}

inline float gelu_exact_grad(float x) {
  const float a = detail::clamped_abs(x);
  const auto [scaled_cdf, phi] = detail::lower_tail(a);
  const float h = scaled_cdf * detail::kUnbias;
  const float signed_a = std::copysign(a, x);  // x, or +-kTailEnd where phi is 0: no inf * 0
  const float g = std::fma(signed_a, phi, x < 0.0f ? h : 1.0f - h);
  return x != x ? x : g;
}

// --- double exact form -----------------------------------------------------------------------------

// c = erfc(|x| / sqrt(2)) and phi = exp(-x^2 / 2) / sqrt(2 pi).
inline void erfc_and_density(double x, double& c, double& phi) {
  c = std::erfc((x < 0.0 ? -x : x) * 0.70710678118654752440);
  phi = kInvSqrt2Pi * vmath::exp(-0.5 * x * x);
}

template <typename T>
inline T gelu_exact(T x) {
  T c, phi;
  erfc_and_density(x, c, phi);
  const T r = x >= T(0) ? x * (T(1) - T(0.5) * c) : T(0.5) * x * c;
  return x != x ? x : r;
}

template <typename T>
inline T gelu_tanh(T x) {
  const T u = T(kSqrt2OverPi) * (x + T(kTanhCubic) * x * x * x);
  return x / (T(1) + vmath::exp(T(-2) * u));
}

template <typename T>
inline T gelu_exact_grad(T x) {
  T c, phi;
  erfc_and_density(x, c, phi);
  const T cdf = x >= T(0) ? T(1) - T(0.5) * c : T(0.5) * c;
  const T xc = x < T(-40) ? T(-40) : (x > T(40) ? T(40) : x);  // phi is 0 there; avoids inf * 0
  return cdf + xc * phi;
}

template <typename T>
inline T gelu_tanh_grad(T x) {
  const T x2 = x * x;
  const T u = T(kSqrt2OverPi) * (x + T(kTanhCubic) * x2 * x);
  const T s = T(1) / (T(1) + vmath::exp(T(-2) * u));
  const T t = s * (T(1) - s);  // 0 once s saturates: the product term's limit, also for infinite x
  return s + (t == T(0) ? T(0) : x * T(2) * t * T(kSqrt2OverPi) * (T(1) + T(3 * kTanhCubic) * x2));
}

template <typename T>
inline T gelu(T x, GeluApproximation a) {
  return a == GeluApproximation::tanh ? gelu_tanh(x) : gelu_exact(x);
}

}  // namespace accelera::cpu::gelu_math
