// out = condition ? x1 : x2 (Note [where] in ops/where.hpp). T is an unsigned integer of the element's
// size: the kernel moves bits. L holds the strides of out, the condition (uchar) and x1; L2.strides[0]
// those of x2 (L2's dims are L's).
__kernel void where(const int ndim, const long n, const Layout L, const Layout L2, __global T* out,
                    const long oo, __global const uchar* cond, const long co, __global const T* x1,
                    const long ao, __global const T* x2, const long bo) {
  const long i = get_global_id(0);
  if (i >= n) return;
#if defined(ACC_CONTIGUOUS)
  out[oo + i] = cond[co + i] ? x1[ao + i] : x2[bo + i];
#elif defined(ACC_LINEAR)
  // out dense; each input dense or one broadcast element (STEP 1 or 0).
  out[oo + i] = cond[co + i * ACC_STEP1] ? x1[ao + i * ACC_STEP2] : x2[bo + i * ACC_STEP3];
#else
  long io = oo, ic = co, ia = ao, ib = bo;
  long rem = i;
  for (int d = ndim - 1; d >= 0; --d) {
    const long q = d > 0 ? rem / L.dims[d] : 0;
    const long idx = rem - q * L.dims[d];
    rem = q;
    io += idx * L.strides[0][d];
    ic += idx * L.strides[1][d];
    ia += idx * L.strides[2][d];
    ib += idx * L2.strides[0][d];
  }
  out[io] = cond[ic] ? x1[ia] : x2[ib];
#endif
}
