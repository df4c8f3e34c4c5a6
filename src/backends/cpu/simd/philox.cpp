// Philox random draws in vectors, for every Highway target (Note [SIMD dispatch] in targets.cpp).
//
// Note [Vector Philox]
// A vector lane per counter block: the four words of N consecutive blocks live in four vectors of 64-bit
// lanes (each word zero-extended), so that one 32 x 32 -> 64-bit MulEven per word and round gives both
// halves of Philox's products. The arithmetic is random_bits.hpp's, lane by lane, and so are the
// conversions to uniforms and integers (an integer shift, an exact int-to-float conversion, then a
// multiply and an add that are never fused): their bits are those of the scalar kernels and of the other
// devices (Note [Counter-based random numbers] in ops/random.hpp). Normals take Box-Muller's logarithm,
// root, sine and cosine in vectors (math-inl.h), within a few ulp of the scalar kernels' libm, as the
// devices' normals are of each other. Elements are interleaved back into order (element 4 b + j is word j
// of block b) by StoreInterleaved4. The scalar target runs the scalar kernels. Measured:
// docs/benchmarks.md, "Random numbers".
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/philox.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstdint>
#include <cstring>

#include "backends/cpu/simd/loops-inl.h"
#include "backends/cpu/simd/math-inl.h"
#include "ops/random_bits.hpp"

// low + scale u must round twice, as on the other devices, never as one fused multiply-add (GCC
// contracts vector intrinsics too).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

// The scalar target: element k of `count` (from block `first`) is word k % 4 of block first + k / 4, through
// the scalar kernels: element(the block's first Sets word sets, j), the sets computed once per block.
template <std::uint32_t Sets, typename T, class Element>
void for_each_element_scalar(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first,
                             const Element& element) {
  for (std::int64_t k = 0; k < count; k += 4) {
    const std::uint64_t block = first + static_cast<std::uint64_t>(k / 4);
    random_bits::Words w[Sets];
    for (std::uint32_t set = 0; set < Sets; ++set) w[set] = random_bits::block_words(seed, block, set);
    for (int j = 0; j < 4 && k + j < count; ++j) out[k + j] = element(w, j);
  }
}

template <typename T>
void uniform_scalar(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, T lo, T sc) {
  if constexpr (sizeof(T) == 4) {
    for_each_element_scalar<1>(out, count, seed, first, [&](const random_bits::Words* w, int j) {
      return lo + sc * random_bits::uniform_f32(w[0].w[j]);
    });
  } else {
    for_each_element_scalar<2>(out, count, seed, first, [&](const random_bits::Words* w, int j) {
      return lo + sc * random_bits::uniform_f64(random_bits::word64(w[0], w[1], j));
    });
  }
}

template <typename T>
void normal_scalar(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, T loc, T sc) {
  if constexpr (sizeof(T) == 4) {
    for_each_element_scalar<1>(out, count, seed, first, [&](const random_bits::Words* w, int j) {
      return loc + sc * random_bits::normal_f32(w[0], j);
    });
  } else {
    for_each_element_scalar<2>(out, count, seed, first, [&](const random_bits::Words* w, int j) {
      return loc + sc * random_bits::normal_f64(w[0], w[1], j);
    });
  }
}

template <typename T>
void integers_scalar(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, std::uint64_t base,
                     std::uint64_t range) {
  if constexpr (sizeof(T) == 4) {  // 64 bits per element
    for_each_element_scalar<2>(out, count, seed, first, [&](const random_bits::Words* w, int j) {
      return static_cast<T>(base + random_bits::bounded_from_64(random_bits::word64(w[0], w[1], j), range));
    });
  } else {  // 128 bits per element
    for_each_element_scalar<4>(out, count, seed, first, [&](const random_bits::Words* w, int j) {
      return static_cast<T>(base + random_bits::bounded_from_128(random_bits::word64(w[0], w[1], j),
                                                                 random_bits::word64(w[2], w[3], j), range));
    });
  }
}

#if HWY_TARGET != HWY_SCALAR

using DU64 = hn::ScalableTag<std::uint64_t>;
using V64 = hn::Vec<DU64>;

// The four words of Lanes(DU64) consecutive blocks, one block per lane.
struct BlockWords {
  V64 w0, w1, w2, w3;
};

// Word set `set` of blocks first, first + 1, ...: the counter (block low, block high, set, 0) and the key
// the seed, as random_bits::block_words computes it for each.
HWY_INLINE BlockWords philox_blocks(std::uint64_t seed, std::uint64_t first, std::uint32_t set) {
  const DU64 d;
  const hn::Repartition<std::uint32_t, DU64> d32;
  const V64 low32 = hn::Set(d, 0xFFFFFFFFull);
  const V64 block = hn::Add(hn::Set(d, first), hn::Iota(d, 0));  // the carry into the high word per lane
  V64 c0 = hn::And(block, low32), c1 = hn::ShiftRight<32>(block), c2 = hn::Set(d, set), c3 = hn::Zero(d);
  const auto m0 = hn::BitCast(d32, hn::Set(d, 0xD2511F53ull));
  const auto m1 = hn::BitCast(d32, hn::Set(d, 0xCD9E8D57ull));
  auto k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const V64 p0 = hn::MulEven(hn::BitCast(d32, c0), m0);  // full 64-bit products of the low words
    const V64 p1 = hn::MulEven(hn::BitCast(d32, c2), m1);
    const V64 next0 = hn::Xor(hn::Xor(hn::ShiftRight<32>(p1), c1), hn::Set(d, k0));
    const V64 next2 = hn::Xor(hn::Xor(hn::ShiftRight<32>(p0), c3), hn::Set(d, k1));
    c1 = hn::And(p1, low32);
    c3 = hn::And(p0, low32);
    c0 = next0;
    c2 = next2;
  }
  return {c0, c1, c2, c3};
}

// Runs write(destination, first block) for each vector of Lanes(DU64) blocks (4 Lanes(DU64) elements)
// covering `count` elements from block `first`, the last, partial one into a buffer: every element then
// comes from the same vector code wherever it falls in a draw (a scalar tail would give normals that
// differ by an ulp with the draw's length or the threads' shares).
template <typename T, class Write>
HWY_INLINE void for_each_vector(T* out, std::int64_t count, std::uint64_t first, const Write& write) {
  const DU64 d;
  const auto per_vector = static_cast<std::int64_t>(4 * hn::Lanes(d));
  std::int64_t k = 0;
  for (; k + per_vector <= count; k += per_vector) write(out + k, first + static_cast<std::uint64_t>(k / 4));
  if (k < count) {
    HWY_ALIGN T buffer[4 * hn::MaxLanes(d)];
    write(buffer, first + static_cast<std::uint64_t>(k / 4));
    std::memcpy(out + k, buffer, static_cast<std::size_t>(count - k) * sizeof(T));
  }
}

// float32: lo + sc * ((w >> 8) 2^-24), each word's lanes as Lanes(DU64) floats.
HWY_INLINE hn::Vec<hn::Rebind<float, DU64>> uniform_f32(V64 w, float lo, float sc) {
  const hn::Rebind<float, DU64> df;
  const hn::Rebind<std::int32_t, DU64> di;
  const auto top24 = hn::BitCast(di, hn::TruncateTo(hn::Rebind<std::uint32_t, DU64>(), hn::ShiftRight<8>(w)));
  const auto u = hn::Mul(hn::ConvertTo(df, top24), hn::Set(df, 0x1p-24f));
  return hn::Add(hn::Set(df, lo), hn::Mul(hn::Set(df, sc), u));
}

// float64: lo + sc * ((x >> 11) 2^-53) of the 64-bit word (high from set 0, low from set 1).
HWY_INLINE hn::Vec<hn::Rebind<double, DU64>> uniform_f64(V64 high, V64 low, double lo, double sc) {
  const hn::Rebind<double, DU64> df;
  const hn::Rebind<std::int64_t, DU64> di;
  const V64 x = hn::Or(hn::ShiftLeft<32>(high), low);
  const auto u = hn::Mul(hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<11>(x))), hn::Set(df, 0x1p-53));
  return hn::Add(hn::Set(df, lo), hn::Mul(hn::Set(df, sc), u));
}

// The high halves of the 128-bit products x * r, lane by lane.
HWY_INLINE V64 mul_high(V64 x, V64 r) {
  const DU64 d;
  const V64 even = hn::MulEven(x, r);  // lanes 2i, 2i + 1: low and high of lane 2i's product
  const V64 odd = hn::MulOdd(x, r);    // the same for lane 2i + 1
  return hn::OddEven(odd, hn::DupOdd(even));
}

// The low halves of the products x * r, from 32 x 32 -> 64-bit products (this Highway has no 64-bit Mul).
HWY_INLINE V64 mul_low(V64 x, V64 r) {
  const hn::Repartition<std::uint32_t, DU64> d32;
  const V64 ll = hn::MulEven(hn::BitCast(d32, x), hn::BitCast(d32, r));
  const V64 hl = hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(x)), hn::BitCast(d32, r));
  const V64 lh = hn::MulEven(hn::BitCast(d32, x), hn::BitCast(d32, hn::ShiftRight<32>(r)));
  return hn::Add(ll, hn::ShiftLeft<32>(hn::Add(hl, lh)));
}

// floor(x range / 2^128) of 128 random bits (hi, lo) (random_bits::bounded_from_128; range != 0).
HWY_INLINE V64 bounded_from_128(V64 hi, V64 lo, V64 range) {
  const V64 top_lo = mul_low(hi, range);
  const V64 top_hi = mul_high(hi, range);
  const V64 sum = hn::Add(top_lo, mul_high(lo, range));
  const V64 carry = hn::IfThenElseZero(hn::Lt(sum, top_lo), hn::Set(DU64(), 1));
  return hn::Add(top_hi, carry);
}

template <typename T>
void uniform_draw(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, T lo, T sc) {
  for_each_vector(out, count, first, [&](T* dst, std::uint64_t block) {
    if constexpr (sizeof(T) == 4) {
      const hn::Rebind<float, DU64> df;
      const BlockWords s = philox_blocks(seed, block, 0);
      hn::StoreInterleaved4(uniform_f32(s.w0, lo, sc), uniform_f32(s.w1, lo, sc), uniform_f32(s.w2, lo, sc),
                            uniform_f32(s.w3, lo, sc), df, dst);
    } else {
      const hn::Rebind<double, DU64> df;
      const BlockWords high = philox_blocks(seed, block, 0), low = philox_blocks(seed, block, 1);
      hn::StoreInterleaved4(uniform_f64(high.w0, low.w0, lo, sc), uniform_f64(high.w1, low.w1, lo, sc),
                            uniform_f64(high.w2, low.w2, lo, sc), uniform_f64(high.w3, low.w3, lo, sc), df, dst);
    }
  });
}

// Box-Muller as random_bits::normal_f32 and normal_f64 compute it, pair (u1, u2) of words (0, 1) and
// (2, 3): r = sqrt(-2 log(1 - u1)), elements r cos(2 pi u2) and r sin(2 pi u2). Float normals take float
// logarithms and roots and their sine and cosine in double lanes (within an ulp of float's), double ones
// all in double: within a few ulp of the scalar kernels' libm, not bitwise (as between devices).
template <class D>
HWY_INLINE void box_muller(D d, Vec<D> u1, Vec<D> u2, Vec<D>& cos_out, Vec<D>& sin_out) {
  using T = hn::TFromD<D>;
  const hn::Rebind<double, D> dd;  // float's sine and cosine in double lanes
  const auto r = hn::Sqrt(hn::Mul(hn::Set(d, T(-2)), log(d, hn::Sub(hn::Set(d, T(1)), u1))));
  const auto theta = hn::Mul(hn::Set(d, T(6.28318530717958647692)), u2);
  if constexpr (sizeof(T) == 4) {
    const auto sc = sin_and_cos(dd, hn::PromoteTo(dd, theta));
    cos_out = hn::Mul(r, hn::DemoteTo(d, sc.cos));
    sin_out = hn::Mul(r, hn::DemoteTo(d, sc.sin));
  } else {
    const auto sc = sin_and_cos(d, theta);
    cos_out = hn::Mul(r, sc.cos);
    sin_out = hn::Mul(r, sc.sin);
  }
}

template <typename T>
void normal_draw(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, T loc, T sc) {
  const hn::Rebind<T, DU64> dt;
  const auto scaled = [&](Vec<decltype(dt)> z) { return hn::Add(hn::Set(dt, loc), hn::Mul(hn::Set(dt, sc), z)); };
  for_each_vector(out, count, first, [&](T* dst, std::uint64_t block) {
    Vec<decltype(dt)> u[4];
    if constexpr (sizeof(T) == 4) {
      const BlockWords s = philox_blocks(seed, block, 0);
      u[0] = uniform_f32(s.w0, 0.0f, 1.0f), u[1] = uniform_f32(s.w1, 0.0f, 1.0f);
      u[2] = uniform_f32(s.w2, 0.0f, 1.0f), u[3] = uniform_f32(s.w3, 0.0f, 1.0f);
    } else {
      const BlockWords high = philox_blocks(seed, block, 0), low = philox_blocks(seed, block, 1);
      u[0] = uniform_f64(high.w0, low.w0, 0.0, 1.0), u[1] = uniform_f64(high.w1, low.w1, 0.0, 1.0);
      u[2] = uniform_f64(high.w2, low.w2, 0.0, 1.0), u[3] = uniform_f64(high.w3, low.w3, 0.0, 1.0);
    }
    Vec<decltype(dt)> z0, z1, z2, z3;
    box_muller(dt, u[0], u[1], z0, z1);
    box_muller(dt, u[2], u[3], z2, z3);
    hn::StoreInterleaved4(scaled(z0), scaled(z1), scaled(z2), scaled(z3), dt, dst);
  });
}

template <typename T>
void integers_draw(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, std::uint64_t base,
                   std::uint64_t range) {
  const DU64 d;
  const V64 r = hn::Set(d, range), b0 = hn::Set(d, base);
  const auto word64 = [](V64 high, V64 low) { return hn::Or(hn::ShiftLeft<32>(high), low); };
  for_each_vector(out, count, first, [&](T* dst, std::uint64_t block) {
    const BlockWords s0 = philox_blocks(seed, block, 0), s1 = philox_blocks(seed, block, 1);
    if constexpr (sizeof(T) == 4) {  // floor(x range / 2^64) of 64 bits
      const hn::Rebind<std::uint32_t, DU64> d32;
      const auto draw = [&](V64 high, V64 low) { return hn::TruncateTo(d32, hn::Add(b0, mul_high(word64(high, low), r))); };
      hn::StoreInterleaved4(draw(s0.w0, s1.w0), draw(s0.w1, s1.w1), draw(s0.w2, s1.w2), draw(s0.w3, s1.w3), d32,
                            reinterpret_cast<std::uint32_t*>(dst));
    } else {  // floor(x range / 2^128) of 128 bits, range 0 standing for 2^64
      const BlockWords s2 = philox_blocks(seed, block, 2), s3 = philox_blocks(seed, block, 3);
      const auto draw = [&](V64 h0, V64 h1, V64 l0, V64 l1) {
        const V64 hi = word64(h0, h1), lo = word64(l0, l1);
        return hn::Add(b0, range == 0 ? hi : bounded_from_128(hi, lo, r));
      };
      hn::StoreInterleaved4(draw(s0.w0, s1.w0, s2.w0, s3.w0), draw(s0.w1, s1.w1, s2.w1, s3.w1),
                            draw(s0.w2, s1.w2, s2.w2, s3.w2), draw(s0.w3, s1.w3, s2.w3, s3.w3), d,
                            reinterpret_cast<std::uint64_t*>(dst));
    }
  });
}

#else  // HWY_SCALAR

template <typename T>
void uniform_draw(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, T lo, T sc) {
  uniform_scalar(out, count, seed, first, lo, sc);
}

template <typename T>
void normal_draw(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, T loc, T sc) {
  normal_scalar(out, count, seed, first, loc, sc);
}

template <typename T>
void integers_draw(T* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, std::uint64_t base,
                   std::uint64_t range) {
  integers_scalar(out, count, seed, first, base, range);
}

#endif

}  // namespace

void PhiloxUniformF32(float* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, float lo, float sc) {
  uniform_draw(out, count, seed, first, lo, sc);
}
void PhiloxUniformF64(double* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, double lo,
                      double sc) {
  uniform_draw(out, count, seed, first, lo, sc);
}
void PhiloxNormalF32(float* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, float loc, float sc) {
  normal_draw(out, count, seed, first, loc, sc);
}
void PhiloxNormalF64(double* out, std::int64_t count, std::uint64_t seed, std::uint64_t first, double loc,
                     double sc) {
  normal_draw(out, count, seed, first, loc, sc);
}
void PhiloxIntegersI32(std::int32_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t first,
                       std::uint64_t base, std::uint64_t range) {
  integers_draw(out, count, seed, first, base, range);
}
void PhiloxIntegersI64(std::int64_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t first,
                       std::uint64_t base, std::uint64_t range) {
  integers_draw(out, count, seed, first, base, range);
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(PhiloxUniformF32);
HWY_EXPORT(PhiloxUniformF64);
HWY_EXPORT(PhiloxNormalF32);
HWY_EXPORT(PhiloxNormalF64);
HWY_EXPORT(PhiloxIntegersI32);
HWY_EXPORT(PhiloxIntegersI64);

void philox_uniform(float* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block, float low,
                    float scale) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(PhiloxUniformF32)(out, count, seed, first_block, low, scale);
}
void philox_uniform(double* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block, double low,
                    double scale) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(PhiloxUniformF64)(out, count, seed, first_block, low, scale);
}
void philox_normal(float* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block, float loc,
                   float scale) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(PhiloxNormalF32)(out, count, seed, first_block, loc, scale);
}
void philox_normal(double* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block, double loc,
                   double scale) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(PhiloxNormalF64)(out, count, seed, first_block, loc, scale);
}
void philox_integers(std::int32_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block,
                     std::uint64_t base, std::uint64_t range) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(PhiloxIntegersI32)(out, count, seed, first_block, base, range);
}
void philox_integers(std::int64_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block,
                     std::uint64_t base, std::uint64_t range) {
  ensure_target_selected();
  HWY_DYNAMIC_DISPATCH(PhiloxIntegersI64)(out, count, seed, first_block, base, range);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
