// Flash attention on CUDA devices: kernel choice and tile sizing on the host (kernels in
// attention_simt.cu and attention_tensor_core.cu).
// Note [CUDA attention kernels]
// Forward:
// - float16 and bfloat16 with head_dim % 16 == 0 and 16 <= head_dim <= 256, on compute capability 8.0 or
//   later (bfloat16 fragments need it): the tensor-core kernel (wmma 16x16x16, float32 accumulation, 64
//   queries per block of 4 warps, key tiles of 64 or 32 rows). Its shared memory is the Q tile, the K and V
//   tiles and per-warp scratch: about 53 KiB at head_dim 64, 77 KiB at 128 and 125 KiB at 256 with 64-key
//   tiles, so it reads the opt-in limit per block (cudaDevAttrMaxSharedMemoryPerBlockOptin), raises the
//   kernel's dynamic shared-memory limit (cudaFuncAttributeMaxDynamicSharedMemorySize) above the default 48
//   KiB — once per kernel instance and device, to what the largest head dim of its bucket needs (capped
//   at the opt-in limit), never per call: one instance serves several head dims, and per-call limits let
//   concurrent callers undo each other's — and asks the runtime how many blocks fit on a multiprocessor
//   (cudaOccupancyMaxActiveBlocksPerMultiprocessor): it takes 64-key tiles when two blocks still fit, else
//   32-key tiles when two fit with them (head_dim 256 on a 228 KiB device), else whichever tile fits once
//   (head_dim 256 on a 100 KiB device gets 32-key tiles). When no tile fits at all, when the build's code
//   for the device comes from PTX older than compute_80 (cudaFuncGetAttributes), or when the grid would
//   pass 2^31 - 1 blocks, the SIMT kernel runs: a path chosen by shape and device, not a recovery from an
//   error.
// - Every other case (float32, float64, the half types with other head dims or older devices): the SIMT
//   kernel, computing in float for the half types and in the dtype otherwise.
// Backward, every dtype: SIMT kernels (delta = rowsum(dO * O) into a temporary in the lse dtype, then one
// kernel for dK and dV over blocks of keys and one for dQ over blocks of queries, FlashAttention-2 style).
// SIMT layout: a group of G = 8, 16 or 32 lanes per row for head dims up to 64, 128 or 256, each lane
// holding 8 columns of the row, so nothing spills at head_dim 256; the other operand is staged in shared
// memory in tiles of up to 32 rows (a multiple of 8), as many as the default limit per block
// (cudaDevAttrMaxSharedMemoryPerBlock, 48 KiB) holds: e.g. 32 rows for float32 at head_dim 128, 8 rows
// for float64 at head_dim 256. head_dim above 256 raises NotSupportedError.
// Masking follows Note [Attention] in ops/nn/attention.cpp; tiles past a block's last visible key are
// skipped in the forward and dQ kernels, and queries before a key block's first viewer in the dK/dV kernel.
#include <algorithm>
#include <string_view>

#include "backends/cuda/attention_launch.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "ops/attention.hpp"

namespace accelera::cuda {

namespace {

int device_attribute(const CudaDevice& d, cudaDeviceAttr attribute, std::string_view what) {
  int value = 0;
  ACC_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, d.index),
                 fmt::format("querying the {} of cuda:{}", what, d.index));
  return value;
}

kernels::AttentionDims dims_of(const Tensor& q, const Tensor& k, double scale, bool causal, std::string_view op) {
  ACC_CHECK(q.dim(2) <= kernels::kAttentionMaxHeadDim, NotSupportedError,
            "{} on CUDA supports head_dim up to {}, got {}", op, kernels::kAttentionMaxHeadDim, q.dim(2));
  return {q.dim(0), q.dim(1), k.dim(1), static_cast<int>(q.dim(2)), scale, causal};
}

// Rows per shared-memory tile of a SIMT kernel (Note [CUDA attention kernels]).
int simt_tile(const CudaDevice& d, DType dtype, int head_dim, bool row_scalars) {
  const int limit = device_attribute(d, cudaDevAttrMaxSharedMemoryPerBlock, "shared memory per block");
  const std::size_t per_row = kernels::attention_simt_row_bytes(dtype, head_dim, row_scalars);
  const std::size_t fit = std::min<std::size_t>(kernels::kAttentionMaxTile, static_cast<std::size_t>(limit) / per_row);
  const int tile = static_cast<int>(fit) / kernels::kAttentionChunk * kernels::kAttentionChunk;
  ACC_CHECK(tile >= kernels::kAttentionChunk, NotSupportedError,
            "attention on {}: {} bytes of shared memory per block cannot hold {} rows of head_dim {}", d.name, limit,
            kernels::kAttentionChunk, head_dim);
  return tile;
}

void attention_kernel(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal,
                      const Tensor& out, const Tensor& lse) {
  constexpr std::string_view op = "attention";
  CudaDevice& d = cuda_device(out.device());
  const kernels::AttentionDims dims = dims_of(q, k, scale, causal, op);
  const DType dtype = out.dtype();
  DeviceGuard guard(d.index);
  if ((dtype == DType::f16 || dtype == DType::bf16) && d.cc_major >= 8) {
    const int optin = device_attribute(d, cudaDevAttrMaxSharedMemoryPerBlockOptin, "opt-in shared memory per block");
    if (kernels::attention_forward_tensor_core(dtype, dims, q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(),
                                               lse.data_ptr(), optin, d.compute())) {
      return;
    }
  }
  const int tile = simt_tile(d, dtype, dims.d, false);
  check_dispatched(kernels::attention_forward_simt(dtype, dims, q.data_ptr(), k.data_ptr(), v.data_ptr(),
                                                   out.data_ptr(), lse.data_ptr(), tile, d.compute()),
                   op, dtype);
}

void attention_backward_kernel(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                               const Tensor& out, const Tensor& lse, double scale, bool causal, const Tensor& dq,
                               const Tensor& dk, const Tensor& dv) {
  constexpr std::string_view op = "attention_backward";
  CudaDevice& d = cuda_device(dq.device());
  const kernels::AttentionDims dims = dims_of(q, k, scale, causal, op);
  const DType dtype = dq.dtype();
  const int kv_tile = simt_tile(d, dtype, dims.d, true);
  const int q_tile = simt_tile(d, dtype, dims.d, false);
  // delta_i = dO_i . O_i, in the lse dtype (the compute type). It returns to the cache when this returns,
  // while the kernels may still read it: only later work on the compute stream can reuse it (Note [CUDA
  // memory and streams]).
  const Tensor delta = Tensor::empty(Shape{dims.bh * dims.lq}, lse.dtype(), lse.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::attention_delta(dtype, dims, grad.data_ptr(), out.data_ptr(), delta.data_ptr(), d.compute()),
                   op, dtype);
  kernels::attention_backward_kv_simt(dtype, dims, q.data_ptr(), k.data_ptr(), v.data_ptr(), grad.data_ptr(),
                                      lse.data_ptr(), delta.data_ptr(), dk.data_ptr(), dv.data_ptr(), kv_tile,
                                      d.compute());
  kernels::attention_backward_q_simt(dtype, dims, q.data_ptr(), k.data_ptr(), v.data_ptr(), grad.data_ptr(),
                                     lse.data_ptr(), delta.data_ptr(), dq.data_ptr(), q_tile, d.compute());
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::attention, DeviceKind::cuda, dtypes::floating | dtypes::half, &attention_kernel);
  register_kernel(op::attention_backward, DeviceKind::cuda, dtypes::floating | dtypes::half,
                  &attention_backward_kernel);
}

}  // namespace accelera::cuda
