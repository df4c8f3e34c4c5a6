// Sort, CPU-device form for few rows, step 2 of a pass (sort.cpp): a work-item per row turns the counts
// into each (digit, chunk)'s first slot in the row, an exclusive scan in digit-major order, so that chunk
// c's pairs of a digit follow those of chunks < c (the pass stays stable).
__kernel void sort_radix_offsets(__global ulong* counts, const long rows, const long chunks) {
  const long r = get_global_id(0);
  if (r >= rows) return;
  __global ulong* row_counts = counts + r * RADIX * chunks;
  ulong first = 0;
  for (long i = 0; i < RADIX * chunks; ++i) {
    const ulong c = row_counts[i];
    row_counts[i] = first;
    first += c;
  }
}
