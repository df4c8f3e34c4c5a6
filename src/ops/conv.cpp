// conv and conv_backward: validation and dispatch (Note [Convolution kernels] in ops/conv.hpp).
#include "ops/conv.hpp"

#include "ops/conv_gemm.hpp"
#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

struct ConvCall {
  WindowGeometry g;
  ConvWindow window;  // the kernel filled in from weight
  Shape out_shape;    // (N, C_out, *out)
  std::int64_t out_channels = 0;
};

ConvCall check_conv(const Tensor& x, const Tensor& weight, const ConvWindow& window, std::string_view op) {
  check_nn_operand(x, op, "x");
  check_like(weight, x, op, "weight", "x");
  ACC_CHECK(weight.ndim() >= 3 && weight.ndim() <= 5, ShapeError,
            "{}: weight must be (C_out, C_in, *kernel) with 1 to 3 kernel axes, got shape {}", op,
            weight.shape().str());
  ACC_CHECK(x.ndim() == weight.ndim() && x.dim(1) == weight.dim(1), ShapeError,
            "{}: weight of shape {} expects ({}, {}, ...) inputs with {} spatial axes, got x of shape {}", op,
            weight.shape().str(), "N", weight.dim(1), weight.ndim() - 2, x.shape().str());
  const std::vector<std::int64_t> kernel(weight.shape().dims().begin() + 2, weight.shape().dims().end());
  ACC_CHECK(window.kernel.empty() || window.kernel == kernel, ShapeError,
            "{}: the window's kernel must be weight's trailing axes {} (or left empty)", op, weight.shape().str());
  ConvCall call;
  call.window = window;
  call.window.kernel = kernel;
  call.g = window_geometry(x.shape(), call.window, op);
  call.out_channels = weight.dim(0);
  std::vector<std::int64_t> dims = pooled_shape(x.shape(), call.g).dims();
  dims[1] = call.out_channels;
  call.out_shape = Shape(dims);
  return call;
}

// Calls with an empty batch or channel axis never reach a kernel (Note [Convolution kernels]).
bool empty_call(const ConvCall& call) {
  return call.g.batch == 0 || call.g.channels == 0 || call.out_channels == 0;
}

Tensor cast_or_undefined(const Tensor& t, DType dtype) { return t.defined() ? cast_to(t, dtype).contiguous() : t; }

}  // namespace

Tensor conv(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvWindow& window) {
  constexpr std::string_view op = "conv";
  const ConvCall call = check_conv(x, weight, window, op);
  check_vector(bias, x, call.out_channels, op, "bias", "weight's axis 0");
  if (empty_call(call)) return conv_by_gemm(x, weight, bias, call.g);
  // Half formats on a device without half kernels: through float32, rounded once (kernel_dtype).
  const DType computed = kernel_dtype(op, x.device(), x.dtype());
  const auto kernel = kernel_for(op::conv, x.device(), computed);
  Tensor y = Tensor::empty(call.out_shape, computed, x.device());
  kernel(cast_to(x, computed).contiguous(), cast_to(weight, computed).contiguous(), cast_or_undefined(bias, computed),
         call.g, y);
  return cast_to(y, x.dtype());
}

ConvGrads conv_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const ConvWindow& window,
                        bool input_grad, bool bias_grad) {
  constexpr std::string_view op = "conv_backward";
  const ConvCall call = check_conv(x, weight, window, op);
  check_like(grad, x, op, "grad", "x");
  ACC_CHECK(grad.shape() == call.out_shape, ShapeError,
            "{}: grad must have the convolution's output shape {}, got {}", op, call.out_shape.str(),
            grad.shape().str());
  if (empty_call(call)) return conv_backward_by_gemm(grad, x, weight, call.g, input_grad, bias_grad);
  const DType computed = kernel_dtype(op, x.device(), x.dtype());
  const auto kernel = kernel_for(op::conv_backward, x.device(), computed);
  const Device& d = x.device();
  Tensor dx = input_grad ? Tensor::empty(x.shape(), computed, d) : Tensor();
  Tensor dw = Tensor::empty(weight.shape(), computed, d);
  Tensor db = bias_grad ? Tensor::empty(Shape{call.out_channels}, computed, d) : Tensor();
  kernel(cast_to(grad, computed).contiguous(), cast_to(x, computed).contiguous(), cast_to(weight, computed).contiguous(),
         call.g, dx, dw, db);
  ConvGrads out;
  out.input = input_grad ? cast_to(dx, x.dtype()) : dx;
  out.weight = cast_to(dw, x.dtype());
  out.bias = bias_grad ? cast_to(db, x.dtype()) : db;
  return out;
}

}  // namespace accelera
