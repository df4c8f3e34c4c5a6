// One work-group per output element: its work-items stride over the reduced elements, then combine in
// local memory. K: the kept layout (0: out, 1: x); R: the reduced layout (1: x).
// OP_SUM | OP_MEAN | OP_PROD | OP_MAX | OP_MIN; ACC is the accumulator type (double for floats where the
// device has it; long for integers, whose sums and products wrap as NumPy's do). max and min keep nan.
#if defined(OP_MAX)
#define INIT (ACC_LOWEST)
#define STEP(acc, v) ((((ACC)(v)) > (acc) || (v) != (v)) ? (ACC)(v) : (acc))
#elif defined(OP_MIN)
#define INIT (ACC_HIGHEST)
#define STEP(acc, v) ((((ACC)(v)) < (acc) || (v) != (v)) ? (ACC)(v) : (acc))
#elif defined(OP_PROD)
#define INIT ((ACC)1)
#define STEP(acc, v) ((ACC)((ACC_BITS)(acc) * (ACC_BITS)(ACC)(v)))
#else
#define INIT ((ACC)0)
#define STEP(acc, v) ((acc) + (ACC)(v))
#endif
#if defined(OP_MEAN)
#define FINISH(acc, count) ((T)((acc) / (ACC)(count)))
#else
#define FINISH(acc, count) ((T)(acc))
#endif

__kernel void reduce(const int kept_ndim, const Layout K, const int red_ndim, const long count, const Layout R,
                     __global T* out, const long oo, __global const T* x, const long xo, __local ACC* scratch) {
  const long group = get_group_id(0);
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, group, io, ix, unused);
  ACC acc = INIT;
  for (long r = lid; r < count; r += lsize) {
    long a = 0, b = ix, c = 0;
    ACC_OFFSETS(R, red_ndim, r, a, b, c);
    acc = STEP(acc, x[b]);
  }
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = lsize / 2; width > 0; width /= 2) {
    if (lid < width) scratch[lid] = STEP(scratch[lid], scratch[lid + width]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[io] = FINISH(scratch[0], count);
}
