// max_pool: one work-item per pooled element (n, c, o0, o1, o2), taking the first maximum of its window
// (accelera/nn_ops.hpp): a NaN beats every number, padding is never chosen, and the first in-image element
// is taken whatever its value. Indices are flat positions within the image plane.
__kernel void max_pool(const Window g, __global const T* x, const long xo, __global T* values, const long vo,
                       __global long* indices, const long io) {
  const long positions = g.out[0] * g.out[1] * g.out[2];
  const long e = get_global_id(0);
  if (e >= g.batch * g.channels * positions) return;
  long rest = e % positions;
  const long o2 = rest % g.out[2];
  rest /= g.out[2];
  const long o1 = rest % g.out[1], o0 = rest / g.out[1];
  const long plane = g.extent[0] * g.extent[1] * g.extent[2];
  __global const T* img = x + xo + (e / positions) * plane;
  T best = -INFINITY;
  long at = -1;
  for (long k0 = 0; k0 < g.taps[0]; ++k0) {
    const long i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
    if (i0 < 0 || i0 >= g.extent[0]) continue;
    for (long k1 = 0; k1 < g.taps[1]; ++k1) {
      const long i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
      if (i1 < 0 || i1 >= g.extent[1]) continue;
      const long row = (i0 * g.extent[1] + i1) * g.extent[2];
      for (long k2 = 0; k2 < g.taps[2]; ++k2) {
        const long i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dilation[2];
        if (i2 < 0 || i2 >= g.extent[2]) continue;
        const T v = img[row + i2];
        if (at < 0 || v > best || (isnan(v) && !isnan(best))) {
          best = v;
          at = row + i2;
        }
      }
    }
  }
  values[vo + e] = best;
  indices[io + e] = at;
}
