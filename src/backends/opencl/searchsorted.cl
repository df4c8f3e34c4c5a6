// searchsorted (src/ops/sort.hpp): one binary search over the keys of the sorted elements per value.
__kernel void searchsorted(const long n, const long m, __global const E* sorted, const long so,
                           __global const E* values, const long vo, __global long* out, const long oo,
                           const int right) {
  const long i = get_global_id(0);
  if (i >= m) return;
  const K k = sort_key(values[vo + i]);
  long lo = 0, hi = n;
  while (lo < hi) {
    const long mid = lo + (hi - lo) / 2;
    const K km = sort_key(sorted[so + mid]);
    if (right ? km <= k : km < k) lo = mid + 1;
    else hi = mid;
  }
  out[oo + i] = lo;
}
