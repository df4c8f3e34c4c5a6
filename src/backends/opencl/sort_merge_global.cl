// Bitonic sort, step 3 (sort.cpp): one compare-exchange step (stage k, distance j >= B) over every row.
__kernel void sort_merge_global(__global K* keys, __global ulong* at, const long rows, const long P, const long k,
                                const long j) {
  const long g = get_global_id(0), half_row = P / 2;
  if (g >= rows * half_row) return;
  const long r = g / half_row, t = g - r * half_row;
  const long lo = (t / j) * 2 * j + t % j, hi = lo + j;
  const bool ascending = (lo & k) == 0;
  const long a = r * P + lo, b = r * P + hi;
  const K ka = keys[a], kb = keys[b];
  const ulong pa = at[a], pb = at[b];
  if (pair_after(ka, pa, kb, pb) == ascending) keys[a] = kb, at[a] = pb, keys[b] = ka, at[b] = pa;
}
