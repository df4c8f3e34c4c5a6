// out = a OP b over a broadcast layout (operands 0: out, 1: a, 2: b). OP_ADD | OP_SUB | OP_MUL | OP_DIV.
// Integer arithmetic goes through the unsigned type UT so that overflow wraps, as in NumPy.
#if defined(ACC_INTEGER)
#define ARITH(x, y, op) ((T)((UT)(x) op (UT)(y)))
#else
#define ARITH(x, y, op) ((x) op (y))
#endif
#if defined(OP_ADD)
#define OP(x, y) ARITH(x, y, +)
#elif defined(OP_SUB)
#define OP(x, y) ARITH(x, y, -)
#elif defined(OP_MUL)
#define OP(x, y) ARITH(x, y, *)
#elif defined(OP_DIV)
#define OP(x, y) ((x) / (y))
#endif

__kernel void binary(const int ndim, const long n, const Layout L, __global T* out, const long oo,
                     __global const T* a, const long ao, __global const T* b, const long bo) {
  const long i = get_global_id(0);
  if (i >= n) return;
#if defined(ACC_CONTIGUOUS)
  // Every operand dense: no index arithmetic, and consecutive work-items touch consecutive elements.
  out[oo + i] = OP(a[ao + i], b[bo + i]);
#else
  long io = oo, ia = ao, ib = bo;
  ACC_OFFSETS(L, ndim, i, io, ia, ib);
  out[io] = OP(a[ia], b[ib]);
#endif
}
