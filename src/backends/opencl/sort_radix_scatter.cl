// Sort, CPU-device form for few rows, step 3 of a pass (sort.cpp): a work-item per chunk moves its pairs to
// the slots sort_radix_offsets gave its digits.
__kernel void sort_radix_scatter(__global const K* keys, __global const ulong* at, const long rows, const long n,
                                 const long chunk, const long chunks, const int shift,
                                 __global const ulong* offsets, __global K* out_keys, __global ulong* out_at) {
  const long g = get_global_id(0);
  if (g >= rows * chunks) return;
  const long r = g / chunks, c = g - r * chunks;
  const long begin = c * chunk, count = min(n, begin + chunk) - begin;
  __global const ulong* row_offsets = offsets + r * RADIX * chunks;
  ulong next[RADIX];
  for (int d = 0; d < RADIX; ++d) next[d] = row_offsets[d * chunks + c];
  scatter_digits(keys + r * n + begin, at + r * n + begin, count, shift, next, out_keys + r * n, out_at + r * n);
}
