// out = f(x) for the function whose expression the launcher defined as ACC_EXPRESSION(x) (operands 0: out,
// 1: x). Dense float operands (ACC_VECTOR8) take eight elements per work-item as float8 vectors.
// out has type OT: T, or uchar (bool) for the functions that return bool (elementwise_options.hpp).
inline OT apply(T x) { return (OT)(ACC_EXPRESSION(x)); }

#if defined(ACC_VECTOR8)
#undef ACC_FORM
#define ACC_FORM _v
inline float8 apply8(float8 x) { return ACC_EXPRESSION(x); }
#endif

__kernel void unary(const int ndim, const long n, const Layout L, __global OT* out, const long oo,
                    __global const T* x, const long xo) {
  const long i = get_global_id(0);
#if defined(ACC_VECTOR8)
  // The last work-item takes the tail element by element.
  const long base = i * 8;
  if (base + 8 <= n) {
    vstore8(apply8(vload8(0, x + xo + base)), 0, out + oo + base);
  } else {
    for (long j = base; j < n; ++j) out[oo + j] = apply(x[xo + j]);
  }
#elif defined(ACC_CONTIGUOUS)
  if (i >= n) return;
  out[oo + i] = apply(x[xo + i]);
#else
  if (i >= n) return;
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(L, ndim, i, io, ix, unused);
  out[io] = apply(x[ix]);
#endif
}
