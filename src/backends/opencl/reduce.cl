// The reductions sum, mean, prod, max and min. K: the kept layout (0: out, 1: x); R: the reduced layout
// (1: x). One of three launch forms (reduce.cpp chooses):
// - default: one work-group per output; its work-items stride over the reduced elements, then combine in
//   local memory;
// - PER_ITEM: one work-item per output, looping over the reduced elements: adjacent work-items read
//   adjacent memory when the kept axis is the dense one (column reductions);
// - PARTIAL_PASS: `parts` work-groups per output each reduce one chunk of the reduced elements into
//   partials[output * parts + part] (ACC), and FINAL_PASS combines each output's parts (one work-group per
//   output, x = the partials): a whole-array reduction fills every compute unit.
// OP_SUM | OP_MEAN | OP_PROD | OP_MAX | OP_MIN; ACC is the accumulator type (double for floats where the
// device has it; long for integers, whose sums and products wrap as NumPy's do). max and min keep nan.
// `total` is the number of reduced elements per output (the mean's divisor).
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

// The offset of reduced element r from ix: REDUCED_1D (one coalesced reduced axis) needs no division.
#if defined(REDUCED_1D)
#define REDUCED_OFFSET(b, ix, r) b = (ix) + (r) * R.strides[1][0]
#else
#define REDUCED_OFFSET(b, ix, r)           \
  {                                        \
    long a_ = 0, c_ = 0;                   \
    b = (ix);                              \
    ACC_OFFSETS(R, red_ndim, r, a_, b, c_); \
  }
#endif

#if defined(PARTIAL_PASS)
#define IN T
#define OUT ACC
#define RESULT(acc) (acc)
#elif defined(FINAL_PASS)
#define IN ACC
#define OUT T
#define RESULT(acc) FINISH(acc, total)
#else
#define IN T
#define OUT T
#define RESULT(acc) FINISH(acc, total)
#endif

__kernel void reduce(const int kept_ndim, const Layout K, const int red_ndim, const long count, const Layout R,
                     __global OUT* out, const long oo, __global const IN* x, const long xo, const long parts,
                     const long total, __local ACC* scratch) {
#if defined(PER_ITEM)
  // parts holds the number of outputs here. Items past the end compute a copy of the last output but do
  // not store it: every item must reach the barriers.
  const long output = min((long)get_global_id(0), parts - 1);
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, output, io, ix, unused);
  ACC acc = INIT;
  // Rows in blocks with a barrier between them: a CPU device that runs the group's items one after the
  // other then still walks memory block by block (row-major), not one whole column after another.
  for (long r0 = 0; r0 < count; r0 += 16) {
    const long r1 = min(count, r0 + 16);
    for (long r = r0; r < r1; ++r) {
      long b;
      REDUCED_OFFSET(b, ix, r);
      acc = STEP(acc, x[b]);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
  if (get_global_id(0) < parts) out[io] = RESULT(acc);
#else
  const long group = get_group_id(0);
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
#if defined(PARTIAL_PASS)
  // Output group / parts, chunk group % parts of its reduced elements; partials are dense.
  const long output = group / parts, part = group % parts;
  const long chunk = (count + parts - 1) / parts;
  const long begin = part * chunk, end = min(count, begin + chunk);
  long io = group, ix = xo, unused = 0, unused_out = 0;
  ACC_OFFSETS(K, kept_ndim, output, unused_out, ix, unused);
#elif defined(FINAL_PASS)
  // x: the dense partials of this output.
  const long begin = 0, end = count;
  long io = oo, ix = xo + group * count, unused = 0, unused_x = 0;
  ACC_OFFSETS(K, kept_ndim, group, io, unused_x, unused);
#else
  const long begin = 0, end = count;
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, group, io, ix, unused);
#endif
  ACC acc = INIT;
  // Blocks of 16 elements per item with a barrier between them, for CPU devices that run a group's items
  // one after the other (as in PER_ITEM): the group walks memory one block at a time.
  for (long r0 = begin; r0 < end; r0 += 16 * lsize) {
    const long r1 = min(end, r0 + 16 * lsize);
    for (long r = r0 + lid; r < r1; r += lsize) {
#if defined(FINAL_PASS)
      acc = STEP(acc, x[ix + r]);
#else
      long b;
      REDUCED_OFFSET(b, ix, r);
      acc = STEP(acc, x[b]);
#endif
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = lsize / 2; width > 0; width /= 2) {
    if (lid < width) scratch[lid] = STEP(scratch[lid], scratch[lid + width]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[io] = RESULT(scratch[0]);
#endif
}
