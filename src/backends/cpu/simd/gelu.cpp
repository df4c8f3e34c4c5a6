// GELU forward (exact and tanh forms, with an optional bias) and backward on contiguous runs, for every
// Highway target (Note [SIMD dispatch] in targets.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/gelu.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/cpu/simd/gelu-inl.h"
#include "backends/cpu/simd/loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

template <typename T, class Fn>
void map_with_bias(const T* x, const T* bias, T* out, size_t n, Store store, const Fn& fn) {
  const hn::ScalableTag<T> d;
  if (bias != nullptr) {
    transform(
        d, out, n, store, [&](Vec<decltype(d)> v, Vec<decltype(d)> b) { return fn(d, hn::Add(v, b)); }, x, bias);
  } else {
    transform(
        d, out, n, store, [&](Vec<decltype(d)> v) { return fn(d, v); }, x);
  }
}

template <typename T>
void forward(const T* x, const T* bias, T* out, std::int64_t n, bool tanh_form, Store store) {
  const auto len = static_cast<size_t>(n);
  if (tanh_form) {
    map_with_bias(x, bias, out, len, store, [](auto d, auto v) { return gelu_tanh(d, v); });
  } else if constexpr (sizeof(T) == 4) {
    map_with_bias(x, bias, out, len, store, [](auto d, auto v) { return gelu_exact_f32(d, v); });
  } else {
    map_with_bias(x, bias, out, len, store, [](auto d, auto v) { return gelu_exact_f64(d, v); });
  }
  finish_stores(store);
}

template <typename T>
void backward(const T* grad, const T* x, T* dx, std::int64_t n, bool tanh_form, Store store) {
  const hn::ScalableTag<T> d;
  using V = Vec<decltype(d)>;
  const auto len = static_cast<size_t>(n);
  if (tanh_form) {
    transform(
        d, dx, len, store, [&](V g, V v) { return hn::Mul(g, gelu_tanh_grad(d, v)); }, grad, x);
  } else if constexpr (sizeof(T) == 4) {
    transform(
        d, dx, len, store, [&](V g, V v) { return hn::Mul(g, gelu_exact_grad_f32(d, v)); }, grad, x);
  } else {
    transform(
        d, dx, len, store, [&](V g, V v) { return hn::Mul(g, gelu_exact_grad_f64(d, v)); }, grad, x);
  }
  finish_stores(store);
}

}  // namespace

void GeluF32(const float* x, const float* bias, float* out, std::int64_t n, bool tanh_form, Store store) {
  forward(x, bias, out, n, tanh_form, store);
}
void GeluF64(const double* x, const double* bias, double* out, std::int64_t n, bool tanh_form, Store store) {
  forward(x, bias, out, n, tanh_form, store);
}
void GeluBackwardF32(const float* grad, const float* x, float* dx, std::int64_t n, bool tanh_form, Store store) {
  backward(grad, x, dx, n, tanh_form, store);
}
void GeluBackwardF64(const double* grad, const double* x, double* dx, std::int64_t n, bool tanh_form, Store store) {
  backward(grad, x, dx, n, tanh_form, store);
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(GeluF32);
HWY_EXPORT(GeluF64);
HWY_EXPORT(GeluBackwardF32);
HWY_EXPORT(GeluBackwardF64);

void gelu(const float* x, const float* bias, float* out, std::int64_t n, bool tanh_form, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(GeluF32)(x, bias, out, n, tanh_form, store);
}
void gelu(const double* x, const double* bias, double* out, std::int64_t n, bool tanh_form, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(GeluF64)(x, bias, out, n, tanh_form, store);
}
void gelu_backward(const float* grad, const float* x, float* dx, std::int64_t n, bool tanh_form, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(GeluBackwardF32)(grad, x, dx, n, tanh_form, store);
}
void gelu_backward(const double* grad, const double* x, double* dx, std::int64_t n, bool tanh_form, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(GeluBackwardF64)(grad, x, dx, n, tanh_form, store);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
