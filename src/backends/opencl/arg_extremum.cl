// argmax / argmin (ARG_MAX or ARG_MIN). Each work-item keeps the first best element of its strided share,
// then the group combines pairs in local memory. A nan beats everything and ties go to the smaller index,
// so the result is NumPy's first extremum. K: the kept layout (0: out, 1: x); R: the reduced layout (1: x).
// As in reduce.cl, one work-group per output, or PARTIAL_PASS (`parts` groups per output, each over one
// chunk, writing its best value and index to part_values/part_at) then FINAL_PASS (one group per output
// over its parts). REDUCED_1D: one coalesced reduced axis, offsets without division. CHUNKED (CPU devices,
// a contiguous reduced run; see reduce.cl): one work-item per contiguous chunk, 16 lanes at a time, into
// the output or, with PARTIAL_PASS, its part.
#if defined(ARG_MAX)
#define STRICTLY_BETTER(v, best) ((v) > (best))
#else
#define STRICTLY_BETTER(v, best) ((v) < (best))
#endif
#define IS_NAN(v) ((v) != (v))

// Whether candidate (v, i) replaces (best, at); at < 0 is "none yet".
#define REPLACES(v, i, best, at)                                                                        \
  ((i) >= 0 &&                                                                                           \
   ((at) < 0 || (!IS_NAN(best) && (IS_NAN(v) || STRICTLY_BETTER(v, best) || ((v) == (best) && (i) < (at)))) || \
    (IS_NAN(best) && IS_NAN(v) && (i) < (at))))

__kernel void arg_extremum(const int kept_ndim, const Layout K, const int red_ndim, const long count, const Layout R,
                           __global long* out, const long oo, __global const T* x, const long xo,
                           __global T* part_values, __global long* part_at, const long parts,
                           __local T* best_values, __local long* best_at, const long outputs) {
#if defined(CHUNKED)
  const long item = get_global_id(0);
  if (item >= outputs * parts) return;
  long output, begin, n;
  chunk_of(item, parts, count, &output, &begin, &n);
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, output, io, ix, unused);
  __global const T* run = x + ix + begin;
  T best = 0;
  long at = -1, i = 0;
  if (n >= 16) {
    // Lane k holds the first best of elements 16 j + k; lane_at its j. Later j only win when strictly
    // better, or a nan over a number, so each lane keeps its first extremum.
    VEC(T, 16) lane_best = vload16(0, run);
    VEC(long, 16) lane_at = (VEC(long, 16))(0);
    for (i = 16; i + 16 <= n; i += 16) {
      const VEC(T, 16) v = vload16(0, run + i);
#define LANE_WINS (STRICTLY_BETTER(v, lane_best) | (IS_NAN(v) & !IS_NAN(lane_best)))
      lane_at = select(lane_at, (VEC(long, 16))(i / 16), convert_long16(LANE_WINS));
      lane_best = select(lane_best, v, LANE_WINS);
    }
    T each_best[16];
    long each_at[16];
    vstore16(lane_best, 0, each_best);
    vstore16(lane_at, 0, each_at);
    for (int k = 0; k < 16; ++k) {
      const long candidate = begin + 16 * each_at[k] + k;
      if (REPLACES(each_best[k], candidate, best, at)) {
        best = each_best[k];
        at = candidate;
      }
    }
  }
  for (; i < n; ++i) {
    if (REPLACES(run[i], begin + i, best, at)) {
      best = run[i];
      at = begin + i;
    }
  }
#if defined(PARTIAL_PASS)
  part_values[item] = best;
  part_at[item] = at;
#else
  out[io] = at;
#endif
#else
  const long group = get_group_id(0);
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
#if defined(PARTIAL_PASS)
  const long output = group / parts, part = group % parts;
  const long chunk = (count + parts - 1) / parts;
  const long begin = part * chunk, end = min(count, begin + chunk);
#elif defined(FINAL_PASS)
  const long output = group, begin = 0, end = parts;
#else
  const long output = group, begin = 0, end = count;
#endif
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, output, io, ix, unused);
  T best = 0;
  long at = -1;
  // Blocks of 16 elements per item with a barrier between them (see reduce.cl).
  for (long r0 = begin; r0 < end; r0 += 16 * lsize) {
    const long r1 = min(end, r0 + 16 * lsize);
    for (long r = r0 + lid; r < r1; r += lsize) {
#if defined(FINAL_PASS)
      const T v = part_values[output * parts + r];
      const long i = part_at[output * parts + r];
#else
#if defined(REDUCED_1D)
      const long b = ix + r * R.strides[1][0];
#else
      long a = 0, b = ix, c = 0;
      ACC_OFFSETS(R, red_ndim, r, a, b, c);
#endif
      const T v = x[b];
      const long i = r;
#endif
      if (REPLACES(v, i, best, at)) {
        best = v;
        at = i;
      }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
  best_values[lid] = best;
  best_at[lid] = at;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = lsize / 2; width > 0; width /= 2) {
    if (lid < width) {
      const T v = best_values[lid + width];
      const long i = best_at[lid + width];
      if (REPLACES(v, i, best_values[lid], best_at[lid])) {
        best_values[lid] = v;
        best_at[lid] = i;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid != 0) return;
#if defined(PARTIAL_PASS)
  part_values[group] = best_values[0];
  part_at[group] = best_at[0];
#else
  out[io] = best_at[0];
#endif
#endif
}
