// gelu, gelu_backward, bias_gelu and linear_gelu: validation and dispatch.
#include <vector>

#include "ops/nn/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

Tensor gelu(const Tensor& x, GeluApproximation approximation) {
  check_nn_operand(x, "gelu", "x");
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() == 0) return out;
  backend_for(x.device()).gelu(as_rows(x), Tensor(), approximation, as_rows(out));
  return out;
}

Tensor bias_gelu(const Tensor& x, const Tensor& bias, GeluApproximation approximation) {
  check_nn_operand(x, "bias_gelu", "x");
  ACC_CHECK(x.ndim() >= 1, ShapeError, "bias_gelu: x must have at least one axis, got shape {}", x.shape().str());
  check_defined(bias, "bias_gelu", "bias");
  check_vector(bias, x, x.dim(-1), "bias_gelu", "bias");
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() == 0) return out;
  backend_for(x.device()).gelu(as_rows(x), bias.contiguous(), approximation, as_rows(out));
  return out;
}

Tensor gelu_backward(const Tensor& grad, const Tensor& x, GeluApproximation approximation) {
  check_nn_operand(x, "gelu_backward", "x");
  check_like(grad, x, "gelu_backward", "grad", "x");
  check_same_shape(grad, x, "gelu_backward", "grad", "x");
  Tensor dx = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() == 0) return dx;
  backend_for(x.device()).gelu_backward(as_rows(grad), as_rows(x), approximation, as_rows(dx));
  return dx;
}

Tensor linear_gelu(const Tensor& x, const Tensor& weight, const Tensor& bias, GeluApproximation approximation) {
  constexpr std::string_view op = "linear_gelu";
  check_nn_operand(x, op, "x");
  check_like(weight, x, op, "weight", "x");
  ACC_CHECK(x.ndim() >= 1, ShapeError, "{}: x must have at least one axis, got shape {}", op, x.shape().str());
  ACC_CHECK(weight.ndim() == 2, ShapeError, "{}: weight must be 2-D (out_features, in_features), got shape {}", op,
            weight.shape().str());
  const std::int64_t in = x.dim(-1), out_features = weight.dim(0);
  ACC_CHECK(weight.dim(1) == in, ShapeError,
            "{}: x's last axis has {} features but weight {} expects {} (weight is (out_features, in_features))", op,
            in, weight.shape().str(), weight.dim(1));
  check_vector(bias, x, out_features, op, "bias", "weight's out_features");
  std::vector<std::int64_t> dims = x.shape().dims();
  dims.back() = out_features;
  Tensor out = Tensor::empty(Shape(dims), x.dtype(), x.device());
  if (out.numel() == 0) return out;
  Backend& backend = backend_for(x.device());
  if (in == 0) {  // an empty sum: GELU(bias), or GELU(0) = 0
    backend.fill(out, 0.0);
    if (bias.defined()) return bias_gelu(out, bias, approximation);
    return out;
  }
  backend.linear_gelu(as_rows(x), weight.contiguous(), contiguous_or_undefined(bias), approximation, as_rows(out));
  return out;
}

}  // namespace accelera
