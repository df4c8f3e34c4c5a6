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

#if defined(INTEGERS)
#define STORE_ELEMENT(b, j) \
  STORE(out, out_offset + 4 * (b) + (j), (OUT_T)((ulong)int_low + draw(s0, s1, s2, s3, (j), range)))
#else
#define STORE_ELEMENT(b, j) STORE(out, out_offset + 4 * (b) + (j), low + scale * element(s0, s1, s2, s3, (j)))
#endif
// The four elements of block b (only the last block of the tensor is partial), written out with constant
// word indices: PoCL's code for this is 1.7x faster than for a loop over the block.
#define STORE_BLOCK(b)                        \
  {                                           \
    const long count_ = n - 4 * (b);          \
    STORE_ELEMENT(b, 0);                      \
    if (count_ > 1) STORE_ELEMENT(b, 1);      \
    if (count_ > 2) STORE_ELEMENT(b, 2);      \
    if (count_ > 3) STORE_ELEMENT(b, 3);      \
  }

#if defined(VECTOR_BLOCKS)
// CPU devices: a work-item runs Philox for 8 blocks at once, one per lane of uint8 vectors (the same
// rounds as philox4x32_10), then writes each block's elements; PoCL would run one block per work-item in
// scalar code.
inline void philox8(uint8* w0, uint8* w1, uint8* w2, uint8* w3, uint k0, uint k1) {
  // Each word zero-extended in a 64-bit lane: one 32 x 32 -> 64-bit multiply gives both halves of a
  // product, and no conversions between rounds (PoCL made mul_hi on uint8 a slow sequence).
  const ulong8 low32 = (ulong8)(0xFFFFFFFFul);
  ulong8 c0 = convert_ulong8(*w0), c1 = convert_ulong8(*w1), c2 = convert_ulong8(*w2), c3 = convert_ulong8(*w3);
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const ulong8 p0 = (c0 & low32) * (ulong8)(0xD2511F53ul), p1 = (c2 & low32) * (ulong8)(0xCD9E8D57ul);
    c0 = (p1 >> 32) ^ c1 ^ (ulong8)(k0);
    c1 = p1 & low32;
    c2 = (p0 >> 32) ^ c3 ^ (ulong8)(k1);
    c3 = p0 & low32;
  }
  *w0 = convert_uint8(c0);
  *w1 = convert_uint8(c1);
  *w2 = convert_uint8(c2);
  *w3 = convert_uint8(c3);
}

// words[set][word][lane]: word `word` of set `set` of block first + lane.
inline void block_words8(ulong seed, ulong first, uint set, uint words[4][8]) {
  const ulong8 blocks = (ulong8)(first) + (ulong8)(0, 1, 2, 3, 4, 5, 6, 7);
  uint8 w0 = convert_uint8(blocks), w1 = convert_uint8(blocks >> 32), w2 = (uint8)(set), w3 = (uint8)(0u);
  philox8(&w0, &w1, &w2, &w3, (uint)seed, (uint)(seed >> 32));
  vstore8(w0, 0, words[0]);
  vstore8(w1, 0, words[1]);
  vstore8(w2, 0, words[2]);
  vstore8(w3, 0, words[3]);
}

#if defined(OUT_F32) || defined(OUT_F64) || defined(OUT_I32) || defined(OUT_I64)
// Element j of block b0 + lane is v_j[lane]: the 32 elements of eight whole blocks as eight 4-element
// stores (PoCL turned the element-by-element stores into a scalar loop).
#if defined(OUT_F32)
#define OUT_T4 float4
#define OUT_T8 float8
#elif defined(OUT_F64)
#define OUT_T4 double4
#define OUT_T8 double8
#elif defined(OUT_I32)
#define OUT_T4 int4
#define OUT_T8 int8
#else
#define OUT_T4 long4
#define OUT_T8 long8
#endif
inline void store_lanes8(__global OUT_T* p, OUT_T8 v0, OUT_T8 v1, OUT_T8 v2, OUT_T8 v3) {
  vstore4((OUT_T4)(v0.s0, v1.s0, v2.s0, v3.s0), 0, p);
  vstore4((OUT_T4)(v0.s1, v1.s1, v2.s1, v3.s1), 1, p);
  vstore4((OUT_T4)(v0.s2, v1.s2, v2.s2, v3.s2), 2, p);
  vstore4((OUT_T4)(v0.s3, v1.s3, v2.s3, v3.s3), 3, p);
  vstore4((OUT_T4)(v0.s4, v1.s4, v2.s4, v3.s4), 4, p);
  vstore4((OUT_T4)(v0.s5, v1.s5, v2.s5, v3.s5), 5, p);
  vstore4((OUT_T4)(v0.s6, v1.s6, v2.s6, v3.s6), 6, p);
  vstore4((OUT_T4)(v0.s7, v1.s7, v2.s7, v3.s7), 7, p);
}
#endif

#if defined(INTEGERS)
// mul_hi of 64-bit lanes from 32 x 32 -> 64-bit products (PoCL's ulong8 mul_hi is a slow sequence).
inline ulong8 mul_hi8(ulong8 x, ulong r) {
  const ulong8 low32 = (ulong8)(0xFFFFFFFFul);
  const ulong8 xl = x & low32, xh = x >> 32, rl = (ulong8)(r & 0xFFFFFFFFul), rh = (ulong8)(r >> 32);
  const ulong8 ll = xl * rl, lh = xl * rh, hl = xh * rl;
  const ulong8 mid = (ll >> 32) + (lh & low32) + (hl & low32);
  return xh * rh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

inline ulong8 word64_8(uint words[SETS][4][8], int high_set, int word) {
  return (convert_ulong8(vload8(0, words[high_set][word])) << 32) | convert_ulong8(vload8(0, words[high_set + 1][word]));
}

// int_low + draw(...) of word `word` of the eight blocks, as draw() computes it lane by lane.
inline OUT_T8 integers8(uint words[SETS][4][8], int word, long int_low, ulong range) {
  const ulong8 hi = word64_8(words, 0, word);
#if defined(OUT_I32)
  const ulong8 drawn = mul_hi8(hi, range);
#else
  ulong8 drawn = hi;
  if (range != 0) {
    const ulong8 top_lo = hi * range, sum = top_lo + mul_hi8(word64_8(words, 2, word), range);
    drawn = mul_hi8(hi, range) + select((ulong8)(0ul), (ulong8)(1ul), sum < top_lo);
  }
#endif
#if defined(OUT_I32)
  return convert_int8(drawn + (ulong8)((ulong)int_low));
#else
  return as_long8(drawn + (ulong8)((ulong)int_low));
#endif
}
#endif

#if defined(UNIFORM) && defined(OUT_F32)
// low + scale u of word `word` of the eight blocks' set 0, as uniform_f32 and the kernels compute it.
inline float8 uniforms8(uint words[SETS][4][8], int word, float low, float scale) {
  return (float8)(low) + (float8)(scale) * (convert_float8(vload8(0, words[0][word]) >> 8) * 0x1p-24f);
}
#elif defined(UNIFORM) && defined(OUT_F64)
// The same from 64 bits: the high half from set 0, the low half from set 1.
inline double8 uniforms8(uint words[SETS][4][8], int word, double low, double scale) {
  const ulong8 x = (convert_ulong8(vload8(0, words[0][word])) << 32) | convert_ulong8(vload8(0, words[1][word]));
  return (double8)(low) + (double8)(scale) * (convert_double8(x >> 11) * 0x1p-53);
}
#endif

#if defined(NORMAL) && !defined(OUT_F64) && defined(ACC_FP64)
// cos and sin of float angles theta in [0, 2 pi] in double lanes, as the CPU backend's float normals take them
// (sin_and_cos in backends/cpu/simd/math-inl.h): half_pi_trig.cl's reduction and polynomials, chosen and
// signed by the quadrant, rounded to float (within an ulp of the true values). PoCL's float built-ins made a
// draw of normals 1.4-1.7x slower.
inline void cos_and_sin8(float8 theta, float8* cos_out, float8* sin_out) {
  double8 r;
  const long8 q = acc_reduce_half_pi_double8(convert_double8(theta), &r);
  const double8 z = r * r, sin_r = acc_sin_reduced_double8(r, z), cos_r = acc_cos_reduced_double8(z);
  // sin(x) is sin_r, cos_r, -sin_r, -cos_r for q = 0, 1, 2, 3 (mod 4); cos(x) is sin(x + pi/2): q + 1.
  const long8 odd = (q & 1) != 0;
  const double8 sin_value = select(sin_r, cos_r, odd), cos_value = select(cos_r, sin_r, odd);
  *sin_out = convert_float8(select(sin_value, -sin_value, (q & 2) != 0));
  *cos_out = convert_float8(select(cos_value, -cos_value, ((q + 1) & 2) != 0));
}
#endif

__kernel void random(const long n, __global OUT_T* out, const long out_offset, const ulong seed,
                     const ulong offset, const CT low, const CT scale, const long int_low, const ulong range) {
  const long b0 = 8 * get_global_id(0);
  if (b0 * 4 >= n) return;
  uint words[SETS][4][8];
  for (uint set = 0; set < SETS; ++set) block_words8(seed, offset + (ulong)b0, set, words[set]);
#if defined(NORMAL)
  // Box-Muller on the lanes: elements 2p and 2p + 1 of each block from words 2p and 2p + 1, as element().
  CT values[4][8];
  for (int p = 0; p < 4; p += 2) {
#if defined(OUT_F64)
    const ulong8 w1 = (convert_ulong8(vload8(0, words[0][p])) << 32) | convert_ulong8(vload8(0, words[1][p]));
    const ulong8 w2 =
        (convert_ulong8(vload8(0, words[0][p + 1])) << 32) | convert_ulong8(vload8(0, words[1][p + 1]));
    const double8 u1 = 1.0 - convert_double8(w1 >> 11) * 0x1p-53;
    const double8 u2 = convert_double8(w2 >> 11) * 0x1p-53;
    const double8 r = sqrt(-2.0 * log(u1)), theta = 6.28318530717958647692 * u2;
    vstore8(r * cos(theta), 0, values[p]);
    vstore8(r * sin(theta), 0, values[p + 1]);
#else
    const float8 u1 = 1.0f - convert_float8(vload8(0, words[0][p]) >> 8) * 0x1p-24f;
    const float8 u2 = convert_float8(vload8(0, words[0][p + 1]) >> 8) * 0x1p-24f;
    const float8 r = sqrt(-2.0f * log(u1)), theta = 6.28318530717958647692f * u2;
#if defined(ACC_FP64)
    float8 cos_theta, sin_theta;
    cos_and_sin8(theta, &cos_theta, &sin_theta);
    vstore8(r * cos_theta, 0, values[p]);
    vstore8(r * sin_theta, 0, values[p + 1]);
#else
    vstore8(r * cos(theta), 0, values[p]);
    vstore8(r * sin(theta), 0, values[p + 1]);
#endif
#endif
  }
#if defined(OUT_F32) || defined(OUT_F64)
  if (4 * (b0 + 8) <= n) {
    store_lanes8(out + out_offset + 4 * b0, low + scale * vload8(0, values[0]), low + scale * vload8(0, values[1]),
                 low + scale * vload8(0, values[2]), low + scale * vload8(0, values[3]));
    return;
  }
#endif
  for (int lane = 0; lane < 8; ++lane) {
    const long b = b0 + lane;
    for (int j = 0; j < 4 && 4 * b + j < n; ++j) STORE(out, out_offset + 4 * b + j, low + scale * values[j][lane]);
  }
#else
#if defined(UNIFORM) && (defined(OUT_F32) || defined(OUT_F64))
  if (4 * (b0 + 8) <= n) {  // eight whole blocks
    store_lanes8(out + out_offset + 4 * b0, uniforms8(words, 0, low, scale), uniforms8(words, 1, low, scale),
                 uniforms8(words, 2, low, scale), uniforms8(words, 3, low, scale));
    return;
  }
#elif defined(INTEGERS)
  if (4 * (b0 + 8) <= n) {
    store_lanes8(out + out_offset + 4 * b0, integers8(words, 0, int_low, range), integers8(words, 1, int_low, range),
                 integers8(words, 2, int_low, range), integers8(words, 3, int_low, range));
    return;
  }
#endif
  const uint4 zero = (uint4)(0u);
#pragma unroll
  for (int lane = 0; lane < 8; ++lane) {
    const long b = b0 + lane;
    if (4 * b >= n) break;
#define LANE_WORDS(set) (uint4)(words[set][0][lane], words[set][1][lane], words[set][2][lane], words[set][3][lane])
    const uint4 s0 = LANE_WORDS(0);
    const uint4 s1 = SETS >= 2 ? LANE_WORDS(SETS >= 2 ? 1 : 0) : zero;
    const uint4 s2 = SETS >= 4 ? LANE_WORDS(SETS >= 4 ? 2 : 0) : zero;
    const uint4 s3 = SETS >= 4 ? LANE_WORDS(SETS >= 4 ? 3 : 0) : zero;
    STORE_BLOCK(b);
  }
#endif
}
#else
// One block per work-item (GPUs).
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
  STORE_BLOCK(b);
}
#endif
