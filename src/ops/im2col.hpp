#pragma once
// The sliding-window kernels: im2col, col2im, max_pool and its backward (accelera/nn_ops.hpp).
// Note [Window geometry]: every window is handled as three-dimensional: a 1-D or 2-D window gets leading
// spatial axes of extent 1 (kernel 1, stride 1, no padding), so one kernel per backend serves Conv1D to
// Conv3D and the pooling layers. Patch row r = ((n * out0 + o0) * out1 + o1) * out2 + o2, column
// k = ((c * kernel0 + k0) * kernel1 + k1) * kernel2 + k2; input position i_a = o_a stride_a - pad_a +
// k_a dilation_a on each axis a. Operands are C-contiguous (offsets may be non-zero) and of one floating
// dtype; outputs freshly allocated and not empty.
#include <cstdint>
#include <string_view>

#include "accelera/core/tensor.hpp"
#include "accelera/nn_ops.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

struct WindowGeometry {
  std::int64_t batch = 0, channels = 0;
  std::int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  std::int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};

  std::int64_t out_positions() const { return out[0] * out[1] * out[2]; }
  std::int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  std::int64_t in_positions() const { return in[0] * in[1] * in[2]; }
  std::int64_t rows() const { return batch * out_positions(); }
  std::int64_t cols() const { return channels * kernel_size(); }
};

// The geometry of `window` over an image of `shape` (N, C, *spatial), every parameter checked (messages
// name `op`).
WindowGeometry window_geometry(const Shape& shape, const ConvWindow& window, std::string_view op);
// (N, C, *out): the pooled shape of an image under g, with as many spatial axes as the image.
Shape pooled_shape(const Shape& image_shape, const WindowGeometry& g);

namespace op {

// patches (rows, cols) from x (N, C, *spatial); positions in the padding read pad_value.
inline constexpr OpSchema<void(const Tensor& x, const WindowGeometry& g, double pad_value, const Tensor& patches)>
    im2col{"im2col"};
// image (N, C, *spatial) = the sum of the patch entries reading each element.
inline constexpr OpSchema<void(const Tensor& patches, const WindowGeometry& g, const Tensor& image)> col2im{"col2im"};

// values and indices (N, C, *out) (accelera/nn_ops.hpp's max_pool); indices are int64.
inline constexpr OpSchema<void(const Tensor& x, const WindowGeometry& g, const Tensor& values, const Tensor& indices)>
    max_pool{"max_pool"};
// image (N, C, *spatial) = for each element, the sum of the grad entries whose index names it within its
// own window. grad and indices (N, C, *out), indices int64.
inline constexpr OpSchema<void(const Tensor& grad, const Tensor& indices, const WindowGeometry& g,
                               const Tensor& image)>
    max_pool_backward{"max_pool_backward"};

}  // namespace op
}  // namespace accelera
