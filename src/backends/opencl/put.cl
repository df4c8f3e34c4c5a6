// The scatter of put (Note [Scatter] in src/ops/put.hpp): operands 0: dest, 1: values, 2: indices (int64,
// checked by the op) over one layout. E is an unsigned type of the element's size.
__kernel void put(const int ndim, const long n, const Layout L, __global E* dest, const long d0,
                  __global const E* values, const long v0, __global const long* indices, const long i0,
                  const long axis_stride, const long axis_size) {
  const long g = get_global_id(0);
  if (g >= n) return;
  long d = d0, v = v0, k = i0;
  ACC_OFFSETS(L, ndim, g, d, v, k);
  long i = indices[k];
  if (i < 0) i += axis_size;
  dest[d + i * axis_stride] = values[v];
}
