// Philox random tensors (Note [Counter-based random numbers] in src/ops/random.hpp): one work-item per
// counter block of four elements of a contiguous output. The arithmetic mirrors src/ops/random_bits.hpp
// bit for bit. Build options: one of UNIFORM, NORMAL, INTEGERS; the output's OUT_F32, OUT_F64, OUT_F16,
// OUT_BF16, OUT_I32 or OUT_I64.
#pragma OPENCL FP_CONTRACT OFF

inline uint4 philox4x32_10(uint4 c, uint k0, uint k1) {
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint hi0 = mul_hi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;
    const uint hi1 = mul_hi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;
    c = (uint4)(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
  }
  return c;
}

inline uint4 block_words(ulong seed, ulong block, uint set) {
  return philox4x32_10((uint4)((uint)block, (uint)(block >> 32), set, 0u), (uint)seed, (uint)(seed >> 32));
}

inline uint word_of(uint4 s, int j) { return j == 0 ? s.x : (j == 1 ? s.y : (j == 2 ? s.z : s.w)); }
inline ulong word64(uint4 high, uint4 low, int j) { return ((ulong)word_of(high, j) << 32) | word_of(low, j); }

inline float uniform_f32(uint x) { return (float)(x >> 8) * 0x1p-24f; }

#if defined(OUT_F32)
#define OUT_T float
#define STORE(p, i, v) ((p)[i] = (v))
#elif defined(OUT_F64)
#define OUT_T double
#define STORE(p, i, v) ((p)[i] = (v))
#elif defined(OUT_F16)
#define OUT_T ushort
#define STORE(p, i, v) vstore_half_rte((v), (i), (__global half*)(p))
#elif defined(OUT_BF16)
#define OUT_T ushort
inline ushort float_to_bf16(float f) {
  const uint x = as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);
  return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
#define STORE(p, i, v) ((p)[i] = float_to_bf16(v))
#elif defined(OUT_I32)
#define OUT_T int
#define STORE(p, i, v) ((p)[i] = (v))
#elif defined(OUT_I64)
#define OUT_T long
#define STORE(p, i, v) ((p)[i] = (v))
#endif

#if defined(OUT_F64)
#define CT double
#else
#define CT float
#endif

#if defined(UNIFORM)
#if defined(OUT_F64)
#define SETS 2
inline double element(uint4 s0, uint4 s1, uint4 s2, uint4 s3, int j) { return (double)(word64(s0, s1, j) >> 11) * 0x1p-53; }
#elif defined(OUT_F16)
#define SETS 1
inline float element(uint4 s0, uint4 s1, uint4 s2, uint4 s3, int j) { return (float)(word_of(s0, j) >> 21) * 0x1p-11f; }
#elif defined(OUT_BF16)
#define SETS 1
inline float element(uint4 s0, uint4 s1, uint4 s2, uint4 s3, int j) { return (float)(word_of(s0, j) >> 24) * 0x1p-8f; }
#else
#define SETS 1
inline float element(uint4 s0, uint4 s1, uint4 s2, uint4 s3, int j) { return uniform_f32(word_of(s0, j)); }
#endif
#endif

#if defined(NORMAL)
// Box-Muller: elements 2p and 2p+1 share the uniforms of words 2p and 2p+1 (the first in (0, 1]).
#if defined(OUT_F64)
#define SETS 2
inline double element(uint4 s0, uint4 s1, uint4 s2, uint4 s3, int j) {
  const int p = j & 2;
  const double u1 = 1.0 - (double)(word64(s0, s1, p) >> 11) * 0x1p-53;
  const double u2 = (double)(word64(s0, s1, p + 1) >> 11) * 0x1p-53;
  const double r = sqrt(-2.0 * log(u1));
  const double theta = 6.28318530717958647692 * u2;
  return (j & 1) ? r * sin(theta) : r * cos(theta);
}
#else
#define SETS 1
inline float element(uint4 s0, uint4 s1, uint4 s2, uint4 s3, int j) {
  const int p = j & 2;
  const float u1 = 1.0f - uniform_f32(word_of(s0, p));
  const float u2 = uniform_f32(word_of(s0, p + 1));
  const float r = sqrt(-2.0f * log(u1));
  const float theta = 6.28318530717958647692f * u2;
  return (j & 1) ? r * sin(theta) : r * cos(theta);
}
#endif
#endif

#if defined(INTEGERS)
// floor(x range / 2^64) from 64 bits (int32), floor(x range / 2^128) from 128 bits (int64; range 0 = 2^64).
#if defined(OUT_I32)
#define SETS 2
inline ulong draw(uint4 s0, uint4 s1, uint4 s2, uint4 s3, int j, ulong range) {
  return mul_hi(word64(s0, s1, j), range);
}
#else
#define SETS 4
inline ulong draw(uint4 s0, uint4 s1, uint4 s2, uint4 s3, int j, ulong range) {
  const ulong hi = word64(s0, s1, j), lo = word64(s2, s3, j);
  if (range == 0) return hi;
  const ulong top_lo = hi * range;
  const ulong carry = (top_lo + mul_hi(lo, range)) < top_lo ? 1ul : 0ul;
  return mul_hi(hi, range) + carry;
}
#endif
#endif

__kernel void random(const long n, __global OUT_T* out, const long out_offset, const ulong seed,
                     const ulong offset, const CT low, const CT scale, const long int_low, const ulong range) {
  const long b = get_global_id(0);
  if (b * 4 >= n) return;
  const ulong block = offset + (ulong)b;
  const uint4 zero = (uint4)(0u);
  const uint4 s0 = block_words(seed, block, 0u);
  const uint4 s1 = SETS >= 2 ? block_words(seed, block, 1u) : zero;
  const uint4 s2 = SETS >= 4 ? block_words(seed, block, 2u) : zero;
  const uint4 s3 = SETS >= 4 ? block_words(seed, block, 3u) : zero;
#if defined(INTEGERS)
#define STORE_ELEMENT(j) STORE(out, out_offset + 4 * b + (j), (OUT_T)((ulong)int_low + draw(s0, s1, s2, s3, (j), range)))
#else
#define STORE_ELEMENT(j) STORE(out, out_offset + 4 * b + (j), low + scale * element(s0, s1, s2, s3, (j)))
#endif
  // Written out with constant word indices and no loop (only the last block is partial): PoCL's code for
  // it is 1.7x faster than for a loop over the block, though still scalar per work-item.
  const long count = n - 4 * b;
  STORE_ELEMENT(0);
  if (count > 1) STORE_ELEMENT(1);
  if (count > 2) STORE_ELEMENT(2);
  if (count > 3) STORE_ELEMENT(3);
}
