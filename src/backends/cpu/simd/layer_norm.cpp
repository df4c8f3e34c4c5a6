// LayerNorm over one row, forward and backward, for every Highway target (Note [SIMD dispatch] in
// targets.cpp). The variance is the mean of (x - mean)^2, which cannot cancel; if it overflows (float
// rows near 1e20 square past FLT_MAX, though rstd near 1e-20 is a float), the row's statistics are
// recomputed on the row scaled by a power of two.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/layer_norm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "backends/cpu/simd/loops-inl.h"
#include "backends/cpu/simd/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

// Mean and rstd of a finite row whose squared deviations overflow T: the same sums over x scaled by a
// power of two that brings max |x| into [1, 2), so that no sum can overflow and no scaling rounds.
template <typename T>
void scaled_statistics(const T* x, size_t n, double eps, T& mean, T& rstd) {
  T largest = 0;
  for (size_t k = 0; k < n; ++k) largest = std::max(largest, std::fabs(x[k]));
  const int exponent = std::ilogb(largest);
  const T scale = std::ldexp(T(1), -exponent);
  T sum = 0;
  for (size_t k = 0; k < n; ++k) sum += x[k] * scale;
  const T scaled_mean = sum / static_cast<T>(n);
  T sq = 0;
  for (size_t k = 0; k < n; ++k) sq += (x[k] * scale - scaled_mean) * (x[k] * scale - scaled_mean);
  const T scaled_eps = static_cast<T>(eps) * scale * scale;
  mean = std::ldexp(scaled_mean, exponent);
  rstd = scale / std::sqrt(sq / static_cast<T>(n) + scaled_eps);
}

template <class D>
hn::TFromD<D> max_abs(D d, const hn::TFromD<D>* x, size_t n) {
  auto m = hn::Zero(d);
  const size_t lanes = hn::Lanes(d);
  size_t k = 0;
  for (; k + lanes <= n; k += lanes) m = hn::Max(m, hn::Abs(hn::LoadU(d, x + k)));
  if (k < n) m = hn::Max(m, hn::Abs(load_partial(d, x + k, n - k)));
  return hn::GetLane(hn::MaxOfLanes(d, m));
}

template <typename T>
void forward(const T* x, const T* w, const T* b, std::int64_t len, double eps, T* y, T* mean_out, T* rstd_out,
             Store store) {
  const hn::ScalableTag<T> d;
  using V = Vec<decltype(d)>;
  const auto n = static_cast<size_t>(len);
  const T inv_n = T(1) / static_cast<T>(n);
  T mu = sum_of(
             d, n, T(0), [](V v) { return v; }, x) *
         inv_n;
  const auto mu_v = hn::Set(d, mu);
  T variance = sum_of(
                   d, n, mu,
                   [&](V v) {
                     const auto c = hn::Sub(v, mu_v);
                     return hn::Mul(c, c);
                   },
                   x) *
               inv_n;
  T rs = T(1) / std::sqrt(variance + static_cast<T>(eps));
  if (!std::isfinite(variance) || !std::isfinite(mu)) {
    const T largest = max_abs(d, x, n);
    if (std::isfinite(largest)) scaled_statistics(x, n, eps, mu, rs);  // else inf or nan is the answer
  }
  *mean_out = mu;
  *rstd_out = rs;
  const auto m = hn::Set(d, mu), r = hn::Set(d, rs);
  const auto xhat = [&](V v) { return hn::Mul(hn::Sub(v, m), r); };
  if (w != nullptr && b != nullptr) {
    transform(
        d, y, n, store, [&](V v, V wv, V bv) { return hn::MulAdd(xhat(v), wv, bv); }, x, w, b);
  } else if (w != nullptr) {
    transform(
        d, y, n, store, [&](V v, V wv) { return hn::Mul(xhat(v), wv); }, x, w);
  } else if (b != nullptr) {
    transform(
        d, y, n, store, [&](V v, V bv) { return hn::Add(xhat(v), bv); }, x, b);
  } else {
    transform(d, y, n, store, xhat, x);
  }
}

// dx = rstd * (g w - mean(g w) - xhat * mean(g w xhat)), xhat = (x - mean) * rstd.
template <typename T>
void backward(const T* g, const T* x, const T* w, T mean, T rstd, std::int64_t len, T* dx, T* dw_sum, T* db_sum,
              Store store) {
  const hn::ScalableTag<T> d;
  using V = Vec<decltype(d)>;
  const auto n = static_cast<size_t>(len);
  const T inv_n = T(1) / static_cast<T>(n);
  const auto m = hn::Set(d, mean), r = hn::Set(d, rstd);
  const auto xhat = [&](V v) { return hn::Mul(hn::Sub(v, m), r); };
  T sum_g, sum_gx;
  if (w != nullptr) {
    sum_g = sum_of(
        d, n, T(0), [](V gv, V wv) { return hn::Mul(gv, wv); }, g, w);
    sum_gx = sum_of(
        d, n, mean, [&](V gv, V wv, V v) { return hn::Mul(hn::Mul(gv, wv), xhat(v)); }, g, w, x);
  } else {
    sum_g = sum_of(
        d, n, T(0), [](V gv) { return gv; }, g);
    sum_gx = sum_of(
        d, n, mean, [&](V gv, V v) { return hn::Mul(gv, xhat(v)); }, g, x);
  }
  const auto a = hn::Set(d, sum_g * inv_n), c = hn::Set(d, sum_gx * inv_n);
  const auto dx_of = [&](V gw, V v) { return hn::Mul(r, hn::NegMulAdd(xhat(v), c, hn::Sub(gw, a))); };
  if (w != nullptr) {
    transform(
        d, dx, n, store, [&](V gv, V wv, V v) { return dx_of(hn::Mul(gv, wv), v); }, g, w, x);
  } else {
    transform(d, dx, n, store, dx_of, g, x);
  }
  if (dw_sum == nullptr) return;
  // The per-thread parameter sums (dw += g xhat, db += g) stay in cache: ordinary stores.
  const size_t lanes = hn::Lanes(d);
  size_t k = 0;
  for (; k + lanes <= n; k += lanes) {
    const auto gv = hn::LoadU(d, g + k);
    hn::StoreU(hn::MulAdd(gv, xhat(hn::LoadU(d, x + k)), hn::LoadU(d, dw_sum + k)), d, dw_sum + k);
    hn::StoreU(hn::Add(gv, hn::LoadU(d, db_sum + k)), d, db_sum + k);
  }
  for (; k < n; ++k) {
    dw_sum[k] += g[k] * ((x[k] - mean) * rstd);
    db_sum[k] += g[k];
  }
}

template <typename T>
void forward_rows(const T* x, const T* w, const T* b, std::int64_t rows, std::int64_t n, double eps, T* y, T* mean,
                  T* rstd, Store store) {
  for (std::int64_t r = 0; r < rows; ++r) forward(x + r * n, w, b, n, eps, y + r * n, mean + r, rstd + r, store);
  finish_stores(store);
}

template <typename T>
void backward_rows(const T* g, const T* x, const T* w, const T* mean, const T* rstd, std::int64_t rows, std::int64_t n,
                   T* dx, T* dw_sum, T* db_sum, Store store) {
  for (std::int64_t r = 0; r < rows; ++r) {
    backward(g + r * n, x + r * n, w, mean[r], rstd[r], n, dx + r * n, dw_sum, db_sum, store);
  }
  finish_stores(store);
}

}  // namespace

void LayerNormF32(const float* x, const float* w, const float* b, std::int64_t rows, std::int64_t n, double eps,
                  float* y, float* mean, float* rstd, Store store) {
  forward_rows(x, w, b, rows, n, eps, y, mean, rstd, store);
}
void LayerNormF64(const double* x, const double* w, const double* b, std::int64_t rows, std::int64_t n, double eps,
                  double* y, double* mean, double* rstd, Store store) {
  forward_rows(x, w, b, rows, n, eps, y, mean, rstd, store);
}
void LayerNormBackwardF32(const float* g, const float* x, const float* w, const float* mean, const float* rstd,
                          std::int64_t rows, std::int64_t n, float* dx, float* dw_sum, float* db_sum, Store store) {
  backward_rows(g, x, w, mean, rstd, rows, n, dx, dw_sum, db_sum, store);
}
void LayerNormBackwardF64(const double* g, const double* x, const double* w, const double* mean, const double* rstd,
                          std::int64_t rows, std::int64_t n, double* dx, double* dw_sum, double* db_sum, Store store) {
  backward_rows(g, x, w, mean, rstd, rows, n, dx, dw_sum, db_sum, store);
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(LayerNormF32);
HWY_EXPORT(LayerNormF64);
HWY_EXPORT(LayerNormBackwardF32);
HWY_EXPORT(LayerNormBackwardF64);

void layer_norm_rows(const float* x, const float* weight, const float* bias, std::int64_t rows, std::int64_t n,
                     double eps, float* y, float* mean, float* rstd, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(LayerNormF32)(x, weight, bias, rows, n, eps, y, mean, rstd, store);
}
void layer_norm_rows(const double* x, const double* weight, const double* bias, std::int64_t rows, std::int64_t n,
                     double eps, double* y, double* mean, double* rstd, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(LayerNormF64)(x, weight, bias, rows, n, eps, y, mean, rstd, store);
}
void layer_norm_backward_rows(const float* grad, const float* x, const float* weight, const float* mean,
                              const float* rstd, std::int64_t rows, std::int64_t n, float* dx, float* dweight_sum,
                              float* dbias_sum, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(LayerNormBackwardF32)(grad, x, weight, mean, rstd, rows, n, dx, dweight_sum, dbias_sum, store);
}
void layer_norm_backward_rows(const double* grad, const double* x, const double* weight, const double* mean,
                              const double* rstd, std::int64_t rows, std::int64_t n, double* dx, double* dweight_sum,
                              double* dbias_sum, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(LayerNormBackwardF64)(grad, x, weight, mean, rstd, rows, n, dx, dweight_sum, dbias_sum, store);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
