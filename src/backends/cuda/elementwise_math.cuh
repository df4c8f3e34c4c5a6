#pragma once
// The CUDA primitives of the element-wise dialect (Note [Element-wise functions] in ops/elementwise.hpp),
// for the compute types (float, double, int32, int64; the half formats compute in float).
#include <cstdint>
#include <type_traits>

#include "backends/cuda/common.cuh"
#include "core/integer_dtypes.hpp"

namespace accelera::cuda::kernels::elementwise_math {

// Integer arithmetic wraps as in NumPy; going through an unsigned type keeps that defined (unsigned itself
// for the narrower types, which would otherwise promote to int, whose overflow is undefined).
template <typename C>
using WrapType = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;

template <typename C>
__device__ inline C acc_neg(C x) {
  if constexpr (std::is_integral_v<C>) {
    using U = WrapType<C>;
    return static_cast<C>(U{0} - static_cast<U>(x));
  } else {
    return -x;
  }
}

#define ACC_CUDA_WRAPPING(name, op)                                             \
  template <typename C>                                                         \
  __device__ inline C name(C x, C y) {                                          \
    if constexpr (std::is_integral_v<C>) {                                      \
      using U = WrapType<C>;                                                    \
      return static_cast<C>(static_cast<U>(static_cast<U>(x) op static_cast<U>(y))); \
    } else {                                                                    \
      return x op y;                                                            \
    }                                                                           \
  }
ACC_CUDA_WRAPPING(acc_add, +)
ACC_CUDA_WRAPPING(acc_sub, -)
ACC_CUDA_WRAPPING(acc_mul, *)
#undef ACC_CUDA_WRAPPING

template <typename C>
__device__ inline C acc_abs(C x) {
  if constexpr (std::is_unsigned_v<C>) {
    return x;
  } else if constexpr (std::is_integral_v<C>) {
    return x < C{0} ? acc_neg(x) : x;
  } else {
    return fabs(x);
  }
}
template <typename C>
__device__ inline C acc_sqrt(C x) {
  return sqrt_of(x);
}
template <typename C>
__device__ inline C acc_max(C x, C y) {
  return x != x || x > y ? x : y;
}
template <typename C>
__device__ inline C acc_min(C x, C y) {
  return x != x || x < y ? x : y;
}

template <typename C>
__device__ inline C acc_exp(C x) {
  return exp_of(x);
}
template <typename C>
__device__ inline C acc_log(C x) {
  return log_of(x);
}
template <typename C>
__device__ inline C acc_tanh(C x) {
  return tanh_of(x);
}
// max(x, 0) that propagates nan, as NumPy's maximum does.
template <typename C>
__device__ inline C acc_relu(C x) {
  return x > C{0} || x != x ? x : C{0};
}

// ---- CUDA's float functions, by argument type (float or double; half formats compute in float) -------
#define ACC_CUDA_LIBM_UNARY(name, fn)                                    \
  template <typename C>                                                  \
  __device__ inline C name(C x) {                                        \
    if constexpr (std::is_same_v<C, float>) {                            \
      return fn##f(x);                                                   \
    } else {                                                             \
      return ::fn(x);                                                    \
    }                                                                    \
  }
ACC_CUDA_LIBM_UNARY(acc_sin, sin)
ACC_CUDA_LIBM_UNARY(acc_cos, cos)
ACC_CUDA_LIBM_UNARY(acc_tan, tan)
ACC_CUDA_LIBM_UNARY(acc_asin, asin)
ACC_CUDA_LIBM_UNARY(acc_acos, acos)
ACC_CUDA_LIBM_UNARY(acc_atan, atan)
ACC_CUDA_LIBM_UNARY(acc_sinh, sinh)
ACC_CUDA_LIBM_UNARY(acc_cosh, cosh)
ACC_CUDA_LIBM_UNARY(acc_asinh, asinh)
ACC_CUDA_LIBM_UNARY(acc_acosh, acosh)
ACC_CUDA_LIBM_UNARY(acc_atanh, atanh)
ACC_CUDA_LIBM_UNARY(acc_expm1, expm1)
ACC_CUDA_LIBM_UNARY(acc_log1p, log1p)
ACC_CUDA_LIBM_UNARY(acc_log2, log2)
ACC_CUDA_LIBM_UNARY(acc_log10, log10)
#undef ACC_CUDA_LIBM_UNARY

#define ACC_CUDA_LIBM_BINARY(name, fn)                                   \
  template <typename C>                                                  \
  __device__ inline C name(C x, C y) {                                   \
    if constexpr (std::is_same_v<C, float>) {                            \
      return fn##f(x, y);                                                \
    } else {                                                             \
      return ::fn(x, y);                                                 \
    }                                                                    \
  }
ACC_CUDA_LIBM_BINARY(acc_atan2, atan2)
ACC_CUDA_LIBM_BINARY(acc_hypot, hypot)
ACC_CUDA_LIBM_BINARY(acc_copysign, copysign)
ACC_CUDA_LIBM_BINARY(acc_nextafter, nextafter)
ACC_CUDA_LIBM_BINARY(acc_fmod, fmod)
#undef ACC_CUDA_LIBM_BINARY

// Rounding: integers are already integral; rint rounds half to even.
#define ACC_CUDA_ROUNDING(name, fn)                                      \
  template <typename C>                                                  \
  __device__ inline C name(C x) {                                        \
    if constexpr (std::is_integral_v<C>) {                               \
      return x;                                                          \
    } else if constexpr (std::is_same_v<C, float>) {                     \
      return fn##f(x);                                                   \
    } else {                                                             \
      return ::fn(x);                                                    \
    }                                                                    \
  }
ACC_CUDA_ROUNDING(acc_floor, floor)
ACC_CUDA_ROUNDING(acc_ceil, ceil)
ACC_CUDA_ROUNDING(acc_trunc, trunc)
ACC_CUDA_ROUNDING(acc_rint, rint)
#undef ACC_CUDA_ROUNDING

// NumPy's sign: nan stays nan, -0 gives +0.
template <typename C>
__device__ inline C acc_sign(C x) {
  if constexpr (std::is_unsigned_v<C>) return x > C{0} ? C{1} : C{0};
  else return x > C{0} ? C{1} : (x < C{0} ? C{-1} : (x == C{0} ? C{0} : x));
}

// Integers: exponentiation by squaring, wrapping; a negative exponent (NumPy raises) gives the truncated
// 1 / x^|y|: 1 for x = 1, +-1 for x = -1, 0 otherwise.
template <typename C>
__device__ inline C acc_pow(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    if constexpr (std::is_signed_v<C>) {
      if (y < C{0}) return x == C{1} ? C{1} : (x == C{-1} ? ((y & C{1}) ? C{-1} : C{1}) : C{0});
    }
    C result{1};
    for (C base = x; y != C{0}; y >>= 1) {
      if (y & C{1}) result = acc_mul(result, base);
      base = acc_mul(base, base);
    }
    return result;
  } else if constexpr (std::is_same_v<C, float>) {
    return powf(x, y);
  } else {
    return ::pow(x, y);
  }
}

// NumPy's logaddexp: equal arguments (infinities included) give x + log 2.
template <typename C>
__device__ inline C acc_logaddexp(C x, C y) {
  if (x == y) return x + C(0.693147180559945309417232121458176568);
  const C d = x - y;
  if (d > C{0}) return x + acc_log1p(exp_of(-d));
  if (d <= C{0}) return y + acc_log1p(exp_of(d));
  return d;  // nan
}

// NumPy's divmod of floats: the quotient snapped to an integer, the remainder with the divisor's sign.
template <typename C>
__device__ inline C float_divmod(C a, C b, C& mod) {
  mod = acc_fmod(a, b);
  if (b == C{0}) return a / b;
  C div = (a - mod) / b;
  if (mod != C{0}) {
    if ((b < C{0}) != (mod < C{0})) {
      mod += b;
      div -= C{1};
    }
  } else {
    mod = acc_copysign(C{0}, b);
  }
  if (div == C{0}) return acc_copysign(C{0}, a / b);
  C floor_div = acc_floor(div);
  if (div - floor_div > C(0.5)) floor_div += C{1};
  return floor_div;
}

// Integers: division by zero gives 0 and the most negative value // -1 wraps to itself, as in NumPy.
template <typename C>
__device__ inline C acc_floor_divide(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if (b == C{0}) return C{0};
    if constexpr (std::is_unsigned_v<C>) {
      return static_cast<C>(a / b);
    } else {
      if (b == C{-1}) return acc_neg(a);
      const C q = static_cast<C>(a / b);
      return (a % b != 0 && ((a < C{0}) != (b < C{0}))) ? static_cast<C>(q - 1) : q;
    }
  } else {
    C mod;
    return float_divmod(a, b, mod);
  }
}
template <typename C>
__device__ inline C acc_remainder(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if (b == C{0}) return C{0};
    if constexpr (std::is_unsigned_v<C>) {
      return static_cast<C>(a % b);
    } else {
      if (b == C{-1}) return C{0};
      const C r = static_cast<C>(a % b);
      return (r != C{0} && ((r < C{0}) != (b < C{0}))) ? static_cast<C>(r + b) : r;
    }
  } else {
    if (b == C{0}) return acc_fmod(a, b);
    C mod;
    float_divmod(a, b, mod);
    return mod;
  }
}

// ---- classification, bits ------------------------------------------------------------------------------
template <typename C>
__device__ inline bool acc_isnan(C x) {
  return x != x;
}
template <typename C>
__device__ inline bool acc_isinf(C x) {
  if constexpr (std::is_integral_v<C>) {
    return false;
  } else {
    return ::isinf(x);
  }
}
template <typename C>
__device__ inline bool acc_isfinite(C x) {
  if constexpr (std::is_integral_v<C>) {
    return true;
  } else {
    return ::isfinite(x);
  }
}
template <typename C>
__device__ inline bool acc_signbit(C x) {
  if constexpr (std::is_unsigned_v<C>) {
    return false;
  } else if constexpr (std::is_integral_v<C>) {
    return x < C{0};
  } else {
    return ::signbit(x);
  }
}
template <typename C>
__device__ inline C acc_invert(C x) {
  if constexpr (std::is_same_v<C, bool>) {
    return !x;
  } else {
    return static_cast<C>(~x);
  }
}
// NumPy's shifts: a count at or past the width, or negative, shifts every bit out.
template <typename C>
__device__ inline C acc_shift_left(C x, C y) {
  using U = std::make_unsigned_t<C>;
  return static_cast<U>(y) < sizeof(C) * 8
             ? static_cast<C>(static_cast<WrapType<C>>(static_cast<WrapType<C>>(static_cast<U>(x)) << y))
             : C{0};
}
template <typename C>
__device__ inline C acc_shift_right(C x, C y) {
  using U = std::make_unsigned_t<C>;
  if constexpr (std::is_unsigned_v<C>) {
    return y < sizeof(C) * 8 ? static_cast<C>(x >> y) : C{0};
  } else {
    return static_cast<U>(y) < sizeof(C) * 8 ? static_cast<C>(x >> y) : (x < C{0} ? C{-1} : C{0});
  }
}

}  // namespace accelera::cuda::kernels::elementwise_math

namespace accelera::cuda::kernels {

// Loads and stores of the element-wise kernels: common.cuh's, plus bool (computed as bool, stored as Bool).
template <typename T>
__device__ inline auto load_element(T v) {
  if constexpr (std::is_same_v<T, Bool>) {
    return v.value != 0;
  } else {
    return load(v);
  }
}
template <typename O, typename V>
__device__ inline O store_element(V v) {
  if constexpr (std::is_same_v<O, Bool>) {
    return Bool{static_cast<std::uint8_t>(v ? 1 : 0)};
  } else {
    return store<O>(static_cast<compute_t<O>>(v));
  }
}

// Calls f(T{}) with the storage type of each compute dtype `Kind` registers on CUDA; false for the others.
template <ElementwiseKind Kind, typename F>
bool with_elementwise_type(DType dtype, F&& f) {
  constexpr DTypeSet computed = elementwise_dtypes(Kind, dtypes::floating | dtypes::half);
  switch (dtype) {
#define ACC_CUDA_ELEMENTWISE_TYPE(dt, type)                           \
  case dt:                                                            \
    if constexpr (computed.contains(dt)) return f(type{}), true;      \
    return false;
    ACC_CUDA_ELEMENTWISE_TYPE(DType::f32, float)
    ACC_CUDA_ELEMENTWISE_TYPE(DType::f64, double)
    ACC_CUDA_ELEMENTWISE_TYPE(DType::f16, Half)
    ACC_CUDA_ELEMENTWISE_TYPE(DType::bf16, BFloat16)
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_CUDA_ELEMENTWISE_TYPE)
    ACC_CUDA_ELEMENTWISE_TYPE(DType::boolean, Bool)
#undef ACC_CUDA_ELEMENTWISE_TYPE
  }
  return false;
}

}  // namespace accelera::cuda::kernels
