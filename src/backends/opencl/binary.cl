// out = f(a, b) for the function whose expression the launcher defined as ACC_EXPRESSION(x, y), over a
// broadcast layout (operands 0: out, 1: a, 2: b).
// out has type OT: T, or uchar (bool) for the functions that return bool (elementwise_options.hpp).
inline OT apply(T x, T y) { return (OT)(ACC_EXPRESSION(x, y)); }

__kernel void binary(const int ndim, const long n, const Layout L, __global OT* out, const long oo,
                     __global const T* a, const long ao, __global const T* b, const long bo) {
  const long i = get_global_id(0);
  if (i >= n) return;
#if defined(ACC_CONTIGUOUS)
  // Every operand dense: no index arithmetic, and consecutive work-items touch consecutive elements.
  out[oo + i] = apply(a[ao + i], b[bo + i]);
#elif defined(ACC_LINEAR)
  // out dense, each operand dense or one broadcast element (a scalar operand).
  out[oo + i] = apply(a[ao + i * ACC_STEP1], b[bo + i * ACC_STEP2]);
#else
  long io = oo, ia = ao, ib = bo;
  ACC_OFFSETS(L, ndim, i, io, ia, ib);
  out[io] = apply(a[ia], b[ib]);
#endif
}
