// out = OP(x) (operands 0: out, 1: x). OP_NEG | OP_EXP | OP_LOG | OP_TANH | OP_RELU | OP_SIGMOID.
#if defined(OP_NEG)
#if defined(ACC_INTEGER)
#define OP(x) ((T)((UT)0 - (UT)(x)))
#else
#define OP(x) (-(x))
#endif
#elif defined(OP_EXP)
#define OP(x) exp(x)
#elif defined(OP_LOG)
#define OP(x) log(x)
#elif defined(OP_TANH)
#define OP(x) tanh(x)
#elif defined(OP_RELU)
#define OP(x) (((x) > (T)0 || (x) != (x)) ? (x) : (T)0)
#elif defined(OP_SIGMOID)
#define OP(x) ((T)1 / ((T)1 + exp(-(x))))
#endif

__kernel void unary(const int ndim, const long n, const Layout L, __global T* out, const long oo,
                    __global const T* x, const long xo) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(L, ndim, i, io, ix, unused);
  out[io] = OP(x[ix]);
}
