// Philox random tensors on CUDA: one thread per counter block of four elements, computed with the CPU's
// arithmetic (ops/random_bits.hpp). low + scale * u uses the _rn intrinsics, which are never fused into a
// multiply-add, so uniforms match the other devices bit for bit.
#include "backends/cuda/common.cuh"
#include "backends/cuda/random_launch.hpp"
#include "ops/random_bits.hpp"

namespace accelera::cuda::kernels {

namespace {

using namespace random_bits;

__device__ inline float affine(float low, float scale, float v) { return __fadd_rn(low, __fmul_rn(scale, v)); }
__device__ inline double affine(double low, double scale, double v) { return __dadd_rn(low, __dmul_rn(scale, v)); }

template <typename T>
__device__ inline compute_t<T> uniform_of(const Words& s0, const Words& s1, int j) {
  if constexpr (std::is_same_v<T, double>) {
    return uniform_f64(word64(s0, s1, j));
  } else if constexpr (std::is_same_v<T, Half>) {
    return uniform_f16(s0.w[j]);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return uniform_bf16(s0.w[j]);
  } else {
    return uniform_f32(s0.w[j]);
  }
}

template <typename T>
__device__ inline compute_t<T> normal_of(const Words& s0, const Words& s1, int j) {
  if constexpr (std::is_same_v<T, double>) {
    return normal_f64(s0, s1, j);
  } else {
    return normal_f32(s0, j);
  }
}

template <typename T, Distribution D>
__global__ void random_floats(T* out, std::int64_t n, std::uint64_t seed, std::uint64_t offset, compute_t<T> low,
                              compute_t<T> scale) {
  constexpr bool wide = std::is_same_v<T, double>;
  const std::int64_t blocks = (n + 3) / 4;
  for (std::int64_t b = first_index(); b < blocks; b += grid_stride()) {
    const std::uint64_t block = offset + static_cast<std::uint64_t>(b);
    const Words s0 = block_words(seed, block, 0);
    const Words s1 = wide ? block_words(seed, block, 1) : s0;
    const int count = n - 4 * b < 4 ? static_cast<int>(n - 4 * b) : 4;
    for (int j = 0; j < count; ++j) {
      const compute_t<T> v = D == Distribution::uniform ? uniform_of<T>(s0, s1, j) : normal_of<T>(s0, s1, j);
      out[4 * b + j] = store<T>(affine(low, scale, v));
    }
  }
}

template <typename T>
__global__ void random_integers(T* out, std::int64_t n, std::uint64_t seed, std::uint64_t offset,
                                std::int64_t low, std::uint64_t range) {
  const std::int64_t blocks = (n + 3) / 4;
  for (std::int64_t b = first_index(); b < blocks; b += grid_stride()) {
    const std::uint64_t block = offset + static_cast<std::uint64_t>(b);
    const Words s0 = block_words(seed, block, 0), s1 = block_words(seed, block, 1);
    const int count = n - 4 * b < 4 ? static_cast<int>(n - 4 * b) : 4;
    if constexpr (std::is_same_v<T, std::int32_t>) {
      for (int j = 0; j < count; ++j) {
        out[4 * b + j] = static_cast<T>(static_cast<std::uint64_t>(low) + bounded_from_64(word64(s0, s1, j), range));
      }
    } else {
      const Words s2 = block_words(seed, block, 2), s3 = block_words(seed, block, 3);
      for (int j = 0; j < count; ++j) {
        out[4 * b + j] = static_cast<T>(static_cast<std::uint64_t>(low) +
                                        bounded_from_128(word64(s0, s1, j), word64(s2, s3, j), range));
      }
    }
  }
}

template <typename T>
void launch_floats(const RandomDraw& draw, void* out, std::int64_t n, Launch launch) {
  using C = compute_t<T>;
  const unsigned grid = blocks_for((n + 3) / 4, launch);
  T* o = static_cast<T*>(out);
  if (draw.distribution == Distribution::uniform) {
    random_floats<T, Distribution::uniform><<<grid, kThreads, 0, launch.stream>>>(
        o, n, draw.seed, draw.offset, static_cast<C>(draw.low), static_cast<C>(draw.scale));
  } else {
    random_floats<T, Distribution::normal><<<grid, kThreads, 0, launch.stream>>>(
        o, n, draw.seed, draw.offset, static_cast<C>(draw.low), static_cast<C>(draw.scale));
  }
  check_launch("random_floats");
}

template <typename T>
void launch_integers(const RandomDraw& draw, void* out, std::int64_t n, Launch launch) {
  random_integers<T><<<blocks_for((n + 3) / 4, launch), kThreads, 0, launch.stream>>>(
      static_cast<T*>(out), n, draw.seed, draw.offset, draw.int_low, draw.range);
  check_launch("random_integers");
}

}  // namespace

bool random(DType dtype, const RandomDraw& draw, void* out, std::int64_t n, Launch launch) {
  if (draw.distribution == Distribution::integers) {
    if (dtype == DType::i32) return launch_integers<std::int32_t>(draw, out, n, launch), true;
    if (dtype == DType::i64) return launch_integers<std::int64_t>(draw, out, n, launch), true;
    return false;
  }
  return with_float_type(dtype, [&](auto t) { launch_floats<decltype(t)>(draw, out, n, launch); });
}

}  // namespace accelera::cuda::kernels
