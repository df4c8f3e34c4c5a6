// The complex element-wise kernels of Note [Complex element-wise functions] on the CPU: std::complex,
// whose functions are the C library's C99 ones (Annex G special values and branch cuts). expm1, log1p,
// log2 and sign, which C lacks, are written here so that small arguments keep their accuracy.
#include <cmath>
#include <complex>
#include <limits>

#include "backends/common/strided_loop.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "ops/complex_elementwise.hpp"

namespace accelera::cpu {

using namespace accelera::backends;  // strided loops

namespace {

template <typename T>
using C = std::complex<T>;

// exp(z) - 1 without the cancellation of the real part near 0:
// e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y / 2).
template <typename T>
C<T> complex_expm1(C<T> z) {
  const T x = z.real(), y = z.imag();
  if (!std::isfinite(x) || !std::isfinite(y)) return std::exp(z) - T(1);
  const T half_sin = std::sin(y / 2);
  return {std::expm1(x) * std::cos(y) - 2 * half_sin * half_sin, std::exp(x) * std::sin(y)};
}

// log(1 + z) without the cancellation of the real part near 0:
// log|1 + z| = log1p(2x + x^2 + y^2) / 2, arg(1 + z) = atan2(y, 1 + x).
template <typename T>
C<T> complex_log1p(C<T> z) {
  const T x = z.real(), y = z.imag();
  constexpr T large = T(1) / std::numeric_limits<T>::epsilon();
  if (!(std::abs(x) < large && std::abs(y) < large)) return std::log(z + T(1));  // also inf and nan
  return {std::log1p(x * (2 + x) + y * y) / 2, std::atan2(y, 1 + x)};
}

template <typename T>
C<T> complex_sign(C<T> z) {
  const T x = z.real(), y = z.imag();
  if (std::isnan(x) || std::isnan(y)) return {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN()};
  if (x == 0 && y == 0) return {0, 0};
  if (std::isinf(x) || std::isinf(y)) {  // the direction of the infinite parts
    const T a = std::isinf(x) ? std::copysign(T(1), x) : T(0);
    const T b = std::isinf(y) ? std::copysign(T(1), y) : T(0);
    const T n = std::hypot(a, b);
    return {a / n, b / n};
  }
  const T n = std::abs(z);
  return {x / n, y / n};
}

// Annex G's recovery of a quotient whose parts both came out nan (C's __divsc3 and __divdc3): over a zero,
// infinite with the zero's real sign; infinite over finite, infinite; finite over infinite, zero.
template <typename T>
[[gnu::noinline]] C<T> recover_quotient(T a, T b, T c, T d, T x, T y) {
  constexpr T inf = std::numeric_limits<T>::infinity();
  const auto unit = [](T v) { return std::copysign(std::isinf(v) ? T(1) : T(0), v); };
  if (c == 0 && d == 0 && (!std::isnan(a) || !std::isnan(b))) return {std::copysign(inf, c) * a, std::copysign(inf, c) * b};
  if ((std::isinf(a) || std::isinf(b)) && std::isfinite(c) && std::isfinite(d)) {
    a = unit(a), b = unit(b);
    return {inf * (a * c + b * d), inf * (b * c - a * d)};
  }
  if ((std::isinf(c) || std::isinf(d)) && std::isfinite(a) && std::isfinite(b)) {
    c = unit(c), d = unit(d);
    return {T(0) * (a * c + b * d), T(0) * (b * c - a * d)};
  }
  return {x, y};
}

// complex64 division exactly as C's __divsc3 computes it (the textbook formula in double, which has the
// range to spare, then the recovery), inline: the library call per element took 7% of copy bandwidth.
inline C<float> quotient(C<float> z, C<float> w) {
  const double a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  const double denom = c * c + d * d;
  const auto x = static_cast<float>((a * c + b * d) / denom), y = static_cast<float>((b * c - a * d) / denom);
  if (std::isnan(x) && std::isnan(y)) [[unlikely]]
    return recover_quotient(z.real(), z.imag(), w.real(), w.imag(), x, y);
  return {x, y};
}
// complex128: the C library's own (__divdc3 scales its operands to keep Smith's division from overflowing).
inline C<double> quotient(C<double> z, C<double> w) { return z / w; }

// |z| without overflow or underflow and without libm's slow hypot: float parts square exactly in double;
// double parts scale by the larger (m sqrt(1 + r^2), r <= 1), within 2 ulp of hypot.
inline float magnitude(std::complex<float> z) {
  const double x = z.real(), y = z.imag();
  const float m = static_cast<float>(std::sqrt(x * x + y * y));
  return std::isinf(x) || std::isinf(y) ? std::numeric_limits<float>::infinity() : m;  // |inf + nan i| = inf
}
inline double magnitude(std::complex<double> z) {
  const double x = std::fabs(z.real()), y = std::fabs(z.imag());
  if (std::isinf(x) || std::isinf(y)) return std::numeric_limits<double>::infinity();
  const double m = std::fmax(x, y), n = std::fmin(x, y);
  if (!(m > 0)) return m + n;  // zero, or nan (m + n keeps the nan)
  const double r = n / m;
  return m * std::sqrt(1 + r * r);
}

// The array API's pow: x ** 0 is 1 for every x (nan included), as for the real dtypes.
template <typename T>
C<T> complex_pow(C<T> a, C<T> b) {
  if (b == C<T>(0)) return {1, 0};
  if (a == C<T>(0) && b.imag() == 0 && b.real() > 0) return {0, 0};
  return std::pow(a, b);
}

template <typename T>
C<T> apply(ComplexUnary fn, C<T> z) {
  switch (fn) {
    case ComplexUnary::exp: return std::exp(z);
    case ComplexUnary::log: return std::log(z);
    case ComplexUnary::sqrt: return std::sqrt(z);
    case ComplexUnary::sin: return std::sin(z);
    case ComplexUnary::cos: return std::cos(z);
    case ComplexUnary::tan: return std::tan(z);
    case ComplexUnary::sinh: return std::sinh(z);
    case ComplexUnary::cosh: return std::cosh(z);
    case ComplexUnary::tanh: return std::tanh(z);
    case ComplexUnary::asin: return std::asin(z);
    case ComplexUnary::acos: return std::acos(z);
    case ComplexUnary::atan: return std::atan(z);
    case ComplexUnary::asinh: return std::asinh(z);
    case ComplexUnary::acosh: return std::acosh(z);
    case ComplexUnary::atanh: return std::atanh(z);
    case ComplexUnary::expm1: return complex_expm1(z);
    case ComplexUnary::log1p: return complex_log1p(z);
    case ComplexUnary::log2: return std::log(z) / std::log(T(2));
    case ComplexUnary::log10: return std::log10(z);
    case ComplexUnary::reciprocal: return quotient(C<T>(1, 0), z);
    case ComplexUnary::square: return z * z;
    case ComplexUnary::sign: return complex_sign(z);
    default: break;
  }
  return {};
}

template <typename T>
bool classify(ComplexUnary fn, C<T> z) {
  const T x = z.real(), y = z.imag();
  switch (fn) {
    case ComplexUnary::isnan: return std::isnan(x) || std::isnan(y);
    case ComplexUnary::isinf: return std::isinf(x) || std::isinf(y);
    default: return std::isfinite(x) && std::isfinite(y);
  }
}

template <typename T>
C<T> apply(ComplexBinary fn, C<T> a, C<T> b) {
  switch (fn) {
    case ComplexBinary::multiply: return a * b;
    case ComplexBinary::divide: return quotient(a, b);
    default: return complex_pow(a, b);
  }
}

// Calls body(o, i, k) for every element index k of every run, with o and i its operands' bases.
template <typename O, typename I, typename Body>
void unary_loop(const Tensor& x, const Tensor& out, Body&& body) {
  const auto layout = make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  O* o_base = out.data<O>();
  const I* x_base = x.data<I>();
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    O* o = o_base + off[0];
    const I* i = x_base + off[1];
    if (st[0] == 1 && st[1] == 1) {  // a contiguous run: the loop the compiler vectorises
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = body(i[k]);
      return;
    }
    for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = body(i[k * st[1]]);
  });
}

// |z| over contiguous runs on the vectorised kernel of backends/cpu/simd/ (the compiler's baseline loop
// runs at a third of NumPy's AVX-512 speed), strided runs one element at a time.
template <typename T>
void complex_abs(const Tensor& x, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before the parallel region
  const auto layout = make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  T* o_base = out.data<T>();
  const T* x_base = reinterpret_cast<const T*>(x.data<C<T>>());
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    T* o = o_base + off[0];
    const T* p = x_base + 2 * off[1];
    if (st[0] == 1 && st[1] == 1) return simd::complex_abs(p, o, len);
    for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = magnitude(C<T>(p[2 * k * st[1]], p[2 * k * st[1] + 1]));
  });
}

template <typename T>
void unary_typed(ComplexUnary fn, const Tensor& x, const Tensor& out) {
  switch (fn) {
    case ComplexUnary::abs: return complex_abs<T>(x, out);
    case ComplexUnary::isnan:
    case ComplexUnary::isinf:
    case ComplexUnary::isfinite: return unary_loop<bool, C<T>>(x, out, [fn](C<T> z) { return classify(fn, z); });
    default: return unary_loop<C<T>, C<T>>(x, out, [fn](C<T> z) { return apply(fn, z); });
  }
}

template <typename O, typename T, typename Body>
void binary_loop(const Tensor& a, const Tensor& b, const Tensor& out, Body&& body) {
  const auto layout = make_layout<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  O* o_base = out.data<O>();
  const C<T>* a_base = a.data<C<T>>();
  const C<T>* b_base = b.data<C<T>>();
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    O* o = o_base + off[0];
    const C<T>* x = a_base + off[1];
    const C<T>* y = b_base + off[2];
    for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = body(x[k * st[1]], y[k * st[2]]);
  });
}

template <typename T>
void binary_typed(ComplexBinary fn, const Tensor& a, const Tensor& b, const Tensor& out) {
  switch (fn) {
    case ComplexBinary::equal: return binary_loop<bool, T>(a, b, out, [](C<T> x, C<T> y) { return x == y; });
    case ComplexBinary::not_equal: return binary_loop<bool, T>(a, b, out, [](C<T> x, C<T> y) { return x != y; });
    case ComplexBinary::multiply:  // the common ones without the switch in the loop
      return binary_loop<C<T>, T>(a, b, out, [](C<T> x, C<T> y) { return x * y; });
    case ComplexBinary::divide: return binary_loop<C<T>, T>(a, b, out, [](C<T> x, C<T> y) { return quotient(x, y); });
    default: return binary_loop<C<T>, T>(a, b, out, [fn](C<T> x, C<T> y) { return apply(fn, x, y); });
  }
}

void complex_unary_kernel(ComplexUnary fn, const Tensor& x, const Tensor& out) {
  if (x.dtype() == DType::c64) return unary_typed<float>(fn, x, out);
  unary_typed<double>(fn, x, out);
}

void complex_binary_kernel(ComplexBinary fn, const Tensor& a, const Tensor& b, const Tensor& out) {
  if (a.dtype() == DType::c64) return binary_typed<float>(fn, a, b, out);
  binary_typed<double>(fn, a, b, out);
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::complex_unary, DeviceKind::cpu, dtypes::complex, &complex_unary_kernel);
  register_kernel(op::complex_binary, DeviceKind::cpu, dtypes::complex, &complex_binary_kernel);
}

}  // namespace accelera::cpu
