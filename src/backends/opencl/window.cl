// The window geometry shared by im2col.cl and col2im.cl (Note [Window geometry] in src/ops/im2col.hpp);
// the same layout as the host's WindowGeometry (twenty 64-bit integers). "in" and "kernel" are reserved
// words of OpenCL C: here the input extents are `extent` and the kernel's are `taps`.
typedef struct {
  long batch, channels;
  long extent[3], out[3], taps[3], stride[3], pad[3], dilation[3];
} Window;
