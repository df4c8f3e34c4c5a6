// im2col and col2im on CUDA (Note [Window geometry] in ops/im2col.hpp): one thread per output element,
// as im2col.cl and col2im.cl. col2im gathers the patch entries reading each image element (no atomics, a
// fixed order of summation) and accumulates half formats in float.
#include "backends/cuda/common.cuh"
#include "backends/cuda/im2col_launch.hpp"
#include "backends/cuda/window.cuh"

namespace accelera::cuda::kernels {

namespace {

template <typename T>
__global__ void im2col_entries(Window g, const T* x, T pad_value, T* patches) {
  const std::int64_t cols = g.channels * g.kernel[0] * g.kernel[1] * g.kernel[2];
  const std::int64_t count = g.batch * g.out[0] * g.out[1] * g.out[2] * cols;
  for (std::int64_t e = first_index(); e < count; e += grid_stride()) {
    std::int64_t r = e / cols, k = e % cols;
    const std::int64_t k2 = k % g.kernel[2];
    k /= g.kernel[2];
    const std::int64_t k1 = k % g.kernel[1];
    k /= g.kernel[1];
    const std::int64_t k0 = k % g.kernel[0], c = k / g.kernel[0];
    const std::int64_t o2 = r % g.out[2];
    r /= g.out[2];
    const std::int64_t o1 = r % g.out[1];
    r /= g.out[1];
    const std::int64_t o0 = r % g.out[0], n = r / g.out[0];
    const std::int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
    const std::int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
    const std::int64_t i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dilation[2];
    const bool in = i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2];
    patches[e] = in ? x[(((n * g.channels + c) * g.in[0] + i0) * g.in[1] + i1) * g.in[2] + i2] : pad_value;
  }
}

template <typename T>
__global__ void col2im_elements(Window g, const T* patches, T* image) {
  const std::int64_t plane = g.in[0] * g.in[1] * g.in[2];
  const std::int64_t ksize = g.kernel[0] * g.kernel[1] * g.kernel[2], cols = g.channels * ksize;
  const std::int64_t count = g.batch * g.channels * plane;
  for (std::int64_t e = first_index(); e < count; e += grid_stride()) {
    std::int64_t rest = e;
    const std::int64_t i2 = rest % g.in[2];
    rest /= g.in[2];
    const std::int64_t i1 = rest % g.in[1];
    rest /= g.in[1];
    const std::int64_t i0 = rest % g.in[0];
    rest /= g.in[0];
    const std::int64_t c = rest % g.channels, n = rest / g.channels;
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
          const std::int64_t row = ((n * g.out[0] + o0) * g.out[1] + o1) * g.out[2] + o2;
          sum += load(patches[row * cols + c * ksize + (k0 * g.kernel[1] + k1) * g.kernel[2] + k2]);
        }
      }
    }
    image[e] = store<T>(sum);
  }
}

std::int64_t patch_count(const Window& g) {
  return g.batch * g.out[0] * g.out[1] * g.out[2] * g.channels * g.kernel[0] * g.kernel[1] * g.kernel[2];
}

}  // namespace

bool im2col(DType dtype, const Window& g, const void* x, double pad_value, void* patches, Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    const T pad = store<T>(static_cast<compute_t<T>>(pad_value));
    im2col_entries<T><<<blocks_for(patch_count(g), launch), kThreads, 0, launch.stream>>>(
        g, static_cast<const T*>(x), pad, static_cast<T*>(patches));
    check_launch("im2col");
  });
}

bool col2im(DType dtype, const Window& g, const void* patches, void* image, Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    const std::int64_t count = g.batch * g.channels * g.in[0] * g.in[1] * g.in[2];
    col2im_elements<T><<<blocks_for(count, launch), kThreads, 0, launch.stream>>>(g, static_cast<const T*>(patches),
                                                                                 static_cast<T*>(image));
    check_launch("col2im");
  });
}

}  // namespace accelera::cuda::kernels
