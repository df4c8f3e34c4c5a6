// Softmax and log-softmax over the last axis of (rows, n), forward and backward: one thread per row, each
// row read twice (max, then exp-sum while writing) and written once more to normalise.
#include <cmath>
#include <limits>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/row_chunks.hpp"
#include "backends/cpu/vector_math.hpp"
#include "ops/softmax.hpp"

namespace accelera::cpu {

namespace {

template <typename T>
void forward_row(const T* __restrict x, T* __restrict y, std::int64_t n, bool log) {
  T m = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : m)
  for (std::int64_t k = 0; k < n; ++k) m = x[k] > m ? x[k] : m;
  T sum = 0;
  if (log) {
#pragma omp simd reduction(+ : sum)
    for (std::int64_t k = 0; k < n; ++k) sum += vmath::exp(x[k] - m);
    const T shift = m + std::log(sum);
#pragma omp simd
    for (std::int64_t k = 0; k < n; ++k) y[k] = x[k] - shift;
  } else {
#pragma omp simd reduction(+ : sum)
    for (std::int64_t k = 0; k < n; ++k) {
      const T e = vmath::exp(x[k] - m);
      y[k] = e;
      sum += e;
    }
    const T inv = T(1) / sum;
#pragma omp simd
    for (std::int64_t k = 0; k < n; ++k) y[k] *= inv;
  }
}

template <typename T>
void backward_row(const T* __restrict g, const T* __restrict y, T* __restrict dx, std::int64_t n, bool log) {
  T acc = 0;
  if (log) {  // dx = g - softmax * sum(g), softmax = exp(y)
#pragma omp simd reduction(+ : acc)
    for (std::int64_t k = 0; k < n; ++k) acc += g[k];
#pragma omp simd
    for (std::int64_t k = 0; k < n; ++k) dx[k] = g[k] - vmath::exp(y[k]) * acc;
  } else {  // dx = y * (g - sum(g * y))
#pragma omp simd reduction(+ : acc)
    for (std::int64_t k = 0; k < n; ++k) acc += g[k] * y[k];
#pragma omp simd
    for (std::int64_t k = 0; k < n; ++k) dx[k] = y[k] * (g[k] - acc);
  }
}

}  // namespace

void softmax_kernel(const Tensor& x, bool log, const Tensor& out) {
  dispatch_float(out.dtype(), log ? "log_softmax" : "softmax", [&](auto t) {
    using T = decltype(t);
    const std::int64_t rows = x.dim(0), n = x.dim(1);
    const T* xs = x.data<T>();
    T* ys = out.data<T>();
    for_each_row(rows, n, [&](std::int64_t r) { forward_row<T>(xs + r * n, ys + r * n, n, log); });
  });
}

void softmax_backward_kernel(const Tensor& grad, const Tensor& y, bool log, const Tensor& dx) {
  dispatch_float(dx.dtype(), log ? "log_softmax_backward" : "softmax_backward", [&](auto t) {
    using T = decltype(t);
    const std::int64_t rows = y.dim(0), n = y.dim(1);
    const T* gs = grad.data<T>();
    const T* ys = y.data<T>();
    T* ds = dx.data<T>();
    for_each_row(rows, n, [&](std::int64_t r) { backward_row<T>(gs + r * n, ys + r * n, ds + r * n, n, log); });
  });
}

ACC_REGISTER_KERNELS {
  register_kernel(op::softmax, DeviceKind::cpu, dtypes::floating,
                  +[](const Tensor& x, const Tensor& out) { softmax_kernel(x, false, out); });
  register_kernel(op::log_softmax, DeviceKind::cpu, dtypes::floating,
                  +[](const Tensor& x, const Tensor& out) { softmax_kernel(x, true, out); });
  register_kernel(op::softmax_backward, DeviceKind::cpu, dtypes::floating,
                  +[](const Tensor& grad, const Tensor& y, const Tensor& dx) { softmax_backward_kernel(grad, y, false, dx); });
  register_kernel(op::log_softmax_backward, DeviceKind::cpu, dtypes::floating,
                  +[](const Tensor& grad, const Tensor& y, const Tensor& dx) { softmax_backward_kernel(grad, y, true, dx); });
}

}  // namespace accelera::cpu
