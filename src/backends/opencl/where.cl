// out = x where the condition holds, else out unchanged (Note [where] in ops/where.hpp). T is an unsigned
// integer of the element's size: the kernel moves bits. Operands 0: out, 1: condition (uchar), 2: x.
__kernel void where(const int ndim, const long n, const Layout L, __global T* out, const long oo,
                    __global const uchar* cond, const long co, __global const T* x, const long xo) {
  const long i = get_global_id(0);
  if (i >= n) return;
#if defined(ACC_CONTIGUOUS)
  if (cond[co + i]) out[oo + i] = x[xo + i];
#elif defined(ACC_LINEAR)
  if (cond[co + i * ACC_STEP1]) out[oo + i] = x[xo + i * ACC_STEP2];
#else
  long io = oo, ic = co, ix = xo;
  ACC_OFFSETS(L, ndim, i, io, ic, ix);
  if (cond[ic]) out[io] = x[ix];
#endif
}
