// Shared by every Accelera OpenCL program: element types, the strided layout and index arithmetic.
// Build options define T (element type) and, where needed, ACC (accumulator) and UT (unsigned of T).
#ifdef ACC_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// Vector type names and conversions from a scalar type: VEC(float, 16) is float16.
#define VEC_(t, n) t##n
#define VEC(t, n) VEC_(t, n)
#define CONVERT_(t, n) convert_##t##n
#define CONVERT(t, n) CONVERT_(t, n)

// The chunked reductions of CPU devices (reduce.cl, arg_extremum.cl): work-item `item` reduces elements
// [*begin, *begin + *n) of output *output's run of `count`, split into `parts` chunks of whole 16-lane
// vectors (the last chunk takes the rest; chunks past the end are empty).
inline void chunk_of(long item, long parts, long count, long* output, long* begin, long* n) {
  const long chunk = ((count + parts - 1) / parts + 15) / 16 * 16;
  *output = item / parts;
  *begin = min(count, item % parts * chunk);
  *n = min(count, *begin + chunk) - *begin;
}

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
