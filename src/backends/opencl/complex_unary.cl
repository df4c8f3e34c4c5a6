// out = f(x) for the complex function the launcher named as ACC_COMPLEX_FN (complex_math.cl), over a
// strided layout (operands 0: out, 1: x). out has type OT: C for complex results, T for abs, uchar for
// the classifications.
__kernel void complex_unary(const int ndim, const long n, const Layout L, __global OT* out, const long oo,
                            __global const C* x, const long xo) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long io = oo, ix = xo, unused = 0;
#if defined(ACC_CONTIGUOUS)
  io += i;
  ix += i;
#else
  ACC_OFFSETS(L, ndim, i, io, ix, unused);
#endif
  out[io] = ACC_COMPLEX_FN(x[ix]);
}
