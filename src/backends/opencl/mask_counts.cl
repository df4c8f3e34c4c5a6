// counts[c] = the number of true elements (bytes of 0 or 1) of mask[c*chunk, min(n, (c+1)*chunk)) (Note
// [Compaction] in ops/compress.hpp). CPU_FORM (Note [OpenCL kernel forms]): a work-item per chunk, 16 bytes
// at a time. Otherwise a work-group per chunk: its items stride over the chunk, then add up through local
// memory.
__kernel void mask_counts(const long n, const long chunk, __global const uchar* mask, const long mo,
                          __global long* counts, const long co, __local long* scratch) {
  const long chunks = (n + chunk - 1) / chunk;
#if defined(CPU_FORM)
  const long c = get_global_id(0);
  if (c >= chunks) return;
  const long begin = c * chunk, end = min(n, begin + chunk);
  __global const uchar* m = mask + mo;
  uint16 lanes = (uint16)(0);
  long i = begin;
  for (; i + 16 <= end; i += 16) lanes += convert_uint16(vload16(0, m + i));
  const uint8 eight = lanes.lo + lanes.hi;
  const uint4 four = eight.lo + eight.hi;
  long total = four.x + four.y + four.z + four.w;
  for (; i < end; ++i) total += m[i];
  counts[co + c] = total;
#else
  const long c = get_group_id(0);
  const int lid = get_local_id(0), size = get_local_size(0);
  const long begin = c * chunk, end = min(n, begin + chunk);
  long total = 0;
  for (long i = begin + lid; i < end; i += size) total += mask[mo + i];
  scratch[lid] = total;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = size / 2; step > 0; step /= 2) {  // size is a power of two
    if (lid < step) scratch[lid] += scratch[lid + step];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) counts[co + c] = scratch[0];
#endif
}
