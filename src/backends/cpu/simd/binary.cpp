// Element-wise add, subtract, multiply, divide, pow and atan2 of float runs, for every Highway target
// (Note [SIMD dispatch] in targets.cpp). The arithmetic is memory-bound: what it gains over a plain loop is
// streaming stores for large outputs (Note [Streaming stores]); pow and atan2 compute with a per-vector
// libm fallback (Note [Vector transcendental functions]).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/binary.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>

#include "backends/cpu/simd/double_pow-inl.h"
#include "backends/cpu/simd/lane_functions-inl.h"
#include "backends/cpu/simd/loops-inl.h"
#include "backends/cpu/simd/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

template <class D, class Op>
void run(D d, const hn::TFromD<D>* a, bool a_scalar, const hn::TFromD<D>* b, bool b_scalar, hn::TFromD<D>* out,
         size_t n, Store store, const Op& op) {
  using V = hn::Vec<D>;
  if (a_scalar) {
    const auto av = hn::Set(d, *a);
    transform(
        d, out, n, store, [&](V bv) { return op(av, bv); }, b);
  } else if (b_scalar) {
    const auto bv = hn::Set(d, *b);
    transform(
        d, out, n, store, [&](V av) { return op(av, bv); }, a);
  } else {
    transform(d, out, n, store, op, a, b);
  }
}

template <typename T>
void apply(BinaryFunction fn, const T* a, bool a_scalar, const T* b, bool b_scalar, T* out, std::int64_t len,
           Store store) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const auto n = static_cast<size_t>(len);
  switch (fn) {
    case BinaryFunction::add:
      run(d, a, a_scalar, b, b_scalar, out, n, store, [](V x, V y) { return hn::Add(x, y); });
      break;
    case BinaryFunction::subtract:
      run(d, a, a_scalar, b, b_scalar, out, n, store, [](V x, V y) { return hn::Sub(x, y); });
      break;
    case BinaryFunction::multiply:
      run(d, a, a_scalar, b, b_scalar, out, n, store, [](V x, V y) { return hn::Mul(x, y); });
      break;
    case BinaryFunction::divide:
      run(d, a, a_scalar, b, b_scalar, out, n, store, [](V x, V y) { return hn::Div(x, y); });
      break;
    case BinaryFunction::pow:
      if constexpr (std::is_same_v<T, float>) {
        using DoubleVec = hn::Vec<LaneTag<double>>;
        const LaneTag<double> dd;
        const auto positive_and_finite = [&](DoubleVec x, DoubleVec y) {
          return hn::And(hn::And(hn::Gt(x, hn::Zero(dd)), hn::IsFinite(x)), hn::IsFinite(y));
        };
        binary_in_lanes<double>(
            a, a_scalar, b, b_scalar, out, n, positive_and_finite,
            [&](DoubleVec x, DoubleVec y) { return pow_of_positive(dd, x, y); },
            [](T x, T y) { return std::pow(x, y); });
      } else {
#if HWY_NATIVE_FMA  // Note [Double pow]
        binary_in_lanes<double>(
            a, a_scalar, b, b_scalar, out, n, [&](V x, V y) { return in_double_pow_domain(d, x, y); },
            [&](V x, V y) { return pow_double(d, x, y); }, [](T x, T y) { return std::pow(x, y); });
#else
        for (size_t k = 0; k < n; ++k) out[k] = std::pow(a[a_scalar ? 0 : k], b[b_scalar ? 0 : k]);
#endif
      }
      break;
    case BinaryFunction::atan2: {
      const auto both_finite = [](V y, V x) { return hn::And(hn::IsFinite(y), hn::IsFinite(x)); };
      binary_in_lanes<T>(
          a, a_scalar, b, b_scalar, out, n, both_finite, [&](V y, V x) { return atan2_finite(d, y, x); },
          [](T y, T x) { return std::atan2(y, x); });
      break;
    }
  }
  finish_stores(store);
}

}  // namespace

void BinaryF32(BinaryFunction fn, const float* a, bool a_scalar, const float* b, bool b_scalar, float* out,
               std::int64_t n, Store store) {
  apply(fn, a, a_scalar, b, b_scalar, out, n, store);
}
void BinaryF64(BinaryFunction fn, const double* a, bool a_scalar, const double* b, bool b_scalar, double* out,
               std::int64_t n, Store store) {
  apply(fn, a, a_scalar, b, b_scalar, out, n, store);
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(BinaryF32);
HWY_EXPORT(BinaryF64);

void binary(BinaryFunction fn, const float* a, bool a_scalar, const float* b, bool b_scalar, float* out, std::int64_t n,
            Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(BinaryF32)(fn, a, a_scalar, b, b_scalar, out, n, store);
}
void binary(BinaryFunction fn, const double* a, bool a_scalar, const double* b, bool b_scalar, double* out,
            std::int64_t n, Store store) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(BinaryF64)(fn, a, a_scalar, b, b_scalar, out, n, store);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
