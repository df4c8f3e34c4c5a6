// Flash attention forward: one work-group per (batch x head, block of queries), one work-item per query.
// Key and value tiles of TILE rows are staged in local memory; each work-item scores the tile into a
// private array, then updates its online softmax (running max m, sum l) and rescales its private output
// row once per tile. HEAD_DIM_MAX bounds the private rows; the actual head dim d is an argument.
// Causal masking is bottom-right aligned: query i sees keys j <= i + lk - lq.
__kernel void attention(const long lq, const long lk, const int d, const long q_blocks, const T scale,
                        const int causal, __global const T* q, const long qo, __global const T* k, const long ko,
                        __global const T* v, const long vo, __global T* out, const long oo, __global T* lse,
                        const long lo, __local T* ks, __local T* vs) {
  const long group = get_group_id(0);
  const long h = group / q_blocks;
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  const long q0 = (group % q_blocks) * lsize;
  const long i = q0 + lid;
  const bool active = i < lq;
  const long offset = lk - lq;
  T qr[HEAD_DIM_MAX], o[HEAD_DIM_MAX], s[TILE];
  load_row(qr, q + qo + (h * lq + i) * d, active, d);
  for (int c = 0; c < d; ++c) o[c] = 0;
  T m = -INFINITY, l = 0;
  const long last_visible = causal ? i + offset : lk - 1;  // this query's last key
  const long key_end = visible_key_end(causal, q0 + lsize, lq, lk);
  for (long k0 = 0; k0 < key_end; k0 += TILE) {
    const int nk = (int)min((long)TILE, key_end - k0);
    barrier(CLK_LOCAL_MEM_FENCE);
    stage_pair(ks, vs, k + ko, v + vo, (h * lk + k0) * d, nk * d);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int visible = active ? visible_in_tile(last_visible, k0, nk) : 0;
    if (visible == 0) continue;
    T tile_max = -INFINITY;
    for (int j = 0; j < visible; ++j) {
      T acc = 0;
      for (int c = 0; c < d; ++c) acc += qr[c] * ks[j * d + c];
      s[j] = acc * scale;
      tile_max = nan_max(tile_max, s[j]);
    }
    const T m_new = nan_max(m, tile_max);
    const T alpha = exp(m - m_new);
    T sum = 0;
    for (int c = 0; c < d; ++c) o[c] *= alpha;
    for (int j = 0; j < visible; ++j) {
      const T p = exp(s[j] - m_new);
      sum += p;
      for (int c = 0; c < d; ++c) o[c] += p * vs[j * d + c];
    }
    l = l * alpha + sum;
    m = m_new;
  }
  if (!active) return;
  const bool seen = l > (T)0 || isnan(l);  // a nan score leaves a nan row and lse
  const T inv = seen ? (T)1 / l : (T)0;
  for (int c = 0; c < d; ++c) out[oo + (h * lq + i) * d + c] = o[c] * inv;
  lse[lo + h * lq + i] = seen ? m + log(l) : -INFINITY;
}
