// Element-wise exp, expm1, log, log1p, tanh, sigmoid, the trigonometric and hyperbolic functions and their
// inverses, log2 and log10 on contiguous runs, for every Highway target (Note [SIMD dispatch] in
// targets.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/unary.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>
#include <type_traits>

#include "backends/cpu/simd/double_trig-inl.h"
#include "backends/cpu/simd/lane_functions-inl.h"
#include "backends/cpu/simd/loops-inl.h"
#include "backends/cpu/simd/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

// Masks of lanes whose magnitude is at most (below) `limit`, for vectors of either lane type.
HWY_INLINE auto magnitude_at_most(double limit) {
  return [limit](auto v) {
    const hn::DFromV<decltype(v)> d;
    return hn::Le(hn::Abs(v), hn::Set(d, static_cast<hn::TFromD<decltype(d)>>(limit)));
  };
}
HWY_INLINE auto magnitude_below(double limit) {
  return [limit](auto v) {
    const hn::DFromV<decltype(v)> d;
    return hn::Lt(hn::Abs(v), hn::Set(d, static_cast<hn::TFromD<decltype(d)>>(limit)));
  };
}

// Note [Vector transcendental functions]: each function in its lanes, with its fast domain.
// float sin, cos and tan in double lanes (fast); double ones by Note [Double sin, cos and tan]
// (fast_double) where the target has a fused multiply-add, else libm.
template <typename T, class Fast, class FastDouble, class Scalar>
void sin_cos_tan(const T* x, T* out, size_t n, const Fast& fast, const FastDouble& fast_double, const Scalar& scalar) {
  if constexpr (std::is_same_v<T, double>) {
#if HWY_NATIVE_FMA
    const auto domain = [](auto v) { return in_double_trig_domain(hn::DFromV<decltype(v)>(), v); };
    unary_in_lanes<double>(x, out, n, domain, fast_double, scalar);
#else
    (void)fast_double;
    for (size_t k = 0; k < n; ++k) out[k] = scalar(x[k]);
#endif
  } else {
    unary_in_lanes<double>(x, out, n, magnitude_at_most(kSinCosLimit), fast, scalar);
  }
}

// Note [Double sin, cos and tan] where the target compiles it (sin_cos_tan calls this only there).
template <class D>
HWY_INLINE Vec<D> double_trig(D d, Vec<D> x, UnaryFunction fn) {
#if HWY_NATIVE_FMA
  if (fn == UnaryFunction::sin) return sin_double(d, x);
  if (fn == UnaryFunction::cos) return cos_double(d, x);
  return tan_double(d, x);
#else
  (void)fn;
  return x;
#endif
}

template <typename T>
void in_lanes(UnaryFunction fn, const T* x, T* out, size_t n) {
  constexpr bool is_float = std::is_same_v<T, float>;
  // Past these, sinh and cosh overflow T (Highway's float sinh is valid to 88.7228; demoting an
  // overflowing double saturates on some targets).
  constexpr double kSinhLimit = is_float ? 88.72 : 709.0, kCoshLimit = is_float ? 88.7 : 709.0;
  const auto finite = [](auto v) { return hn::IsFinite(v); };
  const auto positive_finite = [](auto v) {
    return hn::And(hn::Gt(v, hn::Zero(hn::DFromV<decltype(v)>())), hn::IsFinite(v));
  };
  const auto at_least_one = [](auto v) {
    const hn::DFromV<decltype(v)> d;
    return hn::And(hn::Ge(v, hn::Set(d, 1)), hn::IsFinite(v));
  };
  const auto tag = [](auto v) { return hn::DFromV<decltype(v)>(); };
  switch (fn) {
    case UnaryFunction::sin:
      return sin_cos_tan(
          x, out, n, [&](auto v) { return sin_cos_reduced(tag(v), v, false); },
          [&](auto v) { return double_trig(tag(v), v, UnaryFunction::sin); }, [](T v) { return std::sin(v); });
    case UnaryFunction::cos:
      return sin_cos_tan(
          x, out, n, [&](auto v) { return sin_cos_reduced(tag(v), v, true); },
          [&](auto v) { return double_trig(tag(v), v, UnaryFunction::cos); }, [](T v) { return std::cos(v); });
    case UnaryFunction::tan:
      return sin_cos_tan(
          x, out, n, [&](auto v) { return tan_reduced(tag(v), v); },
          [&](auto v) { return double_trig(tag(v), v, UnaryFunction::tan); }, [](T v) { return std::tan(v); });
    case UnaryFunction::asin:
      return unary_in_lanes<T>(
          x, out, n, magnitude_at_most(1.0), [&](auto v) { return hn::Asin(tag(v), v); },
          [](T v) { return std::asin(v); });
    case UnaryFunction::acos:
      return unary_in_lanes<T>(
          x, out, n, magnitude_at_most(1.0), [&](auto v) { return hn::Acos(tag(v), v); },
          [](T v) { return std::acos(v); });
    case UnaryFunction::atan:
      return unary_in_lanes<T>(
          x, out, n, finite, [&](auto v) { return hn::Atan(tag(v), v); }, [](T v) { return std::atan(v); });
    case UnaryFunction::sinh:
      return unary_in_lanes<T>(
          x, out, n, magnitude_at_most(kSinhLimit), [&](auto v) { return hn::Sinh(tag(v), v); },
          [](T v) { return std::sinh(v); });
    case UnaryFunction::cosh:
      return unary_in_lanes<T>(
          x, out, n, magnitude_at_most(kCoshLimit), [&](auto v) { return cosh_bounded(tag(v), v); },
          [](T v) { return std::cosh(v); });
    case UnaryFunction::asinh:
      return unary_in_lanes<T>(
          x, out, n, finite, [&](auto v) { return hn::Asinh(tag(v), v); }, [](T v) { return std::asinh(v); });
    case UnaryFunction::acosh:
      return unary_in_lanes<T>(
          x, out, n, at_least_one, [&](auto v) { return hn::Acosh(tag(v), v); }, [](T v) { return std::acosh(v); });
    case UnaryFunction::atanh:
      return unary_in_lanes<T>(
          x, out, n, magnitude_below(1.0), [&](auto v) { return hn::Atanh(tag(v), v); },
          [](T v) { return std::atanh(v); });
    case UnaryFunction::log2:
      return unary_in_lanes<T>(
          x, out, n, positive_finite, [&](auto v) { return log2_finite(tag(v), v); }, [](T v) { return std::log2(v); });
    case UnaryFunction::log10:
      return unary_in_lanes<T>(
          x, out, n, positive_finite, [&](auto v) { return log10_finite(tag(v), v); },
          [](T v) { return std::log10(v); });
    default: HWY_ASSERT(false);
  }
}

template <typename T>
void apply(UnaryFunction fn, const T* x, T* out, std::int64_t len, Store store) {
  const hn::ScalableTag<T> d;
  using V = Vec<decltype(d)>;
  const auto n = static_cast<size_t>(len);
  switch (fn) {
    case UnaryFunction::exp:
      transform(
          d, out, n, store, [&](V v) { return exp(d, v); }, x);
      break;
    case UnaryFunction::expm1:
      transform(
          d, out, n, store, [&](V v) { return expm1(d, v); }, x);
      break;
    case UnaryFunction::log:
      transform(
          d, out, n, store, [&](V v) { return log(d, v); }, x);
      break;
    case UnaryFunction::log1p:
      transform(
          d, out, n, store, [&](V v) { return log1p(d, v); }, x);
      break;
    case UnaryFunction::tanh:
      transform(
          d, out, n, store, [&](V v) { return tanh(d, v); }, x);
      break;
    case UnaryFunction::sigmoid:
      transform(
          d, out, n, store, [&](V v) { return sigmoid(d, v); }, x);
      break;
    default:
      in_lanes(fn, x, out, n);
      break;
  }
  finish_stores(store);
}

}  // namespace

void UnaryF32(UnaryFunction fn, const float* x, float* out, std::int64_t n, Store store) {
  apply(fn, x, out, n, store);
}
void UnaryF64(UnaryFunction fn, const double* x, double* out, std::int64_t n, Store store) {
  apply(fn, x, out, n, store);
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryF64);

void unary(UnaryFunction fn, const float* x, float* out, std::int64_t n, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(UnaryF32)(fn, x, out, n, store);
}
void unary(UnaryFunction fn, const double* x, double* out, std::int64_t n, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(UnaryF64)(fn, x, out, n, store);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
