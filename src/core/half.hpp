#pragma once
// IEEE binary16 and bfloat16 conversions (round to nearest even), for storage and casts on the host.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace accelera::detail {

inline float half_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / nan
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    std::uint32_t e = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

inline std::uint16_t float_to_half(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {  // inf or nan (keep nan quiet)
    return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u | ((absx >> 13) & 0x3ffu) : 0u);
  }
  if (absx >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: overflow to inf
  if (absx < 0x38800000u) {                         // below the smallest normal half: subnormal or zero
    if (absx < 0x33000000u) return sign;            // < 2^-25 rounds to zero
    const std::uint32_t e = absx >> 23;
    const std::uint32_t m = (absx & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - e;            // 14 + (113 - e) - 1
    std::uint32_t r = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return sign | static_cast<std::uint16_t>(r);
  }
  std::uint32_t r = absx - 0x38000000u;  // rebias exponent by 112 << 23
  r = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
  return sign | static_cast<std::uint16_t>(r);
}

inline float bf16_to_float(std::uint16_t b) noexcept { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

inline std::uint16_t float_to_bf16(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet nan
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// double -> float rounding to odd (truncate, then set the last bit if anything was lost). A float keeps
// 13 more bits than a half and 16 more than a bfloat16, so rounding this result to nearest gives the
// correctly rounded narrow value: no double rounding.
inline float double_to_float_round_odd(double d) noexcept {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || f != f) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) {  // rounded away from zero: step back towards it
    f = std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) - 1u);
  }
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) | 1u);
}

inline std::uint16_t double_to_half(double d) noexcept { return float_to_half(double_to_float_round_odd(d)); }
inline std::uint16_t double_to_bf16(double d) noexcept { return float_to_bf16(double_to_float_round_odd(d)); }

}  // namespace accelera::detail
