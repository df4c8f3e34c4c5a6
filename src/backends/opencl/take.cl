// The gather of take and take_along_axis (Note [Gather and index checks] in src/ops/take.hpp): operands
// 0: out, 1: source, 2: indices over one layout. E is an unsigned type of the element's size, I the index
// type. An index outside [-axis_size, axis_size) is skipped and sets *bad (every writer stores 1).
__kernel void take(const int ndim, const long n, const Layout L, __global E* out, const long oo,
                   __global const E* source, const long so, __global const I* indices, const long io,
                   const long axis_stride, const long axis_size, __global int* bad) {
  const long g = get_global_id(0);
  if (g >= n) return;
  long o = oo, s = so, k = io;
  ACC_OFFSETS(L, ndim, g, o, s, k);
  long i = (long)indices[k];
  if (i < 0) i += axis_size;
  if (i < 0 || i >= axis_size) {
    *bad = 1;
    return;
  }
  out[o] = source[s + i * axis_stride];
}
