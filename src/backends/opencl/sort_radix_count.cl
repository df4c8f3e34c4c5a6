// Sort, CPU-device form for few rows, step 1 of a pass (sort.cpp): a work-item per chunk of a row counts
// its keys' digits into counts[row][digit][chunk] (the order in which sort_radix_offsets scans them).
__kernel void sort_radix_count(__global const K* keys, const long rows, const long n, const long chunk,
                               const long chunks, const int shift, __global ulong* counts) {
  const long g = get_global_id(0);
  if (g >= rows * chunks) return;
  const long r = g / chunks, c = g - r * chunks;
  const long begin = c * chunk, count = min(n, begin + chunk) - begin;
  ulong mine[RADIX];
  clear_counts(mine);
  count_digits(keys + r * n + begin, count, shift, mine);
  __global ulong* row_counts = counts + r * RADIX * chunks;
  for (int d = 0; d < RADIX; ++d) row_counts[d * chunks + c] = mine[d];
}
