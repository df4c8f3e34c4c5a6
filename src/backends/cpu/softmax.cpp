// Softmax and log-softmax over the last axis of (rows, n), forward and backward: blocks of rows across
// threads, each block handled by the vectorised kernels of backends/cpu/simd/.
#include <algorithm>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/row_chunks.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "ops/softmax.hpp"

namespace accelera::cpu {

void softmax_kernel(const Tensor& x, bool log, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_float(out.dtype(), log ? "log_softmax" : "softmax", [&](auto t) {
    using T = decltype(t);
    const std::int64_t rows = x.dim(0), n = x.dim(1);
    const T* xs = x.data<T>();
    T* ys = out.data<T>();
    const auto store = simd::store_for(static_cast<std::int64_t>(out.nbytes()));
    const std::int64_t block = simd::rows_per_call(n, sizeof(T));
    for_each_row((rows + block - 1) / block, block * n, [&](std::int64_t b) {
      const std::int64_t r = b * block;
      simd::softmax_rows(xs + r * n, ys + r * n, std::min(block, rows - r), n, log, store);
    });
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
    const std::int64_t block = simd::rows_per_call(n, sizeof(T));
    for_each_row((rows + block - 1) / block, block * n, [&](std::int64_t b) {
      const std::int64_t r = b * block;
      simd::softmax_backward_rows(gs + r * n, ys + r * n, ds + r * n, std::min(block, rows - r), n, log, store);
    });
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
