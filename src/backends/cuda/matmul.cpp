// matmul on CUDA devices through cuBLAS (cublasGemmStridedBatchedEx_64: 64-bit sizes, one call per run of
// equally spaced batch entries). Operands map onto GEMM without a copy where Note [BLAS layouts] allows
// and are packed on the device otherwise.
// Row-major C = A.B is computed as column-major C^T = B^T.A^T: a row-major operand that BLAS reads "not
// transposed" with leading dimension ld is, read column-major, its own transpose with the same ld. So B
// goes first and each operand's transpose flag carries over unchanged.
// Precision: float32 computes in float32 unless TF32 is allowed (Note [TF32] in accelera/core/config.hpp);
// float16 and bfloat16 accumulate in float32; float64 in float64.
#include <algorithm>

#include "accelera/core/config.hpp"
#include "backends/common/blas_layout.hpp"
#include "backends/common/strided_loop.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "ops/fill.hpp"
#include "ops/matmul.hpp"

namespace accelera::cuda {

namespace {

struct GemmOperand {
  Tensor t;  // the (..., rows, cols) operand GEMM reads (a packed copy when the strides do not fit)
  cublasOperation_t op = CUBLAS_OP_N;
  std::int64_t ld = 1;
};

GemmOperand operand(const Tensor& t) {
  const std::int64_t nd = t.ndim();
  const std::int64_t rows = t.shape()[nd - 2], cols = t.shape()[nd - 1];
  const auto& st = t.strides();
  const auto rs = st[static_cast<std::size_t>(nd - 2)], cs = st[static_cast<std::size_t>(nd - 1)];
  // cuBLAS batch strides cannot be negative: reversed batch axes are packed too.
  const bool batch_ok = std::all_of(st.begin(), st.end() - 2, [](std::int64_t s) { return s >= 0; });
  if (const auto blas = backends::blas_operand(rows, cols, rs, cs); blas && batch_ok) {
    return {t, blas->transposed ? CUBLAS_OP_T : CUBLAS_OP_N, blas->ld};
  }
  return {t.clone(), CUBLAS_OP_N, std::max<std::int64_t>(cols, 1)};
}

struct Types {
  cudaDataType data;
  cublasComputeType_t compute;
};

Types gemm_types(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return {CUDA_R_32F, allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F};
    case DType::f64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case DType::f16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case DType::bf16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    default: break;
  }
  ACC_ASSERT(false, "the CUDA matmul kernel was called for {}", dtype_name(dtype));
}

}  // namespace

void matmul_kernel(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate) {
  CudaDevice& d = cuda_device(out.device());
  const std::int64_t nd = out.ndim();
  const std::int64_t m = out.shape()[nd - 2], n = out.shape()[nd - 1], k = a.shape()[nd - 1];
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate) kernel_for(op::fill, out.device(), out.dtype())(out, 0.0);
    return;
  }
  const Types types = gemm_types(out.dtype());
  ACC_ASSERT(out.is_contiguous(), "matmul output must be contiguous");
  const GemmOperand ga = operand(a), gb = operand(b);
  // Batch axes: coalesced, so a contiguous batch is one strided-batched call; the rest loop on the host.
  const std::size_t batch_nd = static_cast<std::size_t>(nd - 2);
  const Shape batch_shape(std::span(out.shape().dims()).first(batch_nd));
  const Strides bs_out(out.strides().begin(), out.strides().begin() + static_cast<std::ptrdiff_t>(batch_nd));
  const Strides bs_a(ga.t.strides().begin(), ga.t.strides().begin() + static_cast<std::ptrdiff_t>(batch_nd));
  const Strides bs_b(gb.t.strides().begin(), gb.t.strides().begin() + static_cast<std::ptrdiff_t>(batch_nd));
  const auto batches = backends::make_layout<3>(batch_shape, {&bs_out, &bs_a, &bs_b});

  // alpha and beta in the compute type's scalar type.
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const bool f64 = types.compute == CUBLAS_COMPUTE_64F;
  const void* alpha = f64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = accumulate ? alpha : (f64 ? static_cast<const void*>(&zero_d) : &zero_f);
  const auto item = static_cast<std::int64_t>(out.itemsize());
  auto* c_base = static_cast<char*>(out.data_ptr());
  const auto* a_base = static_cast<const char*>(ga.t.data_ptr());
  const auto* b_base = static_cast<const char*>(gb.t.data_ptr());

  DeviceGuard guard(d.index);
  std::lock_guard lock(d.cublas_mutex);
  ACC_CUDA_CHECK(cublasSetStream(d.cublas, d.compute()), "binding cuBLAS to the compute stream");
  backends::for_each_run(batches, 0, batches.numel, [&](auto off, std::int64_t count, auto st) {
    ACC_CUDA_CHECK(
        cublasGemmStridedBatchedEx_64(d.cublas, gb.op, ga.op, n, m, k, alpha, b_base + off[2] * item, types.data,
                                      gb.ld, st[2], a_base + off[1] * item, types.data, ga.ld, st[1], beta,
                                      c_base + off[0] * item, types.data, std::max<std::int64_t>(n, 1), st[0], count,
                                      types.compute, CUBLAS_GEMM_DEFAULT),
        fmt::format("matmul of {} on {}", out.shape().str(), out.device().str()));
  });
}

ACC_REGISTER_KERNELS {
  register_kernel(op::matmul, DeviceKind::cuda, dtypes::floating | dtypes::half, &matmul_kernel);
}

}  // namespace accelera::cuda
