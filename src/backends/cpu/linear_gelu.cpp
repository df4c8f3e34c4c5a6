// GELU(x @ weight^T + bias): one OpenBLAS GEMM, then the bias + GELU epilogue as one parallel pass over
// the output. Why not per block of rows while each is in cache: every GEMM call re-packs the whole weight
// matrix and hands work between OpenBLAS's and OpenMP's thread pools; with 1 MiB blocks that measured
// 3-4x slower than this (2048 x 1024 @ 1024 x 4096 float32), with 8 MiB blocks still 10-20% slower.
// Rows are split only to keep BLAS's 32-bit sizes.
#include <cblas.h>

#include <algorithm>
#include <climits>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/row_chunks.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "ops/linear_gelu.hpp"

namespace accelera::cpu {

namespace {

constexpr std::int64_t kMaxRows = INT_MAX;

template <typename T>
void gemm_xwt(std::int64_t m, std::int64_t n, std::int64_t k, const T* x, const T* w, T* out) {
  const auto mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, mi, ni, ki, 1.0f, x, ki, w, ki, 0.0f, out, ni);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, mi, ni, ki, 1.0, x, ki, w, ki, 0.0, out, ni);
  }
}

template <typename T>
void run(const Tensor& x, const Tensor& weight, const Tensor& bias, bool tanh_form, const Tensor& out) {
  const std::int64_t rows = x.dim(0), k = x.dim(1), n = weight.dim(0);
  ACC_CHECK(n <= INT_MAX && k <= INT_MAX, NotSupportedError,
            "linear_gelu: {} features in or {} out exceed 32-bit BLAS sizes", k, n);
  const std::int64_t block = kMaxRows;
  const T* xs = x.data<T>();
  const T* ws = weight.data<T>();
  const T* bs = bias.defined() ? bias.data<T>() : nullptr;
  T* os = out.data<T>();
  for (std::int64_t r0 = 0; r0 < rows; r0 += block) {
    const std::int64_t mb = std::min(block, rows - r0);
    T* ob = os + r0 * n;
    gemm_xwt<T>(mb, n, k, xs + r0 * k, ws, ob);
    const auto store = simd::store_for(mb * n * static_cast<std::int64_t>(sizeof(T)));
    for_each_row_run(mb, n, [&](std::int64_t pos, std::int64_t col, std::int64_t len) {
      simd::gelu(ob + pos, bs != nullptr ? bs + col : nullptr, ob + pos, len, tanh_form, store);
    });
  }
}

}  // namespace

void linear_gelu_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, GeluApproximation approximation,
                        const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_float(out.dtype(), "linear_gelu", [&](auto t) {
    run<decltype(t)>(x, weight, bias, approximation == GeluApproximation::tanh, out);
  });
}

ACC_REGISTER_KERNELS { register_kernel(op::linear_gelu, DeviceKind::cpu, dtypes::floating, &linear_gelu_kernel); }

}  // namespace accelera::cpu
