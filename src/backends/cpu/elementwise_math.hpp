#pragma once
// The CPU's primitives of the element-wise dialect (Note [Element-wise functions] in ops/elementwise.hpp),
// for the element types it computes. Written so that GCC and Clang vectorise them inside
// `#pragma omp simd` loops: the float functions are vector_math.hpp's branch-free ones.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backends/cpu/vector_math.hpp"

namespace accelera::cpu::elementwise_math {

// Integer arithmetic wraps as in NumPy; going through the unsigned type keeps that defined in C++.
template <typename T>
inline T wrap(std::make_unsigned_t<T> v) {
  return static_cast<T>(v);
}

template <typename T>
inline T acc_neg(T x) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return wrap<T>(U{0} - static_cast<U>(x));
  } else {
    return -x;
  }
}

#define ACC_CPU_WRAPPING(name, op)                                      \
  template <typename T>                                                 \
  inline T name(T x, T y) {                                             \
    if constexpr (std::is_integral_v<T>) {                              \
      using U = std::make_unsigned_t<T>;                                \
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
  if constexpr (std::is_integral_v<T>) {
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

}  // namespace accelera::cpu::elementwise_math
