// Bitonic sort, step 5 (sort.cpp): the first n pairs of each row name the sorted elements; the values are
// gathered from x (so NaN payloads and signed zeros are kept) and/or the positions written.
__kernel void sort_finish(const long rows, const long n, const long P, __global const E* x, const long xo,
                          __global const ulong* at, __global E* values, const long vo, __global long* indices,
                          const long io, const int want_values, const int want_indices) {
  const long g = get_global_id(0);
  if (g >= rows * n) return;
  const long r = g / n, j = g - r * n;
  const long from = (long)at[r * P + j];
  if (want_values) values[vo + g] = x[xo + r * n + from];
  if (want_indices) indices[io + g] = from;
}
