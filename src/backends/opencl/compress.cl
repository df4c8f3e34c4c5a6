// Compaction (Note [Compaction] in ops/compress.hpp): chunk c writes its kept elements, in order, to
// out[offsets[c] : offsets[c + 1]]. With VALUES, x's elements (T: an unsigned integer of the element's
// size, the kernel moves bits); otherwise their flat positions (OUT is long).
#if defined(VALUES)
#define OUT T
#define OUT16 VEC(T, 16)
#define VALUE(i) x[xo + (i)]
#else
#define OUT long
#define VALUE(i) ((long)(i))
#endif

__kernel void compress(const long n, const long chunk, __global const OUT* x, const long xo,
                       __global const uchar* mask, const long mo, __global const long* offsets, const long oo,
                       __global OUT* out, const long outo, __local int* scratch) {
  const long chunks = (n + chunk - 1) / chunk;
#if defined(CPU_FORM)
  // A work-item per chunk: a store per element and an advance by its flag, no branch (a dropped element's
  // store lands on the slot the next kept one takes; the loop ends once the chunk's slots are all filled).
  const long c = get_global_id(0);
  if (c >= chunks) return;
  const long begin = c * chunk, end = min(n, begin + chunk);
  const long last = offsets[oo + c + 1];
  long slot = offsets[oo + c];
  long i = begin;
  // Sixteen at a time while their stores stay inside the chunk's slots, from vector loads and with the
  // advances written out: 1.5x PoCL's code for the loop below alone. (A left-pack by shuffle tables was no
  // faster under PoCL, and the slots from an in-register prefix slower.)
  for (; i + 16 <= end && slot + 16 <= last; i += 16) {
    // Each advance at most 1 even for a bool byte other than 0 or 1, so the stores stay in the chunk.
    const uchar16 flags = min(vload16(0, mask + mo + i), (uchar16)(1));
#if defined(VALUES)
    const OUT16 values = vload16(0, x + xo + i);
#else
    const long16 values = (long16)(i) + (long16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#endif
    __global OUT* o = out + outo;
#define KEEP(k) o[slot] = values.s##k, slot += flags.s##k
    KEEP(0); KEEP(1); KEEP(2); KEEP(3); KEEP(4); KEEP(5); KEEP(6); KEEP(7);
    KEEP(8); KEEP(9); KEEP(a); KEEP(b); KEEP(c); KEEP(d); KEEP(e); KEEP(f);
#undef KEEP
  }
  for (; i < end && slot < last; ++i) {
    out[outo + slot] = VALUE(i);
    slot += mask[mo + i];
  }
#else
  // A work-group per chunk, a tile of one element per item at a time: an inclusive scan of the tile's
  // flags in local memory gives each kept element its rank.
  const long c = get_group_id(0);
  const int lid = get_local_id(0), size = get_local_size(0);
  const long begin = c * chunk, end = min(n, begin + chunk);
  long base = offsets[oo + c];
  for (long t = begin; t < end; t += size) {
    const long i = t + lid;
    const int flag = i < end ? mask[mo + i] : 0;
    scratch[lid] = flag;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = 1; step < size; step *= 2) {
      const int add = lid >= step ? scratch[lid - step] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      scratch[lid] += add;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (flag) out[outo + base + scratch[lid] - 1] = VALUE(i);
    base += scratch[size - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
}
