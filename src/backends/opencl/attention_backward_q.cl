// Attention backward, dQ: one work-item per query row, one work-group per (batch x head, block of
// queries); key and value tiles staged in local memory. dQ_i = scale sum_j p_ij (dO_i . v_j - D_i) k_j.
__kernel void attention_backward_q(const long lq, const long lk, const int d, const long q_blocks, const T scale,
                                   const int causal, __global const T* k, const long ko, __global const T* v,
                                   const long vo, __global const T* q, const long qo, __global const T* grad,
                                   const long go, __global const T* lse, const long lo, __global const T* delta,
                                   __global T* dq, const long dqo, __local T* ks, __local T* vs) {
  const long group = get_group_id(0);
  const long h = group / q_blocks;
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  const long q0 = (group % q_blocks) * lsize;
  const long i = q0 + lid;
  const bool active = i < lq;
  const long offset = lk - lq;
  T qr[HEAD_DIM_MAX], gr[HEAD_DIM_MAX], dqr[HEAD_DIM_MAX];
  load_row(qr, q + qo + (h * lq + i) * d, active, d);
  load_row(gr, grad + go + (h * lq + i) * d, active, d);
  for (int c = 0; c < d; ++c) dqr[c] = 0;
  const T l = active ? lse[lo + h * lq + i] : -INFINITY;
  const T di = active ? delta[h * lq + i] : (T)0;
  const long last_visible = (l == -INFINITY) ? -1 : (causal ? i + offset : lk - 1);
  const long key_end = visible_key_end(causal, q0 + lsize, lq, lk);
  for (long k0 = 0; k0 < key_end; k0 += TILE) {
    const int nk = (int)min((long)TILE, key_end - k0);
    barrier(CLK_LOCAL_MEM_FENCE);
    stage_pair(ks, vs, k + ko, v + vo, (h * lk + k0) * d, nk * d);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int visible = visible_in_tile(last_visible, k0, nk);
    for (int j = 0; j < visible; ++j) {
      T s = 0, dp = 0;
      for (int c = 0; c < d; ++c) {
        s += qr[c] * ks[j * d + c];
        dp += gr[c] * vs[j * d + c];
      }
      const T dsc = exp(s * scale - l) * (dp - di) * scale;
      for (int c = 0; c < d; ++c) dqr[c] += dsc * ks[j * d + c];
    }
  }
  if (!active) return;
  for (int c = 0; c < d; ++c) dq[dqo + (h * lq + i) * d + c] = dqr[c];
}
