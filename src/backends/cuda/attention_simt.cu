// Flash attention in plain SIMT arithmetic for every floating dtype (float16 and bfloat16 computed in float):
// the forward pass (online softmax), and the FlashAttention-2 backward: delta = rowsum(dO * O), one kernel
// for dK and dV per block of keys, one for dQ per block of queries, probabilities recomputed as
// exp(scale q.k - lse). Masking: Note [Attention] in ops/nn/attention.cpp. Choice of kernels and tile
// sizes: Note [CUDA attention kernels] in backends/cuda/attention.cpp.
//
// Thread layout: a group of G lanes (G = 8, 16 or 32 for head dims up to 64, 128 or 256) owns one row (a
// query, or a key in the dK/dV kernel) and splits the head dimension: lane `lane` holds columns
// lane + G * e for e < kElems, so each lane keeps kElems elements of each row it needs, whatever d. Partial
// dot products are summed inside the group with __shfl_xor_sync (offsets below G stay inside an aligned
// group of G lanes, and groups never straddle a warp). A block of kThreads threads owns kThreads / G rows;
// the other operand's rows are staged in shared memory, in the compute type, `tile` rows at a time, and
// walked kAttentionChunk rows at a time. All lanes of a block take the same loop trips (rows past the end
// compute on zeros and write nothing), so every shuffle sees its whole warp and every barrier its block.
// Staged rows past the data are zero-filled, so they never bring nan into a product.
#include <type_traits>

#include "backends/cuda/attention_launch.hpp"
#include "backends/cuda/common.cuh"

namespace accelera::cuda::kernels {

namespace {

constexpr int kThreadsSimt = 256;
constexpr int kElems = 8;  // head-dim elements per lane: G * kElems covers the bucket's head dims
constexpr int kChunk = kAttentionChunk;
constexpr unsigned kFullMask = 0xffffffffu;

// max that propagates nan: a nan score makes its row nan, as the float64 definition does.
template <typename C>
__device__ inline C max_of(C a, C b) {
  return a > b || a != a ? a : b;
}
template <typename C>
__device__ inline C minus_infinity() {
  return -static_cast<C>(INFINITY);
}

// The sum of x over the aligned group of G lanes, in every lane of the group.
template <int G, typename C, int N>
__device__ inline void group_sum(C (&x)[N]) {
#pragma unroll
  for (int offset = G / 2; offset > 0; offset >>= 1) {
#pragma unroll
    for (int n = 0; n < N; ++n) x[n] += __shfl_xor_sync(kFullMask, x[n], offset);
  }
}

// Rows [0, count) of a (count x d) block of global memory into shared memory (row stride d) in the compute
// type, zeros for rows [count, padded). Two operands at once (K and V, or Q and dO).
template <typename T>
__device__ inline void stage_pair(compute_t<T>* a_s, compute_t<T>* b_s, const T* a, const T* b, int count,
                                  int padded, int d) {
  using C = compute_t<T>;
  const int n = count * d;
  for (int idx = static_cast<int>(threadIdx.x); idx < padded * d; idx += kThreadsSimt) {
    const bool in = idx < n;
    a_s[idx] = in ? load(a[idx]) : C(0);
    b_s[idx] = in ? load(b[idx]) : C(0);
  }
}

// Loads this lane's columns of a row (zeros where the row is absent or the column is past d).
template <typename T, int G>
__device__ inline void load_row(compute_t<T> (&r)[kElems], const T* row, bool present, int lane, int d) {
#pragma unroll
  for (int e = 0; e < kElems; ++e) {
    const int c = lane + G * e;
    r[e] = present && c < d ? load(row[c]) : compute_t<T>(0);
  }
}

template <typename T, int G>
__device__ inline void store_row(T* row, const compute_t<T> (&r)[kElems], compute_t<T> factor, int lane, int d) {
#pragma unroll
  for (int e = 0; e < kElems; ++e) {
    const int c = lane + G * e;
    if (c < d) row[c] = store<T>(r[e] * factor);
  }
}

// out[r] = x . rows[r0 + r] for the chunk's staged rows (row stride d): this lane's columns, then summed over
// the group, so every lane of the group gets the dot products.
template <int G, typename C>
__device__ inline void chunk_dots(const C (&x)[kElems], const C* rows, int r0, int lane, int d, C (&out)[kChunk]) {
#pragma unroll
  for (int r = 0; r < kChunk; ++r) {
    const C* row = rows + (r0 + r) * d;
    C acc = C(0);
#pragma unroll
    for (int e = 0; e < kElems; ++e) {
      const int c = lane + G * e;
      if (c < d) acc += x[e] * row[c];
    }
    out[r] = acc;
  }
  group_sum<G>(out);
}

// acc = acc * keep + sum_r w[r] rows[r0 + r], over this lane's columns.
template <int G, typename C>
__device__ inline void add_weighted_rows(C (&acc)[kElems], C keep, const C (&w)[kChunk], const C* rows, int r0,
                                         int lane, int d) {
#pragma unroll
  for (int e = 0; e < kElems; ++e) {
    const int c = lane + G * e;
    if (c >= d) continue;
    C a = acc[e] * keep;
#pragma unroll
    for (int r = 0; r < kChunk; ++r) a += w[r] * rows[(r0 + r) * d + c];
    acc[e] = a;
  }
}

__device__ inline int round_up_chunk(int n) { return (n + kChunk - 1) / kChunk * kChunk; }

// ---- forward ---------------------------------------------------------------------------------------------
// One group per query row i. Per chunk of keys: scores, one max, one rescale of the running output.

template <typename T, int G>
__global__ void __launch_bounds__(kThreadsSimt)
    attention_forward_kernel(AttentionDims D, compute_t<T> scale, const T* __restrict__ q, const T* __restrict__ k,
                             const T* __restrict__ v, T* __restrict__ out, compute_t<T>* __restrict__ lse, int tile) {
  using C = compute_t<T>;
  constexpr int R = kThreadsSimt / G;  // query rows per block
  extern __shared__ __align__(16) unsigned char attention_smem[];
  const int d = D.d;
  C* ks = reinterpret_cast<C*>(attention_smem);
  C* vs = ks + tile * d;
  const int lane = static_cast<int>(threadIdx.x) % G, row = static_cast<int>(threadIdx.x) / G;
  const std::int64_t q_blocks = (D.lq + R - 1) / R;
  const C neg_inf = minus_infinity<C>();
  for (std::int64_t b = blockIdx.x; b < D.bh * q_blocks; b += gridDim.x) {
    const std::int64_t h = b / q_blocks, q0 = (b % q_blocks) * R, i = q0 + row;
    const bool active = i < D.lq;
    C qr[kElems], o[kElems];
    load_row<T, G>(qr, q + (h * D.lq + (active ? i : 0)) * d, active, lane, d);
#pragma unroll
    for (int e = 0; e < kElems; ++e) o[e] = C(0);
    C m = neg_inf, l = C(0);
    const std::int64_t last = visible_key_end(D, i + 1) - 1;  // this row's last visible key
    const std::int64_t key_end = visible_key_end(D, q0 + R);  // tiles past the block's keys are skipped
    for (std::int64_t k0 = 0; k0 < key_end; k0 += tile) {
      const int nk = static_cast<int>(key_end - k0 < tile ? key_end - k0 : tile);
      __syncthreads();  // every group is done with the previous tile
      stage_pair<T>(ks, vs, k + (h * D.lk + k0) * d, v + (h * D.lk + k0) * d, nk, round_up_chunk(nk), d);
      __syncthreads();
      for (int j0 = 0; j0 < nk; j0 += kChunk) {
        C s[kChunk];
        chunk_dots<G>(qr, ks, j0, lane, d, s);
        C chunk_max = neg_inf;
#pragma unroll
        for (int jj = 0; jj < kChunk; ++jj) {
          const bool seen = j0 + jj < nk && k0 + j0 + jj <= last;
          s[jj] = seen ? s[jj] * scale : neg_inf;
          chunk_max = max_of(chunk_max, s[jj]);
        }
        const C m_new = max_of(m, chunk_max);
        if (m_new == neg_inf) continue;  // no key seen yet: nothing to add (and exp(-inf - -inf) is nan)
        const C alpha = exp_of(m - m_new);  // 0 on the first chunk with a visible key (m = -inf)
        C p[kChunk];
        C sum = C(0);
#pragma unroll
        for (int jj = 0; jj < kChunk; ++jj) {
          p[jj] = exp_of(s[jj] - m_new);  // 0 for masked keys
          sum += p[jj];
        }
        l = l * alpha + sum;
        m = m_new;
        add_weighted_rows<G>(o, alpha, p, vs, j0, lane, d);
      }
    }
    if (active) {
      const bool seen = l > C(0) || l != l;  // l >= 1 once any key was seen; nan stays nan
      store_row<T, G>(out + (h * D.lq + i) * d, o, seen ? C(1) / l : C(0), lane, d);
      if (lane == 0) lse[h * D.lq + i] = seen ? m + log_of(l) : neg_inf;
    }
  }
}

// ---- delta = rowsum(dO * O) --------------------------------------------------------------------------------

template <typename T>
__global__ void __launch_bounds__(kThreadsSimt)
    attention_delta_kernel(std::int64_t rows, int d, const T* __restrict__ grad, const T* __restrict__ out,
                           compute_t<T>* __restrict__ delta) {
  using C = compute_t<T>;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kThreadsSimt / 32);
  // One warp per row; the loop bound is the same for the whole warp.
  for (std::int64_t r = first_index() / 32; r < rows; r += warps) {
    C acc = C(0);
    for (int c = lane; c < d; c += 32) acc += load(grad[r * d + c]) * load(out[r * d + c]);
    C x[1] = {acc};
    group_sum<32>(x);
    if (lane == 0) delta[r] = x[0];
  }
}

// ---- backward: dK and dV ---------------------------------------------------------------------------------
// One group per key row j; query rows with their dO, lse and delta staged. dV_j = sum_i p_ij dO_i,
// dK_j = scale sum_i p_ij (dO_i . v_j - delta_i) q_i over the queries that see key j.

template <typename T, int G>
__global__ void __launch_bounds__(kThreadsSimt)
    attention_backward_kv_kernel(AttentionDims D, compute_t<T> scale, const T* __restrict__ q,
                                 const T* __restrict__ k, const T* __restrict__ v, const T* __restrict__ grad,
                                 const compute_t<T>* __restrict__ lse, const compute_t<T>* __restrict__ delta,
                                 T* __restrict__ dk, T* __restrict__ dv, int tile) {
  using C = compute_t<T>;
  constexpr int R = kThreadsSimt / G;  // key rows per block
  extern __shared__ __align__(16) unsigned char attention_smem[];
  const int d = D.d;
  C* qs = reinterpret_cast<C*>(attention_smem);
  C* gs = qs + tile * d;
  C* ls = gs + tile * d;
  C* ds = ls + tile;
  const int lane = static_cast<int>(threadIdx.x) % G, row = static_cast<int>(threadIdx.x) / G;
  const std::int64_t k_blocks = (D.lk + R - 1) / R;
  const C neg_inf = minus_infinity<C>();
  for (std::int64_t b = blockIdx.x; b < D.bh * k_blocks; b += gridDim.x) {
    const std::int64_t h = b / k_blocks, j0 = (b % k_blocks) * R, j = j0 + row;
    const bool active = j < D.lk;
    C kr[kElems], vr[kElems], dkr[kElems], dvr[kElems];
    load_row<T, G>(kr, k + (h * D.lk + (active ? j : 0)) * d, active, lane, d);
    load_row<T, G>(vr, v + (h * D.lk + (active ? j : 0)) * d, active, lane, d);
#pragma unroll
    for (int e = 0; e < kElems; ++e) dkr[e] = dvr[e] = C(0);
    const std::int64_t first = first_viewing_query(D, j0);  // earlier queries see none of the block's keys
    for (std::int64_t i0 = first; i0 < D.lq; i0 += tile) {
      const int nq = static_cast<int>(D.lq - i0 < tile ? D.lq - i0 : tile);
      const int padded = round_up_chunk(nq);
      __syncthreads();  // every group is done with the previous tile
      stage_pair<T>(qs, gs, q + (h * D.lq + i0) * d, grad + (h * D.lq + i0) * d, nq, padded, d);
      for (int r = static_cast<int>(threadIdx.x); r < padded; r += kThreadsSimt) {
        // Padding rows get lse = -inf: they count as queries that see nothing.
        ls[r] = r < nq ? lse[h * D.lq + i0 + r] : neg_inf;
        ds[r] = r < nq ? delta[h * D.lq + i0 + r] : C(0);
      }
      __syncthreads();
      for (int r0 = 0; r0 < nq; r0 += kChunk) {
        C s[kChunk], dp[kChunk];
        chunk_dots<G>(kr, qs, r0, lane, d, s);
        chunk_dots<G>(vr, gs, r0, lane, d, dp);
        C p[kChunk], dsc[kChunk];
#pragma unroll
        for (int rr = 0; rr < kChunk; ++rr) {
          const C li = ls[r0 + rr];
          // A query that sees no key at all has lse = -inf and contributes nothing.
          const bool seen = li != neg_inf && j < visible_key_end(D, i0 + r0 + rr + 1);
          p[rr] = seen ? exp_of(s[rr] * scale - li) : C(0);
          dsc[rr] = p[rr] * (dp[rr] - ds[r0 + rr]);
        }
        add_weighted_rows<G>(dvr, C(1), p, gs, r0, lane, d);
        add_weighted_rows<G>(dkr, C(1), dsc, qs, r0, lane, d);
      }
    }
    if (active) {
      store_row<T, G>(dk + (h * D.lk + j) * d, dkr, scale, lane, d);
      store_row<T, G>(dv + (h * D.lk + j) * d, dvr, C(1), lane, d);
    }
  }
}

// ---- backward: dQ ------------------------------------------------------------------------------------------
// One group per query row i; key and value rows staged. dQ_i = scale sum_j p_ij (dO_i . v_j - delta_i) k_j.

template <typename T, int G>
__global__ void __launch_bounds__(kThreadsSimt)
    attention_backward_q_kernel(AttentionDims D, compute_t<T> scale, const T* __restrict__ q,
                                const T* __restrict__ k, const T* __restrict__ v, const T* __restrict__ grad,
                                const compute_t<T>* __restrict__ lse, const compute_t<T>* __restrict__ delta,
                                T* __restrict__ dq, int tile) {
  using C = compute_t<T>;
  constexpr int R = kThreadsSimt / G;  // query rows per block
  extern __shared__ __align__(16) unsigned char attention_smem[];
  const int d = D.d;
  C* ks = reinterpret_cast<C*>(attention_smem);
  C* vs = ks + tile * d;
  const int lane = static_cast<int>(threadIdx.x) % G, row = static_cast<int>(threadIdx.x) / G;
  const std::int64_t q_blocks = (D.lq + R - 1) / R;
  const C neg_inf = minus_infinity<C>();
  for (std::int64_t b = blockIdx.x; b < D.bh * q_blocks; b += gridDim.x) {
    const std::int64_t h = b / q_blocks, q0 = (b % q_blocks) * R, i = q0 + row;
    const bool active = i < D.lq;
    C qr[kElems], gr[kElems], dqr[kElems];
    load_row<T, G>(qr, q + (h * D.lq + (active ? i : 0)) * d, active, lane, d);
    load_row<T, G>(gr, grad + (h * D.lq + (active ? i : 0)) * d, active, lane, d);
#pragma unroll
    for (int e = 0; e < kElems; ++e) dqr[e] = C(0);
    const C li = active ? lse[h * D.lq + i] : neg_inf;
    const C di = active ? delta[h * D.lq + i] : C(0);
    // A query with lse = -inf sees no key: last = -1 masks every key.
    const std::int64_t last = li == neg_inf ? -1 : visible_key_end(D, i + 1) - 1;
    const std::int64_t key_end = visible_key_end(D, q0 + R);
    for (std::int64_t k0 = 0; k0 < key_end; k0 += tile) {
      const int nk = static_cast<int>(key_end - k0 < tile ? key_end - k0 : tile);
      __syncthreads();  // every group is done with the previous tile
      stage_pair<T>(ks, vs, k + (h * D.lk + k0) * d, v + (h * D.lk + k0) * d, nk, round_up_chunk(nk), d);
      __syncthreads();
      for (int j0 = 0; j0 < nk; j0 += kChunk) {
        C s[kChunk], dp[kChunk];
        chunk_dots<G>(qr, ks, j0, lane, d, s);
        chunk_dots<G>(gr, vs, j0, lane, d, dp);
        C dsc[kChunk];
#pragma unroll
        for (int jj = 0; jj < kChunk; ++jj) {
          const bool seen = j0 + jj < nk && k0 + j0 + jj <= last;
          dsc[jj] = seen ? exp_of(s[jj] * scale - li) * (dp[jj] - di) : C(0);
        }
        add_weighted_rows<G>(dqr, C(1), dsc, ks, j0, lane, d);
      }
    }
    if (active) store_row<T, G>(dq + (h * D.lq + i) * d, dqr, scale, lane, d);
  }
}

// ---- host side ------------------------------------------------------------------------------------------

// Blocks for `count` block-sized work items; kernels loop over any beyond the grid limit.
unsigned grid_for(std::int64_t count) {
  constexpr std::int64_t kMaxGrid = 0x7fffffff;
  return static_cast<unsigned>(count < 1 ? 1 : (count > kMaxGrid ? kMaxGrid : count));
}

// Calls f(T{}, std::integral_constant<int, G>{}) with the lane group of head dim `d` as well.
template <typename F>
bool dispatch(DType dtype, int d, F&& f) {
  return with_float_type(dtype, [&](auto t) {
    if (d <= 64) {
      f(t, std::integral_constant<int, 8>{});
    } else if (d <= 128) {
      f(t, std::integral_constant<int, 16>{});
    } else {
      f(t, std::integral_constant<int, 32>{});
    }
  });
}

}  // namespace

bool attention_forward_simt(DType dtype, const AttentionDims& dims, const void* q, const void* k, const void* v,
                            void* out, void* lse, int tile, cudaStream_t stream) {
  return dispatch(dtype, dims.d, [&](auto t, auto g) {
    using T = decltype(t);
    using C = compute_t<T>;
    constexpr int G = decltype(g)::value;
    const std::int64_t blocks = dims.bh * ((dims.lq + kThreadsSimt / G - 1) / (kThreadsSimt / G));
    const std::size_t smem = static_cast<std::size_t>(tile) * attention_simt_row_bytes(dtype, dims.d, false);
    attention_forward_kernel<T, G><<<grid_for(blocks), kThreadsSimt, smem, stream>>>(
        dims, static_cast<C>(dims.scale), static_cast<const T*>(q), static_cast<const T*>(k),
        static_cast<const T*>(v), static_cast<T*>(out), static_cast<C*>(lse), tile);
    check_launch("attention_forward_kernel");
  });
}

bool attention_delta(DType dtype, const AttentionDims& dims, const void* grad, const void* out, void* delta,
                     cudaStream_t stream) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    using C = compute_t<T>;
    const std::int64_t rows = dims.bh * dims.lq;
    constexpr int kWarps = kThreadsSimt / 32;
    attention_delta_kernel<T><<<grid_for((rows + kWarps - 1) / kWarps), kThreadsSimt, 0, stream>>>(
        rows, dims.d, static_cast<const T*>(grad), static_cast<const T*>(out), static_cast<C*>(delta));
    check_launch("attention_delta_kernel");
  });
}

bool attention_backward_kv_simt(DType dtype, const AttentionDims& dims, const void* q, const void* k, const void* v,
                                const void* grad, const void* lse, const void* delta, void* dk, void* dv, int tile,
                                cudaStream_t stream) {
  return dispatch(dtype, dims.d, [&](auto t, auto g) {
    using T = decltype(t);
    using C = compute_t<T>;
    constexpr int G = decltype(g)::value;
    const std::int64_t blocks = dims.bh * ((dims.lk + kThreadsSimt / G - 1) / (kThreadsSimt / G));
    const std::size_t smem = static_cast<std::size_t>(tile) * attention_simt_row_bytes(dtype, dims.d, true);
    attention_backward_kv_kernel<T, G><<<grid_for(blocks), kThreadsSimt, smem, stream>>>(
        dims, static_cast<C>(dims.scale), static_cast<const T*>(q), static_cast<const T*>(k),
        static_cast<const T*>(v), static_cast<const T*>(grad), static_cast<const C*>(lse),
        static_cast<const C*>(delta), static_cast<T*>(dk), static_cast<T*>(dv), tile);
    check_launch("attention_backward_kv_kernel");
  });
}

bool attention_backward_q_simt(DType dtype, const AttentionDims& dims, const void* q, const void* k, const void* v,
                               const void* grad, const void* lse, const void* delta, void* dq, int tile,
                               cudaStream_t stream) {
  return dispatch(dtype, dims.d, [&](auto t, auto g) {
    using T = decltype(t);
    using C = compute_t<T>;
    constexpr int G = decltype(g)::value;
    const std::int64_t blocks = dims.bh * ((dims.lq + kThreadsSimt / G - 1) / (kThreadsSimt / G));
    const std::size_t smem = static_cast<std::size_t>(tile) * attention_simt_row_bytes(dtype, dims.d, false);
    attention_backward_q_kernel<T, G><<<grid_for(blocks), kThreadsSimt, smem, stream>>>(
        dims, static_cast<C>(dims.scale), static_cast<const T*>(q), static_cast<const T*>(k),
        static_cast<const T*>(v), static_cast<const T*>(grad), static_cast<const C*>(lse),
        static_cast<const C*>(delta), static_cast<T*>(dq), tile);
    check_launch("attention_backward_q_kernel");
  });
}

}  // namespace accelera::cuda::kernels
