// im2col: one work-item per patch entry (row r, column k) of the (rows, cols) patch matrix, so adjacent
// work-items write adjacent memory. Positions in the padding read pad_value.
__kernel void im2col(const Window g, __global const T* x, const long xo, const T pad_value, __global T* patches,
                     const long po) {
  const long cols = g.channels * g.taps[0] * g.taps[1] * g.taps[2];
  const long rows = g.batch * g.out[0] * g.out[1] * g.out[2];
  const long e = get_global_id(0);
  if (e >= rows * cols) return;
  long r = e / cols, k = e % cols;
  const long k2 = k % g.taps[2];
  k /= g.taps[2];
  const long k1 = k % g.taps[1];
  k /= g.taps[1];
  const long k0 = k % g.taps[0];
  const long c = k / g.taps[0];
  const long o2 = r % g.out[2];
  r /= g.out[2];
  const long o1 = r % g.out[1];
  r /= g.out[1];
  const long o0 = r % g.out[0];
  const long n = r / g.out[0];
  const long i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
  const long i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
  const long i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dilation[2];
  const bool inside = i0 >= 0 && i0 < g.extent[0] && i1 >= 0 && i1 < g.extent[1] && i2 >= 0 && i2 < g.extent[2];
  patches[po + e] = inside ? x[xo + (((n * g.channels + c) * g.extent[0] + i0) * g.extent[1] + i1) * g.extent[2] + i2] : pad_value;
}
