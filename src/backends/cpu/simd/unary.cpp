// Element-wise exp, expm1, log, log1p, tanh, sigmoid, sin and cos on contiguous runs, for every Highway target (Note
// [SIMD dispatch] in targets.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/unary.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>
#include <type_traits>

#include "backends/cpu/simd/loops-inl.h"
#include "backends/cpu/simd/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

// float sin and cos through double lanes: the reduction by pi/2 in double keeps float results correctly
// rounded but for rare double roundings, even next to multiples of pi (float's own Cody-Waite reduction
// loses there). Vectors with a lane beyond kSinCosLimit, inf or nan take libm's sinf or cosf lane by lane.
void sin_cos_float(bool cosine, const float* x, float* out, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;  // as many float lanes as dd has double lanes
  const size_t lanes = hn::Lanes(dd);
  const auto limit = hn::Set(dd, kSinCosLimit);
  const auto one_vector = [&](const float* in, float* o, size_t count) {
    hn::Vec<decltype(dd)> v;
    if constexpr (hn::MaxLanes(df) > 1) {  // a one-lane target has no partial vectors
      v = count == lanes ? hn::PromoteTo(dd, hn::LoadU(df, in)) : hn::PromoteTo(dd, load_partial(df, in, count));
    } else {
      v = hn::PromoteTo(dd, hn::LoadU(df, in));
    }
    if (hn::AllTrue(dd, hn::Le(hn::Abs(v), limit))) {
      const auto y = hn::DemoteTo(df, sin_cos_reduced(dd, v, cosine));
      if constexpr (hn::MaxLanes(df) > 1) {
        if (count != lanes) return store_partial(df, y, o, count);
      }
      hn::StoreU(y, df, o);
      return;
    }
    for (size_t i = 0; i < count; ++i) o[i] = cosine ? std::cos(in[i]) : std::sin(in[i]);
  };
  size_t k = 0;
  for (; k + lanes <= n; k += lanes) one_vector(x + k, out + k, lanes);
  if (k < n) one_vector(x + k, out + k, n - k);
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
    case UnaryFunction::sin:
    case UnaryFunction::cos:
      if constexpr (std::is_same_v<T, float>) {
        sin_cos_float(fn == UnaryFunction::cos, x, out, n);
      } else {  // double keeps libm's: its reduction stays exact for every argument
        for (size_t k = 0; k < n; ++k) out[k] = fn == UnaryFunction::cos ? std::cos(x[k]) : std::sin(x[k]);
      }
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
