// pow of double lanes (no include guard on purpose: see math-inl.h).
//
// Note [Double pow]
// pow(x, y) = 2^(y log2 x) with log2 x and the product carried as double-doubles (hi + lo), so that the
// error of t = y log2 x stays far below an ulp of the result however large |t| (up to 1020): exp(y log x)
// in plain double loses |y log x| ulp, which is why double pow stayed on libm before.
// - log2 x = k + log2 c_i + log(1 + r) / ln 2, with x = 2^k z and z's interval i and centre c_i those of
//   Note [Table-driven pow] (16 intervals, |r| < 0.04). r = z (1 / c_i) - 1 is exact as a double-double
//   (the product's rounding error by a fused multiply-add; the product minus 1 is exact by Sterbenz).
//   log(1 + r) = r - r^2/2 + r^3/3 in double-double, plus r^4 (-1/4 + ...) to degree 14 in double
//   (truncation below 2^-66 relative), plus r_lo / (1 + r) to degree 3 in r (r_lo is up to 2^-53, so
//   r_lo r^2 alone would cost 2^-59 of log2 x). log2 c_i = -log2 of the rounded 1 / c_i, 1 / ln 2 and 1/3
//   are double-double tables (double_pow_tables.hpp, made with mpmath), so log2 x is within about 2^-67
//   of itself, relatively.
// - 2^t = 2^e 2^(j/16) 2^u: n = round(16 t_hi) = 16 e + j, u = (t_hi - n/16) + t_lo with |u| <= 1/32
//   (t_hi - n/16 is exact), 2^u - 1 = expm1(u ln 2) by its Taylor series to degree 9 (below 2^-60), and
//   2^(j/16) a double-double table: the result is T_hi + (T_hi p + T_lo), one final rounding.
// Measured worst error 0.54 ulp against long double (tests/cpp/test_simd_lane_functions.cpp), |t| up to
// 960 included. The lanes this does not cover go to libm (the caller's domain): x not a positive normal
// finite double, y not finite, or a bound on |y log2 x| at 1020 or more, which keeps every result normal
// and finite (overflow, underflow and subnormal results are libm's). Only targets with a fused
// multiply-add compile this: without one, the exact products (Dekker's splitting) made it slower than
// libm (SSE4: 58-61 ms for 4 Mi against libm's 32 ms on two threads).
#if defined(ACCELERA_SIMD_DOUBLE_POW_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACCELERA_SIMD_DOUBLE_POW_INL_H_
#undef ACCELERA_SIMD_DOUBLE_POW_INL_H_
#else
#define ACCELERA_SIMD_DOUBLE_POW_INL_H_
#endif

#include <hwy/highway.h>

#include "backends/cpu/simd/double_double-inl.h"
#include "backends/cpu/simd/double_pow_tables.hpp"
#include "backends/cpu/simd/math-inl.h"

#if HWY_NATIVE_FMA
HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {

// log2 x as a double-double for positive normal finite x.
template <class D>
HWY_INLINE Double2<D> log2_double_double(D d, Vec<D> x) {
  static_assert(sizeof(hn::TFromD<D>) == 8, "needs double lanes");
  namespace t = double_pow;
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(di, x);
  const auto offset = hn::Sub(bits, hn::Set(di, kLowestZ));
  const auto interval = hn::And(hn::ShiftRight<52 - PowTables::kBits>(offset), hn::Set(di, PowTables::kSize - 1));
  const auto k = hn::ShiftRight<52>(offset);  // arithmetic: negative below kLowestZ
  const auto z = hn::BitCast(d, hn::Sub(bits, hn::ShiftLeft<52>(k)));
  const auto inverse = lookup(d, t::kInverseCentre, interval);
  // r = z / c - 1 = r_hi + r_lo exactly.
  const auto product = hn::Mul(z, inverse);
  const auto r_lo = exact_product_low(d, z, inverse, product);
  const auto r_hi = hn::Sub(product, hn::Set(d, 1.0));
  // log(1 + r) = r_hi - r_hi^2/2 + r_hi^3/3 + r_hi^4 p(r_hi) + r_lo / (1 + r_hi): the first three terms
  // as double-doubles (the cube's third is the term whose rounding would otherwise dominate), the rest in
  // double.
  const auto square = hn::Mul(r_hi, r_hi);
  const auto square_low = exact_square_low(d, r_hi, square);
  const Double2<D> head = fast_two_sum(d, r_hi, hn::Mul(square, hn::Set(d, -0.5)));
  const auto cube = hn::Mul(square, r_hi);
  const auto cube_low = hn::MulAdd(square_low, r_hi, exact_product_low(d, square, r_hi, cube));
  const auto third_hi = hn::Set(d, t::kOneThirdHi);
  const auto third = hn::Mul(cube, third_hi);
  auto third_low = exact_product_low(d, cube, third_hi, third);
  third_low = hn::MulAdd(cube, hn::Set(d, t::kOneThirdLo), hn::MulAdd(cube_low, third_hi, third_low));
  const auto series = polynomial(d, r_hi, -1.0 / 14, 1.0 / 13, -1.0 / 12, 1.0 / 11, -1.0 / 10, 1.0 / 9, -1.0 / 8,
                                 1.0 / 7, -1.0 / 6, 1.0 / 5, -1.0 / 4);
  auto small = hn::MulAdd(hn::Mul(cube, r_hi), series, third_low);
  small = hn::MulAdd(square_low, hn::Set(d, -0.5), small);
  small = hn::MulAdd(r_lo, polynomial(d, r_hi, -1.0, 1.0, -1.0, 1.0), small);  // r_lo / (1 + r_hi), to r_lo r^4
  const Double2<D> upper = fast_two_sum(d, head.hi, third);
  const Double2<D> ln = fast_two_sum(d, upper.hi, hn::Add(hn::Add(upper.lo, head.lo), small));
  // Times 1 / ln 2 (hi + lo).
  const auto inv_ln2_hi = hn::Set(d, t::kOneOverLn2Hi);
  const auto scaled_hi = hn::Mul(ln.hi, inv_ln2_hi);
  auto scaled_lo = exact_product_low(d, ln.hi, inv_ln2_hi, scaled_hi);
  scaled_lo = hn::MulAdd(ln.hi, hn::Set(d, t::kOneOverLn2Lo), scaled_lo);
  scaled_lo = hn::MulAdd(ln.lo, inv_ln2_hi, scaled_lo);
  // Plus k + log2 c_i (hi + lo).
  const Double2<D> whole = two_sum(d, hn::ConvertTo(d, k), lookup(d, t::kLog2CentreHi, interval));
  const Double2<D> sum = two_sum(d, whole.hi, scaled_hi);
  const auto low = hn::Add(hn::Add(sum.lo, whole.lo), hn::Add(scaled_lo, lookup(d, t::kLog2CentreLo, interval)));
  return fast_two_sum(d, sum.hi, low);
}

// 2^(t_hi + t_lo) for |t_hi| < 1021 (a normal, finite result).
template <class D>
HWY_INLINE Vec<D> exp2_double_double(D d, Vec<D> t_hi, Vec<D> t_lo) {
  namespace t = double_pow;
  const hn::RebindToSigned<D> di;
  // Adding 1.5 * 2^52 rounds 16 t to an integer n, which the sum's low bits then hold.
  const auto shift = hn::Set(d, 6755399441055744.0);
  const auto rounded = hn::Add(hn::Mul(t_hi, hn::Set(d, 16.0)), shift);
  const auto n = hn::Sub(hn::BitCast(di, rounded), hn::BitCast(di, shift));
  const auto whole = hn::Mul(hn::Sub(rounded, shift), hn::Set(d, 1.0 / 16));
  const auto u = hn::Add(hn::Sub(t_hi, whole), t_lo);  // t_hi - n/16 is exact
  // 2^u - 1 = v + v^2 (1/2 + v/6 + ... + v^7/9!), v = u ln 2.
  const auto v = hn::MulAdd(u, hn::Set(d, t::kLn2Hi), hn::Mul(u, hn::Set(d, t::kLn2Lo)));
  const auto series = polynomial(d, v, 1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6,
                                 0.5);
  const auto p = hn::MulAdd(hn::Mul(v, v), series, v);
  const auto j = hn::And(n, hn::Set(di, PowTables::kSize - 1));
  const auto fraction_hi = lookup(d, t::kExp2FractionHi, j);
  const auto fraction_lo = lookup(d, t::kExp2FractionLo, j);
  const auto mantissa = hn::Add(fraction_hi, hn::MulAdd(fraction_hi, p, fraction_lo));
  const auto exponent = hn::ShiftLeft<52>(hn::ShiftRight<PowTables::kBits>(n));
  return hn::BitCast(d, hn::Add(hn::BitCast(di, mantissa), exponent));
}

// The lanes pow_double computes: x a positive normal finite double, y finite, and |y| (|k| + 2.05 |z - 1|)
// < 1020 with x = 2^k z, z in [0.707, 1.414) (a bound on |log2 x|: |log2 z| <= |z - 1| / (0.707 ln 2)), so
// that |y log2 x| < 1020.
template <class D>
HWY_INLINE hn::Mask<D> in_double_pow_domain(D d, Vec<D> x, Vec<D> y) {
  const hn::RebindToSigned<D> di;
  const auto normal = hn::And(hn::Ge(x, hn::Set(d, std::numeric_limits<double>::min())),
                              hn::Le(x, hn::Set(d, std::numeric_limits<double>::max())));
  const auto bits = hn::BitCast(di, x);
  const auto k = hn::ShiftRight<52>(hn::Sub(bits, hn::Set(di, kLowestZ)));
  const auto z = hn::BitCast(d, hn::Sub(bits, hn::ShiftLeft<52>(k)));
  const auto bound = hn::MulAdd(hn::Abs(hn::Sub(z, hn::Set(d, 1.0))), hn::Set(d, 2.05), hn::Abs(hn::ConvertTo(d, k)));
  return hn::And(hn::And(normal, hn::IsFinite(y)), hn::Lt(hn::Mul(hn::Abs(y), bound), hn::Set(d, 1020.0)));
}

// pow(x, y) of lanes in in_double_pow_domain: Note [Double pow].
template <class D>
HWY_INLINE Vec<D> pow_double(D d, Vec<D> x, Vec<D> y) {
  const Double2<D> log2x = log2_double_double(d, x);
  const auto t_hi = hn::Mul(y, log2x.hi);
  const auto t_lo = hn::MulAdd(y, log2x.lo, exact_product_low(d, y, log2x.hi, t_hi));
  return exp2_double_double(d, t_hi, t_lo);
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif  // HWY_NATIVE_FMA

#endif  // ACCELERA_SIMD_DOUBLE_POW_INL_H_
