// linear_gelu on CUDA devices: out (rows, out_features) = GELU(x (rows, in) @ weight^T + bias).
// Note [linear_gelu on CUDA]
// - float16 and bfloat16, tanh form: one cuBLASLt matmul with the GELU_BIAS epilogue (GELU without a
//   bias): bias and GELU are applied to the accumulators, the output is written once. cuBLASLt's GELU
//   epilogue is the tanh form; its accuracy is not documented, which is below what a half format stores
//   but is not checked against a float32 tolerance.
// - Otherwise (the exact form, float32, float64), and where cuBLASLt has no algorithm for the epilogue
//   (its heuristic query offers none, or cublasLtMatmul answers NOT_SUPPORTED, both capability answers
//   logged at debug level) or the bias is less than 16-byte aligned: the GEMM (cuBLAS, TF32 as the switch
//   says), then one bias + GELU pass over the output in place (gelu.cu). That pass reads and writes the
//   output once more: about 1% of the time of a GEMM with in >= 1024, more for thin ones.
// - Alignment: cuBLASLt assumes 256-byte aligned operands unless the preference says otherwise
//   (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_{A,B,C,D}_BYTES, default 256), and may then pick a vectorised
//   kernel. A contiguous view at an odd offset (x = batch[1:] in float16 with an odd width) would fault
//   with a misaligned address, a sticky error that ends the CUDA context. So the preference states each
//   operand's real alignment (lt_alignment.hpp) and the heuristic offers only kernels that accept it.
// The cuBLASLt workspace comes from the device's caching allocator, so it counts against the budget.
#include <cublasLt.h>

#include <memory>

#include "accelera/core/config.hpp"
#include "backends/cuda/gelu.hpp"
#include "backends/cuda/lt_alignment.hpp"
#include "ops/linear_gelu.hpp"
#include "ops/matmul.hpp"
#include "core/log.hpp"

namespace accelera::cuda {

namespace {

constexpr std::uint64_t kWorkspaceBytes = 32ull << 20;  // what cuBLASLt asks for on Hopper

// cuBLASLt descriptors, destroyed with their owner. A failed destroy is logged: destructors do not throw.
template <typename Handle, cublasStatus_t (*Destroy)(Handle)>
struct LtObject {
  Handle handle = nullptr;
  LtObject() = default;
  LtObject(const LtObject&) = delete;
  LtObject& operator=(const LtObject&) = delete;
  ~LtObject() {
    if (handle == nullptr) return;
    const cublasStatus_t status = Destroy(handle);
    if (status != CUBLAS_STATUS_SUCCESS) ACC_LOG_ERROR("destroying a cuBLASLt descriptor failed: {}", cublasGetStatusName(status));
  }
};
using MatmulDesc = LtObject<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using MatrixLayout = LtObject<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using Preference = LtObject<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

template <typename V>
void set_desc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const V& value, const char* what) {
  ACC_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)), what);
}

template <typename V>
void set_preference(cublasLtMatmulPreference_t preference, cublasLtMatmulPreferenceAttributes_t attribute,
                    const V& value, const char* what) {
  ACC_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, attribute, &value, sizeof(value)), what);
}

cudaDataType lt_type(DType dtype) { return dtype == DType::f16 ? CUDA_R_16F : CUDA_R_16BF; }

// The fused cuBLASLt call for a half-format tanh-form linear_gelu; false, running nothing, when cuBLASLt
// has no algorithm for this shape, epilogue and alignment.
bool run_fused(CudaDevice& d, const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& out) {
  const std::uint64_t rows = static_cast<std::uint64_t>(x.dim(0)), in = static_cast<std::uint64_t>(x.dim(1));
  const std::uint64_t features = static_cast<std::uint64_t>(weight.dim(0));
  const cudaDataType type = lt_type(out.dtype());
  const std::string context = fmt::format("linear_gelu of {} x {}^T on {}", x.shape().str(), weight.shape().str(),
                                          out.device().str());
  // Column-major view: out^T (features x rows) = W (in x features)^T . x^T (in x rows).
  MatmulDesc desc;
  ACC_CUDA_CHECK(cublasLtMatmulDescCreate(&desc.handle, CUBLAS_COMPUTE_32F, CUDA_R_32F), context);
  set_desc(desc.handle, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T, "setting transa");
  set_desc(desc.handle, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N, "setting transb");
  set_desc(desc.handle, CUBLASLT_MATMUL_DESC_EPILOGUE,
           bias.defined() ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU, "setting the GELU epilogue");
  if (bias.defined()) {
    const void* bias_ptr = bias.data_ptr();
    set_desc(desc.handle, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias_ptr, "setting the bias pointer");
    set_desc(desc.handle, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, static_cast<std::int32_t>(type),
             "setting the bias type");
  }
  MatrixLayout a, b, c;
  ACC_CUDA_CHECK(cublasLtMatrixLayoutCreate(&a.handle, type, in, features, static_cast<std::int64_t>(in)), context);
  ACC_CUDA_CHECK(cublasLtMatrixLayoutCreate(&b.handle, type, in, rows, static_cast<std::int64_t>(in)), context);
  ACC_CUDA_CHECK(cublasLtMatrixLayoutCreate(&c.handle, type, features, rows, static_cast<std::int64_t>(features)),
                 context);
  Preference preference;
  ACC_CUDA_CHECK(cublasLtMatmulPreferenceCreate(&preference.handle), context);
  set_preference(preference.handle, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, kWorkspaceBytes,
                 "setting the workspace limit");
  // The operands' real alignment: A is the weight, B is x, C and D are out (Note [linear_gelu on CUDA]).
  const std::uint32_t align_a = lt_alignment(weight.data_ptr()), align_b = lt_alignment(x.data_ptr());
  const std::uint32_t align_c = lt_alignment(out.data_ptr());
  set_preference(preference.handle, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a, "setting A's alignment");
  set_preference(preference.handle, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b, "setting B's alignment");
  set_preference(preference.handle, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_c, "setting C's alignment");
  set_preference(preference.handle, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_c, "setting D's alignment");
  cublasLtMatmulHeuristicResult_t choice{};
  int found = 0;
  const cublasStatus_t query = cublasLtMatmulAlgoGetHeuristic(d.cublas_lt, desc.handle, a.handle, b.handle, c.handle,
                                                              c.handle, preference.handle, 1, &choice, &found);
  // NOT_SUPPORTED is the query's answer "no algorithm for this configuration", not a failure.
  if (query == CUBLAS_STATUS_NOT_SUPPORTED || (query == CUBLAS_STATUS_SUCCESS && found == 0)) {
    ACC_LOG_DEBUG("linear_gelu: cuBLASLt offers no GELU epilogue algorithm for {}; GEMM, then the GELU pass",
                  context);
    return false;
  }
  ACC_CUDA_CHECK(query, context);
  // Workspace from the caching allocator: freed back to the cache on return, reused only by later work on
  // the compute stream (Note [CUDA memory and streams]).
  const Tensor workspace =
      choice.workspaceSize > 0
          ? Tensor::empty(Shape{static_cast<std::int64_t>((choice.workspaceSize + 3) / 4)}, DType::f32, out.device())
          : Tensor();
  const float alpha = 1.0f, beta = 0.0f;
  std::lock_guard lock(d.cublas_mutex);  // one cuBLAS(Lt) call at a time per device, as matmul does
  const cublasStatus_t status =
      cublasLtMatmul(d.cublas_lt, desc.handle, &alpha, weight.data_ptr(), a.handle, x.data_ptr(), b.handle, &beta,
                     out.data_ptr(), c.handle, out.data_ptr(), c.handle, &choice.algo,
                     workspace.defined() ? workspace.data_ptr() : nullptr, choice.workspaceSize, d.compute());
  // A capability answer (nothing was enqueued), not a failure to retry: every other status throws.
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) {
    ACC_LOG_DEBUG("linear_gelu: cublasLtMatmul does not support {} (alignments A {} B {} C {}); GEMM, then the "
                  "GELU pass", context, align_a, align_b, align_c);
    return false;
  }
  ACC_CUDA_CHECK(status, context);
  return true;
}

void linear_gelu_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, GeluApproximation approximation,
                        const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  const bool half = out.dtype() == DType::f16 || out.dtype() == DType::bf16;
  if (half && approximation == GeluApproximation::tanh) {
    if (bias.defined() && lt_alignment(bias.data_ptr()) < kLtBiasAlignment) {
      ACC_LOG_DEBUG("linear_gelu: the bias on {} is not {}-byte aligned; GEMM, then the GELU pass",
                    out.device().str(), kLtBiasAlignment);
    } else {
      DeviceGuard guard(d.index);
      if (run_fused(d, x, weight, bias, out)) return;
    }
  }
  kernel_for(op::matmul, out.device(), out.dtype())(x, weight.T(), out, false);
  gelu_kernel(out, bias, approximation, out);
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::linear_gelu, DeviceKind::cuda, dtypes::floating | dtypes::half, &linear_gelu_kernel);
}

}  // namespace accelera::cuda
