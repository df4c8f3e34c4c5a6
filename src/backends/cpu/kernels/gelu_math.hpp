#pragma once
// GELU and its derivative for one element, branch-free so that `#pragma omp simd` loops vectorise.
// Exact form: GELU(x) = x Phi(x) with Phi(x) = erfc(-x / sqrt(2)) / 2, evaluated from c = erfc(|x| / sqrt(2))
// as x (1 - c / 2) for x >= 0 and x c / 2 below, so negative inputs keep their relative accuracy (no
// 1 + erf cancellation). Tanh form: 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3).
#include <cmath>

#include "accelera/nn_types.hpp"
#include "backends/cpu/kernels/vector_math.hpp"

namespace accelera::cpu::gelu_math {

inline constexpr double kSqrt2OverPi = 0.79788456080286535588;
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
inline constexpr double kTanhCubic = 0.044715;

// c = erfc(|x| / sqrt(2)) and phi = exp(-x^2 / 2) / sqrt(2 pi). Beyond |x| = 20 both are 0 (float);
// clamping keeps x^2 and its rounding error finite for infinite x.
inline void erfc_and_density(float x_in, float& c, float& phi) {
  const float x = x_in < -20.0f ? -20.0f : (x_in > 20.0f ? 20.0f : x_in);
  const float hi = x * x;
  const float lo = std::fma(x, x, -hi);
  const float z = (x < 0.0f ? -x : x) * 0.70710678118654752f;
  c = vmath::erfc_abs(z, 0.5f * hi, 0.5f * lo);
  phi = static_cast<float>(kInvSqrt2Pi) * (vmath::exp(-0.5f * hi) * (1.0f - 0.5f * lo));
}

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
  return s + x * T(2) * s * (T(1) - s) * T(kSqrt2OverPi) * (T(1) + T(3 * kTanhCubic) * x2);
}

template <typename T>
inline T gelu(T x, GeluApproximation a) {
  return a == GeluApproximation::tanh ? gelu_tanh(x) : gelu_exact(x);
}

}  // namespace accelera::cpu::gelu_math
