// Shared by the row kernels (a prelude of their programs): the sum (or the largest) of one value per
// work-item over the work-group, through local memory (a tree of lsize / 2, lsize / 4, ... partials).
// Every work-item receives the result; scratch holds get_local_size(0) elements and is free again on return.
inline T group_sum(T v, __local T* scratch) {
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = lsize / 2; w > 0; w /= 2) {
    if (lid < w) scratch[lid] += scratch[lid + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const T total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

inline T group_max(T v, __local T* scratch) {
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = lsize / 2; w > 0; w /= 2) {
    if (lid < w) scratch[lid] = fmax(scratch[lid], scratch[lid + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const T largest = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return largest;
}
