#pragma once
// The CUDA primitives of the element-wise dialect (Note [Element-wise functions] in ops/elementwise.hpp),
// for the compute types (float, double, int32, int64; the half formats compute in float).
#include <cstdint>
#include <type_traits>

#include "backends/cuda/common.cuh"

namespace accelera::cuda::kernels::elementwise_math {

// Integer arithmetic wraps as in NumPy; going through the unsigned type keeps that defined.
template <typename C>
__device__ inline C acc_neg(C x) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(U{0} - static_cast<U>(x));
  } else {
    return -x;
  }
}

#define ACC_CUDA_WRAPPING(name, op)                                             \
  template <typename C>                                                         \
  __device__ inline C name(C x, C y) {                                          \
    if constexpr (std::is_integral_v<C>) {                                      \
      using U = std::make_unsigned_t<C>;                                        \
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
  if constexpr (std::is_integral_v<C>) {
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

}  // namespace accelera::cuda::kernels::elementwise_math
