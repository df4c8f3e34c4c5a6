// |z| of contiguous runs of complex numbers (interleaved real and imaginary parts), for every Highway
// target (Note [SIMD dispatch] in targets.cpp): m sqrt(1 + r^2) with m the larger part and r <= 1, which
// neither overflows nor underflows and stays within 2 ulp of hypot; |z| is inf when a part is infinite
// (even with a nan beside it) and nan otherwise when a part is nan, as C's cabs.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/complex.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>
#include <limits>

#include "backends/cpu/simd/simd_kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace {

template <typename T>
T scalar_magnitude(T re, T im) {
  const T x = std::fabs(re), y = std::fabs(im);
  if (std::isinf(x) || std::isinf(y)) return std::numeric_limits<T>::infinity();
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
  const T m = x > y ? x : y, n = x > y ? y : x;
  if (m == 0) return 0;
  const T r = n / m;
  return m * std::sqrt(1 + r * r);
}

template <typename T>
void magnitudes(const T* pairs, T* out, std::int64_t len) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<std::int64_t>(hn::Lanes(d));
  const auto zero = hn::Zero(d), one = hn::Set(d, T(1));
  const auto inf = hn::Set(d, std::numeric_limits<T>::infinity());
  const auto nan = hn::Set(d, std::numeric_limits<T>::quiet_NaN());
  std::int64_t k = 0;
  for (; k + lanes <= len; k += lanes) {
    hn::Vec<decltype(d)> re, im;
    hn::LoadInterleaved2(d, pairs + 2 * k, re, im);
    const auto x = hn::Abs(re), y = hn::Abs(im);
    const auto m = hn::Max(x, y), n = hn::Min(x, y);
    const auto r = hn::Div(n, m);
    auto result = hn::Mul(m, hn::Sqrt(hn::MulAdd(r, r, one)));
    result = hn::IfThenElse(hn::Eq(m, zero), zero, result);
    result = hn::IfThenElse(hn::Or(hn::IsNaN(re), hn::IsNaN(im)), nan, result);
    result = hn::IfThenElse(hn::Or(hn::IsInf(re), hn::IsInf(im)), inf, result);
    hn::StoreU(result, d, out + k);
  }
  for (; k < len; ++k) out[k] = scalar_magnitude(pairs[2 * k], pairs[2 * k + 1]);
}

}  // namespace

void ComplexAbsF32(const float* pairs, float* out, std::int64_t n) { magnitudes(pairs, out, n); }
void ComplexAbsF64(const double* pairs, double* out, std::int64_t n) { magnitudes(pairs, out, n); }

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(ComplexAbsF32);
HWY_EXPORT(ComplexAbsF64);

void complex_abs(const float* pairs, float* out, std::int64_t n) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(ComplexAbsF32)(pairs, out, n);
}
void complex_abs(const double* pairs, double* out, std::int64_t n) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(ComplexAbsF64)(pairs, out, n);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
