#pragma once
// The host entry points of the CUDA sliding-window kernels: im2col and col2im (im2col.cu), max_pool and its
// backward (max_pool.cu); Note [Window geometry] in ops/im2col.hpp. Operands are C-contiguous device pointers to their first element.
#include <cstdint>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

// The geometry of ops/im2col.hpp's WindowGeometry, free of the library's headers.
struct Window {
  std::int64_t batch = 0, channels = 0;
  std::int64_t in[3] = {}, out[3] = {}, kernel[3] = {}, stride[3] = {}, pad[3] = {}, dilation[3] = {};
};

// false, launching nothing, for a dtype they do not compute.
bool im2col(DType dtype, const Window& g, const void* x, double pad_value, void* patches, Launch launch);
bool col2im(DType dtype, const Window& g, const void* patches, void* image, Launch launch);
// indices are int64 (accelera/nn_ops.hpp's max_pool).
bool max_pool(DType dtype, const Window& g, const void* x, void* values, void* indices, Launch launch);
bool max_pool_backward(DType dtype, const Window& g, const void* grad, const void* indices, void* image,
                       Launch launch);

}  // namespace accelera::cuda::kernels
