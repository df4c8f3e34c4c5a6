// out = GELU(x + bias) on a contiguous (rows, n) matrix; bias (n) when HAS_BIAS. GELU_TANH selects the
// tanh form. May run in place (out == x), as linear_gelu's epilogue does.
// Exact form: c = erfc(|x| / sqrt(2)); x (1 - c / 2) for x >= 0, x c / 2 below (no 1 + erf cancellation).
// The argument |x| / sqrt(2) is rounded; erfc(z + d) = erfc(z) exp(-2 z d) corrects for that rounding d
// (of the product and of the constant: SQRT1_2_LO = 1/sqrt(2) - (T)(1/sqrt(2)), a build option), which
// would otherwise cost |x|^2 ulp in the far negative tail.
inline T gelu_value(T x) {
  if (isinf(x)) return x > (T)0 ? x : (T)0;  // the limits (the formulas below give inf * 0 at -inf)
#ifdef GELU_TANH
  const T u = (T)0.79788456080286535588 * (x + (T)0.044715 * x * x * x);
  return x / ((T)1 + exp((T)-2 * u));
#else
  const T a = clamp(fabs(x), (T)0, (T)40);
  const T z = a * (T)0.70710678118654752440;
  const T dz = fma(a, (T)0.70710678118654752440, -z) + a * (T)SQRT1_2_LO;
  const T c = erfc(z) * ((T)1 - (T)2 * z * dz);
  return x >= (T)0 ? x * ((T)1 - (T)0.5 * c) : (T)0.5 * x * c;
#endif
}

__kernel void gelu(const long rows, const long n, __global const T* x, const long xo, __global const T* bias,
                   const long bo, __global T* out, const long oo) {
  const long i = get_global_id(0);
  if (i >= rows * n) return;
#ifdef HAS_BIAS
  const T v = x[xo + i] + bias[bo + i % n];
#else
  const T v = x[xo + i];
#endif
  out[oo + i] = isnan(v) ? v : gelu_value(v);
}
