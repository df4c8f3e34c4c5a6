// max_pool and max_pool_backward on CUDA (accelera/nn_ops.hpp), as max_pool.cl and max_pool_backward.cl:
// the forward takes one thread per pooled element, the backward one thread per image element gathering the
// gradients of the windows that chose it (no atomics, a fixed order of summation; half formats accumulate
// in float).
#include "backends/cuda/common.cuh"
#include "backends/cuda/im2col_launch.hpp"
#include "backends/cuda/window.cuh"

namespace accelera::cuda::kernels {

namespace {

template <typename T>
__global__ void pool_elements(Window g, const T* x, T* values, std::int64_t* indices) {
  const std::int64_t positions = g.out[0] * g.out[1] * g.out[2];
  const std::int64_t plane = g.in[0] * g.in[1] * g.in[2];
  const std::int64_t count = g.batch * g.channels * positions;
  for (std::int64_t e = first_index(); e < count; e += grid_stride()) {
    std::int64_t rest = e % positions;
    const std::int64_t o2 = rest % g.out[2];
    rest /= g.out[2];
    const std::int64_t o1 = rest % g.out[1], o0 = rest / g.out[1];
    const T* img = x + (e / positions) * plane;
    compute_t<T> best = -INFINITY;
    std::int64_t at = -1;
    for (std::int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
      const std::int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
      if (i0 < 0 || i0 >= g.in[0]) continue;
      for (std::int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
        const std::int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
        if (i1 < 0 || i1 >= g.in[1]) continue;
        const std::int64_t row = (i0 * g.in[1] + i1) * g.in[2];
        for (std::int64_t k2 = 0; k2 < g.kernel[2]; ++k2) {
          const std::int64_t i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dilation[2];
          if (i2 < 0 || i2 >= g.in[2]) continue;
          const compute_t<T> v = load(img[row + i2]);
          if (at < 0 || v > best || (v != v && best == best)) {  // a NaN beats every number
            best = v;
            at = row + i2;
          }
        }
      }
    }
    values[e] = store<T>(best);
    indices[e] = at;
  }
}

template <typename T>
__global__ void unpool_elements(Window g, const T* grad, const std::int64_t* indices, T* image) {
  const std::int64_t plane = g.in[0] * g.in[1] * g.in[2];
  const std::int64_t positions = g.out[0] * g.out[1] * g.out[2];
  const std::int64_t count = g.batch * g.channels * plane;
  for (std::int64_t e = first_index(); e < count; e += grid_stride()) {
    const std::int64_t within = e % plane;
    std::int64_t rest = within;
    const std::int64_t i2 = rest % g.in[2];
    rest /= g.in[2];
    const std::int64_t i1 = rest % g.in[1], i0 = rest / g.in[1];
    const std::int64_t first = (e / plane) * positions;
    compute_t<T> sum = 0;
    for (std::int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
      const std::int64_t o0 = window_reader(i0, k0, g, 0);
      if (o0 < 0) continue;
      for (std::int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
        const std::int64_t o1 = window_reader(i1, k1, g, 1);
        if (o1 < 0) continue;
        for (std::int64_t k2 = 0; k2 < g.kernel[2]; ++k2) {
          const std::int64_t o2 = window_reader(i2, k2, g, 2);
          if (o2 < 0) continue;
          const std::int64_t p = first + (o0 * g.out[1] + o1) * g.out[2] + o2;
          if (indices[p] == within) sum += load(grad[p]);
        }
      }
    }
    image[e] = store<T>(sum);
  }
}

}  // namespace

bool max_pool(DType dtype, const Window& g, const void* x, void* values, void* indices, Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    const std::int64_t count = g.batch * g.channels * g.out[0] * g.out[1] * g.out[2];
    pool_elements<T><<<blocks_for(count, launch), kThreads, 0, launch.stream>>>(
        g, static_cast<const T*>(x), static_cast<T*>(values), static_cast<std::int64_t*>(indices));
    check_launch("max_pool");
  });
}

bool max_pool_backward(DType dtype, const Window& g, const void* grad, const void* indices, void* image,
                       Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    const std::int64_t count = g.batch * g.channels * g.in[0] * g.in[1] * g.in[2];
    unpool_elements<T><<<blocks_for(count, launch), kThreads, 0, launch.stream>>>(
        g, static_cast<const T*>(grad), static_cast<const std::int64_t*>(indices), static_cast<T*>(image));
    check_launch("max_pool_backward");
  });
}

}  // namespace accelera::cuda::kernels
