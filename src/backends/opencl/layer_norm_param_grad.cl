// dweight[k] = sum over rows of g * xhat and dbias[k] = sum of g: one work-item per column, reading
// rows in order (neighbouring work-items read neighbouring columns: coalesced).
__kernel void layer_norm_param_grad(const long rows, const long n, __global const T* grad, const long go,
                                    __global const T* x, const long xo, __global const T* mean, const long mo,
                                    __global const T* rstd, const long ro, __global T* dweight, const long dwo,
                                    __global T* dbias, const long dbo) {
  const long k = get_global_id(0);
  if (k >= n) return;
  T sw = 0, sb = 0;
  for (long r = 0; r < rows; ++r) {
    const T g = grad[go + r * n + k];
    sw += g * (x[xo + r * n + k] - mean[mo + r]) * rstd[ro + r];
    sb += g;
  }
#ifdef HAS_WEIGHT
  dweight[dwo + k] = sw;
#endif
#ifdef HAS_BIAS
  dbias[dbo + k] = sb;
#endif
}
