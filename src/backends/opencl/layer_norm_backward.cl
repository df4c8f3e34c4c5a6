// dx of LayerNorm over (rows, n): one work-group per row. With gw = g * weight (or g) and
// xhat = (x - mean) rstd: dx = rstd (gw - mean(gw) - xhat mean(gw xhat)).
#ifdef HAS_WEIGHT
#define GW(k) (g[k] * weight[wo + (k)])
#else
#define GW(k) (g[k])
#endif

__kernel void layer_norm_backward(const long n, __global const T* grad, const long go, __global const T* x,
                                  const long xo, __global const T* weight, const long wo, __global const T* mean,
                                  const long mo, __global const T* rstd, const long ro, __global T* dx,
                                  const long dxo, __local T* scratch) {
  const long row = get_group_id(0);
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  __global const T* g = grad + go + row * n;
  __global const T* xr = x + xo + row * n;
  const T mu = mean[mo + row], rs = rstd[ro + row];
  T a = 0, c = 0;
  for (long k = lid; k < n; k += lsize) {
    a += GW(k);
    c += GW(k) * (xr[k] - mu) * rs;
  }
  a = group_sum(a, scratch) / (T)n;
  c = group_sum(c, scratch) / (T)n;
  __global T* d = dx + dxo + row * n;
  for (long k = lid; k < n; k += lsize) d[k] = rs * (GW(k) - a - (xr[k] - mu) * rs * c);
}
