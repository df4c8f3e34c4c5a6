// Convolution as im2col and one GEMM per image (ops/conv_gemm.hpp).
#include "ops/conv_gemm.hpp"

#include "accelera/ops.hpp"

namespace accelera {

namespace {

// The window of g over x's spatial axes (the geometry's leading axes of extent 1 dropped).
ConvWindow window_of(const WindowGeometry& g, std::int64_t spatial_axes) {
  ConvWindow w;
  for (std::int64_t a = 3 - spatial_axes; a < 3; ++a) {
    w.kernel.push_back(g.kernel[a]);
    w.stride.push_back(g.stride[a]);
    w.padding.push_back(g.pad[a]);
    w.dilation.push_back(g.dilation[a]);
  }
  return w;
}

Tensor as_dims(const Tensor& t, std::vector<std::int64_t> dims) { return t.reshape(dims); }

}  // namespace

Tensor conv_by_gemm(const Tensor& x, const Tensor& weight, const Tensor& bias, const WindowGeometry& g) {
  const ConvWindow window = window_of(g, x.ndim() - 2);
  const std::int64_t out_channels = weight.dim(0);
  // (C_out, K) @ (K, positions) per image writes (N, C_out, positions): the (N, C, *spatial) layout itself.
  const Tensor patches = as_dims(im2col(x, window), {g.batch, g.out_positions(), g.cols()});
  Tensor y = matmul(as_dims(weight, {out_channels, g.cols()}), patches.transpose(1, 2));
  if (bias.defined()) y = add(y, as_dims(bias, {out_channels, 1}));
  std::vector<std::int64_t> dims{g.batch, out_channels};
  for (std::int64_t a = 5 - x.ndim(); a < 3; ++a) dims.push_back(g.out[a]);
  return y.reshape(dims);
}

ConvGrads conv_backward_by_gemm(const Tensor& grad, const Tensor& x, const Tensor& weight, const WindowGeometry& g,
                                bool input_grad, bool bias_grad) {
  const ConvWindow window = window_of(g, x.ndim() - 2);
  const std::int64_t out_channels = weight.dim(0);
  const Tensor g3 = as_dims(grad, {g.batch, out_channels, g.out_positions()});
  ConvGrads out;
  // The patch matrix is rebuilt rather than kept from the forward: it is prod(kernel) times the input.
  const Tensor patches = as_dims(im2col(x, window), {g.batch, g.out_positions(), g.cols()});
  out.weight = sum(matmul(g3, patches), std::vector<std::int64_t>{0}).reshape(weight.shape().dims());
  if (bias_grad) out.bias = sum(g3, std::vector<std::int64_t>{0, 2});
  if (input_grad) {
    const Tensor dpatches = matmul(g3.transpose(1, 2), as_dims(weight, {out_channels, g.cols()}));
    out.input = col2im(as_dims(dpatches, {g.rows(), g.cols()}), x.shape(), window);
  }
  return out;
}

void conv_gemm_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, const WindowGeometry& g,
                      const Tensor& y) {
  copy_into(conv_by_gemm(x, weight, bias, g), y);
}

void conv_backward_gemm_kernel(const Tensor& grad, const Tensor& x, const Tensor& weight, const WindowGeometry& g,
                               const Tensor& dx, const Tensor& dw, const Tensor& db) {
  const ConvGrads r = conv_backward_by_gemm(grad, x, weight, g, dx.defined(), db.defined());
  if (dx.defined()) copy_into(r.input, dx);
  copy_into(r.weight, dw);
  if (db.defined()) copy_into(r.bias, db);
}

}  // namespace accelera
