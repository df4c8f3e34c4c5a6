// Bitonic sort, step 2 (sort.cpp): each work-group sorts B = 2 * local size consecutive pairs in local
// memory through every stage k <= B; the direction of a stage alternates with (position in row & k), as the
// later merges expect.
__kernel void sort_block(__global K* keys, __global ulong* at, const long P, __local K* lk, __local ulong* la) {
  const long t = get_local_id(0), half_block = get_local_size(0), B = 2 * half_block;
  const long base = get_group_id(0) * B;
  const long row_pos = base % P;
  lk[t] = keys[base + t], la[t] = at[base + t];
  lk[t + half_block] = keys[base + t + half_block], la[t + half_block] = at[base + t + half_block];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long k = 2; k <= B; k <<= 1) {
    for (long j = k >> 1; j > 0; j >>= 1) {
      const long lo = (t / j) * 2 * j + t % j, hi = lo + j;
      compare_exchange(lk, la, lo, hi, ((row_pos + lo) & k) == 0);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  keys[base + t] = lk[t], at[base + t] = la[t];
  keys[base + t + half_block] = lk[t + half_block], at[base + t + half_block] = la[t + half_block];
}
