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

// Integer arithmetic goes through the unsigned type UT so that overflow wraps, as in NumPy (uint for the
// types narrower than int, which would otherwise promote to int, whose overflow is undefined).
// ACC_UNSIGNED marks the unsigned element types.
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
#if defined(ACC_UNSIGNED)
#define acc_abs_s(x) (x)
#elif defined(ACC_INTEGER)
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

// The float functions of the same names (built-ins, for scalars and float8 vectors alike).
#if defined(ACC_F32)
// PoCL's float sin, cos and tan (3.1) lose arguments below 2^-7 in magnitude when another element
// evaluated with them is large (about 1e7 or more: its long argument reduction): sin(1e-4) came back as
// 0.0128. Such small arguments take their Taylor series here instead (within an ulp below 2^-7; x times
// a factor, so that -0 stays -0); the built-in still serves the others.
#define ACC_SMALL_TRIG(x) isless(fabs(x), 0.0078125f)
#define ACC_DEFINE_SMALL_TRIG(F)                                                                 \
  inline F acc_sinf_##F(F x) {                                                                   \
    const F x2 = x * x;                                                                          \
    return select(sin(x), x * (1.0f + x2 * (-0.16666667f + x2 * 0.0083333333f)), ACC_SMALL_TRIG(x)); \
  }                                                                                              \
  inline F acc_cosf_##F(F x) {                                                                   \
    const F x2 = x * x;                                                                          \
    return select(cos(x), 1.0f - x2 * (0.5f - x2 * 0.041666668f), ACC_SMALL_TRIG(x));            \
  }                                                                                              \
  inline F acc_tanf_##F(F x) {                                                                   \
    const F x2 = x * x;                                                                          \
    return select(tan(x), x * (1.0f + x2 * (0.33333334f + x2 * 0.13333334f)), ACC_SMALL_TRIG(x));  \
  }
ACC_DEFINE_SMALL_TRIG(float)
ACC_DEFINE_SMALL_TRIG(float8)
#if defined(ACC_FP64) && defined(ACC_CPU_DEVICE)
// On a CPU device, where double costs what float does, float sin, cos and tan of |x| < 2^20 are computed
// as the CPU backend computes them (Note [Vector transcendental functions]): half_pi_trig.cl's reduction
// by pi/2 and sin and cos polynomials, or a degree-8 fit of tan on r, chosen and signed by the quadrant;
// rounding the double result gives the float within an ulp. PoCL's built-ins ran at a fifth of the copy
// bandwidth. Larger, infinite and nan arguments take the built-ins lane by lane, so that each result is the
// same whatever its neighbours.
#define ACC_DEFINE_TRIG_IN_DOUBLE(F, D, L, I, CONVERT_D, CONVERT_F, ALL, FALLBACK)                             \
  inline D acc_trig_##F(D x, int which) { /* which: 0 sin, 1 cos, 2 tan */                                \
    D r;                                                                                                 \
    const L q = acc_reduce_half_pi_##D(x, &r) + (L)(which == 1); /* n, or n + 1 for the cosine */         \
    const D z = r * r;                                                                                   \
    if (which == 2) {                                                                                    \
      D p = 8.351189570282564e-4;                                                                        \
      p = mad(p, z, -2.669653880130996e-4);                                                              \
      p = mad(p, z, 2.0561362353615008e-3);                                                              \
      p = mad(p, z, 3.355009460119506e-3);                                                               \
      p = mad(p, z, 8.917839590563813e-3);                                                               \
      p = mad(p, z, 2.1862352624167608e-2);                                                              \
      p = mad(p, z, 5.396873738437539e-2);                                                               \
      p = mad(p, z, 1.3333331950922003e-1);                                                              \
      p = mad(p, z, 3.333333334296844e-1);                                                               \
      const D t = mad(r * z, p, r);                                                                      \
      return select(t, -1.0 / t, (L)((q & 1) != 0));                                                     \
    }                                                                                                    \
    const D value = select(acc_sin_reduced_##D(r, z), acc_cos_reduced_##D(z), (L)((q & 1) != 0));        \
    return select(value, -value, (L)((q & 2) != 0));                                                     \
  }                                                                                                      \
  inline F acc_trig_float_##F(F x, int which) {                                                          \
    const F value = CONVERT_F(acc_trig_##F(CONVERT_D(x), which));                                        \
    const F fast = which == 1 ? value : select(value, x, x == (F)(0.0f)); /* sin and tan keep -0 */      \
    const I in_range = isless(fabs(x), (F)(1048576.0f));                                                 \
    if (ALL(in_range)) return fast;                                                                      \
    return select(FALLBACK(x, which), fast, in_range); /* only the lanes out of range */                 \
  }
// The built-ins for the rare arguments outside the fast path, kept out of line: inlined, their long
// argument reduction made the whole kernel half as fast again.
__attribute__((noinline)) float acc_trig_builtin(float x, int which) {
  return which == 0 ? acc_sinf_float(x) : (which == 1 ? acc_cosf_float(x) : acc_tanf_float(x));
}
inline float8 acc_trig_builtin8(float8 x, int which) {
  return (float8)(acc_trig_builtin(x.s0, which), acc_trig_builtin(x.s1, which), acc_trig_builtin(x.s2, which),
                  acc_trig_builtin(x.s3, which), acc_trig_builtin(x.s4, which), acc_trig_builtin(x.s5, which),
                  acc_trig_builtin(x.s6, which), acc_trig_builtin(x.s7, which));
}
#define ACC_SCALAR_ALL(c) (c)
ACC_DEFINE_TRIG_IN_DOUBLE(float, double, long, int, (double), (float), ACC_SCALAR_ALL, acc_trig_builtin)
// Whether every lane of c is true, as an AND of lanes (faster under PoCL than all()).
inline int acc_all8(int8 c) { return (c.s0 & c.s1 & c.s2 & c.s3 & c.s4 & c.s5 & c.s6 & c.s7) != 0; }
ACC_DEFINE_TRIG_IN_DOUBLE(float8, double8, long8, int8, convert_double8, convert_float8, acc_all8, \
                          acc_trig_builtin8)
#define acc_sin_s(x) acc_trig_float_float(x, 0)
#define acc_cos_s(x) acc_trig_float_float(x, 1)
#define acc_tan_s(x) acc_trig_float_float(x, 2)
#define acc_sin_v(x) acc_trig_float_float8(x, 0)
#define acc_cos_v(x) acc_trig_float_float8(x, 1)
#define acc_tan_v(x) acc_trig_float_float8(x, 2)
#else
#define acc_sin_s(x) acc_sinf_float(x)
#define acc_cos_s(x) acc_cosf_float(x)
#define acc_tan_s(x) acc_tanf_float(x)
#define acc_sin_v(x) acc_sinf_float8(x)
#define acc_cos_v(x) acc_cosf_float8(x)
#define acc_tan_v(x) acc_tanf_float8(x)
#endif
#else
#define acc_sin_s(x) sin(x)
#define acc_cos_s(x) cos(x)
#define acc_tan_s(x) tan(x)
#define acc_sin_v acc_sin_s
#define acc_cos_v acc_cos_s
#define acc_tan_v acc_tan_s
#endif
#define acc_asin_s(x) asin(x)
#define acc_acos_s(x) acos(x)
#define acc_atan_s(x) atan(x)
#define acc_sinh_s(x) sinh(x)
#define acc_cosh_s(x) cosh(x)
#define acc_asinh_s(x) asinh(x)
#define acc_acosh_s(x) acosh(x)
#define acc_atanh_s(x) atanh(x)
#define acc_expm1_s(x) expm1(x)
#define acc_log1p_s(x) log1p(x)
#define acc_log2_s(x) log2(x)
#define acc_log10_s(x) log10(x)
#define acc_atan2_s(x, y) atan2(x, y)
#if defined(ACC_F32) && defined(ACC_FP64) && defined(ACC_CPU_DEVICE)
// float hypot on a CPU device: the double squares are exact and their sum rounds once, so the square root
// rounds to the float result as the built-in would, at a fraction of its cost; inf beats nan as the
// standard says, through the built-in.
inline float acc_hypot_s(float x, float y) {
  if (isfinite(x) && isfinite(y)) return (float)sqrt((double)x * (double)x + (double)y * (double)y);
  return hypot(x, y);
}
#else
#define acc_hypot_s(x, y) hypot(x, y)
#endif
#define acc_copysign_s(x, y) copysign(x, y)
#define acc_nextafter_s(x, y) nextafter(x, y)
#define acc_asin_v acc_asin_s
#define acc_acos_v acc_acos_s
#define acc_atan_v acc_atan_s
#define acc_sinh_v acc_sinh_s
#define acc_cosh_v acc_cosh_s
#define acc_asinh_v acc_asinh_s
#define acc_acosh_v acc_acosh_s
#define acc_atanh_v acc_atanh_s
#define acc_expm1_v acc_expm1_s
#define acc_log1p_v acc_log1p_s
#define acc_log2_v acc_log2_s
#define acc_log10_v acc_log10_s

// Rounding: integers are already integral. sign is NumPy's: nan stays nan, -0 gives +0 (the built-in
// sign maps nan to 0).
#if defined(ACC_INTEGER)
#define acc_floor_s(x) (x)
#define acc_ceil_s(x) (x)
#define acc_trunc_s(x) (x)
#define acc_rint_s(x) (x)
#else
#define acc_floor_s(x) floor(x)
#define acc_ceil_s(x) ceil(x)
#define acc_trunc_s(x) trunc(x)
#define acc_rint_s(x) rint(x)
#endif
#define acc_sign_s(x) (((x) > (T)0) ? (T)1 : (((x) < (T)0) ? (T)(-1) : (((x) == (T)0) ? (T)0 : (x))))
#define acc_floor_v(x) floor(x)
#define acc_ceil_v(x) ceil(x)
#define acc_trunc_v(x) trunc(x)
#define acc_rint_v(x) rint(x)
#define acc_sign_v(x) \
  select(select(select((x), (float8)(0.0f), (x) == (float8)(0.0f)), (float8)(-1.0f), (x) < (float8)(0.0f)), \
         (float8)(1.0f), (x) > (float8)(0.0f))

#if defined(ACC_INTEGER)
// Exponentiation by squaring, wrapping; a negative exponent gives the truncated 1 / x^|y| (NumPy raises).
inline T acc_pow_s(T x, T y) {
  if (y < 0) return x == 1 ? 1 : (x == -1 ? ((y & 1) ? -1 : 1) : 0);
  UT result = 1, base = (UT)x;
  for (; y != 0; y >>= 1) {
    if (y & 1) result *= base;
    base *= base;
  }
  return (T)result;
}
// Division by zero gives 0 and the most negative value // -1 wraps to itself, as in NumPy.
inline T acc_floor_divide_s(T a, T b) {
  if (b == 0) return 0;
#if defined(ACC_UNSIGNED)
  return a / b;
#endif
  if (b == (T)(-1)) return acc_neg_s(a);
  const T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline T acc_remainder_s(T a, T b) {
  if (b == 0) return 0;
#if defined(ACC_UNSIGNED)
  return a % b;
#endif
  if (b == (T)(-1)) return 0;
  const T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
#elif defined(ACC_F32) && defined(ACC_FP64) && defined(ACC_CPU_DEVICE)
// A CPU device computes double as fast as float, and its float pow is a slow library call (PoCL's: 20
// times a copy): exp(y log x) in double for positive finite x and finite y is within 1 ulp of the float
// result (the double log's error scaled by |y log x| stays far below a float ulp); signs, zeros,
// infinities and nan take the built-in.
inline float acc_pow_s(float x, float y) {
  if (x > 0.0f && isfinite(x) && isfinite(y)) return (float)exp((double)y * log((double)x));
  return pow(x, y);
}
#else
#define acc_pow_s(x, y) pow(x, y)
#endif
#if !defined(ACC_INTEGER)
// NumPy's logaddexp: equal arguments (infinities included) give x + log 2.
inline T acc_logaddexp_s(T x, T y) {
  #if defined(ACC_F32)
  if (x == y) return x + M_LN2_F;
#else
  if (x == y) return x + M_LN2;
#endif
  const T d = x - y;
  if (d > (T)0) return x + log1p(exp(-d));
  if (d <= (T)0) return y + log1p(exp(d));
  return d;
}
// NumPy's divmod of floats: the quotient snapped to an integer, the remainder with the divisor's sign.
inline T acc_divmod(T a, T b, T* mod) {
  *mod = fmod(a, b);
  if (b == (T)0) return a / b;
  T div = (a - *mod) / b;
  if (*mod != (T)0) {
    if ((b < (T)0) != (*mod < (T)0)) {
      *mod += b;
      div -= (T)1;
    }
  } else {
    *mod = copysign((T)0, b);
  }
  if (div == (T)0) return copysign((T)0, a / b);
  T floor_div = floor(div);
  if (div - floor_div > (T)0.5f) floor_div += (T)1;
  return floor_div;
}
inline T acc_floor_divide_s(T a, T b) {
  T mod;
  return acc_divmod(a, b, &mod);
}
inline T acc_remainder_s(T a, T b) {
  if (b == (T)0) return fmod(a, b);
  T mod;
  acc_divmod(a, b, &mod);
  return mod;
}
#endif

// Classification and bits. Integers are finite and never nan; bool (ACC_BOOL) is stored as uchar 0 or 1.
#if defined(ACC_INTEGER)
#define acc_isnan_s(x) 0
#define acc_isinf_s(x) 0
#define acc_isfinite_s(x) 1
#define acc_signbit_s(x) ((x) < (T)0)
#else
#define acc_isnan_s(x) isnan(x)
#define acc_isinf_s(x) isinf(x)
#define acc_isfinite_s(x) isfinite(x)
#define acc_signbit_s(x) signbit(x)
#endif
#if defined(ACC_BOOL)
#define acc_invert_s(x) (!(x))
#else
#define acc_invert_s(x) (~(x))
#endif
#if defined(ACC_INTEGER)
// NumPy's shifts: a count at or past the width, or negative, shifts every bit out (OpenCL would take the
// count modulo the width).
#define ACC_BITS ((UT)(sizeof(T) * 8))
#define acc_shift_left_s(x, y) (((UT)(y) < ACC_BITS) ? (T)((UT)(x) << (UT)(y)) : (T)0)
#define acc_shift_right_s(x, y) (((UT)(y) < ACC_BITS) ? (T)((x) >> (y)) : (((x) < (T)0) ? (T)(-1) : (T)0))
#endif

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
#define acc_sin(x) ACC_CAT(acc_sin, ACC_FORM)(x)
#define acc_cos(x) ACC_CAT(acc_cos, ACC_FORM)(x)
#define acc_tan(x) ACC_CAT(acc_tan, ACC_FORM)(x)
#define acc_asin(x) ACC_CAT(acc_asin, ACC_FORM)(x)
#define acc_acos(x) ACC_CAT(acc_acos, ACC_FORM)(x)
#define acc_atan(x) ACC_CAT(acc_atan, ACC_FORM)(x)
#define acc_sinh(x) ACC_CAT(acc_sinh, ACC_FORM)(x)
#define acc_cosh(x) ACC_CAT(acc_cosh, ACC_FORM)(x)
#define acc_asinh(x) ACC_CAT(acc_asinh, ACC_FORM)(x)
#define acc_acosh(x) ACC_CAT(acc_acosh, ACC_FORM)(x)
#define acc_atanh(x) ACC_CAT(acc_atanh, ACC_FORM)(x)
#define acc_expm1(x) ACC_CAT(acc_expm1, ACC_FORM)(x)
#define acc_log1p(x) ACC_CAT(acc_log1p, ACC_FORM)(x)
#define acc_log2(x) ACC_CAT(acc_log2, ACC_FORM)(x)
#define acc_log10(x) ACC_CAT(acc_log10, ACC_FORM)(x)
#define acc_floor(x) ACC_CAT(acc_floor, ACC_FORM)(x)
#define acc_ceil(x) ACC_CAT(acc_ceil, ACC_FORM)(x)
#define acc_trunc(x) ACC_CAT(acc_trunc, ACC_FORM)(x)
#define acc_rint(x) ACC_CAT(acc_rint, ACC_FORM)(x)
#define acc_sign(x) ACC_CAT(acc_sign, ACC_FORM)(x)
#define acc_pow(x, y) ACC_CAT(acc_pow, ACC_FORM)(x, y)
#define acc_atan2(x, y) ACC_CAT(acc_atan2, ACC_FORM)(x, y)
#define acc_hypot(x, y) ACC_CAT(acc_hypot, ACC_FORM)(x, y)
#define acc_logaddexp(x, y) ACC_CAT(acc_logaddexp, ACC_FORM)(x, y)
#define acc_copysign(x, y) ACC_CAT(acc_copysign, ACC_FORM)(x, y)
#define acc_nextafter(x, y) ACC_CAT(acc_nextafter, ACC_FORM)(x, y)
#define acc_remainder(x, y) ACC_CAT(acc_remainder, ACC_FORM)(x, y)
#define acc_floor_divide(x, y) ACC_CAT(acc_floor_divide, ACC_FORM)(x, y)
#define acc_isnan(x) ACC_CAT(acc_isnan, ACC_FORM)(x)
#define acc_isinf(x) ACC_CAT(acc_isinf, ACC_FORM)(x)
#define acc_isfinite(x) ACC_CAT(acc_isfinite, ACC_FORM)(x)
#define acc_signbit(x) ACC_CAT(acc_signbit, ACC_FORM)(x)
#define acc_invert(x) ACC_CAT(acc_invert, ACC_FORM)(x)
#define acc_shift_left(x, y) ACC_CAT(acc_shift_left, ACC_FORM)(x, y)
#define acc_shift_right(x, y) ACC_CAT(acc_shift_right, ACC_FORM)(x, y)
