// Element-wise exp, log, tanh and sigmoid on contiguous runs, for every Highway target (Note [SIMD
// dispatch] in targets.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/unary.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/cpu/simd/loops-inl.h"
#include "backends/cpu/simd/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

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
    case UnaryFunction::log:
      transform(
          d, out, n, store, [&](V v) { return log(d, v); }, x);
      break;
    case UnaryFunction::tanh:
      transform(
          d, out, n, store, [&](V v) { return tanh(d, v); }, x);
      break;
    case UnaryFunction::sigmoid:
      transform(
          d, out, n, store, [&](V v) { return sigmoid(d, v); }, x);
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
