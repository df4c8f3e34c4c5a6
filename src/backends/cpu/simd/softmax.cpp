// Softmax and log-softmax over one row, forward and backward, for every Highway target (Note [SIMD
// dispatch] in targets.cpp). Forward: the row's max (and whether the row is finite), then exp(x - max) and
// its sum written to the output, which is then scaled in place while the row is still in cache. Finite
// rows use exp_nonpositive (half the work of exp); rows with an inf or nan keep exp's special cases. While a
// row computes, the next one is prefetched (rows of a page defeat the hardware prefetchers): together
// 1.2-1.6x faster on a Sapphire Rapids VM (docs/benchmarks.md). Keeping the exponentials in a stack buffer
// and writing the output once with streaming stores measured slower there, with and without the prefetch.
// Log-softmax writes its output once: (x - max) - log(sum).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/softmax.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>
#include <limits>

#include "backends/cpu/simd/loops-inl.h"
#include "backends/cpu/simd/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

// The row's max, and whether every element is finite (their sum is: an inf or nan makes it inf or nan,
// and finite values too large to add up only send the row down the careful path).
template <class D>
hn::TFromD<D> max_of(D d, const hn::TFromD<D>* x, size_t n, bool& finite) {
  using T = hn::TFromD<D>;
  const size_t lanes = hn::Lanes(d);
  const T lowest = -std::numeric_limits<T>::infinity();
  auto m0 = hn::Set(d, lowest), m1 = m0, m2 = m0, m3 = m0;
  auto s0 = hn::Zero(d), s1 = s0;
  size_t k = 0;
  for (; k + 4 * lanes <= n; k += 4 * lanes) {
    const auto v0 = hn::LoadU(d, x + k), v1 = hn::LoadU(d, x + k + lanes);
    const auto v2 = hn::LoadU(d, x + k + 2 * lanes), v3 = hn::LoadU(d, x + k + 3 * lanes);
    m0 = hn::Max(m0, v0);
    m1 = hn::Max(m1, v1);
    m2 = hn::Max(m2, v2);
    m3 = hn::Max(m3, v3);
    s0 = hn::Add(s0, hn::Add(v0, v1));
    s1 = hn::Add(s1, hn::Add(v2, v3));
  }
  for (; k + lanes <= n; k += lanes) {
    const auto v = hn::LoadU(d, x + k);
    m0 = hn::Max(m0, v);
    s0 = hn::Add(s0, v);
  }
  if (k < n) {
    m1 = hn::Max(m1, load_partial(d, x + k, n - k, lowest));
    s1 = hn::Add(s1, load_partial(d, x + k, n - k));
  }
  finite = std::isfinite(hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1))));
  return hn::GetLane(hn::MaxOfLanes(d, hn::Max(hn::Max(m0, m1), hn::Max(m2, m3))));
}

// e[k] = exp(x[k] - m); returns the sum of e. e may be x (in place). For a finite row (m its max) the
// exponent is <= 0 and not nan, which exp_nonpositive needs. With prefetch_next the row after x, and the
// output after e, are requested while this row computes: a row of 4 KiB is a whole page, where the
// hardware prefetchers stop, and the next row's max pass would otherwise wait on memory.
template <bool kFinite, class D>
hn::TFromD<D> exp_and_sum(D d, const hn::TFromD<D>* x, hn::TFromD<D>* e, size_t n, hn::TFromD<D> m,
                          bool prefetch_next) {
  const auto mv = hn::Set(d, m);
  const auto exp_shifted = [&](auto v) {
    if constexpr (kFinite) return exp_nonpositive(d, hn::Sub(v, mv));
    else return exp(d, hn::Sub(v, mv));
  };
  const size_t lanes = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d);
  size_t k = 0;
  for (; k + 2 * lanes <= n; k += 2 * lanes) {
    if (prefetch_next) {  // one request per cache line on every target: 2 lanes-vectors are >= 1 line
      hwy::Prefetch(x + n + k);
      hwy::Prefetch(x + n + k + lanes);
      __builtin_prefetch(e + n + k, 1, 3);
      __builtin_prefetch(e + n + k + lanes, 1, 3);
    }
    const auto e0 = exp_shifted(hn::LoadU(d, x + k));
    const auto e1 = exp_shifted(hn::LoadU(d, x + k + lanes));
    hn::StoreU(e0, d, e + k);
    hn::StoreU(e1, d, e + k + lanes);
    s0 = hn::Add(s0, e0);
    s1 = hn::Add(s1, e1);
  }
  for (; k + lanes <= n; k += lanes) {
    const auto e0 = exp_shifted(hn::LoadU(d, x + k));
    hn::StoreU(e0, d, e + k);
    s0 = hn::Add(s0, e0);
  }
  if (k < n) {
    const auto e0 = hn::IfThenElseZero(hn::FirstN(d, n - k), exp_shifted(load_partial(d, x + k, n - k)));
    store_partial(d, e0, e + k, n - k);
    s1 = hn::Add(s1, e0);
  }
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1)));
}

template <class D>
void scale_in_place(D d, hn::TFromD<D>* y, size_t n, hn::TFromD<D> factor) {
  const size_t lanes = hn::Lanes(d);
  const auto f = hn::Set(d, factor);
  size_t k = 0;
  for (; k + lanes <= n; k += lanes) hn::StoreU(hn::Mul(hn::LoadU(d, y + k), f), d, y + k);
  for (; k < n; ++k) y[k] *= factor;
}

template <typename T>
void forward(const T* x, T* y, std::int64_t len, bool log, Store store, bool prefetch_next) {
  const hn::ScalableTag<T> d;
  using V = Vec<decltype(d)>;
  const auto n = static_cast<size_t>(len);
  bool finite = false;
  const T m = max_of(d, x, n, finite);
  if (log) {
    const auto mv = hn::Set(d, m);
    const T sum = finite ? sum_of(
                               d, n, m, [&](V v) { return exp_nonpositive(d, hn::Sub(v, mv)); }, x)
                         : sum_of(
                               d, n, m, [&](V v) { return exp(d, hn::Sub(v, mv)); }, x);
    // (x - m) - log(sum), not x - (m + log(sum)): a large m would absorb log(sum).
    const auto log_sum = hn::Set(d, std::log(sum));
    transform(
        d, y, n, store, [&](V v) { return hn::Sub(hn::Sub(v, mv), log_sum); }, x);
  } else {
    const T sum = finite ? exp_and_sum<true>(d, x, y, n, m, prefetch_next)
                         : exp_and_sum<false>(d, x, y, n, m, prefetch_next);
    scale_in_place(d, y, n, T(1) / sum);
  }
}

template <typename T>
void backward(const T* g, const T* y, T* dx, std::int64_t len, bool log, Store store) {
  const hn::ScalableTag<T> d;
  using V = Vec<decltype(d)>;
  const auto n = static_cast<size_t>(len);
  if (log) {  // dx = g - softmax * sum(g), softmax = exp(y)
    const auto total = hn::Set(d, sum_of(
                                      d, n, T(0), [](V gv) { return gv; }, g));
    transform(
        d, dx, n, store, [&](V gv, V yv) { return hn::NegMulAdd(exp(d, yv), total, gv); }, g, y);
  } else {  // dx = y * (g - sum(g * y))
    const auto dot = hn::Set(d, sum_of(
                                    d, n, T(0), [](V gv, V yv) { return hn::Mul(gv, yv); }, g, y));
    transform(
        d, dx, n, store, [&](V gv, V yv) { return hn::Mul(yv, hn::Sub(gv, dot)); }, g, y);
  }
}

template <typename T>
void forward_rows(const T* x, T* y, std::int64_t rows, std::int64_t n, bool log, Store store) {
  for (std::int64_t r = 0; r < rows; ++r) forward(x + r * n, y + r * n, n, log, store, r + 1 < rows);
  finish_stores(store);
}

template <typename T>
void backward_rows(const T* g, const T* y, T* dx, std::int64_t rows, std::int64_t n, bool log, Store store) {
  for (std::int64_t r = 0; r < rows; ++r) backward(g + r * n, y + r * n, dx + r * n, n, log, store);
  finish_stores(store);
}

}  // namespace

float ExpShiftedSumF32(float* x, std::int64_t n, float shift) {
  return exp_and_sum<false>(hn::ScalableTag<float>(), x, x, static_cast<size_t>(n), shift, false);
}
double ExpShiftedSumF64(double* x, std::int64_t n, double shift) {
  return exp_and_sum<false>(hn::ScalableTag<double>(), x, x, static_cast<size_t>(n), shift, false);
}

void SoftmaxF32(const float* x, float* y, std::int64_t rows, std::int64_t n, bool log, Store store) {
  forward_rows(x, y, rows, n, log, store);
}
void SoftmaxF64(const double* x, double* y, std::int64_t rows, std::int64_t n, bool log, Store store) {
  forward_rows(x, y, rows, n, log, store);
}
void SoftmaxBackwardF32(const float* g, const float* y, float* dx, std::int64_t rows, std::int64_t n, bool log,
                        Store store) {
  backward_rows(g, y, dx, rows, n, log, store);
}
void SoftmaxBackwardF64(const double* g, const double* y, double* dx, std::int64_t rows, std::int64_t n, bool log,
                        Store store) {
  backward_rows(g, y, dx, rows, n, log, store);
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(ExpShiftedSumF32);
HWY_EXPORT(ExpShiftedSumF64);
HWY_EXPORT(SoftmaxF32);
HWY_EXPORT(SoftmaxF64);
HWY_EXPORT(SoftmaxBackwardF32);
HWY_EXPORT(SoftmaxBackwardF64);

float exp_shifted_sum(float* x, std::int64_t n, float shift) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedSumF32)(x, n, shift);
}
double exp_shifted_sum(double* x, std::int64_t n, double shift) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedSumF64)(x, n, shift);
}

void softmax_rows(const float* x, float* y, std::int64_t rows, std::int64_t n, bool log, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(SoftmaxF32)(x, y, rows, n, log, store);
}
void softmax_rows(const double* x, double* y, std::int64_t rows, std::int64_t n, bool log, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(SoftmaxF64)(x, y, rows, n, log, store);
}
void softmax_backward_rows(const float* grad, const float* y, float* dx, std::int64_t rows, std::int64_t n, bool log,
                           Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(SoftmaxBackwardF32)(grad, y, dx, rows, n, log, store);
}
void softmax_backward_rows(const double* grad, const double* y, double* dx, std::int64_t rows, std::int64_t n, bool log,
                           Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(SoftmaxBackwardF64)(grad, y, dx, rows, n, log, store);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
