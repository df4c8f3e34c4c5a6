// The positions of nonzero elements from the inclusive count of nonzero flags (Note [Scans] in
// src/ops/scan.hpp): element i is nonzero where the count rises, and its rank is counts[i] - 1.
__kernel void scan_positions(const long n, __global const long* counts, const long co, __global long* positions,
                             const long po) {
  const long i = get_global_id(0);
  if (i >= n) return;
  const long c = counts[co + i];
  const long before = i == 0 ? 0 : counts[co + i - 1];
  if (c != before) positions[po + c - 1] = i;
}
