// col2im: one work-item per image element, gathering the patch entries that read it, so there are no
// atomics and the order of the sum is fixed. On axis a, kernel offset k_a reads i_a from output position
// o_a = (i_a + pad_a - k_a dilation_a) / stride_a when that division is exact and o_a is in range.
__kernel void col2im(const Window g, __global const T* patches, const long po, __global T* image, const long io) {
  const long plane = g.extent[0] * g.extent[1] * g.extent[2];
  const long e = get_global_id(0);
  if (e >= g.batch * g.channels * plane) return;
  long rest = e;
  const long i2 = rest % g.extent[2];
  rest /= g.extent[2];
  const long i1 = rest % g.extent[1];
  rest /= g.extent[1];
  const long i0 = rest % g.extent[0];
  rest /= g.extent[0];
  const long c = rest % g.channels, n = rest / g.channels;
  const long ksize = g.taps[0] * g.taps[1] * g.taps[2];
  const long cols = g.channels * ksize;
  T sum = 0;
  for (long k0 = 0; k0 < g.taps[0]; ++k0) {
    const long t0 = i0 + g.pad[0] - k0 * g.dilation[0];
    if (t0 < 0 || t0 % g.stride[0] != 0 || t0 / g.stride[0] >= g.out[0]) continue;
    for (long k1 = 0; k1 < g.taps[1]; ++k1) {
      const long t1 = i1 + g.pad[1] - k1 * g.dilation[1];
      if (t1 < 0 || t1 % g.stride[1] != 0 || t1 / g.stride[1] >= g.out[1]) continue;
      for (long k2 = 0; k2 < g.taps[2]; ++k2) {
        const long t2 = i2 + g.pad[2] - k2 * g.dilation[2];
        if (t2 < 0 || t2 % g.stride[2] != 0 || t2 / g.stride[2] >= g.out[2]) continue;
        const long row = ((n * g.out[0] + t0 / g.stride[0]) * g.out[1] + t1 / g.stride[1]) * g.out[2] + t2 / g.stride[2];
        sum += patches[po + row * cols + c * ksize + (k0 * g.taps[1] + k1) * g.taps[2] + k2];
      }
    }
  }
  image[io + e] = sum;
}
