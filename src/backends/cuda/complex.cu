// The complex element-wise kernels on CUDA: cuda::std::complex, whose functions follow C99's Annex G
// (libcu++ is libc++'s <complex>), with multiply, divide, expm1, log1p, sign and the standard's pow written
// as on the CPU (backends/cpu/complex.cpp and its C library) so that both backends give the same values.
#include <cuda/std/complex>

#include "backends/cuda/common.cuh"
#include "backends/cuda/complex_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

template <typename T>
using C = ::cuda::std::complex<T>;

template <typename T>
__device__ C<T> complex_expm1(C<T> z) {
  const T x = z.real(), y = z.imag();
  if (!isfinite(x) || !isfinite(y)) return ::cuda::std::exp(z) - T(1);
  const T h = sin(y / 2);
  return {expm1(x) * cos(y) - 2 * h * h, exp(x) * sin(y)};
}

template <typename T>
__device__ C<T> complex_log1p(C<T> z) {
  const T x = z.real(), y = z.imag();
  const T large = sizeof(T) == 8 ? T(1e150) : T(1e18);
  if (!(fabs(x) < large && fabs(y) < large)) return ::cuda::std::log(z + T(1));
  return {log1p(x * (2 + x) + y * y) / 2, atan2(y, 1 + x)};
}

template <typename T>
__device__ C<T> complex_sign(C<T> z) {
  const T x = z.real(), y = z.imag();
  if (isnan(x) || isnan(y)) return {T(NAN), T(NAN)};
  if (x == 0 && y == 0) return {0, 0};
  if (isinf(x) || isinf(y)) {
    const T a = isinf(x) ? copysign(T(1), x) : T(0), b = isinf(y) ? copysign(T(1), y) : T(0);
    const T n = hypot(a, b);
    return {a / n, b / n};
  }
  const T n = hypot(x, y);
  return {x / n, y / n};
}

// Products and sums rounded on their own: nvcc would otherwise contract a*c - b*d into an fma, whose
// overflowing product gives -inf where the CPU's a*c - b*d gives inf - inf = nan.
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ inline double sub_rn(double a, double b) { return __dsub_rn(a, b); }

template <typename T>
__device__ T unit_or_zero(T v) {
  return copysign(isinf(v) ? T(1) : T(0), v);
}
template <typename T>
__device__ T nan_to_zero(T v) {
  return isnan(v) ? copysign(T(0), v) : v;
}

// Multiply as the CPU's C library (__muldc3, C99 Annex G.5.1): the textbook formula, and where both parts
// come out nan, the infinities of C's one-infinity model recovered. Written here rather than taken from
// cuda::std::complex so that no fma changes an overflow (see mul_rn).
template <typename T>
__device__ C<T> complex_multiply(C<T> z, C<T> w) {
  T a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  const T ac = mul_rn(a, c), bd = mul_rn(b, d), ad = mul_rn(a, d), bc = mul_rn(b, c);
  T x = sub_rn(ac, bd), y = add_rn(ad, bc);
  if (isnan(x) && isnan(y)) {
    bool recalc = false;
    if (isinf(a) || isinf(b)) {
      a = unit_or_zero(a), b = unit_or_zero(b), c = nan_to_zero(c), d = nan_to_zero(d);
      recalc = true;
    }
    if (isinf(c) || isinf(d)) {
      c = unit_or_zero(c), d = unit_or_zero(d), a = nan_to_zero(a), b = nan_to_zero(b);
      recalc = true;
    }
    if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
      a = nan_to_zero(a), b = nan_to_zero(b), c = nan_to_zero(c), d = nan_to_zero(d);
      recalc = true;
    }
    if (recalc) {
      x = T(INFINITY) * sub_rn(mul_rn(a, c), mul_rn(b, d));
      y = T(INFINITY) * add_rn(mul_rn(a, d), mul_rn(b, c));
    }
  }
  return {x, y};
}

// Divide as the CPU's C library (__divdc3 and __divsc3), signs of zero included: complex64 by the textbook
// formula in double, complex128 by Smith's (the other order where the ratio is subnormal); then Annex G's
// recovery of the infinities and zeros that came out nan. libcu++'s operator/ scales by logb instead and
// gives other signs of zero.
template <typename T>
__device__ C<T> complex_divide(C<T> z, C<T> w) {
  T a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  T x, y;
  if constexpr (sizeof(T) == 4) {
    const double da = a, db = b, dc = c, dd = d;
    const double denom = __dadd_rn(__dmul_rn(dc, dc), __dmul_rn(dd, dd));
    x = T(__dadd_rn(__dmul_rn(da, dc), __dmul_rn(db, dd)) / denom);
    y = T(__dsub_rn(__dmul_rn(db, dc), __dmul_rn(da, dd)) / denom);
  } else {
    const T tiny = 2.2250738585072014e-308;  // DBL_MIN
    if (fabs(c) < fabs(d)) {
      const T ratio = c / d, denom = add_rn(mul_rn(c, ratio), d);
      if (fabs(ratio) > tiny) {
        x = add_rn(mul_rn(a, ratio), b) / denom;
        y = sub_rn(mul_rn(b, ratio), a) / denom;
      } else {
        x = add_rn(mul_rn(c, a / d), b) / denom;
        y = sub_rn(mul_rn(c, b / d), a) / denom;
      }
    } else {
      const T ratio = d / c, denom = add_rn(mul_rn(d, ratio), c);
      if (fabs(ratio) > tiny) {
        x = add_rn(mul_rn(b, ratio), a) / denom;
        y = sub_rn(b, mul_rn(a, ratio)) / denom;
      } else {
        x = add_rn(a, mul_rn(d, b / c)) / denom;
        y = sub_rn(b, mul_rn(d, a / c)) / denom;
      }
    }
  }
  if (isnan(x) && isnan(y)) {
    if (c == 0 && d == 0 && (!isnan(a) || !isnan(b))) {
      x = copysign(T(INFINITY), c) * a;
      y = copysign(T(INFINITY), c) * b;
    } else if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d)) {
      a = unit_or_zero(a), b = unit_or_zero(b);
      x = T(INFINITY) * add_rn(mul_rn(a, c), mul_rn(b, d));
      y = T(INFINITY) * sub_rn(mul_rn(b, c), mul_rn(a, d));
    } else if ((isinf(c) || isinf(d)) && isfinite(a) && isfinite(b)) {
      c = unit_or_zero(c), d = unit_or_zero(d);
      x = T(0) * add_rn(mul_rn(a, c), mul_rn(b, d));
      y = T(0) * sub_rn(mul_rn(b, c), mul_rn(a, d));
    }
  }
  return {x, y};
}

template <typename T>
__device__ C<T> complex_pow(C<T> a, C<T> b) {
  if (b.real() == 0 && b.imag() == 0) return {1, 0};
  if (a.real() == 0 && a.imag() == 0 && b.imag() == 0 && b.real() > 0) return {0, 0};
  return ::cuda::std::pow(a, b);
}

template <typename T>
__device__ C<T> apply(ComplexUnary fn, C<T> z) {
  namespace s = ::cuda::std;
  switch (fn) {
    case ComplexUnary::exp: return s::exp(z);
    case ComplexUnary::log: return s::log(z);
    case ComplexUnary::sqrt: return s::sqrt(z);
    case ComplexUnary::sin: return s::sin(z);
    case ComplexUnary::cos: return s::cos(z);
    case ComplexUnary::tan: return s::tan(z);
    case ComplexUnary::sinh: return s::sinh(z);
    case ComplexUnary::cosh: return s::cosh(z);
    case ComplexUnary::tanh: return s::tanh(z);
    case ComplexUnary::asin: return s::asin(z);
    case ComplexUnary::acos: return s::acos(z);
    case ComplexUnary::atan: return s::atan(z);
    case ComplexUnary::asinh: return s::asinh(z);
    case ComplexUnary::acosh: return s::acosh(z);
    case ComplexUnary::atanh: return s::atanh(z);
    case ComplexUnary::expm1: return complex_expm1(z);
    case ComplexUnary::log1p: return complex_log1p(z);
    case ComplexUnary::log2: return s::log(z) / log(T(2));
    case ComplexUnary::log10: return s::log10(z);
    case ComplexUnary::reciprocal: return complex_divide(C<T>(1, 0), z);
    case ComplexUnary::square: return complex_multiply(z, z);
    case ComplexUnary::sign: return complex_sign(z);
    default: break;
  }
  return {};
}

template <typename T>
__global__ void unary_complex(ComplexUnary fn, Layout L, C<T>* out, const C<T>* x) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[2];
    offsets_of<2>(L, i, off);
    out[off[0]] = apply(fn, x[off[1]]);
  }
}

template <typename T>
__global__ void unary_abs(Layout L, T* out, const C<T>* x) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[2];
    offsets_of<2>(L, i, off);
    out[off[0]] = ::cuda::std::abs(x[off[1]]);
  }
}

template <typename T>
__global__ void unary_classify(ComplexUnary fn, Layout L, Bool* out, const C<T>* x) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[2];
    offsets_of<2>(L, i, off);
    const C<T> z = x[off[1]];
    const T re = z.real(), im = z.imag();
    bool v;
    if (fn == ComplexUnary::isnan) {
      v = isnan(re) || isnan(im);
    } else if (fn == ComplexUnary::isinf) {
      v = isinf(re) || isinf(im);
    } else {
      v = isfinite(re) && isfinite(im);
    }
    out[off[0]] = Bool{static_cast<std::uint8_t>(v)};
  }
}

template <typename T>
__global__ void binary_complex(ComplexBinary fn, Layout L, void* out, const C<T>* a, const C<T>* b) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[3];
    offsets_of<3>(L, i, off);
    const C<T> x = a[off[1]], y = b[off[2]];
    switch (fn) {
      case ComplexBinary::equal: static_cast<Bool*>(out)[off[0]] = Bool{static_cast<std::uint8_t>(x == y)}; break;
      case ComplexBinary::not_equal: static_cast<Bool*>(out)[off[0]] = Bool{static_cast<std::uint8_t>(x != y)}; break;
      case ComplexBinary::multiply: static_cast<C<T>*>(out)[off[0]] = complex_multiply(x, y); break;
      case ComplexBinary::divide: static_cast<C<T>*>(out)[off[0]] = complex_divide(x, y); break;
      case ComplexBinary::pow: static_cast<C<T>*>(out)[off[0]] = complex_pow(x, y); break;
    }
  }
}

template <typename T>
void launch_unary(ComplexUnary fn, const Layout& L, void* out, const void* x, Launch launch) {
  const auto* in = static_cast<const C<T>*>(x);
  const unsigned blocks = blocks_for(L.numel, launch);
  if (fn == ComplexUnary::abs) {
    unary_abs<T><<<blocks, kThreads, 0, launch.stream>>>(L, static_cast<T*>(out), in);
  } else if (fn == ComplexUnary::isnan || fn == ComplexUnary::isinf || fn == ComplexUnary::isfinite) {
    unary_classify<T><<<blocks, kThreads, 0, launch.stream>>>(fn, L, static_cast<Bool*>(out), in);
  } else {
    unary_complex<T><<<blocks, kThreads, 0, launch.stream>>>(fn, L, static_cast<C<T>*>(out), in);
  }
  check_launch("complex_unary");
}

}  // namespace

bool complex_unary(ComplexUnary fn, DType dtype, const Layout& layout, void* out, const void* x, Launch launch) {
  if (dtype == DType::c64) return launch_unary<float>(fn, layout, out, x, launch), true;
  if (dtype == DType::c128) return launch_unary<double>(fn, layout, out, x, launch), true;
  return false;
}

bool complex_binary(ComplexBinary fn, DType dtype, const Layout& layout, void* out, const void* a, const void* b,
                    Launch launch) {
  const unsigned blocks = blocks_for(layout.numel, launch);
  if (dtype == DType::c64) {
    binary_complex<float><<<blocks, kThreads, 0, launch.stream>>>(fn, layout, out, static_cast<const C<float>*>(a),
                                                                  static_cast<const C<float>*>(b));
  } else if (dtype == DType::c128) {
    binary_complex<double><<<blocks, kThreads, 0, launch.stream>>>(fn, layout, out, static_cast<const C<double>*>(a),
                                                                   static_cast<const C<double>*>(b));
  } else {
    return false;
  }
  check_launch("complex_binary");
  return true;
}

}  // namespace accelera::cuda::kernels
