// dx = grad * GELU'(x), element-wise over n contiguous elements. GELU_TANH selects the tanh form.
// Exact: GELU'(x) = Phi(x) + x phi(x). Tanh: s + 2 x s (1 - s) sqrt(2/pi) (1 + 3 * 0.044715 x^2), s = sigmoid(2u).
inline T gelu_grad(T x) {
#ifdef GELU_TANH
  const T k = (T)0.79788456080286535588;
  const T u = k * (x + (T)0.044715 * x * x * x);
  const T s = (T)1 / ((T)1 + exp((T)-2 * u));
  const T t = s * ((T)1 - s);  // 0 once s saturates: the product term's limit, also for infinite x
  return s + (t == (T)0 ? (T)0 : x * (T)2 * t * k * ((T)1 + (T)(3 * 0.044715) * x * x));
#else
  if (isnan(x)) return x;  // the clamp below would turn nan into -40
  const T xc = clamp(x, (T)-40, (T)40);
  const T c = erfc(fabs(xc) * (T)0.70710678118654752440);
  const T cdf = x >= (T)0 ? (T)1 - (T)0.5 * c : (T)0.5 * c;
  return cdf + xc * (T)0.39894228040143267794 * exp((T)-0.5 * xc * xc);
#endif
}

__kernel void gelu_backward(const long n, __global const T* grad, const long go, __global const T* x,
                            const long xo, __global T* dx, const long dxo) {
  const long i = get_global_id(0);
  if (i >= n) return;
  dx[dxo + i] = grad[go + i] * gelu_grad(x[xo + i]);
}
