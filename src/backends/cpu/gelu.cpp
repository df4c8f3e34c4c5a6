// GELU forward (with an optional per-column bias) and backward on (rows, n) contiguous matrices: equal
// chunks across threads, each handed to the vectorised kernels of backends/cpu/simd/.
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/row_chunks.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "ops/gelu.hpp"

namespace accelera::cpu {

namespace {

template <typename T>
void forward(const Tensor& x, const Tensor& bias, bool tanh_form, const Tensor& out) {
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  const T* xs = x.data<T>();
  const T* bs = bias.defined() ? bias.data<T>() : nullptr;
  T* os = out.data<T>();
  const auto store = simd::store_for(static_cast<std::int64_t>(out.nbytes()));
  // Without a bias the matrix is one long run, so chunks need not stop at row ends: each call has a fixed
  // cost (the fence after streaming stores among it) that rows of 256 made a fifth of the time.
  const bool one_run = bs == nullptr;
  const std::int64_t run_rows = one_run ? 1 : rows, run_n = one_run ? rows * n : n;
  for_each_row_run(run_rows, run_n, [&](std::int64_t pos, std::int64_t col, std::int64_t len) {
    simd::gelu(xs + pos, bs != nullptr ? bs + col : nullptr, os + pos, len, tanh_form, store);
  });
}

template <typename T>
void backward(const Tensor& grad, const Tensor& x, bool tanh_form, const Tensor& dx) {
  const T* gs = grad.data<T>();
  const T* xs = x.data<T>();
  T* ds = dx.data<T>();
  const auto store = simd::store_for(static_cast<std::int64_t>(dx.nbytes()));
  for_each_row_run(1, x.numel(), [&](std::int64_t pos, std::int64_t, std::int64_t len) {
    simd::gelu_backward(gs + pos, xs + pos, ds + pos, len, tanh_form, store);
  });
}

}  // namespace

void gelu_kernel(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_float(out.dtype(), "gelu", [&](auto t) {
    forward<decltype(t)>(x, bias, approximation == GeluApproximation::tanh, out);
  });
}

void gelu_backward_kernel(const Tensor& grad, const Tensor& x, GeluApproximation approximation, const Tensor& dx) {
  simd::ensure_target_selected();
  dispatch_float(dx.dtype(), "gelu_backward", [&](auto t) {
    backward<decltype(t)>(grad, x, approximation == GeluApproximation::tanh, dx);
  });
}

ACC_REGISTER_KERNELS {
  register_kernel(op::gelu, DeviceKind::cpu, dtypes::floating, &gelu_kernel);
  register_kernel(op::gelu_backward, DeviceKind::cpu, dtypes::floating, &gelu_backward_kernel);
}

}  // namespace accelera::cpu
