#pragma once
// Host entry points of the CUDA attention kernels (attention_simt.cu, attention_tensor_core.cu);
// the choice between them and the tile sizing are in backends/cuda/attention.cpp (Note [CUDA attention
// kernels]). Tensors arrive as device pointers to C-contiguous data: q, grad, out, dq (bh, lq, d); k, v, dk,
// dv (bh, lk, d); lse and delta (bh, lq) in the compute type (float for float16 and bfloat16). Every entry
// point enqueues on `stream` and checks its launches. This header stays free of the library's formatting
// headers, as launch.hpp does.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

struct AttentionDims {
  std::int64_t bh = 0, lq = 0, lk = 0;
  int d = 0;
  double scale = 1.0;
  bool causal = false;
};

// The causal window (Note [Attention] in ops/nn/attention.cpp): query i sees keys j <= i + lk - lq.
// Keys [0, end) that the queries before `query_end` see, all of them without the mask:
__host__ __device__ inline std::int64_t visible_key_end(const AttentionDims& D, std::int64_t query_end) {
  if (!D.causal) return D.lk;
  const std::int64_t end = query_end + D.lk - D.lq;
  return end < 0 ? 0 : (end > D.lk ? D.lk : end);
}
// The first query that sees `key`: queries before it see none of the keys from `key` on.
__host__ __device__ inline std::int64_t first_viewing_query(const AttentionDims& D, std::int64_t key) {
  if (!D.causal) return 0;
  const std::int64_t first = key - (D.lk - D.lq);
  return first < 0 ? 0 : (first > D.lq ? D.lq : first);
}

inline constexpr int kAttentionMaxHeadDim = 256;
// The SIMT kernels stage shared-memory tiles of a multiple of this many rows (keys, or queries in the dK/dV
// kernel): each thread group walks a tile in chunks of kAttentionChunk rows.
inline constexpr int kAttentionChunk = 8;
inline constexpr int kAttentionMaxTile = 32;

// Shared-memory bytes per tile row of the SIMT kernels: two (rows x d) tiles in the compute type, plus
// two scalars per row (lse and delta) for the dK/dV kernel.
inline std::size_t attention_simt_row_bytes(DType dtype, int d, bool row_scalars) {
  const std::size_t item = dtype == DType::f64 ? 8 : 4;
  return (2 * static_cast<std::size_t>(d) + (row_scalars ? 2 : 0)) * item;
}

// SIMT kernels: `dtype` float32, float64, float16 or bfloat16 (computed in float); 1 <= d <= 256; `tile`
// rows per shared-memory tile, a positive multiple of kAttentionChunk within the shared-memory limit
// (attention_simt_row_bytes(dtype, d, .) bytes per row). Each returns false, launching nothing, for
// another dtype.
bool attention_forward_simt(DType dtype, const AttentionDims& dims, const void* q, const void* k, const void* v,
                            void* out, void* lse, int tile, cudaStream_t stream);
// delta[r] = grad[r] . out[r] for the bh * lq rows.
bool attention_delta(DType dtype, const AttentionDims& dims, const void* grad, const void* out, void* delta,
                     cudaStream_t stream);
bool attention_backward_kv_simt(DType dtype, const AttentionDims& dims, const void* q, const void* k, const void* v,
                                const void* grad, const void* lse, const void* delta, void* dk, void* dv, int tile,
                                cudaStream_t stream);
bool attention_backward_q_simt(DType dtype, const AttentionDims& dims, const void* q, const void* k, const void* v,
                               const void* grad, const void* lse, const void* delta, void* dq, int tile,
                               cudaStream_t stream);

// Tensor-core forward for float16 and bfloat16 with d % 16 == 0 and 16 <= d <= 256 on compute capability
// 8.0 or later. `smem_optin`: the device's opt-in shared-memory limit per block. Picks the key tile (64 or
// 32 rows) from it and from the occupancy the runtime reports, raises the kernel's dynamic shared-memory
// limit where needed, and launches. Returns false, launching nothing, when the shape or dtype is not one
// it computes or no block fits on the device: the SIMT kernel computes it then.
bool attention_forward_tensor_core(DType dtype, const AttentionDims& dims, const void* q, const void* k,
                                   const void* v, void* out, void* lse, int smem_optin, cudaStream_t stream);

}  // namespace accelera::cuda::kernels
