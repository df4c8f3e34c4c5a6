// out = OP(x) (operands 0: out, 1: x). OP_NEG | OP_EXP | OP_LOG | OP_TANH | OP_RELU | OP_SIGMOID.

#if defined(ACC_F32)
// float exp as the CPU backend computes it (<= 1.5 ulp): branch-free, for scalars and float8 vectors
// alike, where a device's built-in exp is often a scalar library call (PoCL's runs at a quarter of the
// copy bandwidth). 2^n is applied in two factors so that subnormal results (n down to -150) stay exact.
#define ACC_DEFINE_EXP(NAME, F, I, CONVERT_I)                                          \
  inline F NAME(F x) {                                                                 \
    const F xc = clamp(x, (F)(-104.0f), (F)(89.0f));                                   \
    const F n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;               \
    const F r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;                          \
    F p = (F)(1.9875691500e-4f);                                                       \
    p = p * r + 1.3981999507e-3f;                                                      \
    p = p * r + 8.3334519073e-3f;                                                      \
    p = p * r + 4.1665795894e-2f;                                                      \
    p = p * r + 1.6666665459e-1f;                                                      \
    p = p * r + 5.0000001201e-1f;                                                      \
    const F y = p * r * r + r + 1.0f;                                                  \
    const I ni = CONVERT_I(n);                                                         \
    const I n1 = ni >> 1;                                                              \
    F out = y * as_##F((n1 + 127) << 23) * as_##F((ni - n1 + 127) << 23);             \
    out = select(out, (F)(INFINITY), isgreater(x, (F)(88.72283935546875f)));           \
    out = select(out, (F)(0.0f), isless(x, (F)(-103.972084045410f)));                   \
    return select(out, x, isnan(x));                                                   \
  }
ACC_DEFINE_EXP(acc_expf, float, int, convert_int)
ACC_DEFINE_EXP(acc_expf8, float8, int8, convert_int8)
#define ACC_EXP(x) acc_expf(x)
#else
#define ACC_EXP(x) exp(x)
#endif
#if defined(OP_NEG)
#if defined(ACC_INTEGER)
#define OP(x) ((T)((UT)0 - (UT)(x)))
#else
#define OP(x) (-(x))
#endif
#elif defined(OP_EXP)
#define OP(x) ACC_EXP(x)
#if defined(ACC_F32)
#define OP8(x) acc_expf8(x)
#endif
#elif defined(OP_LOG)
#define OP(x) log(x)
#elif defined(OP_TANH)
#define OP(x) tanh(x)
#elif defined(OP_RELU)
#define OP(x) (((x) > (T)0 || (x) != (x)) ? (x) : (T)0)
#elif defined(OP_SIGMOID)
#define OP(x) ((T)1 / ((T)1 + ACC_EXP(-(x))))
#if defined(ACC_F32)
#define OP8(x) ((float8)(1.0f) / ((float8)(1.0f) + acc_expf8(-(x))))
#endif
#endif

__kernel void unary(const int ndim, const long n, const Layout L, __global T* out, const long oo,
                    __global const T* x, const long xo) {
  const long i = get_global_id(0);
#if defined(ACC_CONTIGUOUS) && defined(OP8)
  // Eight elements per work-item through explicit float8 vectors; the last work-item takes the tail.
  const long base = i * 8;
  if (base + 8 <= n) {
    vstore8(OP8(vload8(0, x + xo + base)), 0, out + oo + base);
  } else {
    for (long j = base; j < n; ++j) out[oo + j] = OP(x[xo + j]);
  }
#elif defined(ACC_CONTIGUOUS)
  if (i >= n) return;
  out[oo + i] = OP(x[xo + i]);
#else
  if (i >= n) return;
  long io = oo, ix = xo, unused = 0;
  ACC_OFFSETS(L, ndim, i, io, ix, unused);
  out[io] = OP(x[ix]);
#endif
}
