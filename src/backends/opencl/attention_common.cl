// Shared by the attention programs (a prelude of attention.cl, attention_backward_q.cl and
// attention_backward_kv.cl): rows held in private memory, tiles staged in local memory, and the causal
// window, aligned to the bottom-right corner (Note [Attention] in ops/attention.cpp): query i sees keys
// j <= i + lk - lq.

// max that propagates nan: a nan score makes its row nan (output and lse), as the float64 definition does.
inline T nan_max(const T a, const T b) { return (a > b || isnan(a)) ? a : b; }

// row[c] = src[c] for c < d when `active`, else 0.
inline void load_row(T* row, __global const T* src, const bool active, const int d) {
  for (int c = 0; c < d; ++c) row[c] = active ? src[c] : (T)0;
}

// The work-group copies `count` consecutive elements of a and b from `offset` on into local tiles.
inline void stage_pair(__local T* a_tile, __local T* b_tile, __global const T* a, __global const T* b,
                       const long offset, const int count) {
  const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
  for (int idx = lid; idx < count; idx += lsize) {
    a_tile[idx] = a[offset + idx];
    b_tile[idx] = b[offset + idx];
  }
}

// Keys [0, end) seen by the queries before `query_end` (every key without the mask).
inline long visible_key_end(const int causal, const long query_end, const long lq, const long lk) {
  return causal ? clamp(query_end + lk - lq, (long)0, lk) : lk;
}

// The first query that sees `key` (0 without the mask).
inline long first_viewing_query(const int causal, const long key, const long lq, const long lk) {
  return causal ? clamp(key - (lk - lq), (long)0, lq) : 0;
}

// How many of the keys k0 .. k0 + nk - 1 a query whose last visible key is `last_visible` sees.
inline int visible_in_tile(const long last_visible, const long k0, const int nk) {
  return (int)clamp(last_visible - k0 + 1, (long)0, (long)nk);
}
