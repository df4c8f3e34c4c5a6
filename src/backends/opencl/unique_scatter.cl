// unique_scatter (Note [Unique by groups] in src/ops/unique.hpp): per sorted element, the writes of the
// group it starts or ends, and its inverse index. Buffers not wanted (their flag 0) are never touched.
__kernel void unique_scatter(const long n, __global const E* sorted, const long so, __global const long* order,
                             const long oo, __global const long* group, const long go, __global E* values,
                             const long vo, __global long* first, const long fo, __global long* bounds,
                             const long bo, __global long* inverse, const long io, const int want_first, const int want_inverse) {
  const long i = get_global_id(0);
  if (i >= n) return;
  const long g = group[go + i];
  if (i == 0) bounds[bo] = 0;
  if (i == 0 || group[go + i - 1] != g) {
    values[vo + g] = sorted[so + i];
    if (want_first) first[fo + g] = order[oo + i];
  }
  if (i == n - 1 || group[go + i + 1] != g) bounds[bo + g + 1] = i + 1;
  if (want_inverse) inverse[io + order[oo + i]] = g;
}
