// The window geometry shared by im2col.cl, col2im.cl, max_pool.cl and max_pool_backward.cl (Note [Window geometry] in src/ops/im2col.hpp);
// the same layout as the host's WindowGeometry (twenty 64-bit integers). "in" and "kernel" are reserved
// words of OpenCL C: here the input extents are `extent` and the kernel's are `taps`.
typedef struct {
  long batch, channels;
  long extent[3], out[3], taps[3], stride[3], pad[3], dilation[3];
} Window;

// The output position on one axis whose window reads input position i through kernel offset k, or -1:
// o = (i + pad - k dilation) / stride when that division is exact and o is in range.
inline long window_reader(const long i, const long k, const long pad, const long dilation, const long stride,
                          const long out) {
  const long t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0 || t / stride >= out) return -1;
  return t / stride;
}
