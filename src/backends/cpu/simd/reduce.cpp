// Sum, max, min and the first index of a value over contiguous runs, for every Highway target (Note [SIMD dispatch] in targets.cpp).
// Float sums accumulate in double (each float vector is widened in two halves), in four independent
// accumulators. max and min follow NumPy: a nan anywhere in the run is the result. The squared deviations
// from a center (var's second pass) accumulate the same way. Column sums add blocks of rows into a row of
// double accumulators.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/reduce.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <limits>

#include "backends/cpu/simd/loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

using DoubleTag = hn::ScalableTag<double>;

// As many T's from p as a double vector has lanes, widened to double.
template <typename T>
HWY_INLINE hn::Vec<DoubleTag> load_double(const T* p) {
  const DoubleTag dd;
  if constexpr (sizeof(T) == sizeof(double)) {
    return hn::LoadU(dd, p);
  } else {
    return hn::PromoteTo(dd, hn::LoadU(hn::Rebind<T, DoubleTag>(), p));
  }
}

// The sum over elements k < len of a run: add(acc, k) adds the terms of elements k.. (one double vector)
// to acc, term(k) is element k's alone for the last few. Four independent accumulators.
template <class Add, class Term>
double accumulate_run(std::int64_t len, Add add, Term term) {
  const DoubleTag dd;
  const size_t lanes = hn::Lanes(dd);
  const auto n = static_cast<size_t>(len);
  auto s0 = hn::Zero(dd), s1 = hn::Zero(dd), s2 = hn::Zero(dd), s3 = hn::Zero(dd);
  size_t k = 0;
  for (; k + 4 * lanes <= n; k += 4 * lanes) {
    s0 = add(s0, k);
    s1 = add(s1, k + lanes);
    s2 = add(s2, k + 2 * lanes);
    s3 = add(s3, k + 3 * lanes);
  }
  for (; k + lanes <= n; k += lanes) s0 = add(s0, k);
  double total = hn::GetLane(hn::SumOfLanes(dd, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; k < n; ++k) total += term(k);
  return total;
}

template <typename T>
double sum_run(const T* x, std::int64_t len) {
  return accumulate_run(
      len, [x](auto acc, size_t k) { return hn::Add(acc, load_double(x + k)); },
      [x](size_t k) { return static_cast<double>(x[k]); });
}

template <typename T>
double dot_run(const T* a, const T* b, std::int64_t len) {
  return accumulate_run(
      len, [a, b](auto acc, size_t k) { return hn::MulAdd(load_double(a + k), load_double(b + k), acc); },
      [a, b](size_t k) { return static_cast<double>(a[k]) * static_cast<double>(b[k]); });
}

// The sum of (x[k] - center)^2, in double.
template <typename T>
double squared_deviations_run(const T* x, std::int64_t len, double center) {
  const auto c = hn::Set(DoubleTag(), center);
  return accumulate_run(
      len,
      [x, c](auto acc, size_t k) {
        const auto v = hn::Sub(load_double(x + k), c);
        return hn::MulAdd(v, v, acc);
      },
      [x, center](size_t k) {
        const double v = static_cast<double>(x[k]) - center;
        return v * v;
      });
}

// acc[j] += x[r * stride + j] (kCentered: (x[r * stride + j] - center[j])^2) for r < rows, j < n, in blocks
// of 8 rows: each block reads its rows side by side and loads and stores the accumulators once.
template <bool kCentered, typename T>
void add_rows_run(const T* x, std::int64_t rows, std::int64_t stride, std::int64_t n, const double* center,
                  double* acc) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<T, decltype(dd)> d;
  const auto lanes = static_cast<std::int64_t>(hn::Lanes(d));
  const auto wide = [&](const T* p) {
    if constexpr (sizeof(T) == sizeof(double)) {
      return hn::LoadU(dd, p);
    } else {
      return hn::PromoteTo(dd, hn::LoadU(d, p));
    }
  };
  constexpr std::int64_t kBlock = 8;
  for (std::int64_t r0 = 0; r0 < rows; r0 += kBlock) {
    const std::int64_t block = std::min(kBlock, rows - r0);
    const T* first = x + r0 * stride;
    std::int64_t j = 0;
    for (; j + lanes <= n; j += lanes) {
      auto a = hn::LoadU(dd, acc + j);
      const auto c = kCentered ? hn::LoadU(dd, center + j) : hn::Zero(dd);
      for (std::int64_t r = 0; r < block; ++r) {
        const auto v = wide(first + r * stride + j);
        if constexpr (kCentered) {
          const auto dv = hn::Sub(v, c);
          a = hn::MulAdd(dv, dv, a);
        } else {
          a = hn::Add(a, v);
        }
      }
      hn::StoreU(a, dd, acc + j);
    }
    for (; j < n; ++j) {
      for (std::int64_t r = 0; r < block; ++r) {
        const double v = static_cast<double>(first[r * stride + j]);
        if constexpr (kCentered) {
          acc[j] += (v - center[j]) * (v - center[j]);
        } else {
          acc[j] += v;
        }
      }
    }
  }
}

// max (kMax) or min of a run; NumPy's rule: a nan anywhere in the run is the result.
template <bool kMax, typename T>
T extremum_run(const T* x, std::int64_t len) {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  const auto n = static_cast<size_t>(len);
  const T identity = kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  const auto pick = [](auto a, auto b) { return kMax ? hn::Max(a, b) : hn::Min(a, b); };
  auto m0 = hn::Set(d, identity), m1 = m0;
  auto nan_seen = hn::MaskFromVec(hn::Zero(d));
  size_t k = 0;
  for (; k + 2 * lanes <= n; k += 2 * lanes) {
    const auto v0 = hn::LoadU(d, x + k), v1 = hn::LoadU(d, x + k + lanes);
    m0 = pick(m0, v0);
    m1 = pick(m1, v1);
    nan_seen = hn::Or(nan_seen, hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)));
  }
  for (; k + lanes <= n; k += lanes) {
    const auto v = hn::LoadU(d, x + k);
    m0 = pick(m0, v);
    nan_seen = hn::Or(nan_seen, hn::IsNaN(v));
  }
  if (k < n) {
    const auto v = load_partial(d, x + k, n - k, identity);
    m1 = pick(m1, v);
    nan_seen = hn::Or(nan_seen, hn::IsNaN(v));
  }
  if (!hn::AllFalse(d, nan_seen)) {
    for (size_t i = 0; i < n; ++i) {
      if (x[i] != x[i]) return x[i];
    }
  }
  const auto m = pick(m0, m1);
  return hn::GetLane(kMax ? hn::MaxOfLanes(d, m) : hn::MinOfLanes(d, m));
}

// max (kMax) or min of a run of integers (NumPy's AVX-512 loops are the bar: the baseline build has no
// 32- or 64-bit integer max below SSE4.1, so the plain loop does not vectorise).
template <bool kMax, typename T>
T integer_extremum_run(const T* x, std::int64_t len) {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  const auto n = static_cast<size_t>(len);
  const T identity = kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  const auto pick = [](auto a, auto b) { return kMax ? hn::Max(a, b) : hn::Min(a, b); };
  auto m0 = hn::Set(d, identity), m1 = m0;
  size_t k = 0;
  for (; k + 2 * lanes <= n; k += 2 * lanes) {
    m0 = pick(m0, hn::LoadU(d, x + k));
    m1 = pick(m1, hn::LoadU(d, x + k + lanes));
  }
  for (; k + lanes <= n; k += lanes) m0 = pick(m0, hn::LoadU(d, x + k));
  if (k < n) m1 = pick(m1, load_partial(d, x + k, n - k, identity));
  // The lanes combined in scalar code: this Highway has no MaxOfLanes for 8-bit lanes on every target.
  HWY_ALIGN T last[hn::MaxLanes(d)];
  hn::Store(pick(m0, m1), d, last);
  T result = identity;
  for (size_t i = 0; i < lanes; ++i) result = kMax ? std::max(result, last[i]) : std::min(result, last[i]);
  return result;
}

// The first k with x[k] == value (or x[k] a nan when value is one); len when there is none.
template <typename T>
std::int64_t first_index_run(const T* x, std::int64_t len, T value) {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  const auto n = static_cast<size_t>(len);
  const bool want_nan = value != value;
  const auto target = hn::Set(d, value);
  size_t k = 0;
  for (; k + lanes <= n; k += lanes) {
    const auto v = hn::LoadU(d, x + k);
    const intptr_t hit = hn::FindFirstTrue(d, want_nan ? hn::IsNaN(v) : hn::Eq(v, target));
    if (hit >= 0) return static_cast<std::int64_t>(k) + hit;
  }
  for (; k < n; ++k) {
    if (want_nan ? x[k] != x[k] : x[k] == value) return static_cast<std::int64_t>(k);
  }
  return len;
}

// add_rows_run with the squared deviations from `center` where it is given, the values otherwise.
template <typename T>
void add_rows(const T* x, std::int64_t rows, std::int64_t stride, std::int64_t n, const double* center,
              double* acc) {
  if (center != nullptr) {
    add_rows_run<true>(x, rows, stride, n, center, acc);
  } else {
    add_rows_run<false>(x, rows, stride, n, center, acc);
  }
}

}  // namespace

double SumF32(const float* x, std::int64_t n) { return sum_run(x, n); }
double SumF64(const double* x, std::int64_t n) { return sum_run(x, n); }
double DotF32(const float* a, const float* b, std::int64_t n) { return dot_run(a, b, n); }
double DotF64(const double* a, const double* b, std::int64_t n) { return dot_run(a, b, n); }
double SquaredDeviationsF32(const float* x, std::int64_t n, double c) { return squared_deviations_run(x, n, c); }
double SquaredDeviationsF64(const double* x, std::int64_t n, double c) { return squared_deviations_run(x, n, c); }
void AddRowsF32(const float* x, std::int64_t rows, std::int64_t stride, std::int64_t n, const double* center,
                double* acc) {
  add_rows(x, rows, stride, n, center, acc);
}
void AddRowsF64(const double* x, std::int64_t rows, std::int64_t stride, std::int64_t n, const double* center,
                double* acc) {
  add_rows(x, rows, stride, n, center, acc);
}
float MaxF32(const float* x, std::int64_t n) { return extremum_run<true>(x, n); }
double MaxF64(const double* x, std::int64_t n) { return extremum_run<true>(x, n); }
float MinF32(const float* x, std::int64_t n) { return extremum_run<false>(x, n); }
double MinF64(const double* x, std::int64_t n) { return extremum_run<false>(x, n); }
// The integer types of the run-time dispatched max and min: X(suffix, type).
#define ACC_SIMD_INTEGER_TYPES(X) \
  X(I8, std::int8_t)              \
  X(I16, std::int16_t)            \
  X(I32, std::int32_t)            \
  X(I64, std::int64_t)            \
  X(U8, std::uint8_t)             \
  X(U16, std::uint16_t)           \
  X(U32, std::uint32_t)           \
  X(U64, std::uint64_t)
#define ACC_SIMD_INTEGER_EXTREMA(suffix, type)                                                           \
  type Max##suffix(const type* x, std::int64_t n) { return integer_extremum_run<true>(x, n); }          \
  type Min##suffix(const type* x, std::int64_t n) { return integer_extremum_run<false>(x, n); }
ACC_SIMD_INTEGER_TYPES(ACC_SIMD_INTEGER_EXTREMA)
#undef ACC_SIMD_INTEGER_EXTREMA
std::int64_t FirstIndexF32(const float* x, std::int64_t n, float value) { return first_index_run(x, n, value); }
std::int64_t FirstIndexF64(const double* x, std::int64_t n, double value) { return first_index_run(x, n, value); }

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(SumF32);
HWY_EXPORT(SumF64);
HWY_EXPORT(DotF32);
HWY_EXPORT(DotF64);
HWY_EXPORT(SquaredDeviationsF32);
HWY_EXPORT(SquaredDeviationsF64);
HWY_EXPORT(AddRowsF32);
HWY_EXPORT(AddRowsF64);
HWY_EXPORT(MaxF32);
HWY_EXPORT(MaxF64);
HWY_EXPORT(MinF32);
HWY_EXPORT(MinF64);
HWY_EXPORT(FirstIndexF32);
HWY_EXPORT(FirstIndexF64);
#define ACC_SIMD_EXPORT_EXTREMA(suffix, type) \
  HWY_EXPORT(Max##suffix);                    \
  HWY_EXPORT(Min##suffix);
ACC_SIMD_INTEGER_TYPES(ACC_SIMD_EXPORT_EXTREMA)
#undef ACC_SIMD_EXPORT_EXTREMA

#define ACC_SIMD_DISPATCH_EXTREMA(suffix, type)           \
  type max(const type* x, std::int64_t n) {               \
    ensure_target_selected();                             \
    return HWY_DYNAMIC_DISPATCH(Max##suffix)(x, n);       \
  }                                                       \
  type min(const type* x, std::int64_t n) {               \
    ensure_target_selected();                             \
    return HWY_DYNAMIC_DISPATCH(Min##suffix)(x, n);       \
  }
ACC_SIMD_INTEGER_TYPES(ACC_SIMD_DISPATCH_EXTREMA)
#undef ACC_SIMD_DISPATCH_EXTREMA

double sum(const float* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(SumF32)(x, n);
}
double sum(const double* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(SumF64)(x, n);
}
double dot(const float* a, const float* b, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(DotF32)(a, b, n);
}
double dot(const double* a, const double* b, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(DotF64)(a, b, n);
}
double sum_squared_deviations(const float* x, std::int64_t n, double center) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(SquaredDeviationsF32)(x, n, center);
}
double sum_squared_deviations(const double* x, std::int64_t n, double center) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(SquaredDeviationsF64)(x, n, center);
}
void add_rows(const float* x, std::int64_t rows, std::int64_t stride, std::int64_t n, const double* center,
              double* acc) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(AddRowsF32)(x, rows, stride, n, center, acc);
}
void add_rows(const double* x, std::int64_t rows, std::int64_t stride, std::int64_t n, const double* center,
              double* acc) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(AddRowsF64)(x, rows, stride, n, center, acc);
}
float max(const float* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(MaxF32)(x, n);
}
double max(const double* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(MaxF64)(x, n);
}
float min(const float* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(MinF32)(x, n);
}
double min(const double* x, std::int64_t n) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(MinF64)(x, n);
}
std::int64_t first_index(const float* x, std::int64_t n, float value) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(FirstIndexF32)(x, n, value);
}
std::int64_t first_index(const double* x, std::int64_t n, double value) {
  ensure_target_selected();
  return HWY_DYNAMIC_DISPATCH(FirstIndexF64)(x, n, value);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
