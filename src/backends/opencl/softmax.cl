// Softmax (or log-softmax with LOG_SOFTMAX) over the last axis of a contiguous (rows, n) matrix: one
// work-group per row; the max and the exp-sum are tree reductions in local memory.
__kernel void softmax(const long n, __global const T* x, const long xo, __global T* out, const long oo,
                      __local T* scratch) {
  const long row = get_group_id(0);
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  __global const T* xr = x + xo + row * n;
  __global T* y = out + oo + row * n;
  T m = -INFINITY;
  for (long k = lid; k < n; k += lsize) m = fmax(m, xr[k]);
  for (long k = lid; k < n; k += lsize) m = isnan(xr[k]) ? xr[k] : m;
  scratch[lid] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = lsize / 2; w > 0; w /= 2) {
    if (lid < w) scratch[lid] = isnan(scratch[lid + w]) ? scratch[lid + w] : fmax(scratch[lid], scratch[lid + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  m = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  T s = 0;
  for (long k = lid; k < n; k += lsize) s += exp(xr[k] - m);
  scratch[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = lsize / 2; w > 0; w /= 2) {
    if (lid < w) scratch[lid] += scratch[lid + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  s = scratch[0];
#ifdef LOG_SOFTMAX
  const T log_s = log(s);  // (x - m) - log(s): a large m would absorb log(s)
  for (long k = lid; k < n; k += lsize) y[k] = (xr[k] - m) - log_s;
#else
  const T inv = (T)1 / s;
  for (long k = lid; k < n; k += lsize) y[k] = exp(xr[k] - m) * inv;
#endif
}
