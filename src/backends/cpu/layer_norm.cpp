// LayerNorm over the last axis of (rows, n), forward and backward, one row per call of the vectorised
// kernels in backends/cpu/simd/. Forward: a row's mean and variance in two passes over the row
// (cache-resident), then one pass writing the output. Backward: dx per row; dweight and dbias summed per
// thread and combined in thread order (deterministic for a thread count).
#include <omp.h>

#include <algorithm>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/row_chunks.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "ops/layer_norm.hpp"

namespace accelera::cpu {

namespace {

// The statistics' type: float for float, double for double.
template <typename T>
void forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
             const Tensor& mean, const Tensor& rstd) {
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  const T* xs = x.data<T>();
  const T* w = weight.defined() ? weight.data<T>() : nullptr;
  const T* b = bias.defined() ? bias.data<T>() : nullptr;
  T* ys = out.data<T>();
  T* means = mean.data<T>();
  T* rstds = rstd.data<T>();
  const auto store = simd::store_for(static_cast<std::int64_t>(out.nbytes()));
  const std::int64_t block = simd::rows_per_call(n, sizeof(T));
  for_each_row((rows + block - 1) / block, block * n, [&](std::int64_t bk) {
    const std::int64_t r = bk * block;
    simd::layer_norm_rows(xs + r * n, w, b, std::min(block, rows - r), n, eps, ys + r * n, means + r, rstds + r,
                          store);
  });
}

template <typename T>
void backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean, const Tensor& rstd,
              const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  const T* gs = grad.data<T>();
  const T* xs = x.data<T>();
  const T* w = weight.defined() ? weight.data<T>() : nullptr;
  const T* means = mean.data<T>();
  const T* rstds = rstd.data<T>();
  T* dxs = dx.data<T>();
  const bool params = dweight.defined() || dbias.defined();
  const bool parallel = rows > 1 && rows * n >= backends::kParallelGrain / 4 && !omp_in_parallel();
  const int threads = parallel ? omp_get_max_threads() : 1;
  // Per-thread partial sums of g * xhat (dweight) and g (dbias).
  std::vector<std::vector<T>> dw_part(static_cast<std::size_t>(threads)), db_part(dw_part.size());
  const auto store = simd::store_for(static_cast<std::int64_t>(dx.nbytes()));
  const std::int64_t block = simd::rows_per_call(n, sizeof(T));
  const std::int64_t blocks = (rows + block - 1) / block;
#pragma omp parallel num_threads(threads) if (parallel)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    if (params) {
      dw_part[t].assign(static_cast<std::size_t>(n), T(0));
      db_part[t].assign(static_cast<std::size_t>(n), T(0));
    }
    T* __restrict pw = params ? dw_part[t].data() : nullptr;
    T* __restrict pb = params ? db_part[t].data() : nullptr;
#pragma omp for schedule(static)
    for (std::int64_t bk = 0; bk < blocks; ++bk) {
      const std::int64_t r = bk * block;
      simd::layer_norm_backward_rows(gs + r * n, xs + r * n, w, means + r, rstds + r, std::min(block, rows - r), n,
                                     dxs + r * n, pw, pb, store);
    }
  }
  if (!params) return;
  T* dw = dweight.defined() ? dweight.data<T>() : nullptr;
  T* db = dbias.defined() ? dbias.data<T>() : nullptr;
  for (std::int64_t k = 0; k < n; ++k) {
    T sw = 0, sb = 0;
    for (std::size_t t = 0; t < dw_part.size(); ++t) {
      if (dw_part[t].empty()) continue;  // a thread that got no rows
      sw += dw_part[t][static_cast<std::size_t>(k)];
      sb += db_part[t][static_cast<std::size_t>(k)];
    }
    if (dw != nullptr) dw[k] = sw;
    if (db != nullptr) db[k] = sb;
  }
}

}  // namespace

void layer_norm_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                       const Tensor& mean, const Tensor& rstd) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_float(out.dtype(), "layer_norm",
                 [&](auto t) { forward<decltype(t)>(x, weight, bias, eps, out, mean, rstd); });
}

void layer_norm_backward_kernel(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                const Tensor& rstd, const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  simd::ensure_target_selected();
  dispatch_float(dx.dtype(), "layer_norm_backward",
                 [&](auto t) { backward<decltype(t)>(grad, x, weight, mean, rstd, dx, dweight, dbias); });
}

ACC_REGISTER_KERNELS {
  register_kernel(op::layer_norm, DeviceKind::cpu, dtypes::floating, &layer_norm_kernel);
  register_kernel(op::layer_norm_backward, DeviceKind::cpu, dtypes::floating, &layer_norm_backward_kernel);
}

}  // namespace accelera::cpu
