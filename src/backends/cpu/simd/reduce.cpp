// Sum and max over contiguous runs, for every Highway target (Note [SIMD dispatch] in targets.cpp).
// Float sums accumulate in double (each float vector is widened in two halves), in four independent
// accumulators. max follows NumPy: a nan anywhere in the run is the result.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/reduce.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <limits>

#include "backends/cpu/simd/loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

template <typename T>
double sum_run(const T* x, std::int64_t len) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<T, decltype(dd)> d;  // as many T lanes as double lanes: widened one vector at a time
  const size_t lanes = hn::Lanes(d);
  const auto n = static_cast<size_t>(len);
  const auto wide = [&](const T* p) {
    if constexpr (sizeof(T) == sizeof(double)) {
      return hn::LoadU(dd, p);
    } else {
      return hn::PromoteTo(dd, hn::LoadU(d, p));
    }
  };
  auto s0 = hn::Zero(dd), s1 = hn::Zero(dd), s2 = hn::Zero(dd), s3 = hn::Zero(dd);
  size_t k = 0;
  for (; k + 4 * lanes <= n; k += 4 * lanes) {
    s0 = hn::Add(s0, wide(x + k));
    s1 = hn::Add(s1, wide(x + k + lanes));
    s2 = hn::Add(s2, wide(x + k + 2 * lanes));
    s3 = hn::Add(s3, wide(x + k + 3 * lanes));
  }
  for (; k + lanes <= n; k += lanes) s0 = hn::Add(s0, wide(x + k));
  double total = hn::GetLane(hn::SumOfLanes(dd, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; k < n; ++k) total += static_cast<double>(x[k]);
  return total;
}

template <typename T>
T max_run(const T* x, std::int64_t len) {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  const auto n = static_cast<size_t>(len);
  const T lowest = -std::numeric_limits<T>::infinity();
  auto m0 = hn::Set(d, lowest), m1 = m0;
  auto nan_seen = hn::MaskFromVec(hn::Zero(d));
  size_t k = 0;
  for (; k + 2 * lanes <= n; k += 2 * lanes) {
    const auto v0 = hn::LoadU(d, x + k), v1 = hn::LoadU(d, x + k + lanes);
    m0 = hn::Max(m0, v0);
    m1 = hn::Max(m1, v1);
    nan_seen = hn::Or(nan_seen, hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)));
  }
  for (; k + lanes <= n; k += lanes) {
    const auto v = hn::LoadU(d, x + k);
    m0 = hn::Max(m0, v);
    nan_seen = hn::Or(nan_seen, hn::IsNaN(v));
  }
  if (k < n) {
    const auto v = load_partial(d, x + k, n - k, lowest);
    m1 = hn::Max(m1, v);
    nan_seen = hn::Or(nan_seen, hn::IsNaN(v));
  }
  if (!hn::AllFalse(d, nan_seen)) {
    for (size_t i = 0; i < n; ++i) {
      if (x[i] != x[i]) return x[i];
    }
  }
  return hn::GetLane(hn::MaxOfLanes(d, hn::Max(m0, m1)));
}

}  // namespace

double SumF32(const float* x, std::int64_t n) { return sum_run(x, n); }
double SumF64(const double* x, std::int64_t n) { return sum_run(x, n); }
float MaxF32(const float* x, std::int64_t n) { return max_run(x, n); }
double MaxF64(const double* x, std::int64_t n) { return max_run(x, n); }

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(SumF32);
HWY_EXPORT(SumF64);
HWY_EXPORT(MaxF32);
HWY_EXPORT(MaxF64);

double sum(const float* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(SumF32)(x, n);
}
double sum(const double* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(SumF64)(x, n);
}
float max(const float* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(MaxF32)(x, n);
}
double max(const double* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(MaxF64)(x, n);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
