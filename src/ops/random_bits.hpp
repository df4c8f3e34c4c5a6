#pragma once
// The arithmetic of Note [Counter-based random numbers] (ops/random.hpp) shared by the CPU and CUDA kernels
// (OpenCL has its own copy in backends/opencl/random.cl): one definition, so both compute the same bits.
#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define ACC_RANDOM_FN __host__ __device__ inline
#else
#define ACC_RANDOM_FN inline
#endif

namespace accelera::random_bits {

struct Words {
  std::uint32_t w[4];
};

ACC_RANDOM_FN std::uint32_t mul_hi32(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
}

ACC_RANDOM_FN std::uint64_t mul_hi64(std::uint64_t a, std::uint64_t b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

// Philox4x32-10 (Salmon et al., SC 2011): ten rounds over a 128-bit counter with a 64-bit key.
ACC_RANDOM_FN Words philox4x32_10(Words c, std::uint32_t k0, std::uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const std::uint32_t hi0 = mul_hi32(0xD2511F53u, c.w[0]), lo0 = 0xD2511F53u * c.w[0];
    const std::uint32_t hi1 = mul_hi32(0xCD9E8D57u, c.w[2]), lo1 = 0xCD9E8D57u * c.w[2];
    c = Words{{hi1 ^ c.w[1] ^ k0, lo1, hi0 ^ c.w[3] ^ k1, lo0}};
  }
  return c;
}

// Word set `set` of counter block `block`: the counter is (block low, block high, set, 0), the key the seed.
ACC_RANDOM_FN Words block_words(std::uint64_t seed, std::uint64_t block, std::uint32_t set) {
  const Words counter{{static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), set, 0u}};
  return philox4x32_10(counter, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}

// Uniforms in [0, 1) on a grid fine enough for the format and exact in it.
ACC_RANDOM_FN float uniform_f32(std::uint32_t x) { return static_cast<float>(x >> 8) * 0x1p-24f; }
ACC_RANDOM_FN float uniform_f16(std::uint32_t x) { return static_cast<float>(x >> 21) * 0x1p-11f; }
ACC_RANDOM_FN float uniform_bf16(std::uint32_t x) { return static_cast<float>(x >> 24) * 0x1p-8f; }
ACC_RANDOM_FN double uniform_f64(std::uint64_t x) { return static_cast<double>(x >> 11) * 0x1p-53; }

// floor(x * range / 2^64) for 64 random bits x, range in [1, 2^32]: each value's probability is within
// range / 2^64 <= 2^-32 of 1 / range (relative).
ACC_RANDOM_FN std::uint64_t bounded_from_64(std::uint64_t x, std::uint64_t range) { return mul_hi64(x, range); }

// floor(x * range / 2^128) for 128 random bits (hi, lo), range in [1, 2^64) (0 stands for 2^64): relative
// bias at most range / 2^128 <= 2^-64.
ACC_RANDOM_FN std::uint64_t bounded_from_128(std::uint64_t hi, std::uint64_t lo, std::uint64_t range) {
  if (range == 0) return hi;
  const std::uint64_t top_lo = hi * range;  // low half of hi * range
  const std::uint64_t top_hi = mul_hi64(hi, range);
  const std::uint64_t carry = (top_lo + mul_hi64(lo, range)) < top_lo ? 1u : 0u;
  return top_hi + carry;
}

}  // namespace accelera::random_bits

namespace accelera::random_bits {

// 64-bit word k (< 4) of a block: set 0 gives its high half, set 1 its low half.
ACC_RANDOM_FN std::uint64_t word64(const Words& high, const Words& low, int k) {
  return (static_cast<std::uint64_t>(high.w[k]) << 32) | low.w[k];
}

// Box-Muller: elements 2p and 2p+1 of a block share the uniforms of words 2p and 2p+1 (the first in
// (0, 1], so its logarithm is finite) and take the cosine and the sine.
ACC_RANDOM_FN float normal_f32(const Words& s, int j) {
  const int p = j & 2;
  const float u1 = 1.0f - uniform_f32(s.w[p]);
  const float u2 = uniform_f32(s.w[p + 1]);
  const float r = ::sqrtf(-2.0f * ::logf(u1));
  const float theta = 6.28318530717958647692f * u2;
  return (j & 1) ? r * ::sinf(theta) : r * ::cosf(theta);
}

ACC_RANDOM_FN double normal_f64(const Words& high, const Words& low, int j) {
  const int p = j & 2;
  const double u1 = 1.0 - uniform_f64(word64(high, low, p));
  const double u2 = uniform_f64(word64(high, low, p + 1));
  const double r = ::sqrt(-2.0 * ::log(u1));
  const double theta = 6.28318530717958647692 * u2;
  return (j & 1) ? r * ::sin(theta) : r * ::cos(theta);
}

}  // namespace accelera::random_bits
