// LayerNorm over the last axis of (rows, n): one work-group per row; mean, then the variance about it,
// as local-memory tree reductions. HAS_WEIGHT / HAS_BIAS say which parameters are given. A row whose
// squared deviations overflow (values near 1e20 in float) is summed again scaled by its largest deviation.
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
  const T square_sum = group_sum(sq, scratch);
  T rs = (T)1 / sqrt(square_sum / (T)n + eps);
  if (isinf(square_sum) && isfinite(mu)) {  // the same in every work-item: the barriers are safe
    T largest = 0;
    for (long k = lid; k < n; k += lsize) largest = fmax(largest, fabs(xr[k] - mu));
    largest = group_max(largest, scratch);
    T scaled = 0;
    for (long k = lid; k < n; k += lsize) scaled += ((xr[k] - mu) / largest) * ((xr[k] - mu) / largest);
    rs = (T)1 / (largest * sqrt(group_sum(scaled, scratch) / (T)n + eps / largest / largest));
  }
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
