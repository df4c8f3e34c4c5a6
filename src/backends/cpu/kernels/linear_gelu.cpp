// GELU(x @ weight^T + bias): OpenBLAS GEMM over blocks of rows, each followed at once by the bias + GELU
// epilogue while the block is still in cache (about 1 MiB of output per block), so the output is never
// streamed through memory a second time.
#include <cblas.h>

#include <algorithm>
#include <climits>

#include "backends/cpu/kernels/dispatch.hpp"
#include "backends/cpu/kernels/gelu_math.hpp"
#include "backends/cpu/kernels/nn_kernels.hpp"
#include "backends/cpu/kernels/row_chunks.hpp"

namespace accelera::cpu {

namespace {

constexpr std::int64_t kBlockBytes = 1 << 20;

template <typename T>
void gemm_xwt(std::int64_t m, std::int64_t n, std::int64_t k, const T* x, const T* w, T* out) {
  const auto mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, mi, ni, ki, 1.0f, x, ki, w, ki, 0.0f, out, ni);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, mi, ni, ki, 1.0, x, ki, w, ki, 0.0, out, ni);
  }
}

template <typename T, GeluApproximation A>
void run(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& out) {
  const std::int64_t rows = x.dim(0), k = x.dim(1), n = weight.dim(0);
  ACC_CHECK(n <= INT_MAX && k <= INT_MAX, NotSupportedError,
            "linear_gelu: {} features in or {} out exceed 32-bit BLAS sizes", k, n);
  const std::int64_t block = std::clamp<std::int64_t>(kBlockBytes / std::max<std::int64_t>(1, n * sizeof(T)), 16,
                                                      INT_MAX);
  const T* xs = x.data<T>();
  const T* ws = weight.data<T>();
  const T* bs = bias.defined() ? bias.data<T>() : nullptr;
  T* os = out.data<T>();
  for (std::int64_t r0 = 0; r0 < rows; r0 += block) {
    const std::int64_t mb = std::min(block, rows - r0);
    T* ob = os + r0 * n;
    gemm_xwt<T>(mb, n, k, xs + r0 * k, ws, ob);
    for_each_row_run(mb, n, [&](std::int64_t pos, std::int64_t col, std::int64_t len) {
      T* __restrict o = ob + pos;
      if (bs != nullptr) {
        const T* __restrict b = bs + col;
#pragma omp simd
        for (std::int64_t i = 0; i < len; ++i) o[i] = gelu_math::gelu(o[i] + b[i], A);
      } else {
#pragma omp simd
        for (std::int64_t i = 0; i < len; ++i) o[i] = gelu_math::gelu(o[i], A);
      }
    });
  }
}

}  // namespace

void linear_gelu_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, GeluApproximation approximation,
                        const Tensor& out) {
  dispatch_float(out.dtype(), "linear_gelu", [&](auto t) {
    using T = decltype(t);
    if (approximation == GeluApproximation::tanh) {
      run<T, GeluApproximation::tanh>(x, weight, bias, out);
    } else {
      run<T, GeluApproximation::none>(x, weight, bias, out);
    }
  });
}

}  // namespace accelera::cpu
