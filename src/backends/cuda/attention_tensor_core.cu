// Flash attention forward on tensor cores for float16 and bfloat16 (nvcuda::wmma 16x16x16 fragments, float32
// accumulation), FlashAttention-2 style: a block of 4 warps owns 64 query rows, 16 per warp, and walks the
// key tiles of its (batch x head); the Q tile and each K and V tile are staged in shared memory. Per warp and
// key tile:
//   S = Q K^T into float fragments, stored to the warp's shared scratch;
//   row statistics from the scratch, 2 lanes per row (interleaved columns, combined with one shuffle):
//   masked max, running max m, rescale factor alpha = 2^(m_old - m_new), P = 2^(S log2(e) scale - m_new)
//   written to shared memory in the storage type, running sum l (of the unrounded probabilities);
//   O (float accumulator fragments, kept across key tiles) *= alpha per row, then O += P V.
// The accumulator layout is opaque, so each lane learns once which row each of its fragment elements lies
// in: a 16x16 float tile whose entries are their row numbers, loaded into an accumulator fragment.
// Masking (Note [Attention] in ops/nn/attention.cpp): keys past lk and past the causal limit get -inf; a row
// with no visible key yet keeps m = -inf, and alpha and P are then set directly (exp(-inf - -inf) would
// be nan). Tiles past the block's last visible key are not loaded, those past a warp's last visible key not
// computed. Head dims are d % 16 == 0, 16 <= d <= 256, in buckets of up to 4, 8 or 16 column blocks (the
// output fragments are registers: their count is a template argument); the key tile is 64 or 32 rows, as
// shared memory allows (see attention_forward_tensor_core below).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>

#include "backends/cuda/attention_launch.hpp"
#include "backends/cuda/common.cuh"
#include "backends/cuda/per_device_once.hpp"

namespace accelera::cuda::kernels {

namespace {

namespace wmma = nvcuda::wmma;

constexpr int kWarps = 4;
constexpr int kThreadsTc = 32 * kWarps;
constexpr int kBlockQ = 16 * kWarps;  // query rows per block
constexpr unsigned kFullMask = 0xffffffffu;
constexpr float kLn2 = 0.693147180559945309f;
constexpr std::size_t kDefaultSmemLimit = 48 * 1024;  // dynamic shared memory per block without opting in
using Accumulator = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
constexpr int kAccElems = Accumulator::num_elements;

// max that propagates nan: a nan score makes its row nan (output and lse), as the float64 definition does.
__device__ inline float nan_max(float a, float b) { return a > b || a != a ? a : b; }

template <typename T>
struct WmmaType;
template <>
struct WmmaType<Half> {
  using type = __half;
  __device__ static type from_float(float x) { return __float2half_rn(x); }
};
template <>
struct WmmaType<BFloat16> {
  using type = __nv_bfloat16;
  __device__ static type from_float(float x) { return __float2bfloat16_rn(x); }
};

// Shared memory of one block, in bytes from the start: Q (kBlockQ x ld) at 0, K and V (bk x ld) in the
// storage type, ld = d + 8 (padding against bank conflicts; a multiple of 8 as wmma needs for 16-bit types);
// per warp a float score scratch (16 x lds, lds = bk + 4), a P tile (16 x ldp, ldp = bk + 8) and 16 floats
// of per-row factors. Every region starts at a multiple of 32 bytes, and so does every fragment pointer
// taken in it (row offsets are multiples of 16 rows, column offsets multiples of 16 elements), as
// load_matrix_sync and store_matrix_sync require.
struct TcLayout {
  int ld, lds, ldp;
  std::size_t k_off, v_off, s_off, p_off, row_off, bytes;
};

__host__ __device__ inline TcLayout tc_layout(int d, int bk) {
  TcLayout L{};
  L.ld = d + 8;
  L.lds = bk + 4;
  L.ldp = bk + 8;
  L.k_off = static_cast<std::size_t>(kBlockQ) * L.ld * 2;
  L.v_off = L.k_off + static_cast<std::size_t>(bk) * L.ld * 2;
  L.s_off = L.v_off + static_cast<std::size_t>(bk) * L.ld * 2;
  L.p_off = L.s_off + static_cast<std::size_t>(kWarps) * 16 * L.lds * 4;
  L.row_off = L.p_off + static_cast<std::size_t>(kWarps) * 16 * L.ldp * 2;
  L.bytes = L.row_off + static_cast<std::size_t>(kWarps) * 16 * 4;
  return L;
}

// Rows [0, count) of a (count x d) block of global memory (row stride d) into `rows` shared rows of stride
// ld, zeros for rows [count, rows); the padding columns [d, ld) are never read. 16-byte pieces when the
// global data is 16-byte aligned (d % 16 == 0 keeps every row so), single elements otherwise.
template <typename T>
__device__ inline void stage_rows(unsigned char* dst_bytes, int ld, const T* src, int count, int rows, int d,
                                  bool aligned) {
  auto* dst = reinterpret_cast<std::uint16_t*>(dst_bytes);
  if (aligned) {
    const int pieces = d / 8;
    for (int idx = static_cast<int>(threadIdx.x); idx < rows * pieces; idx += kThreadsTc) {
      const int r = idx / pieces, c = idx - r * pieces;
      uint4 val = make_uint4(0u, 0u, 0u, 0u);
      if (r < count) val = reinterpret_cast<const uint4*>(src + static_cast<std::size_t>(r) * d)[c];
      *reinterpret_cast<uint4*>(dst + r * ld + c * 8) = val;
    }
  } else {
    for (int idx = static_cast<int>(threadIdx.x); idx < rows * d; idx += kThreadsTc) {
      const int r = idx / d, c = idx - r * d;
      dst[r * ld + c] = r < count ? src[static_cast<std::size_t>(r) * d + c].bits : std::uint16_t{0};
    }
  }
}

// NF: column blocks of 16 the output fragments can hold (d / 16 <= NF); BK: key rows per tile.
template <typename T, int NF, int BK>
__global__ void __launch_bounds__(kThreadsTc)
    attention_forward_wmma(AttentionDims D, float scale_log2, const T* __restrict__ q, const T* __restrict__ k,
                           const T* __restrict__ v, T* __restrict__ out, float* __restrict__ lse, bool aligned) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800  // bfloat16 fragments need sm_80; the host checks too
  using E = typename WmmaType<T>::type;
  using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, E, wmma::row_major>;
  using FragKt = wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::col_major>;
  using FragV = wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::row_major>;
  constexpr int SB = BK / 16;  // score fragments per warp and tile
  extern __shared__ __align__(128) unsigned char attention_tc_smem[];
  const int d = D.d, nf = d / 16;
  const TcLayout L = tc_layout(d, BK);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const E* qs = reinterpret_cast<const E*>(attention_tc_smem);
  const E* ks = reinterpret_cast<const E*>(attention_tc_smem + L.k_off);
  const E* vs = reinterpret_cast<const E*>(attention_tc_smem + L.v_off);
  float* sc = reinterpret_cast<float*>(attention_tc_smem + L.s_off) + warp * 16 * L.lds;
  E* ps = reinterpret_cast<E*>(attention_tc_smem + L.p_off) + warp * 16 * L.ldp;
  float* rowv = reinterpret_cast<float*>(attention_tc_smem + L.row_off) + warp * 16;

  // The row of each accumulator element of this lane (the same for every 16x16 float accumulator).
  for (int idx = lane; idx < 256; idx += 32) sc[(idx / 16) * L.lds + idx % 16] = static_cast<float>(idx / 16);
  __syncwarp();
  int row_of[kAccElems];
  {
    Accumulator rows;
    wmma::load_matrix_sync(rows, sc, L.lds, wmma::mem_row_major);
#pragma unroll
    for (int t = 0; t < kAccElems; ++t) row_of[t] = static_cast<int>(rows.x[t]);
  }
  // The scratch is next written after the block barrier below.

  const std::int64_t q_blocks = (D.lq + kBlockQ - 1) / kBlockQ;
  const std::int64_t h = blockIdx.x / q_blocks, q0 = (blockIdx.x % q_blocks) * kBlockQ;
  const int q_count = static_cast<int>(D.lq - q0 < kBlockQ ? D.lq - q0 : kBlockQ);
  stage_rows<T>(attention_tc_smem, L.ld, q + (h * D.lq + q0) * d, q_count, kBlockQ, d, aligned);

  // Keys the block sees: [0, key_end); keys this warp's rows see: [0, warp_key_end).
  const std::int64_t key_end = visible_key_end(D, q0 + kBlockQ);
  const std::int64_t warp_q0 = q0 + warp * 16;
  const std::int64_t warp_key_end = visible_key_end(D, warp_q0 + 16);
  // Lanes 2r and 2r + 1 keep the statistics of row r; `part` picks the columns 2t + part.
  const int r = lane >> 1, part = lane & 1;
  const std::int64_t last = visible_key_end(D, warp_q0 + r + 1) - 1;  // the row's last visible key
  float m = -INFINITY, l = 0.f;  // running max (log2 domain) and sum

  Accumulator o[NF];
#pragma unroll
  for (int nb = 0; nb < NF; ++nb) wmma::fill_fragment(o[nb], 0.f);
  float factor[kAccElems];

  for (std::int64_t k0 = 0; k0 < key_end; k0 += BK) {
    const int nk = static_cast<int>(key_end - k0 < BK ? key_end - k0 : BK);
    __syncthreads();  // every warp is done with the previous K and V tiles
    stage_rows<T>(attention_tc_smem + L.k_off, L.ld, k + (h * D.lk + k0) * d, nk, BK, d, aligned);
    stage_rows<T>(attention_tc_smem + L.v_off, L.ld, v + (h * D.lk + k0) * d, nk, BK, d, aligned);
    __syncthreads();  // (the first time: Q too)
    if (k0 >= warp_key_end) continue;  // warp-uniform: none of this warp's rows sees these keys

    // S = Q K^T over the column blocks that hold keys (the rest stay 0 and are masked below).
    {
      Accumulator s[SB];
#pragma unroll
      for (int nb = 0; nb < SB; ++nb) wmma::fill_fragment(s[nb], 0.f);
#pragma unroll
      for (int kk = 0; kk < NF; ++kk) {
        if (kk >= nf) break;
        FragA a;
        wmma::load_matrix_sync(a, qs + warp * 16 * L.ld + kk * 16, L.ld);
#pragma unroll
        for (int nb = 0; nb < SB; ++nb) {
          if (nb * 16 >= nk) break;
          FragKt b;  // K rows nb*16.. read column-major: K^T
          wmma::load_matrix_sync(b, ks + nb * 16 * L.ld + kk * 16, L.ld);
          wmma::mma_sync(s[nb], a, b, s[nb]);
        }
      }
#pragma unroll
      for (int nb = 0; nb < SB; ++nb) wmma::store_matrix_sync(sc + nb * 16, s[nb], L.lds, wmma::mem_row_major);
    }
    __syncwarp();

    // Row statistics and P. The score x is computed the same way in both passes.
    {
      const float* srow = sc + r * L.lds;
      float mx = -INFINITY;
#pragma unroll 8
      for (int t = 0; t < BK / 2; ++t) {
        const int c = 2 * t + part;
        const bool seen = c < nk && k0 + c <= last;
        mx = nan_max(mx, seen ? srow[c] * scale_log2 : -INFINITY);
      }
      mx = nan_max(mx, __shfl_xor_sync(kFullMask, mx, 1));
      const float m_new = nan_max(m, mx);
      const bool any = m_new != -INFINITY;  // some key of this row seen so far
      const float alpha = any ? exp2f(m - m_new) : 1.f;  // 0 when m = -inf: O and l are still 0 then
      E* prow = ps + r * L.ldp;
      float sum = 0.f;
#pragma unroll 8
      for (int t = 0; t < BK / 2; ++t) {
        const int c = 2 * t + part;
        const bool seen = any && c < nk && k0 + c <= last;
        const float p = seen ? exp2f(srow[c] * scale_log2 - m_new) : 0.f;
        prow[c] = WmmaType<T>::from_float(p);
        sum += p;
      }
      sum += __shfl_xor_sync(kFullMask, sum, 1);
      l = l * alpha + sum;
      m = m_new;
      if (part == 0) rowv[r] = alpha;
    }
    __syncwarp();

    // O = O * alpha (per row) + P V.
#pragma unroll
    for (int t = 0; t < kAccElems; ++t) factor[t] = rowv[row_of[t]];
#pragma unroll
    for (int nb = 0; nb < NF; ++nb) {
      if (nb >= nf) break;
#pragma unroll
      for (int t = 0; t < kAccElems; ++t) o[nb].x[t] *= factor[t];
    }
#pragma unroll
    for (int kk = 0; kk < SB; ++kk) {
      if (kk * 16 >= nk) break;  // P is 0 there
      FragA pa;
      wmma::load_matrix_sync(pa, ps + kk * 16, L.ldp);
#pragma unroll
      for (int nb = 0; nb < NF; ++nb) {
        if (nb >= nf) break;
        FragV b;
        wmma::load_matrix_sync(b, vs + kk * 16 * L.ld + nb * 16, L.ld);
        wmma::mma_sync(o[nb], pa, b, o[nb]);
      }
    }
  }

  // out = O / l (0 for a row that saw no key), through the scratch 16 columns at a time; lse = ln 2 (m + log2 l).
  __syncwarp();  // every lane is done reading rowv and the scratch
  if (part == 0) rowv[r] = l > 0.f || l != l ? 1.f / l : 0.f;  // a nan row stays nan
  __syncwarp();
#pragma unroll
  for (int t = 0; t < kAccElems; ++t) factor[t] = rowv[row_of[t]];
#pragma unroll
  for (int nb = 0; nb < NF; ++nb) {
    if (nb >= nf) break;
#pragma unroll
    for (int t = 0; t < kAccElems; ++t) o[nb].x[t] *= factor[t];
    wmma::store_matrix_sync(sc, o[nb], L.lds, wmma::mem_row_major);
    __syncwarp();
    for (int idx = lane; idx < 256; idx += 32) {
      const int rr = idx / 16, cc = idx % 16;
      const std::int64_t qi = warp_q0 + rr;
      if (qi < D.lq) out[(h * D.lq + qi) * d + nb * 16 + cc] = store<T>(sc[rr * L.lds + cc]);
    }
    __syncwarp();  // read before the next fragment overwrites the scratch
  }
  const std::int64_t qi = warp_q0 + r;
  if (part == 0 && qi < D.lq) lse[h * D.lq + qi] = l > 0.f || l != l ? (m + log2f(l)) * kLn2 : -INFINITY;
#else
  __trap();  // never launched: the host checks the kernel's PTX version first
#endif
}

// Raises the dynamic shared-memory limit of attention_forward_wmma<T, NF, BK> on the current device,
// once per process, to what its largest head dim needs (d = 16 NF), within the opt-in limit. A limit set
// per call to that call's size raced: one kernel serves every head dim of its bucket, so a thread could
// lower the limit between another thread's raise and its launch, and that launch failed. Every launch
// of the kernel needs at most this limit. A failed attempt throws and leaves the flag unset.
template <typename T, int NF, int BK>
void raise_smem_limit_once(int smem_optin) {
  static PerDeviceOnce once;
  int device = 0;
  check_status(cudaGetDevice(&device), "cudaGetDevice");
  once.run(device, [smem_optin] {
    const std::size_t limit = std::min(tc_layout(16 * NF, BK).bytes, static_cast<std::size_t>(smem_optin));
    if (limit <= kDefaultSmemLimit) return;  // the default limit already covers every launch
    check_status(cudaFuncSetAttribute(attention_forward_wmma<T, NF, BK>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(limit)),
                 "cudaFuncSetAttribute(attention_forward_wmma, MaxDynamicSharedMemorySize)");
  });
}

// Picks the key tile for head dims of up to NF column blocks: the larger tile that still lets two blocks share
// a multiprocessor, else the larger one that fits at all; false when neither fits.
template <typename T, int NF>
bool launch_forward(const AttentionDims& D, float scale_log2, const T* q, const T* k, const T* v, T* out,
                    float* lse, bool aligned, int smem_optin, unsigned grid, cudaStream_t stream) {
  using Kernel = void (*)(AttentionDims, float, const T*, const T*, const T*, T*, float*, bool);
  constexpr int kTiles[] = {64, 32};
  const Kernel kernels[] = {attention_forward_wmma<T, NF, 64>, attention_forward_wmma<T, NF, 32>};
  // A build whose code for this device comes from PTX older than compute_80 has no wmma body (see the
  // kernel's #if): the SIMT kernel runs then.
  cudaFuncAttributes attributes{};
  check_status(cudaFuncGetAttributes(&attributes, kernels[0]), "cudaFuncGetAttributes(attention_forward_wmma)");
  if (attributes.ptxVersion < 80) return false;
  raise_smem_limit_once<T, NF, 64>(smem_optin);
  raise_smem_limit_once<T, NF, 32>(smem_optin);
  int chosen = -1;
  for (int c = 0; c < 2; ++c) {
    const std::size_t bytes = tc_layout(D.d, kTiles[c]).bytes;
    if (bytes > static_cast<std::size_t>(smem_optin)) continue;
    int per_sm = 0;
    check_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[c], kThreadsTc, bytes),
                         "cudaOccupancyMaxActiveBlocksPerMultiprocessor(attention_forward_wmma)");
    if (per_sm >= 1 && chosen < 0) chosen = c;
    if (per_sm >= 2) {
      chosen = c;
      break;
    }
  }
  if (chosen < 0) return false;
  const std::size_t bytes = tc_layout(D.d, kTiles[chosen]).bytes;
  if (kTiles[chosen] == 64) {
    attention_forward_wmma<T, NF, 64><<<grid, kThreadsTc, bytes, stream>>>(D, scale_log2, q, k, v, out, lse, aligned);
  } else {
    attention_forward_wmma<T, NF, 32><<<grid, kThreadsTc, bytes, stream>>>(D, scale_log2, q, k, v, out, lse, aligned);
  }
  check_launch("attention_forward_wmma");
  return true;
}

template <typename T>
bool forward_for(const AttentionDims& D, const void* q, const void* k, const void* v, void* out, void* lse,
                 int smem_optin, cudaStream_t stream) {
  const std::int64_t blocks = D.bh * ((D.lq + kBlockQ - 1) / kBlockQ);
  if (blocks > 0x7fffffff) return false;  // one block per 64 queries: beyond the grid, the SIMT kernel loops
  const auto grid = static_cast<unsigned>(blocks);
  const auto aligned16 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool aligned = aligned16(q) && aligned16(k) && aligned16(v);
  const auto scale_log2 = static_cast<float>(D.scale * 1.4426950408889634);  // scale * log2(e)
  const auto* qt = static_cast<const T*>(q);
  const auto* kt = static_cast<const T*>(k);
  const auto* vt = static_cast<const T*>(v);
  auto* ot = static_cast<T*>(out);
  auto* lt = static_cast<float*>(lse);
  const int nf = D.d / 16;
  if (nf <= 4) return launch_forward<T, 4>(D, scale_log2, qt, kt, vt, ot, lt, aligned, smem_optin, grid, stream);
  if (nf <= 8) return launch_forward<T, 8>(D, scale_log2, qt, kt, vt, ot, lt, aligned, smem_optin, grid, stream);
  return launch_forward<T, 16>(D, scale_log2, qt, kt, vt, ot, lt, aligned, smem_optin, grid, stream);
}

}  // namespace

bool attention_forward_tensor_core(DType dtype, const AttentionDims& dims, const void* q, const void* k,
                                   const void* v, void* out, void* lse, int smem_optin, cudaStream_t stream) {
  if (dims.d % 16 != 0 || dims.d < 16 || dims.d > kAttentionMaxHeadDim) return false;
  switch (dtype) {
    case DType::f16: return forward_for<Half>(dims, q, k, v, out, lse, smem_optin, stream);
    case DType::bf16: return forward_for<BFloat16>(dims, q, k, v, out, lse, smem_optin, stream);
    default: return false;
  }
}

}  // namespace accelera::cuda::kernels
