// Backward of softmax (dx = y (g - sum(g y))) or, with LOG_SOFTMAX, of log-softmax (dx = g - exp(y) sum(g))
// over the last axis of (rows, n): one work-group per row.
__kernel void softmax_backward(const long n, __global const T* grad, const long go, __global const T* y,
                               const long yo, __global T* dx, const long dxo, __local T* scratch) {
  const long row = get_group_id(0);
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  __global const T* g = grad + go + row * n;
  __global const T* yr = y + yo + row * n;
  __global T* d = dx + dxo + row * n;
  T acc = 0;
#ifdef LOG_SOFTMAX
  for (long k = lid; k < n; k += lsize) acc += g[k];
#else
  for (long k = lid; k < n; k += lsize) acc += g[k] * yr[k];
#endif
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = lsize / 2; w > 0; w /= 2) {
    if (lid < w) scratch[lid] += scratch[lid + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  acc = scratch[0];
#ifdef LOG_SOFTMAX
  for (long k = lid; k < n; k += lsize) d[k] = g[k] - exp(yr[k]) * acc;
#else
  for (long k = lid; k < n; k += lsize) d[k] = yr[k] * (g[k] - acc);
#endif
}
