// The OpenCL primitives of the element-wise dialect (Note [Element-wise functions] in ops/elementwise.hpp).
// The launcher defines ACC_EXPRESSION(x) or ACC_EXPRESSION(x, y) from the function's one-line definition;
// its primitives resolve to the scalar forms (suffix _s, element type T) or, where a kernel evaluates
// eight elements at once, to the float8 forms (suffix _v): the kernel sets ACC_FORM before each use.
#define ACC_CAT_INNER(a, b) a##b
#define ACC_CAT(a, b) ACC_CAT_INNER(a, b)
#define ACC_FORM _s

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
#define acc_exp_s(x) acc_expf(x)
#define acc_exp_v(x) acc_expf8(x)
#else
#define acc_exp_s(x) exp(x)
#endif

// Integer arithmetic goes through the unsigned type UT so that overflow wraps, as in NumPy.
#if defined(ACC_INTEGER)
#define acc_neg_s(x) ((T)((UT)0 - (UT)(x)))
#define acc_add_s(x, y) ((T)((UT)(x) + (UT)(y)))
#define acc_sub_s(x, y) ((T)((UT)(x) - (UT)(y)))
#define acc_mul_s(x, y) ((T)((UT)(x) * (UT)(y)))
#else
#define acc_neg_s(x) (-(x))
#define acc_add_s(x, y) ((x) + (y))
#define acc_sub_s(x, y) ((x) - (y))
#define acc_mul_s(x, y) ((x) * (y))
#endif
#if defined(ACC_INTEGER)
#define acc_abs_s(x) (((x) < (T)0) ? acc_neg_s(x) : (x))
#else
#define acc_abs_s(x) fabs(x)
#endif
#define acc_sqrt_s(x) sqrt(x)
#define acc_max_s(x, y) ((((x) != (x)) || ((x) > (y))) ? (x) : (y))
#define acc_min_s(x, y) ((((x) != (x)) || ((x) < (y))) ? (x) : (y))
#define acc_log_s(x) log(x)
#define acc_tanh_s(x) tanh(x)
#define acc_relu_s(x) ((((x) > (T)0) || ((x) != (x))) ? (x) : (T)0)

#define acc_neg_v(x) (-(x))
#define acc_add_v(x, y) ((x) + (y))
#define acc_sub_v(x, y) ((x) - (y))
#define acc_mul_v(x, y) ((x) * (y))
#define acc_abs_v(x) fabs(x)
#define acc_sqrt_v(x) sqrt(x)
#define acc_log_v(x) log(x)
#define acc_tanh_v(x) tanh(x)
#define acc_relu_v(x) select((float8)(0.0f), (x), ((x) > (float8)(0.0f)) | isnan(x))

#define acc_neg(x) ACC_CAT(acc_neg, ACC_FORM)(x)
#define acc_add(x, y) ACC_CAT(acc_add, ACC_FORM)(x, y)
#define acc_sub(x, y) ACC_CAT(acc_sub, ACC_FORM)(x, y)
#define acc_mul(x, y) ACC_CAT(acc_mul, ACC_FORM)(x, y)
#define acc_abs(x) ACC_CAT(acc_abs, ACC_FORM)(x)
#define acc_sqrt(x) ACC_CAT(acc_sqrt, ACC_FORM)(x)
#define acc_max(x, y) ACC_CAT(acc_max, ACC_FORM)(x, y)
#define acc_min(x, y) ACC_CAT(acc_min, ACC_FORM)(x, y)
#define acc_exp(x) ACC_CAT(acc_exp, ACC_FORM)(x)
#define acc_log(x) ACC_CAT(acc_log, ACC_FORM)(x)
#define acc_tanh(x) ACC_CAT(acc_tanh, ACC_FORM)(x)
#define acc_relu(x) ACC_CAT(acc_relu, ACC_FORM)(x)
