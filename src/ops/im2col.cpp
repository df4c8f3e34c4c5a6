// im2col and col2im: window validation (Note [Window geometry] in ops/im2col.hpp) and dispatch.
#include "ops/im2col.hpp"

#include <string>

#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

// One value per spatial axis: `values` as given, a single value repeated, or `fallback` when empty.
std::vector<std::int64_t> per_axis(const std::vector<std::int64_t>& values, std::size_t axes, std::int64_t fallback,
                                   std::string_view op, std::string_view what) {
  if (values.empty()) return std::vector<std::int64_t>(axes, fallback);
  if (values.size() == 1) return std::vector<std::int64_t>(axes, values[0]);
  ACC_CHECK(values.size() == axes, ShapeError, "{}: {} has {} values for a window over {} spatial axes", op, what,
            values.size(), axes);
  return values;
}

std::string window_str(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

}  // namespace

WindowGeometry window_geometry(const Shape& shape, const ConvWindow& window, std::string_view op) {
  const std::size_t axes = window.kernel.size();
  ACC_CHECK(axes >= 1 && axes <= 3, ShapeError, "{}: the window must span 1, 2 or 3 spatial axes, got a kernel of {}",
            op, axes);
  ACC_CHECK(shape.ndim() == static_cast<std::int64_t>(axes) + 2, ShapeError,
            "{}: a {}-D window needs an (N, C{}) image of {} axes, got shape {}", op, axes,
            axes == 1 ? ", L" : (axes == 2 ? ", H, W" : ", D, H, W"), axes + 2, shape.str());
  const auto stride = per_axis(window.stride, axes, 1, op, "stride");
  const auto pad = per_axis(window.padding, axes, 0, op, "padding");
  const auto dilation = per_axis(window.dilation, axes, 1, op, "dilation");
  WindowGeometry g;
  g.batch = shape[0];
  g.channels = shape[1];
  const std::size_t first = 3 - axes;  // Note [Window geometry]: missing leading axes have extent 1
  for (std::size_t a = 0; a < axes; ++a) {
    const std::int64_t in = shape[static_cast<std::int64_t>(a) + 2], k = window.kernel[a];
    ACC_CHECK(k >= 1 && stride[a] >= 1 && dilation[a] >= 1 && pad[a] >= 0, ValueError,
              "{}: kernel {}, stride {} and dilation {} must be positive and padding {} non-negative", op,
              window_str(window.kernel), window_str(stride), window_str(dilation), window_str(pad));
    const std::int64_t span = dilation[a] * (k - 1) + 1;
    ACC_CHECK(in + 2 * pad[a] >= span, ShapeError,
              "{}: the window (kernel {}, dilation {}) spans {} elements on spatial axis {} but the image has {} "
              "there with padding {}",
              op, window_str(window.kernel), window_str(dilation), span, a, in, window_str(pad));
    const std::size_t at = first + a;
    g.in[at] = in;
    g.kernel[at] = k;
    g.stride[at] = stride[a];
    g.pad[at] = pad[a];
    g.dilation[at] = dilation[a];
    g.out[at] = (in + 2 * pad[a] - span) / stride[a] + 1;
  }
  return g;
}

Shape pooled_shape(const Shape& image_shape, const WindowGeometry& g) {
  std::vector<std::int64_t> dims{image_shape[0], image_shape[1]};
  for (std::int64_t a = 5 - image_shape.ndim(); a < 3; ++a) dims.push_back(g.out[a]);
  return Shape(dims);
}

Tensor im2col(const Tensor& x, const ConvWindow& window, double pad_value) {
  constexpr std::string_view op = "im2col";
  check_nn_operand(x, op, "x");
  const WindowGeometry g = window_geometry(x.shape(), window, op);
  // Half formats on a device without half kernels: through float32, rounded once (kernel_dtype).
  const DType computed = kernel_dtype(op, x.device(), x.dtype());
  Tensor patches = Tensor::empty(Shape{g.rows(), g.cols()}, computed, x.device());
  const auto kernel = kernel_for(op::im2col, x.device(), computed);
  if (patches.numel() > 0) kernel(cast_to(x, computed).contiguous(), g, pad_value, patches);
  return cast_to(patches, x.dtype());
}

Tensor col2im(const Tensor& patches, const Shape& image_shape, const ConvWindow& window) {
  constexpr std::string_view op = "col2im";
  check_nn_operand(patches, op, "patches");
  const WindowGeometry g = window_geometry(image_shape, window, op);
  ACC_CHECK(patches.shape() == Shape({g.rows(), g.cols()}), ShapeError,
            "{}: patches of an image of shape {} under this window have shape ({}, {}), got {}", op,
            image_shape.str(), g.rows(), g.cols(), patches.shape().str());
  const DType computed = kernel_dtype(op, patches.device(), patches.dtype());
  Tensor image = Tensor::empty(image_shape, computed, patches.device());
  const auto kernel = kernel_for(op::col2im, patches.device(), computed);
  // With no elements in the image, every axis of the patches is empty too.
  if (image.numel() > 0) kernel(cast_to(patches, computed).contiguous(), g, image);
  return cast_to(image, patches.dtype());
}

}  // namespace accelera
