// unique_groups, step 1 (unique.cpp; Note [Unique by groups] in src/ops/unique.hpp): each work-item counts
// the group starts in its chunk of `chunk` sorted elements.
__kernel void unique_chunk_counts(const long n, const long chunk, __global const E* sorted, const long so,
                                  __global long* counts) {
  const long c = get_global_id(0);
  const long begin = c * chunk;
  if (begin >= n) return;
  const long end = min(n, begin + chunk);
  __global const E* s = sorted + so;
  long count = 0;
  for (long i = begin; i < end; ++i) count += starts_group(s, i);
  counts[c] = count;
}
