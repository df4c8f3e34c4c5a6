// cumulative_sum and cumulative_prod (Note [Scans] in src/ops/scan.hpp), one program per phase and form:
// SCAN_TOTALS:  block totals into totals[(o*blocks + b)*inner + j] (block b of line (o, j));
// SCAN_CARRIES: one work-item per line (o, j) turns its block totals into exclusive carries, in place;
// otherwise:    each block scans from its carry (the identity when blocks == 1).
// Forms (Note [OpenCL kernel forms]): for GPUs, one work-item per (o, b, j) runs along its block of one
// line. A CPU device runs a work-group's items one after the other and vectorises across them, so there
// that loop's column stride becomes gathers; its forms give each work-item contiguous memory instead:
// - LINES (inner == 1): item (o, b) scans elements [b*block, b*block + block) of line o, 16 at a time: an
//   in-register prefix (four shifted adds) plus the carry.
// - COLUMNS (inner > 1): item (o, c, b) takes up to COLUMN_CHUNK adjacent columns of line group o and rows
//   [b*block, b*block + block), and adds each row into accumulators of its own, 16 lanes at a time.
// The carries are the same pass for every form. T is the element type, ACC the accumulator (UACC for
// integers: unsigned, so that overflow wraps); OP_PROD selects the product.
#ifdef OP_PROD
#define IDENTITY ((ACC)1)
#define COMBINE(a, b) ((a) * (b))
#else
#define IDENTITY ((ACC)0)
#define COMBINE(a, b) ((a) + (b))
#endif

#if defined(LINES) || defined(COLUMNS)
#define VT VEC(T, 16)
#define VACC VEC(ACC, 16)
#define TO_ACC(v) CONVERT(ACC, 16)(v)
#define TO_T(v) CONVERT(T, 16)(v)

#if defined(LINES)
// Inclusive prefix of the 16 lanes: after the shifts by 1, 2, 4 and 8 lanes (the identity shifted in),
// lane k combines lanes 0..k.
inline VACC lane_prefix(VACC v) {
  const ACC e = IDENTITY;
  v = COMBINE(v, (VACC)(e, v.s0, v.s12, v.s3456, v.s789abcde));
  v = COMBINE(v, (VACC)((VEC(ACC, 2))(e), v.s01, v.s2345, v.s6789abcd));
  v = COMBINE(v, (VACC)((VEC(ACC, 4))(e), v.s01234567, v.s89ab));
  v = COMBINE(v, (VACC)((VEC(ACC, 8))(e), v.lo));
  return v;
}
#endif
#endif

__kernel void scan(const long outer, const long n, const long inner, const long blocks, const long block,
                   const int initial, __global const T* x, const long xo, __global T* out, const long oo,
                   __global ACC* totals) {
  const long g = get_global_id(0);
#ifdef SCAN_CARRIES
  if (g >= outer * inner) return;
  const long j = g % inner, o = g / inner;
  ACC carry = IDENTITY;
  for (long b = 0; b < blocks; ++b) {
    const long slot = (o * blocks + b) * inner + j;
    const ACC total = totals[slot];
    totals[slot] = carry;
    carry = COMBINE(carry, total);
  }
#elif defined(LINES)
  if (g >= outer * blocks) return;
  const long o = g / blocks, b = g % blocks;
  const long i0 = b * block, i1 = min(n, i0 + block);
  __global const T* line = x + xo + o * n;
#if defined(SCAN_TOTALS)
  VACC lanes = (VACC)(IDENTITY);
  long i = i0;
  for (; i + 16 <= i1; i += 16) lanes = COMBINE(lanes, TO_ACC(vload16(0, line + i)));
  ACC each[16];
  vstore16(lanes, 0, each);
  ACC total = IDENTITY;
  for (int k = 0; k < 16; ++k) total = COMBINE(total, each[k]);
  for (; i < i1; ++i) total = COMBINE(total, (ACC)line[i]);
  totals[o * blocks + b] = total;
#else
  __global T* dst = out + oo + o * (n + initial);
  if (initial) {
    if (b == 0) dst[0] = (T)IDENTITY;
    dst += 1;
  }
  ACC carry = blocks > 1 ? totals[o * blocks + b] : IDENTITY;
  long i = i0;
  for (; i + 16 <= i1; i += 16) {
    const VACC v = COMBINE(lane_prefix(TO_ACC(vload16(0, line + i))), (VACC)(carry));
    vstore16(TO_T(v), 0, dst + i);
    carry = v.sf;
  }
  for (; i < i1; ++i) {
    carry = COMBINE(carry, (ACC)line[i]);
    dst[i] = (T)carry;
  }
#endif
#elif defined(COLUMNS)
  const long chunks = (inner + COLUMN_CHUNK - 1) / COLUMN_CHUNK;
  if (g >= outer * chunks * blocks) return;
  const long b = g % blocks, c = (g / blocks) % chunks, o = g / (blocks * chunks);
  const long j0 = c * COLUMN_CHUNK, width = min((long)COLUMN_CHUNK, inner - j0);
  const long i0 = b * block, i1 = min(n, i0 + block);
  __global const T* rows = x + xo + o * n * inner + j0;
  __global ACC* carries = totals + (o * blocks + b) * inner + j0;
  ACC acc[COLUMN_CHUNK];
#if defined(SCAN_TOTALS)
  for (long k = 0; k < width; ++k) acc[k] = IDENTITY;
#else
  for (long k = 0; k < width; ++k) acc[k] = blocks > 1 ? carries[k] : IDENTITY;
  __global T* dst = out + oo + o * (n + initial) * inner + j0;
  if (initial) {
    if (b == 0) {
      for (long k = 0; k < width; ++k) dst[k] = (T)IDENTITY;
    }
    dst += inner;
  }
#endif
  for (long i = i0; i < i1; ++i) {
    __global const T* row = rows + i * inner;
    long k = 0;
    for (; k + 16 <= width; k += 16) {
      const VACC a = COMBINE(vload16(0, acc + k), TO_ACC(vload16(0, row + k)));
      vstore16(a, 0, acc + k);
#if !defined(SCAN_TOTALS)
      vstore16(TO_T(a), 0, dst + i * inner + k);
#endif
    }
    for (; k < width; ++k) {
      acc[k] = COMBINE(acc[k], (ACC)row[k]);
#if !defined(SCAN_TOTALS)
      dst[i * inner + k] = (T)acc[k];
#endif
    }
  }
#if defined(SCAN_TOTALS)
  for (long k = 0; k < width; ++k) carries[k] = acc[k];
#endif
#else
  if (g >= outer * blocks * inner) return;
  const long j = g % inner, b = (g / inner) % blocks, o = g / (inner * blocks);
  const long i0 = b * block, i1 = min(n, i0 + block);
  __global const T* line = x + xo + o * n * inner + j;
#ifdef SCAN_TOTALS
  ACC total = IDENTITY;
  for (long i = i0; i < i1; ++i) total = COMBINE(total, (ACC)line[i * inner]);
  totals[(o * blocks + b) * inner + j] = total;
#else
  __global T* dst = out + oo + o * (n + initial) * inner + j;
  if (initial) {
    if (b == 0) dst[0] = (T)IDENTITY;
    dst += inner;
  }
  ACC carry = blocks > 1 ? totals[(o * blocks + b) * inner + j] : IDENTITY;
  for (long i = i0; i < i1; ++i) {
    carry = COMBINE(carry, (ACC)line[i * inner]);
    dst[i * inner] = (T)carry;
  }
#endif
#endif
}
