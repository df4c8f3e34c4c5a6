// Shared by every Accelera OpenCL program: element types, the strided layout and index arithmetic.
// Build options define T (element type) and, where needed, ACC (accumulator) and UT (unsigned of T).
#ifdef ACC_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define ACC_MAX_DIMS 8
// Extents and per-operand strides (in elements) of a coalesced iteration space, innermost last.
typedef struct {
  long dims[ACC_MAX_DIMS];
  long strides[3][ACC_MAX_DIMS];
} Layout;

// Offsets of flat index i (< the layout's element count) for up to three operands. The outermost index
// is what remains after the inner ones: no division there, so a 1-d layout needs none.
#define ACC_OFFSETS(L, ndim, i, o0, o1, o2)        \
  {                                                \
    long rem_ = (i);                               \
    for (int d_ = (ndim) - 1; d_ > 0; --d_) {      \
      const long q_ = rem_ / (L).dims[d_];         \
      const long idx_ = rem_ - q_ * (L).dims[d_];  \
      rem_ = q_;                                   \
      o0 += idx_ * (L).strides[0][d_];             \
      o1 += idx_ * (L).strides[1][d_];             \
      o2 += idx_ * (L).strides[2][d_];             \
    }                                              \
    if ((ndim) > 0) {                              \
      o0 += rem_ * (L).strides[0][0];              \
      o1 += rem_ * (L).strides[1][0];              \
      o2 += rem_ * (L).strides[2][0];              \
    }                                              \
  }
