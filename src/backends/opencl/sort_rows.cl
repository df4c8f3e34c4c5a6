// Sort, CPU-device form for many rows (sort.cpp): a work-item sorts a whole row of (key, position) pairs,
// by insertion when it is short, otherwise by radix passes (sort_radix.cl) between the row's slots in
// keys/at and in the scratch pair. A pass whose byte is the same in every key of the row moves nothing and
// is skipped. The sorted row ends in keys/at.
#define INSERTION_MAX 48

inline void insertion_sort(__global K* keys, __global ulong* at, const long n) {
  for (long i = 1; i < n; ++i) {
    const K key = keys[i];
    const ulong position = at[i];
    long j = i;
    // Positions start in order, so moving only past larger keys keeps equal keys stable.
    for (; j > 0 && keys[j - 1] > key; --j) keys[j] = keys[j - 1], at[j] = at[j - 1];
    keys[j] = key, at[j] = position;
  }
}

__kernel void sort_rows(__global K* keys, __global ulong* at, __global K* scratch_keys,
                        __global ulong* scratch_at, const long rows, const long n, const int passes) {
  const long r = get_global_id(0);
  if (r >= rows) return;
  __global K* row_keys = keys + r * n;
  __global ulong* row_at = at + r * n;
  if (n <= INSERTION_MAX) {
    insertion_sort(row_keys, row_at, n);
    return;
  }
  __global K* from_keys = row_keys;
  __global ulong* from_at = row_at;
  __global K* to_keys = scratch_keys + r * n;
  __global ulong* to_at = scratch_at + r * n;
  ulong counts[RADIX];
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = 8 * pass;
    clear_counts(counts);
    count_digits(from_keys, n, shift, counts);
    bool one_digit = false;
    ulong first = 0;
    for (int d = 0; d < RADIX; ++d) {
      one_digit = one_digit || counts[d] == (ulong)n;
      const ulong c = counts[d];
      counts[d] = first;
      first += c;
    }
    if (one_digit) continue;
    scatter_digits(from_keys, from_at, n, shift, counts, to_keys, to_at);
    __global K* swap_keys = from_keys;
    __global ulong* swap_at = from_at;
    from_keys = to_keys, from_at = to_at, to_keys = swap_keys, to_at = swap_at;
  }
  if (from_keys != row_keys) {
    for (long i = 0; i < n; ++i) row_keys[i] = from_keys[i], row_at[i] = from_at[i];
  }
}
