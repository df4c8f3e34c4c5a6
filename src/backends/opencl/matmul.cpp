// matmul on OpenCL devices through CLBlast, batched over leading axes. Operands map onto GEMM without a
// copy where Note [BLAS layouts] allows and are packed on the device otherwise.
#include <clblast.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>

#include "backends/common/batch_matrix.hpp"
#include "backends/common/blas_layout.hpp"
#include "backends/opencl/opencl_interface.hpp"
#include "core/log.hpp"
#include "ops/fill.hpp"
#include "ops/matmul.hpp"

namespace accelera::opencl {

namespace {

struct GemmOperand {
  Tensor matrix;  // the 2-D view GEMM reads (a packed copy when the view's strides do not fit)
  clblast::Transpose trans = clblast::Transpose::kNo;
  std::size_t ld = 0;
};

GemmOperand operand(const Tensor& matrix) {
  const std::int64_t rows = matrix.shape()[0], cols = matrix.shape()[1];
  if (const auto op = backends::blas_operand(rows, cols, matrix.strides()[0], matrix.strides()[1])) {
    return {matrix, op->transposed ? clblast::Transpose::kYes : clblast::Transpose::kNo,
            static_cast<std::size_t>(op->ld)};
  }
  return {matrix.clone(), clblast::Transpose::kNo, static_cast<std::size_t>(std::max<std::int64_t>(cols, 1))};
}

// PoCL's CPU device: CLBlast has no tuned parameters for it (Note [CLBlast tuning for PoCL]), and its long-K
// products run faster in slices (Note [K in slices on PoCL]).
bool is_pocl_cpu(const ClDevice& d) { return d.platform_name == "Portable Computing Language" && !d.is_accelerator; }

// Note [CLBlast tuning for PoCL]: CLBlast ships no tuned parameters for PoCL's CPU device, and its defaults
// ran sgemm at 18 GFLOP/s on a 2-core AVX-512 EPYC. A search over Xgemm parameter sets
// (bench/opencl_bench.cpp --tune, recorded in docs/benchmarks.md) found 128x128 work-group tiles with
// 8-wide vectors at 88 GFLOP/s in the same run. They are installed once per PoCL CPU device, for single
// precision, before its first GEMM, with the indirect (tuned) kernel used from 128^3 up; other devices keep
// CLBlast's own database.
void tune_gemm_once(ClDevice& d);

// CLBlast keeps process-wide state (its parameter database and the overrides below) that it does not guard
// against threads: a GEMM on one device while another device's parameters are overridden corrupted it (a
// std::bad_alloc with two PoCL devices). Every call into CLBlast takes this lock; a call only compiles (once
// per kernel) and enqueues, so devices still compute at once.
std::mutex& clblast_mutex() {
  static std::mutex m;
  return m;
}

void tune_gemm_once(ClDevice& d) {
  std::call_once(d.gemm_tuning, [&] {
    if (!is_pocl_cpu(d)) return;
    const std::unordered_map<std::string, std::size_t> xgemm = {
        {"GEMMK", 0}, {"KREG", 1},  {"KWG", 16},   {"KWI", 2},   {"MDIMA", 8}, {"MDIMC", 8}, {"MWG", 128}, {"NDIMB", 8},
        {"NDIMC", 8}, {"NWG", 128}, {"SA", 0},     {"SB", 0},    {"STRM", 0},  {"STRN", 0},  {"VWM", 8},   {"VWN", 8}};
    const std::lock_guard lock(clblast_mutex());
    auto status = clblast::OverrideParameters(d.id, "Xgemm", clblast::Precision::kSingle, xgemm);
    // CLBlast sends GEMMs below a size threshold to its direct kernel, which these parameters do not tune
    // (the engine's tiles, e.g. 1366x1024x256, ran there at 14 GFLOP/s): from 128^3 on, use the tuned one.
    if (status == clblast::StatusCode::kSuccess) {
      status = clblast::OverrideParameters(d.id, "GemmRoutine", clblast::Precision::kSingle,
                                           {{"XGEMM_MIN_INDIRECT_SIZE", 128}});
    }
    if (status != clblast::StatusCode::kSuccess) {
      ACC_LOG_WARN("CLBlast refused the PoCL Xgemm parameters (status {}): {} keeps CLBlast's defaults",
                   static_cast<int>(status), d.name);
    }
  });
}

const char* blast_status(clblast::StatusCode code) {
  // CLBlast's own codes extend OpenCL's (negative) statuses; show the number for both.
  return static_cast<int>(code) > -1000 ? status_name(static_cast<cl_int>(code)) : "CLBlast-specific status";
}

template <typename T>
void gemm(ClDevice& d, const GemmOperand& a, const GemmOperand& b, const Tensor& c, std::size_t m, std::size_t n,
          std::size_t k, T beta) {
  cl_command_queue queue = d.compute();
  const std::lock_guard lock(clblast_mutex());
  const auto status = clblast::Gemm<T>(
      clblast::Layout::kRowMajor, a.trans, b.trans, m, n, k, T{1}, buffer_of(a.matrix),
      static_cast<std::size_t>(a.matrix.offset()), a.ld, buffer_of(b.matrix), static_cast<std::size_t>(b.matrix.offset()),
      b.ld, beta, buffer_of(c), static_cast<std::size_t>(c.offset()), std::max<std::size_t>(n, 1), &queue, nullptr);
  ACC_CHECK(status == clblast::StatusCode::kSuccess, DeviceError, "CLBlast Gemm failed on {}: status {} ({})",
            d.name, static_cast<int>(status), blast_status(status));
}

// Note [K in slices on PoCL]: on PoCL's CPU device one CLBlast GEMM over a long K ran 4096^3 at 30-34
// GFLOP/s, where the same product as sixteen GEMMs over slices of K = 256, each adding into C, ran at 46-48
// even with a separate pass for every addition (the engine's 1366 x 1024 x 256 tiles reach 54-90): a
// work-group's panels of A and B over all of K (128 x 4096 floats, 2 MiB each) no longer fit the core's
// caches. So on a PoCL CPU device, products with K longer than two slices run slice by slice, C accumulating
// through GEMM's beta. Other devices keep one call.
constexpr std::int64_t kPoclKSlice = 256;

bool slices_k(const ClDevice& d, std::int64_t m, std::int64_t n, std::int64_t k) {
  return is_pocl_cpu(d) && k > 2 * kPoclKSlice && m >= 128 && n >= 128;
}

template <typename T>
void gemm_in_k_slices(ClDevice& d, const Tensor& a, const Tensor& b, const Tensor& c, bool accumulate) {
  const std::int64_t m = c.shape()[0], n = c.shape()[1], k = a.shape()[1];
  const std::int64_t step = slices_k(d, m, n, k) ? kPoclKSlice : k;
  for (std::int64_t k0 = 0; k0 < k; k0 += step) {
    const std::int64_t k1 = std::min(k, k0 + step);
    const GemmOperand ga = operand(step == k ? a : a.slice(1, k0, k1));
    const GemmOperand gb = operand(step == k ? b : b.slice(0, k0, k1));
    gemm<T>(d, ga, gb, c, static_cast<std::size_t>(m), static_cast<std::size_t>(n),
            static_cast<std::size_t>(k1 - k0), (accumulate || k0 > 0) ? T{1} : T{0});
  }
}

void matmul_kernel(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate) {
  ClDevice& d = cl_device(out.device());
  const std::int64_t nd = out.ndim();
  const std::int64_t m = out.shape()[nd - 2], n = out.shape()[nd - 1], k = a.shape()[nd - 1];
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate) kernel_for(op::fill, out.device(), out.dtype())(out, 0.0);
    return;
  }
  tune_gemm_once(d);
  const Shape batch_shape(std::span(out.shape().dims()).first(static_cast<std::size_t>(nd - 2)));
  const std::int64_t batches = batch_shape.numel();
  for (std::int64_t i = 0; i < batches; ++i) {
    const Tensor am = backends::batch_matrix(a, i, batch_shape), bm = backends::batch_matrix(b, i, batch_shape);
    const Tensor c = backends::batch_matrix(out, i, batch_shape);
    if (out.dtype() == DType::f32) {
      gemm_in_k_slices<float>(d, am, bm, c, accumulate);
    } else {
      gemm_in_k_slices<double>(d, am, bm, c, accumulate);
    }
  }
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::matmul, DeviceKind::opencl, dtypes::floating, &matmul_kernel); }

}  // namespace accelera::opencl
