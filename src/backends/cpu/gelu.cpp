// GELU forward (with an optional per-column bias) and backward on (rows, n) contiguous matrices.
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/gelu_math.hpp"
#include "backends/cpu/row_chunks.hpp"
#include "ops/gelu.hpp"

namespace accelera::cpu {

namespace {

template <typename T, GeluApproximation A>
void forward(const Tensor& x, const Tensor& bias, const Tensor& out) {
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  const T* xs = x.data<T>();
  const T* bs = bias.defined() ? bias.data<T>() : nullptr;
  T* os = out.data<T>();
  for_each_row_run(rows, n, [&](std::int64_t pos, std::int64_t col, std::int64_t len) {
    const T* __restrict xi = xs + pos;
    T* __restrict o = os + pos;
    if (bs != nullptr) {
      const T* __restrict b = bs + col;
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = gelu_math::gelu(xi[k] + b[k], A);
    } else {
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = gelu_math::gelu(xi[k], A);
    }
  });
}

template <typename T, GeluApproximation A>
void backward(const Tensor& grad, const Tensor& x, const Tensor& dx) {
  const T* gs = grad.data<T>();
  const T* xs = x.data<T>();
  T* ds = dx.data<T>();
  for_each_row_run(1, x.numel(), [&](std::int64_t pos, std::int64_t, std::int64_t len) {
    const T* __restrict g = gs + pos;
    const T* __restrict xi = xs + pos;
    T* __restrict d = ds + pos;
    if constexpr (A == GeluApproximation::tanh) {
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) d[k] = g[k] * gelu_math::gelu_tanh_grad(xi[k]);
    } else {
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) d[k] = g[k] * gelu_math::gelu_exact_grad(xi[k]);
    }
  });
}

}  // namespace

void gelu_kernel(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out) {
  dispatch_float(out.dtype(), "gelu", [&](auto t) {
    using T = decltype(t);
    if (approximation == GeluApproximation::tanh) {
      forward<T, GeluApproximation::tanh>(x, bias, out);
    } else {
      forward<T, GeluApproximation::none>(x, bias, out);
    }
  });
}

void gelu_backward_kernel(const Tensor& grad, const Tensor& x, GeluApproximation approximation, const Tensor& dx) {
  dispatch_float(dx.dtype(), "gelu_backward", [&](auto t) {
    using T = decltype(t);
    if (approximation == GeluApproximation::tanh) {
      backward<T, GeluApproximation::tanh>(grad, x, dx);
    } else {
      backward<T, GeluApproximation::none>(grad, x, dx);
    }
  });
}

ACC_REGISTER_KERNELS {
  register_kernel(op::gelu, DeviceKind::cpu, dtypes::floating, &gelu_kernel);
  register_kernel(op::gelu_backward, DeviceKind::cpu, dtypes::floating, &gelu_backward_kernel);
}

}  // namespace accelera::cpu
