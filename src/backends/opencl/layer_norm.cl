// LayerNorm over the last axis of (rows, n): one work-group per row; mean, then the variance about it,
// as local-memory tree reductions. HAS_WEIGHT / HAS_BIAS say which parameters are given.
__kernel void layer_norm(const long n, const T eps, __global const T* x, const long xo, __global const T* weight,
                         const long wo, __global const T* bias, const long bo, __global T* out, const long oo,
                         __global T* mean, const long mo, __global T* rstd, const long ro, __local T* scratch) {
  const long row = get_group_id(0);
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  __global const T* xr = x + xo + row * n;
  T s = 0;
  for (long k = lid; k < n; k += lsize) s += xr[k];
  const T mu = group_sum(s, scratch) / (T)n;
  T sq = 0;
  for (long k = lid; k < n; k += lsize) sq += (xr[k] - mu) * (xr[k] - mu);
  const T rs = (T)1 / sqrt(group_sum(sq, scratch) / (T)n + eps);
  if (lid == 0) {
    mean[mo + row] = mu;
    rstd[ro + row] = rs;
  }
  __global T* y = out + oo + row * n;
  for (long k = lid; k < n; k += lsize) {
    T v = (xr[k] - mu) * rs;
#ifdef HAS_WEIGHT
    v *= weight[wo + k];
#endif
#ifdef HAS_BIAS
    v += bias[bo + k];
#endif
    y[k] = v;
  }
}
