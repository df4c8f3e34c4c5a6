// unique_groups, step 3 (unique.cpp): each work-item numbers the groups of its chunk from its offset.
__kernel void unique_chunk_groups(const long n, const long chunk, __global const E* sorted, const long so,
                                  __global const long* offsets, __global long* group, const long go) {
  const long c = get_global_id(0);
  const long begin = c * chunk;
  if (begin >= n) return;
  const long end = min(n, begin + chunk);
  __global const E* s = sorted + so;
  long id = offsets[c] - 1;
  for (long i = begin; i < end; ++i) {
    id += starts_group(s, i);
    group[go + i] = id;
  }
}
