// col2im: one work-item per image element, gathering the patch entries that read it, so there are no
// atomics and the order of the sum is fixed (window_reader in window.cl finds the output positions).
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
    const long o0 = window_reader(i0, k0, g.pad[0], g.dilation[0], g.stride[0], g.out[0]);
    if (o0 < 0) continue;
    for (long k1 = 0; k1 < g.taps[1]; ++k1) {
      const long o1 = window_reader(i1, k1, g.pad[1], g.dilation[1], g.stride[1], g.out[1]);
      if (o1 < 0) continue;
      for (long k2 = 0; k2 < g.taps[2]; ++k2) {
        const long o2 = window_reader(i2, k2, g.pad[2], g.dilation[2], g.stride[2], g.out[2]);
        if (o2 < 0) continue;
        const long row = ((n * g.out[0] + o0) * g.out[1] + o1) * g.out[2] + o2;
        sum += patches[po + row * cols + c * ksize + (k0 * g.taps[1] + k1) * g.taps[2] + k2];
      }
    }
  }
  image[io + e] = sum;
}
