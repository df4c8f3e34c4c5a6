// cumulative_sum and cumulative_prod (Note [Scans] in src/ops/scan.hpp), one program per phase:
// SCAN_TOTALS:  one work-item per (o, b, j) reduces block b of line (o, j) into totals[(o*blocks + b)*inner + j];
// SCAN_CARRIES: one work-item per line (o, j) turns its block totals into exclusive carries, in place;
// otherwise:    one work-item per (o, b, j) scans block b from its carry (the identity when blocks == 1).
// T is the element type, ACC the accumulator (UACC for integers: unsigned, so that overflow wraps); OP_PROD
// selects the product.
#ifdef OP_PROD
#define IDENTITY ((ACC)1)
#define COMBINE(a, b) ((a) * (b))
#else
#define IDENTITY ((ACC)0)
#define COMBINE(a, b) ((a) + (b))
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
