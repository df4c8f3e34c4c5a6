// Element-wise add, subtract, multiply and divide of float runs, for every Highway target (Note [SIMD
// dispatch] in targets.cpp). Memory-bound: what they gain over a plain loop is streaming stores for large
// outputs (Note [Streaming stores]).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/binary.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/cpu/simd/loops-inl.h"

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
