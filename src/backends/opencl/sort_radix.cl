// Shared by the CPU-device form of the sort (a prelude of sort_rows, sort_radix_count and
// sort_radix_scatter; sort.cpp): an LSD radix sort of (key, position) pairs, one byte of the key per pass.
// A pass is stable, so pairs of equal keys keep the order of their positions: the result is the same total
// order as the bitonic form's.
#define RADIX 256

inline uint digit_of(const K key, const int shift) { return (uint)(key >> shift) & (RADIX - 1); }

inline void clear_counts(ulong* counts) {
  for (int d = 0; d < RADIX; ++d) counts[d] = 0;
}

inline void count_digits(__global const K* keys, const long count, const int shift, ulong* counts) {
  for (long i = 0; i < count; ++i) ++counts[digit_of(keys[i], shift)];
}

// Moves the pairs to out_keys/out_at[next[digit]++]: `next` holds each digit's first slot.
inline void scatter_digits(__global const K* keys, __global const ulong* at, const long count, const int shift,
                           ulong* next, __global K* out_keys, __global ulong* out_at) {
  for (long i = 0; i < count; ++i) {
    const K key = keys[i];
    const ulong slot = next[digit_of(key, shift)]++;
    out_keys[slot] = key;
    out_at[slot] = at[i];
  }
}
