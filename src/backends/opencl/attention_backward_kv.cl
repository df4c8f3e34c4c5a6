// Attention backward, dK and dV: one work-item per key row, one work-group per (batch x head, block of
// keys). Query rows, their dO rows, lse and D are staged in local tiles; probabilities are recomputed
// as p = exp(scale q.k - lse). dV = sum_i p dO_i; dK = scale sum_i p (dO_i . v - D_i) q_i.
__kernel void attention_backward_kv(const long lq, const long lk, const int d, const long k_blocks, const T scale,
                                    const int causal, __global const T* q, const long qo, __global const T* k,
                                    const long ko, __global const T* v, const long vo, __global const T* grad,
                                    const long go, __global const T* lse, const long lo, __global const T* delta,
                                    __global T* dk, const long dko, __global T* dv, const long dvo,
                                    __local T* qs, __local T* gs, __local T* ls, __local T* ds) {
  const long group = get_group_id(0);
  const long h = group / k_blocks;
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  const long j = (group % k_blocks) * lsize + lid;
  const bool active = j < lk;
  const long offset = lk - lq;
  T kr[HEAD_DIM_MAX], vr[HEAD_DIM_MAX], dkr[HEAD_DIM_MAX], dvr[HEAD_DIM_MAX];
  load_row(kr, k + ko + (h * lk + j) * d, active, d);
  load_row(vr, v + vo + (h * lk + j) * d, active, d);
  for (int c = 0; c < d; ++c) {
    dkr[c] = 0;
    dvr[c] = 0;
  }
  const long j0 = (group % k_blocks) * lsize;
  for (long i0 = first_viewing_query(causal, j0, lq, lk); i0 < lq; i0 += TILE) {
    const int nq = (int)min((long)TILE, lq - i0);
    barrier(CLK_LOCAL_MEM_FENCE);
    stage_pair(qs, gs, q + qo, grad + go, (h * lq + i0) * d, nq * d);
    stage_pair(ls, ds, lse + lo, delta, h * lq + i0, nq);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!active) continue;
    for (int r = 0; r < nq; ++r) {
      const long i = i0 + r;
      if ((causal && j > i + offset) || ls[r] == -INFINITY) continue;
      T s = 0, dp = 0;
      for (int c = 0; c < d; ++c) {
        s += qs[r * d + c] * kr[c];
        dp += gs[r * d + c] * vr[c];
      }
      const T p = exp(s * scale - ls[r]);
      const T dsc = p * (dp - ds[r]) * scale;
      for (int c = 0; c < d; ++c) {
        dvr[c] += p * gs[r * d + c];
        dkr[c] += dsc * qs[r * d + c];
      }
    }
  }
  if (!active) return;
  for (int c = 0; c < d; ++c) {
    dk[dko + (h * lk + j) * d + c] = dkr[c];
    dv[dvo + (h * lk + j) * d + c] = dvr[c];
  }
}
