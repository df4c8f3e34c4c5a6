// Softmax and log-softmax over the last axis of (rows, n), forward and backward: one thread per row, each
// row handled by the vectorised kernels of backends/cpu/simd/.
#include "backends/cpu/kernels/dispatch.hpp"
#include "backends/cpu/kernels/nn_kernels.hpp"
#include "backends/cpu/kernels/row_chunks.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"

namespace accelera::cpu {

void softmax_kernel(const Tensor& x, bool log, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_float(out.dtype(), log ? "log_softmax" : "softmax", [&](auto t) {
    using T = decltype(t);
    const std::int64_t rows = x.dim(0), n = x.dim(1);
    const T* xs = x.data<T>();
    T* ys = out.data<T>();
    const auto store = simd::store_for(static_cast<std::int64_t>(out.nbytes()));
    for_each_row(rows, n, [&](std::int64_t r) { simd::softmax_row(xs + r * n, ys + r * n, n, log, store); });
  });
}

void softmax_backward_kernel(const Tensor& grad, const Tensor& y, bool log, const Tensor& dx) {
  simd::ensure_target_selected();
  dispatch_float(dx.dtype(), log ? "log_softmax_backward" : "softmax_backward", [&](auto t) {
    using T = decltype(t);
    const std::int64_t rows = y.dim(0), n = y.dim(1);
    const T* gs = grad.data<T>();
    const T* ys = y.data<T>();
    T* ds = dx.data<T>();
    const auto store = simd::store_for(static_cast<std::int64_t>(dx.nbytes()));
    for_each_row(rows, n, [&](std::int64_t r) {
      simd::softmax_backward_row(gs + r * n, ys + r * n, ds + r * n, n, log, store);
    });
  });
}

}  // namespace accelera::cpu
