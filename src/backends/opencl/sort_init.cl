// Bitonic sort, step 1 (sort.cpp): the (key ^ flip, position) pairs of each row, padded to P (a power of 2)
// with pairs after every real one (the largest key, positions >= n).
__kernel void sort_init(const long rows, const long n, const long P, __global const E* x, const long xo,
                        __global K* keys, __global ulong* at, const K flip) {
  const long g = get_global_id(0);
  if (g >= rows * P) return;
  const long r = g / P, j = g - r * P;
  keys[g] = j < n ? (K)(sort_key(x[xo + r * n + j]) ^ flip) : (K)(~(K)0);
  at[g] = (ulong)j;
}
