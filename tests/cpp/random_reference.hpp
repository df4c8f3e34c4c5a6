#pragma once
// A scalar Philox4x32-10 written from Salmon et al. (SC 2011) and the word layout of Note [Counter-based
// random numbers] (src/ops/random.hpp), independent of the library's kernels: the reference of the random
// rows of the op test table. Uniforms and integers are exact; normals are float64 Box-Muller of the
// kernels' uniforms.
#include <array>
#include <cmath>
#include <cstdint>

#include "accelera/core/dtype.hpp"

namespace acc_test::random_reference {

using Block = std::array<std::uint32_t, 4>;

// One Philox S-box round: two 32x32 -> 64-bit products, their halves permuted and keyed.
inline Block philox_round(const Block& x, std::uint32_t k0, std::uint32_t k1) {
  const std::uint64_t p0 = std::uint64_t{0xD2511F53} * x[0];
  const std::uint64_t p1 = std::uint64_t{0xCD9E8D57} * x[2];
  return {static_cast<std::uint32_t>(p1 >> 32) ^ x[1] ^ k0, static_cast<std::uint32_t>(p1),
          static_cast<std::uint32_t>(p0 >> 32) ^ x[3] ^ k1, static_cast<std::uint32_t>(p0)};
}

inline Block philox4x32_10(Block counter, std::array<std::uint32_t, 2> key) {
  std::array<std::uint32_t, 10> k0{}, k1{};
  for (int r = 0; r < 10; ++r) {  // the Weyl key schedule
    k0[r] = key[0] + static_cast<std::uint32_t>(r) * 0x9E3779B9u;
    k1[r] = key[1] + static_cast<std::uint32_t>(r) * 0xBB67AE85u;
  }
  for (int r = 0; r < 10; ++r) counter = philox_round(counter, k0[r], k1[r]);
  return counter;
}

// Word j of set `set` of the block that holds element i of a draw.
inline std::uint32_t word(std::uint64_t seed, std::uint64_t offset, std::int64_t i, std::uint32_t set) {
  const std::uint64_t block = offset + static_cast<std::uint64_t>(i / 4);
  const Block out = philox4x32_10({static_cast<std::uint32_t>(block & 0xFFFFFFFFu), static_cast<std::uint32_t>(block >> 32), set, 0},
                                  {static_cast<std::uint32_t>(seed & 0xFFFFFFFFu), static_cast<std::uint32_t>(seed >> 32)});
  return out[static_cast<std::size_t>(i % 4)];
}

inline std::uint64_t word64(std::uint64_t seed, std::uint64_t offset, std::int64_t i, std::uint32_t high_set) {
  return (std::uint64_t{word(seed, offset, i, high_set)} << 32) | word(seed, offset, i, high_set + 1);
}

// The uniform of element i in [0, 1) on dt's grid (2^-24, 2^-53, 2^-11, 2^-8).
inline double reference_uniform(std::uint64_t seed, std::uint64_t offset, std::int64_t i, accelera::DType dt) {
  using accelera::DType;
  switch (dt) {
    case DType::f64: return std::ldexp(static_cast<double>(word64(seed, offset, i, 0) >> 11), -53);
    case DType::f16: return std::ldexp(static_cast<double>(word(seed, offset, i, 0) >> 21), -11);
    case DType::bf16: return std::ldexp(static_cast<double>(word(seed, offset, i, 0) >> 24), -8);
    default: return std::ldexp(static_cast<double>(word(seed, offset, i, 0) >> 8), -24);
  }
}

// Box-Muller in float64 from the kernels' uniforms (24-bit, or 53-bit for float64): elements 2p and 2p + 1
// of a block take the cosine and the sine of the pair of words 2p and 2p + 1.
inline double reference_normal(std::uint64_t seed, std::uint64_t offset, std::int64_t i, accelera::DType dt) {
  const accelera::DType grid = dt == accelera::DType::f64 ? dt : accelera::DType::f32;
  const std::int64_t first = i - (i % 2);  // the pair's first element, in the same block
  const double u1 = 1.0 - reference_uniform(seed, offset, first, grid);
  const double u2 = reference_uniform(seed, offset, first + 1, grid);
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * 3.14159265358979323846 * u2;
  return i % 2 ? r * std::sin(theta) : r * std::cos(theta);
}

// The integer of element i in [low, high_exclusive): floor(x range / 2^64) from 64 bits for int32,
// floor(x range / 2^128) from 128 bits for int64.
inline std::int64_t reference_integer(std::uint64_t seed, std::uint64_t offset, std::int64_t i, accelera::DType dt,
                                      std::int64_t low, std::int64_t high_exclusive) {
  using u128 = unsigned __int128;
  const std::uint64_t range = static_cast<std::uint64_t>(high_exclusive) - static_cast<std::uint64_t>(low);
  std::uint64_t v = 0;
  if (dt == accelera::DType::i32) {
    v = static_cast<std::uint64_t>((u128{word64(seed, offset, i, 0)} * range) >> 64);
  } else if (range == 0) {  // [INT64_MIN, INT64_MAX]: floor(x 2^64 / 2^128), the high 64 bits
    v = word64(seed, offset, i, 0);
  } else {
    const u128 hi = u128{word64(seed, offset, i, 0)} * range;
    const u128 lo = u128{word64(seed, offset, i, 2)} * range;
    v = static_cast<std::uint64_t>((hi + (lo >> 64)) >> 64);
  }
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + v);
}

}  // namespace acc_test::random_reference
