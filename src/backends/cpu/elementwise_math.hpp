#pragma once
// The CPU's primitives of the element-wise dialect (Note [Element-wise functions] in ops/elementwise.hpp),
// for the element types it computes. Written so that GCC and Clang vectorise them inside
// `#pragma omp simd` loops: the float functions are vector_math.hpp's branch-free ones.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backends/cpu/vector_math.hpp"

namespace accelera::cpu::elementwise_math {

// Integer arithmetic wraps as in NumPy; going through an unsigned type keeps that defined in C++. Types
// narrower than unsigned go through unsigned itself: theirs would promote to (signed) int, whose
// overflow is undefined (65535 * 65535 as uint16).
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <typename T>
inline T wrap(WrapType<T> v) {
  return static_cast<T>(v);
}

template <typename T>
inline T acc_neg(T x) {
  if constexpr (std::is_integral_v<T>) {
    using U = WrapType<T>;
    return wrap<T>(U{0} - static_cast<U>(x));
  } else {
    return -x;
  }
}

#define ACC_CPU_WRAPPING(name, op)                                      \
  template <typename T>                                                 \
  inline T name(T x, T y) {                                             \
    if constexpr (std::is_integral_v<T>) {                              \
      using U = WrapType<T>;                                            \
      return wrap<T>(static_cast<U>(static_cast<U>(x) op static_cast<U>(y))); \
    } else {                                                            \
      return x op y;                                                    \
    }                                                                   \
  }
ACC_CPU_WRAPPING(acc_add, +)
ACC_CPU_WRAPPING(acc_sub, -)
ACC_CPU_WRAPPING(acc_mul, *)
#undef ACC_CPU_WRAPPING

template <typename T>
inline T acc_abs(T x) {
  if constexpr (std::is_unsigned_v<T>) {
    return x;
  } else if constexpr (std::is_integral_v<T>) {
    return x < T{0} ? acc_neg(x) : x;
  } else {
    return x < T{0} ? -x : (x == T{0} ? T{0} : x);  // |-0| = +0; nan stays nan
  }
}
template <typename T>
inline T acc_sqrt(T x) {
  return std::sqrt(x);
}
template <typename T>
inline T acc_max(T x, T y) {
  return x != x || x > y ? x : y;
}
template <typename T>
inline T acc_min(T x, T y) {
  return x != x || x < y ? x : y;
}

template <typename T>
inline T acc_exp(T x) {
  return vmath::exp(x);
}
template <typename T>
inline T acc_log(T x) {
  return vmath::log(x);
}
template <typename T>
inline T acc_tanh(T x) {
  return vmath::tanh(x);
}
// max(x, 0) that propagates nan, as NumPy's maximum does.
template <typename T>
inline T acc_relu(T x) {
  return x > T{0} || x != x ? x : T{0};
}

// ---- libm's float functions, by argument type ---------------------------------------------------------
#define ACC_CPU_LIBM_UNARY(name, fn) \
  template <typename T>              \
  inline T name(T x) {               \
    return std::fn(x);               \
  }
ACC_CPU_LIBM_UNARY(acc_sin, sin)
ACC_CPU_LIBM_UNARY(acc_cos, cos)
ACC_CPU_LIBM_UNARY(acc_tan, tan)
ACC_CPU_LIBM_UNARY(acc_asin, asin)
ACC_CPU_LIBM_UNARY(acc_acos, acos)
ACC_CPU_LIBM_UNARY(acc_atan, atan)
ACC_CPU_LIBM_UNARY(acc_sinh, sinh)
ACC_CPU_LIBM_UNARY(acc_cosh, cosh)
ACC_CPU_LIBM_UNARY(acc_asinh, asinh)
ACC_CPU_LIBM_UNARY(acc_acosh, acosh)
ACC_CPU_LIBM_UNARY(acc_atanh, atanh)
ACC_CPU_LIBM_UNARY(acc_expm1, expm1)
ACC_CPU_LIBM_UNARY(acc_log1p, log1p)
ACC_CPU_LIBM_UNARY(acc_log2, log2)
ACC_CPU_LIBM_UNARY(acc_log10, log10)
#undef ACC_CPU_LIBM_UNARY

#define ACC_CPU_LIBM_BINARY(name, fn) \
  template <typename T>               \
  inline T name(T x, T y) {           \
    return std::fn(x, y);             \
  }
ACC_CPU_LIBM_BINARY(acc_atan2, atan2)
ACC_CPU_LIBM_BINARY(acc_hypot, hypot)
ACC_CPU_LIBM_BINARY(acc_copysign, copysign)
ACC_CPU_LIBM_BINARY(acc_nextafter, nextafter)
#undef ACC_CPU_LIBM_BINARY

// ---- rounding: integers are already integral ---------------------------------------------------------
#define ACC_CPU_ROUNDING(name, fn)               \
  template <typename T>                          \
  inline T name(T x) {                           \
    if constexpr (std::is_integral_v<T>) {       \
      return x;                                  \
    } else {                                     \
      return std::fn(x);                         \
    }                                            \
  }
ACC_CPU_ROUNDING(acc_floor, floor)
ACC_CPU_ROUNDING(acc_ceil, ceil)
ACC_CPU_ROUNDING(acc_trunc, trunc)
ACC_CPU_ROUNDING(acc_rint, nearbyint)  // the default rounding mode: half to even
#undef ACC_CPU_ROUNDING

template <typename T>
inline T acc_sign(T x) {
  if constexpr (std::is_unsigned_v<T>) return x > T{0} ? T{1} : T{0};
  else return x > T{0} ? T{1} : (x < T{0} ? T{-1} : (x == T{0} ? T{0} : x));
}

// Integers: exponentiation by squaring, wrapping as multiplication does. A negative exponent (NumPy
// raises) gives the truncated quotient 1 / x^|y|: 1 for x = 1, +-1 for x = -1, 0 otherwise.
template <typename T>
inline T acc_pow(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (y < T{0}) return x == T{1} ? T{1} : (x == T{-1} ? ((y & T{1}) ? T{-1} : T{1}) : T{0});
    }
    T result{1};
    for (T base = x; y != T{0}; y >>= 1) {
      if (y & T{1}) result = acc_mul(result, base);
      base = acc_mul(base, base);
    }
    return result;
  } else {
    return std::pow(x, y);
  }
}

// NumPy's logaddexp: equal arguments (infinities included) give x + log 2.
template <typename T>
inline T acc_logaddexp(T x, T y) {
  if (x == y) return x + T(0.693147180559945309417232121458176568);
  const T d = x - y;
  if (d > T{0}) return x + std::log1p(std::exp(-d));
  if (d <= T{0}) return y + std::log1p(std::exp(d));
  return d;  // nan
}

// NumPy's divmod of floats: the quotient snapped to an integer, the remainder with the divisor's sign.
template <typename T>
inline T float_divmod(T a, T b, T& mod) {
  mod = std::fmod(a, b);
  if (b == T{0}) return a / b;
  T div = (a - mod) / b;
  if (mod != T{0}) {
    if ((b < T{0}) != (mod < T{0})) {
      mod += b;
      div -= T{1};
    }
  } else {
    mod = std::copysign(T{0}, b);
  }
  if (div == T{0}) return std::copysign(T{0}, a / b);
  T floor_div = std::floor(div);
  if (div - floor_div > T(0.5)) floor_div += T{1};
  return floor_div;
}

// Integers: division by zero gives 0 and the most negative value // -1 wraps to itself, as in NumPy.
template <typename T>
inline T acc_floor_divide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == T{0}) return T{0};
    if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(a / b);
    } else {
      if (b == T{-1}) return acc_neg(a);
      const T q = static_cast<T>(a / b);
      return (a % b != 0 && ((a < T{0}) != (b < T{0}))) ? static_cast<T>(q - 1) : q;
    }
  } else {
    T mod;
    return float_divmod(a, b, mod);
  }
}
template <typename T>
inline T acc_remainder(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == T{0}) return T{0};
    if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(a % b);
    } else {
      if (b == T{-1}) return T{0};
      const T r = static_cast<T>(a % b);
      return (r != T{0} && ((r < T{0}) != (b < T{0}))) ? static_cast<T>(r + b) : r;
    }
  } else {
    if (b == T{0}) return std::fmod(a, b);
    T mod;
    float_divmod(a, b, mod);
    return mod;
  }
}

// ---- classification, bits ------------------------------------------------------------------------------
template <typename T>
inline bool acc_isnan(T x) {
  return x != x;
}
template <typename T>
inline bool acc_isinf(T x) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return std::isinf(x);
  }
}
template <typename T>
inline bool acc_isfinite(T x) {
  if constexpr (std::is_integral_v<T>) {
    return true;
  } else {
    return std::isfinite(x);
  }
}
template <typename T>
inline bool acc_signbit(T x) {
  if constexpr (std::is_unsigned_v<T>) {
    return false;
  } else if constexpr (std::is_integral_v<T>) {
    return x < T{0};
  } else {
    return std::signbit(x);
  }
}
template <typename T>
inline T acc_invert(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return !x;
  } else {
    return static_cast<T>(~x);
  }
}
// NumPy's shifts: a count at or past the width, or negative, shifts every bit out.
template <typename T>
inline T acc_shift_left(T x, T y) {
  using U = std::make_unsigned_t<T>;
  return static_cast<U>(y) < sizeof(T) * 8 ? wrap<T>(static_cast<WrapType<T>>(static_cast<WrapType<T>>(static_cast<U>(x)) << y))
                                           : T{0};
}
template <typename T>
inline T acc_shift_right(T x, T y) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_unsigned_v<T>) {
    return y < sizeof(T) * 8 ? static_cast<T>(x >> y) : T{0};
  } else {
    return static_cast<U>(y) < sizeof(T) * 8 ? static_cast<T>(x >> y) : (x < T{0} ? T{-1} : T{0});
  }
}

}  // namespace accelera::cpu::elementwise_math
