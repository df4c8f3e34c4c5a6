// Bitonic sort, step 4 (sort.cpp): the steps j < B of stage k > B, in local memory, B pairs per work-group.
__kernel void sort_merge_block(__global K* keys, __global ulong* at, const long P, const long k, __local K* lk,
                               __local ulong* la) {
  const long t = get_local_id(0), half_block = get_local_size(0), B = 2 * half_block;
  const long base = get_group_id(0) * B;
  const long row_pos = base % P;
  lk[t] = keys[base + t], la[t] = at[base + t];
  lk[t + half_block] = keys[base + t + half_block], la[t + half_block] = at[base + t + half_block];
  barrier(CLK_LOCAL_MEM_FENCE);
  const bool ascending = (row_pos & k) == 0;  // k > B: the same for the whole block
  for (long j = half_block; j > 0; j >>= 1) {
    const long lo = (t / j) * 2 * j + t % j, hi = lo + j;
    compare_exchange(lk, la, lo, hi, ascending);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  keys[base + t] = lk[t], at[base + t] = la[t];
  keys[base + t + half_block] = lk[t + half_block], at[base + t + half_block] = la[t + half_block];
}
