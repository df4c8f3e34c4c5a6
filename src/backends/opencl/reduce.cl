// The reductions sum, mean, prod, max and min. K: the kept layout (0: out, 1: x); R: the reduced layout
// (1: x). The launch forms (reduce.cpp chooses):
// - default: one work-group per output; its work-items stride over the reduced elements, then combine in
//   local memory;
// - PER_ITEM: one work-item per output, looping over the reduced elements: adjacent work-items read
//   adjacent memory when the kept axis is the dense one (column reductions);
// - PARTIAL_PASS: `parts` work-groups per output each reduce one chunk of the reduced elements into
//   partials[output * parts + part] (ACC), and FINAL_PASS combines each output's parts (one work-group per
//   output, x = the partials): a whole-array reduction fills every compute unit.
// - CHUNKED (CPU devices, a reduced run that is contiguous): each work-item reduces one contiguous chunk of
//   one output's run, 16 elements at a time in vector accumulators, with no barrier and no local memory,
//   into the output (parts == 1) or its partial (with PARTIAL_PASS; FINAL_PASS combines them as above).
//   A CPU device runs a group's items one after the other; state carried across barriers lives in
//   per-item arrays it reaches by gathers and scatters, so the barrier forms above stream at about half the
//   copy bandwidth on such devices while this one streams at the copy's. (No prod: its integer products
//   multiply as unsigned, which the vector step would not.)
// - ROW_BLOCKS (CPU devices, column reductions: the innermost kept axis is x's dense one): each work-item
//   takes up to COLUMN_CHUNK adjacent outputs and one part of the reduced rows, and adds blocks of 8 rows
//   into accumulators of its own, 16 lanes at a time, reading eight long row segments side by side. Into
//   the output (parts == 1) or partials (PARTIAL_PASS) that FINAL_PASS combines. Narrow matrices (a few
//   columns, many rows) split their rows into parts, so every compute unit has work.
// - FINAL_PASS with ITEM_PER_OUTPUT (CPU devices): a work-item per output combines its parts.
// OP_SUM | OP_MEAN | OP_PROD | OP_MAX | OP_MIN | OP_SQDEV; ACC is the accumulator type (double for floats
// where the device has it; long for integers, whose sums and products wrap as NumPy's do). max and min keep
// nan. OP_SQDEV (sum_squared_deviations) sums (x - c)^2, c the output's element of `center` (out's layout,
// from element co); its partials combine as sums. `total` is the number of reduced elements per output
// (the mean's divisor).
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
// X_STEP takes one element of x into acc; c is the output's center (OP_SQDEV) and unused otherwise.
#if defined(OP_SQDEV)
#define X_STEP(acc, v, c) ((acc) + ((ACC)(v) - (c)) * ((ACC)(v) - (c)))
#define CENTER(out_at) ((ACC)center[co + (out_at)])
#else
#define X_STEP(acc, v, c) STEP(acc, v)
#define CENTER(out_at) ((ACC)0)
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

#if defined(CHUNKED) || defined(ROW_BLOCKS)
#define VT VEC(T, 16)
#define VACC VEC(ACC, 16)
#if defined(OP_MAX)
#define VSTEP(acc, v, c) acc = select(acc, v, ((v) > (acc)) | ((v) != (v)))
#elif defined(OP_MIN)
#define VSTEP(acc, v, c) acc = select(acc, v, ((v) < (acc)) | ((v) != (v)))
#elif defined(OP_SQDEV)
#define VSTEP(acc, v, c)                          \
  {                                               \
    const VACC d_ = CONVERT(ACC, 16)(v) - (c);    \
    acc += d_ * d_;                               \
  }
#else
#define VSTEP(acc, v, c) acc += CONVERT(ACC, 16)(v)
#endif
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
                     const long total, const long outputs, __local ACC* scratch, __global const T* center,
                     const long co) {
#if defined(CHUNKED)
  // Item = output * parts + part.
  const long item = get_global_id(0);
  if (item >= outputs * parts) return;
  long output, begin, n;
  chunk_of(item, parts, count, &output, &begin, &n);
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, output, io, ix, unused);
  __global const T* run = x + ix + begin;
  const ACC c = CENTER(io - oo);
  const VACC cs = (VACC)(c);
  VACC lanes = (VACC)(INIT);
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    const VT v = vload16(0, run + i);
    VSTEP(lanes, v, cs);
  }
  ACC each[16];
  vstore16(lanes, 0, each);
  ACC acc = INIT;
  for (int k = 0; k < 16; ++k) acc = STEP(acc, each[k]);
  for (; i < n; ++i) acc = X_STEP(acc, run[i], c);
#if defined(PARTIAL_PASS)
  out[item] = acc;
#else
  out[io] = RESULT(acc);
#endif
#elif defined(FINAL_PASS) && defined(ITEM_PER_OUTPUT)
  // FINAL_PASS on CPU devices: a work-item per output adds its parts in order (no barriers, which a CPU
  // device pays for per work-group).
  const long output = get_global_id(0);
  if (output >= outputs) return;
  long io = oo, unused_x = 0, unused = 0;
  ACC_OFFSETS(K, kept_ndim, output, io, unused_x, unused);
  ACC acc = INIT;
  for (long p = 0; p < count; ++p) acc = STEP(acc, x[xo + output * count + p]);
  out[io] = RESULT(acc);
#elif defined(ROW_BLOCKS)
  // Item = ((kept row, column chunk) * parts + part): up to COLUMN_CHUNK outputs, rows [r0, r1).
  const long width = K.dims[kept_ndim - 1], chunks = (width + COLUMN_CHUNK - 1) / COLUMN_CHUNK;
  const long item = get_global_id(0);
  if (item >= outputs / width * chunks * parts) return;
  const long part = item % parts, column_block = item / parts;
  const long first = column_block / chunks * width + column_block % chunks * COLUMN_CHUNK;
  const long lanes = min((long)COLUMN_CHUNK, width - column_block % chunks * COLUMN_CHUNK);
  const long rows_each = (count + parts - 1) / parts;
  const long r0 = min(count, part * rows_each), r1 = min(count, r0 + rows_each);
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, first, io, ix, unused);
  const long out_stride = K.strides[0][kept_ndim - 1];
  ACC acc[COLUMN_CHUNK], centers[COLUMN_CHUNK];
  for (long k = 0; k < lanes; ++k) {
    acc[k] = INIT;
    centers[k] = CENTER(io - oo + k * out_stride);
  }
  for (long r = r0; r < r1; r += 8) {
    const int block = (int)min(8L, r1 - r);
    long b[8];
    for (int q = 0; q < block; ++q) REDUCED_OFFSET(b[q], ix, r + q);
    long k = 0;
    for (; k + 16 <= lanes; k += 16) {
      VACC a = vload16(0, acc + k);
      const VACC c = vload16(0, centers + k);
      for (int q = 0; q < block; ++q) {
        const VT v = vload16(0, x + b[q] + k);
        VSTEP(a, v, c);
      }
      vstore16(a, 0, acc + k);
    }
    for (; k < lanes; ++k) {
      for (int q = 0; q < block; ++q) acc[k] = X_STEP(acc[k], x[b[q] + k], centers[k]);
    }
  }
  for (long k = 0; k < lanes; ++k) {
#if defined(PARTIAL_PASS)
    out[(first + k) * parts + part] = acc[k];
#else
    out[io + k * out_stride] = RESULT(acc[k]);
#endif
  }
#elif defined(PER_ITEM)
  // parts holds the number of outputs here. Items past the end compute a copy of the last output but do
  // not store it: every item must reach the barriers.
  const long output = min((long)get_global_id(0), parts - 1);
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, output, io, ix, unused);
  const ACC c = CENTER(io - oo);
  ACC acc = INIT;
  // Rows in blocks with a barrier between them: a CPU device that runs the group's items one after the
  // other then still walks memory block by block (row-major), not one whole column after another.
  for (long r0 = 0; r0 < count; r0 += 16) {
    const long r1 = min(count, r0 + 16);
    for (long r = r0; r < r1; ++r) {
      long b;
      REDUCED_OFFSET(b, ix, r);
      acc = X_STEP(acc, x[b], c);
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
  const ACC c = CENTER(unused_out);
#elif defined(FINAL_PASS)
  // x: the dense partials of this output.
  const long begin = 0, end = count;
  long io = oo, ix = xo + group * count, unused = 0, unused_x = 0;
  ACC_OFFSETS(K, kept_ndim, group, io, unused_x, unused);
#else
  const long begin = 0, end = count;
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, group, io, ix, unused);
  const ACC c = CENTER(io - oo);
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
      acc = X_STEP(acc, x[b], c);
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
