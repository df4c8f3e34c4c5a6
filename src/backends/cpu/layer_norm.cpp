// LayerNorm over the last axis of (rows, n), forward and backward. Forward: a row's mean and variance
// in two passes over the row (cache-resident), then one pass writing the output. Backward: dx per row;
// dweight and dbias summed per thread and combined in thread order (deterministic for a thread count).
#include <omp.h>

#include <cmath>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/row_chunks.hpp"
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
  const T inv_n = T(1) / static_cast<T>(n);
  for_each_row(rows, n, [&](std::int64_t r) {
    const T* __restrict xr = xs + r * n;
    T* __restrict y = ys + r * n;
    T sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t k = 0; k < n; ++k) sum += xr[k];
    const T mu = sum * inv_n;
    T sq = 0;
#pragma omp simd reduction(+ : sq)
    for (std::int64_t k = 0; k < n; ++k) sq += (xr[k] - mu) * (xr[k] - mu);
    const T rs = T(1) / std::sqrt(sq * inv_n + static_cast<T>(eps));
    means[r] = mu;
    rstds[r] = rs;
    if (w != nullptr && b != nullptr) {
#pragma omp simd
      for (std::int64_t k = 0; k < n; ++k) y[k] = (xr[k] - mu) * rs * w[k] + b[k];
    } else if (w != nullptr) {
#pragma omp simd
      for (std::int64_t k = 0; k < n; ++k) y[k] = (xr[k] - mu) * rs * w[k];
    } else if (b != nullptr) {
#pragma omp simd
      for (std::int64_t k = 0; k < n; ++k) y[k] = (xr[k] - mu) * rs + b[k];
    } else {
#pragma omp simd
      for (std::int64_t k = 0; k < n; ++k) y[k] = (xr[k] - mu) * rs;
    }
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
  const T inv_n = T(1) / static_cast<T>(n);
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
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* __restrict g = gs + r * n;
      const T* __restrict xr = xs + r * n;
      T* __restrict d = dxs + r * n;
      const T mu = means[r], rs = rstds[r];
      T sum_g = 0, sum_gx = 0;  // of g * w and g * w * xhat
#pragma omp simd reduction(+ : sum_g, sum_gx)
      for (std::int64_t k = 0; k < n; ++k) {
        const T gw = w != nullptr ? g[k] * w[k] : g[k];
        sum_g += gw;
        sum_gx += gw * (xr[k] - mu) * rs;
      }
      const T a = sum_g * inv_n, c = sum_gx * inv_n;
#pragma omp simd
      for (std::int64_t k = 0; k < n; ++k) {
        const T xhat = (xr[k] - mu) * rs;
        const T gw = w != nullptr ? g[k] * w[k] : g[k];
        d[k] = rs * (gw - a - xhat * c);
      }
      if (params) {
#pragma omp simd
        for (std::int64_t k = 0; k < n; ++k) {
          pw[k] += g[k] * (xr[k] - mu) * rs;
          pb[k] += g[k];
        }
      }
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
  dispatch_float(out.dtype(), "layer_norm",
                 [&](auto t) { forward<decltype(t)>(x, weight, bias, eps, out, mean, rstd); });
}

void layer_norm_backward_kernel(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                const Tensor& rstd, const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  dispatch_float(dx.dtype(), "layer_norm_backward",
                 [&](auto t) { backward<decltype(t)>(grad, x, weight, mean, rstd, dx, dweight, dbias); });
}

ACC_REGISTER_KERNELS {
  register_kernel(op::layer_norm, DeviceKind::cpu, dtypes::floating, &layer_norm_kernel);
  register_kernel(op::layer_norm_backward, DeviceKind::cpu, dtypes::floating, &layer_norm_backward_kernel);
}

}  // namespace accelera::cpu
