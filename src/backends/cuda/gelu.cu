// GELU forward (with an optional per-column bias) and backward, element-wise; half formats compute in
// float. Same formulas as the CPU and OpenCL kernels:
// - exact: c = erfc(|x| / sqrt(2)); x (1 - c / 2) for x >= 0 and x c / 2 below (no 1 + erf cancellation),
//   with the rounding d of |x| / sqrt(2) corrected by erfc(z + d) = erfc(z) (1 - 2 z d): without it the
//   far negative tail would lose |x|^2 ulp.
// - tanh: x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3).
// Contiguous 16-byte aligned operands take a vector path: these kernels are bound by memory bandwidth.
#include "backends/cuda/row_ops.cuh"

namespace accelera::cuda::kernels {

namespace {

// 1/sqrt(2) rounded to C, and the part of it that rounding dropped.
template <typename C>
struct InvSqrt2 {
  static constexpr C hi = C(0.70710678118654752440);
  static constexpr C lo = std::is_same_v<C, float> ? C(0.70710678118654752440 - double(float(0.70710678118654752440)))
                                                   : C(-4.8336466567264567e-17);
};

template <typename C, bool Tanh>
__device__ inline C gelu_value(C x) {
  if (x != x) return x;
  if (isinf(x)) return x > C(0) ? x : C(0);  // the limits (the formulas below give inf * 0 at -inf)
  if constexpr (Tanh) {
    const C u = C(0.79788456080286535588) * (x + C(0.044715) * x * x * x);
    return x / (C(1) + exp_of(C(-2) * u));
  } else {
    const C a = fmin(fabs(x), C(40));
    const C z = a * InvSqrt2<C>::hi;
    const C dz = fma(a, InvSqrt2<C>::hi, -z) + a * InvSqrt2<C>::lo;
    const C c = erfc_of(z) * (C(1) - C(2) * z * dz);
    return x >= C(0) ? x * (C(1) - C(0.5) * c) : C(0.5) * x * c;
  }
}

// GELU'(x). Exact: Phi(x) + x phi(x). Tanh: s + 2 x s (1 - s) sqrt(2/pi) (1 + 3 * 0.044715 x^2), s = sigmoid(2u).
template <typename C, bool Tanh>
__device__ inline C gelu_grad(C x) {
  if constexpr (Tanh) {
    const C k = C(0.79788456080286535588);
    const C u = k * (x + C(0.044715) * x * x * x);
    const C s = C(1) / (C(1) + exp_of(C(-2) * u));
    const C t = s * (C(1) - s);  // 0 once s saturates: the product term's limit, also for infinite x
    return s + (t == C(0) ? C(0) : x * C(2) * t * k * (C(1) + C(3 * 0.044715) * x * x));
  } else {
    if (x != x) return x;                        // the clamp below would turn nan into 40
    const C xc = fmax(fmin(x, C(40)), C(-40));  // phi is 0 beyond: avoids inf * 0
    const C c = erfc_of(fabs(xc) * InvSqrt2<C>::hi);
    const C cdf = x >= C(0) ? C(1) - C(0.5) * c : C(0.5) * c;
    return cdf + xc * C(0.39894228040143267794) * exp_of(C(-0.5) * xc * xc);
  }
}

template <typename T, bool Tanh>
__device__ inline T gelu_of(T x, T b, bool has_bias) {
  using C = compute_t<T>;
  return store<T>(gelu_value<C, Tanh>(has_bias ? load(x) + load(b) : load(x)));
}

// The column of flat element i in rows of n: 32-bit division when the sizes allow (much cheaper).
__device__ inline std::int64_t column_of(std::int64_t i, std::int64_t n, bool narrow) {
  return narrow ? static_cast<std::int64_t>(static_cast<std::uint32_t>(i) % static_cast<std::uint32_t>(n)) : i % n;
}

template <typename T, bool Tanh>
__global__ void gelu_scalar(std::int64_t count, std::int64_t n, const T* x, const T* bias, T* out, bool narrow) {
  const bool has_bias = bias != nullptr;
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    out[i] = gelu_of<T, Tanh>(x[i], has_bias ? bias[column_of(i, n, narrow)] : T{}, has_bias);
  }
}

// n is a multiple of the vector width when there is a bias, so a vector never straddles two rows.
template <typename T, bool Tanh>
__global__ void gelu_vector(std::int64_t count, std::int64_t n, const T* x, const T* bias, T* out, bool narrow) {
  using V = Vec<T>;
  const bool has_bias = bias != nullptr;
  const std::int64_t vectors = count / V::size;
  for (std::int64_t i = first_index(); i < vectors; i += grid_stride()) {
    const V a = reinterpret_cast<const V*>(x)[i];
    V b{};
    if (has_bias) b = reinterpret_cast<const V*>(bias)[column_of(i * V::size, n, narrow) / V::size];
    V z;
#pragma unroll
    for (int j = 0; j < V::size; ++j) z.v[j] = gelu_of<T, Tanh>(a.v[j], b.v[j], has_bias);
    reinterpret_cast<V*>(out)[i] = z;
  }
  for (std::int64_t i = vectors * V::size + first_index(); i < count; i += grid_stride()) {
    out[i] = gelu_of<T, Tanh>(x[i], has_bias ? bias[column_of(i, n, narrow)] : T{}, has_bias);
  }
}

template <typename T, bool Tanh>
__global__ void gelu_backward_scalar(std::int64_t count, const T* grad, const T* x, T* dx) {
  using C = compute_t<T>;
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    dx[i] = store<T>(load(grad[i]) * gelu_grad<C, Tanh>(load(x[i])));
  }
}

template <typename T, bool Tanh>
__global__ void gelu_backward_vector(std::int64_t count, const T* grad, const T* x, T* dx) {
  using C = compute_t<T>;
  using V = Vec<T>;
  const std::int64_t vectors = count / V::size;
  for (std::int64_t i = first_index(); i < vectors; i += grid_stride()) {
    const V g = reinterpret_cast<const V*>(grad)[i];
    const V a = reinterpret_cast<const V*>(x)[i];
    V z;
#pragma unroll
    for (int j = 0; j < V::size; ++j) z.v[j] = store<T>(load(g.v[j]) * gelu_grad<C, Tanh>(load(a.v[j])));
    reinterpret_cast<V*>(dx)[i] = z;
  }
  for (std::int64_t i = vectors * V::size + first_index(); i < count; i += grid_stride()) {
    dx[i] = store<T>(load(grad[i]) * gelu_grad<C, Tanh>(load(x[i])));
  }
}

template <typename F>
void with_form(bool tanh_form, F&& f) {
  if (tanh_form) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

}  // namespace

bool gelu(DType dtype, bool tanh_form, std::int64_t rows, std::int64_t n, const void* x, const void* bias, void* out,
          bool aligned, Launch launch) {
  const std::int64_t count = rows * n;
  const bool narrow = count <= 0xffffffffLL;
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    const auto* xs = static_cast<const T*>(x);
    const auto* bs = static_cast<const T*>(bias);
    auto* os = static_cast<T*>(out);
    const bool vector = aligned && (bias == nullptr || n % Vec<T>::size == 0);
    with_form(tanh_form, [&](auto form) {
      constexpr bool Tanh = decltype(form)::value;
      if (vector) {
        gelu_vector<T, Tanh><<<blocks_for(count / Vec<T>::size + 1, launch), kThreads, 0, launch.stream>>>(
            count, n, xs, bs, os, narrow);
      } else {
        gelu_scalar<T, Tanh><<<blocks_for(count, launch), kThreads, 0, launch.stream>>>(count, n, xs, bs, os, narrow);
      }
    });
    check_launch("gelu");
  });
}

bool gelu_backward(DType dtype, bool tanh_form, std::int64_t count, const void* grad, const void* x, void* dx,
                   bool aligned, Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    const auto* gs = static_cast<const T*>(grad);
    const auto* xs = static_cast<const T*>(x);
    auto* ds = static_cast<T*>(dx);
    with_form(tanh_form, [&](auto form) {
      constexpr bool Tanh = decltype(form)::value;
      if (aligned) {
        gelu_backward_vector<T, Tanh><<<blocks_for(count / Vec<T>::size + 1, launch), kThreads, 0, launch.stream>>>(
            count, gs, xs, ds);
      } else {
        gelu_backward_scalar<T, Tanh><<<blocks_for(count, launch), kThreads, 0, launch.stream>>>(count, gs, xs, ds);
      }
    });
    check_launch("gelu_backward");
  });
}

}  // namespace accelera::cuda::kernels
