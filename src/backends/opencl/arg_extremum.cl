// argmax / argmin (ARG_MAX or ARG_MIN): one work-group per output; each work-item keeps the first best
// element of its strided share, then the group combines pairs in local memory. A nan beats everything
// and ties go to the smaller index, so the result is NumPy's first extremum. K: the kept layout
// (0: out, 1: x); R: the reduced layout (1: x).
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
                           __local T* best_values, __local long* best_at) {
  const long group = get_group_id(0);
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(K, kept_ndim, group, io, ix, unused);
  T best = 0;
  long at = -1;
  for (long r = lid; r < count; r += lsize) {
    long a = 0, b = ix, c = 0;
    ACC_OFFSETS(R, red_ndim, r, a, b, c);
    const T v = x[b];
    if (REPLACES(v, r, best, at)) {
      best = v;
      at = r;
    }
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
  if (lid == 0) out[io] = best_at[0];
}
