// unique_groups, step 2 (unique.cpp): one work-item turns the chunk counts into exclusive offsets, in place;
// counts[chunks] receives the number of groups (the value read back).
__kernel void unique_chunk_offsets(const long chunks, __global long* counts) {
  if (get_global_id(0) != 0) return;
  long sum = 0;
  for (long c = 0; c < chunks; ++c) {
    const long v = counts[c];
    counts[c] = sum;
    sum += v;
  }
  counts[chunks] = sum;
}
