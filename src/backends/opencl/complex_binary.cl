// out = f(a, b) for the complex function the launcher named as ACC_COMPLEX_FN (complex_math.cl), over a
// broadcast layout (operands 0: out, 1: a, 2: b). out has type OT: C, or uchar for the comparisons.
__kernel void complex_binary(const int ndim, const long n, const Layout L, __global OT* out, const long oo,
                             __global const C* a, const long ao, __global const C* b, const long bo) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long io = oo, ia = ao, ib = bo;
#if defined(ACC_CONTIGUOUS)
  io += i;
  ia += i;
  ib += i;
#else
  ACC_OFFSETS(L, ndim, i, io, ia, ib);
#endif
  out[io] = ACC_COMPLEX_FN(a[ia], b[ib]);
}
