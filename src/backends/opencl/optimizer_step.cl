// One optimizer update of one parameter, in place (Note [Optimizer update] in ops/optimizer_step.hpp).
// Build options: RULE (0 sgd, 1 adam, 2 rmsprop) and HAS_S0, HAS_S1, HAS_S2 for the state slots present.
// Absent slots arrive as null buffers and are never touched.
__kernel void optimizer_step(const long n, __global T* p, const long po, __global const T* g, const long go,
                             __global T* s0, const long o0, __global T* s1, const long o1, __global T* s2,
                             const long o2, const T lr, const T eps, const T decay_grad, const T decay_param,
                             const T momentum, const T grad_scale, const T beta1, const T beta2, const int first,
                             const int nesterov) {
  const long i = get_global_id(0);
  if (i >= n) return;
  const T pv = p[po + i];
  T gv = g[go + i] + decay_grad * pv;
#if RULE == 0
#ifdef HAS_S0
  const T b = first ? gv : momentum * s0[o0 + i] + grad_scale * gv;
  s0[o0 + i] = b;
  gv = nesterov ? gv + momentum * b : b;
#endif
  p[po + i] = pv * decay_param - lr * gv;
#elif RULE == 1
  const T m = beta1 * s0[o0 + i] + ((T)1 - beta1) * gv;
  const T v = beta2 * s1[o1 + i] + ((T)1 - beta2) * gv * gv;
  s0[o0 + i] = m;
  s1[o1 + i] = v;
  T d = v;
#ifdef HAS_S2
  const T old = s2[o2 + i];
  d = (old > v || isnan(old)) ? old : v;  // the running maximum; a nan stays
  s2[o2 + i] = d;
#endif
  p[po + i] = pv * decay_param - lr * m / (sqrt(d) + eps);
#else
  const T sq = beta2 * s0[o0 + i] + ((T)1 - beta2) * gv * gv;
  s0[o0 + i] = sq;
  T d = sq;
#ifdef HAS_S2
  const T mean = beta2 * s2[o2 + i] + ((T)1 - beta2) * gv;
  s2[o2 + i] = mean;
  d = sq - mean * mean;
#endif
  T u = gv / (sqrt(d) + eps);
#ifdef HAS_S1
  u = momentum * s1[o1 + i] + u;
  s1[o1 + i] = u;
#endif
  p[po + i] = pv * decay_param - lr * u;
#endif
}
