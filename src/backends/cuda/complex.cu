// The complex element-wise kernels on CUDA: cuda::std::complex, whose functions follow C99's Annex G
// (libcu++ is libc++'s <complex>), with expm1, log1p, sign and the standard's pow written as on the CPU
// (backends/cpu/complex.cpp) so that both backends give the same values.
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
    case ComplexUnary::reciprocal: return T(1) / z;
    case ComplexUnary::square: return z * z;
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
      case ComplexBinary::multiply: static_cast<C<T>*>(out)[off[0]] = x * y; break;
      case ComplexBinary::divide: static_cast<C<T>*>(out)[off[0]] = x / y; break;
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
