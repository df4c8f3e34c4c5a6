// Element-wise functions evaluated in vectors of double (or of the input's own type) with a per-vector libm
// fallback (no include guard on purpose: see math-inl.h).
//
// Note [Vector transcendental functions]
// float sin, cos, tan and pow are computed in double lanes: the reduction by pi/2 and the polynomials in double
// (a few ulp of double) round once to float, so results are correctly rounded but in rare double-rounding
// cases (within 1 ulp always), even next to multiples of pi/2 where a float reduction cancels, and pow as
// 2^(y log2 x) from tables keeps the double log's error far below a float ulp for any result in float's
// range (Note [Table-driven pow] in math-inl.h). The other
// functions run in the input's own lanes, at twice the lanes per vector: float asin, acos, atan, sinh,
// asinh, acosh and atanh with Highway's algorithms (2 to 4 ulp, what NumPy's own vector forms give), and
// our cosh, log2, log10 and atan2 (within 2.5 to 4 ulp; log2 adds the exponent exactly, so log2(8) is 3).
// double inputs use the same algorithms in double (within 3.5 ulp), but for sin, cos, tan and pow:
// Notes [Double sin, cos and tan] and [Double pow] (double_trig-inl.h, double_pow-inl.h; within 1 ulp) on
// targets with a fused multiply-add, libm's elsewhere. A
// vector any of whose lanes leaves the function's fast domain (nan, inf, out of the domain, a magnitude
// where the algorithm loses accuracy or the result would overflow) is computed lane by lane by libm
// instead, so every special case is libm's.
#if defined(ACCELERA_SIMD_LANE_FUNCTIONS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACCELERA_SIMD_LANE_FUNCTIONS_INL_H_
#undef ACCELERA_SIMD_LANE_FUNCTIONS_INL_H_
#else
#define ACCELERA_SIMD_LANE_FUNCTIONS_INL_H_
#endif

#include <hwy/highway.h>

#include <type_traits>

#include "backends/cpu/simd/loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {

// Vectors of Lane (double, or T itself) fed from runs of T: for float in double lanes, as many lanes as a
// double vector has (so one float load feeds one double vector).
template <typename Lane>
using LaneTag = hn::ScalableTag<Lane>;
template <typename T, typename Lane>
using InputTag = std::conditional_t<std::is_same_v<T, Lane>, LaneTag<Lane>, hn::Rebind<T, LaneTag<Lane>>>;

template <typename Lane, typename T>
HWY_INLINE hn::Vec<LaneTag<Lane>> load_lanes(const T* p, size_t count) {
  const LaneTag<Lane> dl;
  const InputTag<T, Lane> dt;
  hn::Vec<decltype(dt)> v;
  if constexpr (hn::MaxLanes(dt) > 1) {  // a one-lane target has no partial vectors
    v = count == hn::Lanes(dl) ? hn::LoadU(dt, p) : load_partial(dt, p, count);
  } else {
    v = hn::LoadU(dt, p);
  }
  if constexpr (std::is_same_v<T, Lane>) {
    return v;
  } else {
    return hn::PromoteTo(dl, v);
  }
}

template <typename Lane, typename T>
HWY_INLINE void store_lanes(hn::Vec<LaneTag<Lane>> v, T* p, size_t count) {
  const LaneTag<Lane> dl;
  const InputTag<T, Lane> dt;
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  if constexpr (!std::is_same_v<T, Lane>) {
    // These targets' DemoteTo saturates (inf and overflowing doubles give +-FLT_MAX): convert as C++ does.
    HWY_ALIGN Lane lanes[hn::MaxLanes(dl)];
    hn::Store(v, dl, lanes);
    for (size_t i = 0; i < count; ++i) p[i] = static_cast<T>(lanes[i]);
    return;
  }
#endif
  const auto out = [&] {
    if constexpr (std::is_same_v<T, Lane>) {
      return v;
    } else {
      return hn::DemoteTo(dt, v);
    }
  }();
  if constexpr (hn::MaxLanes(dt) > 1) {
    if (count != hn::Lanes(dl)) return store_partial(dt, out, p, count);
  }
  hn::StoreU(out, dt, p);
}

// out[k] = fast(x[k]) in Lane vectors for k < n where every lane of the vector satisfies in_domain,
// scalar(x[k]) (libm, in T) lane by lane in the other vectors. fast(Vec) -> Vec; in_domain(Vec) -> Mask.
template <typename Lane, typename T, class Domain, class Fast, class Scalar>
HWY_INLINE void unary_in_lanes(const T* x, T* out, size_t n, const Domain& in_domain, const Fast& fast,
                               const Scalar& scalar) {
  const LaneTag<Lane> dl;
  const size_t lanes = hn::Lanes(dl);
  for (size_t k = 0; k < n; k += lanes) {
    const size_t count = n - k < lanes ? n - k : lanes;
    const auto v = load_lanes<Lane>(x + k, count);
    // Padding lanes of a partial vector are 0: the domain test ignores them.
    const auto padding = hn::Not(hn::FirstN(dl, count));
    if (hn::AllTrue(dl, hn::Or(in_domain(v), padding))) {
      store_lanes<Lane>(fast(v), out + k, count);
    } else {
      for (size_t i = 0; i < count; ++i) out[k + i] = scalar(x[k + i]);
    }
  }
}

// The same for two operands, either of which may be a single value broadcast over the run.
template <typename Lane, typename T, class Domain, class Fast, class Scalar>
HWY_INLINE void binary_in_lanes(const T* a, bool a_scalar, const T* b, bool b_scalar, T* out, size_t n,
                                const Domain& in_domain, const Fast& fast, const Scalar& scalar) {
  if (n == 0) return;
  const LaneTag<Lane> dl;
  const size_t lanes = hn::Lanes(dl);
  const auto a_value = hn::Set(dl, static_cast<Lane>(*a)), b_value = hn::Set(dl, static_cast<Lane>(*b));
  for (size_t k = 0; k < n; k += lanes) {
    const size_t count = n - k < lanes ? n - k : lanes;
    const auto va = a_scalar ? a_value : load_lanes<Lane>(a + k, count);
    const auto vb = b_scalar ? b_value : load_lanes<Lane>(b + k, count);
    const auto padding = hn::Not(hn::FirstN(dl, count));
    if (hn::AllTrue(dl, hn::Or(in_domain(va, vb), padding))) {
      store_lanes<Lane>(fast(va, vb), out + k, count);
    } else {
      for (size_t i = 0; i < count; ++i) out[k + i] = scalar(a[a_scalar ? 0 : k + i], b[b_scalar ? 0 : k + i]);
    }
  }
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ACCELERA_SIMD_LANE_FUNCTIONS_INL_H_
