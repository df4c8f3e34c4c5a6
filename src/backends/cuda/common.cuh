#pragma once
// Shared by the CUDA kernels: storage types, conversions identical to the CPU backend's (src/core/half.hpp,
// core/convert.hpp), strided offsets, grid-stride loops, launch checks.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

// float16 and bfloat16 are stored as bits and computed in float.
struct Half {
  std::uint16_t bits;
};
struct BFloat16 {
  std::uint16_t bits;
};
// bool is stored as one byte, 0 or 1.
struct Bool {
  std::uint8_t value;
};

// ---- conversions (bit-exact ports of src/core/half.hpp) ------------------------------------------------

__device__ inline float half_to_float(std::uint16_t h) { return __half2float(__ushort_as_half(h)); }
__device__ inline float bf16_to_float(std::uint16_t b) { return __uint_as_float(static_cast<std::uint32_t>(b) << 16); }

__device__ inline std::uint16_t float_to_half(float f) {
  const std::uint32_t x = __float_as_uint(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {
    return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u | ((absx >> 13) & 0x3ffu) : 0u);
  }
  if (absx >= 0x477ff000u) return sign | 0x7c00u;
  if (absx < 0x38800000u) {
    if (absx < 0x33000000u) return sign;
    const std::uint32_t e = absx >> 23;
    const std::uint32_t m = (absx & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - e;
    std::uint32_t r = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return sign | static_cast<std::uint16_t>(r);
  }
  std::uint32_t r = absx - 0x38000000u;
  r = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
  return sign | static_cast<std::uint16_t>(r);
}

__device__ inline std::uint16_t float_to_bf16(float f) {
  const std::uint32_t x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// Round to odd, so that the later rounding to a half format is the only one (see half.hpp).
__device__ inline float double_to_float_round_odd(double d) {
  float f = __double2float_rn(d);
  if (static_cast<double>(f) == d || f != f) return f;
  if (fabs(static_cast<double>(f)) > fabs(d)) f = __uint_as_float(__float_as_uint(f) - 1u);
  return __uint_as_float(__float_as_uint(f) | 1u);
}

// The type arithmetic runs in, and moves between it and storage.
template <typename T>
struct Compute {
  using type = T;
};
template <>
struct Compute<Half> {
  using type = float;
};
template <>
struct Compute<BFloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename Compute<T>::type;

template <typename T>
__device__ inline compute_t<T> load(T v) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_to_float(v.bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return bf16_to_float(v.bits);
  } else {
    return v;
  }
}

template <typename T>
__device__ inline T store(compute_t<T> v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{float_to_half(v)};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{float_to_bf16(v)};
  } else {
    return v;
  }
}

// Calls f(T{}) for the floating storage types; false for the others.
template <typename F>
bool with_float_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f32: f(float{}); return true;
    case DType::f64: f(double{}); return true;
    case DType::f16: f(Half{}); return true;
    case DType::bf16: f(BFloat16{}); return true;
    default: return false;
  }
}

// ---- math: single- or double-precision library functions by argument type (no fast-math approximations)

__device__ inline float exp_of(float x) { return expf(x); }
__device__ inline double exp_of(double x) { return ::exp(x); }
__device__ inline float log_of(float x) { return logf(x); }
__device__ inline double log_of(double x) { return ::log(x); }
__device__ inline float tanh_of(float x) { return tanhf(x); }
__device__ inline double tanh_of(double x) { return ::tanh(x); }
__device__ inline float sqrt_of(float x) { return sqrtf(x); }
__device__ inline double sqrt_of(double x) { return ::sqrt(x); }
__device__ inline float erfc_of(float x) { return erfcf(x); }
__device__ inline double erfc_of(double x) { return ::erfc(x); }

// ---- indexing --------------------------------------------------------------------------------------------

// Offsets (in elements) of linear index i for the first N operands of a layout.
template <int N>
__device__ inline void offsets_of(const Layout& L, std::int64_t i, std::int64_t (&off)[N]) {
  if (L.ndim == 1) {  // the coalesced common case: no division
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = i * L.strides[k][0];
    return;
  }
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = L.ndim - 1; d >= 0; --d) {
    const std::int64_t idx = i % L.dims[d];
    i /= L.dims[d];
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += idx * L.strides[k][d];
  }
}

__device__ inline std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_stride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

inline constexpr int kThreads = 256;

// Blocks for `work` items of kThreads each, capped: kernels loop over the rest.
inline unsigned blocks_for(std::int64_t work, const Launch& launch) {
  const std::int64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > launch.max_blocks ? launch.max_blocks : blocks));
}

// 16-byte vectors for the contiguous fast paths.
template <typename T>
struct alignas(16) Vec {
  static constexpr int size = 16 / sizeof(T);
  T v[size];
};

}  // namespace accelera::cuda::kernels
