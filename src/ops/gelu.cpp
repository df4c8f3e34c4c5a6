// gelu, bias_gelu and gelu_backward: validation and dispatch.
#include "ops/gelu.hpp"

#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

Tensor gelu(const Tensor& x, GeluApproximation approximation) {
  check_nn_operand(x, "gelu", "x");
  const auto kernel = kernel_for(op::gelu, x.device(), x.dtype());
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() > 0) kernel(as_rows(x), Tensor(), approximation, as_rows(out));
  return out;
}

Tensor bias_gelu(const Tensor& x, const Tensor& bias, GeluApproximation approximation) {
  check_nn_operand(x, "bias_gelu", "x");
  ACC_CHECK(x.ndim() >= 1, ShapeError, "bias_gelu: x must have at least one axis, got shape {}", x.shape().str());
  check_defined(bias, "bias_gelu", "bias");
  check_vector(bias, x, x.dim(-1), "bias_gelu", "bias");
  const auto kernel = kernel_for(op::gelu, x.device(), x.dtype());
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() > 0) kernel(as_rows(x), bias.contiguous(), approximation, as_rows(out));
  return out;
}

Tensor gelu_backward(const Tensor& grad, const Tensor& x, GeluApproximation approximation) {
  check_nn_operand(x, "gelu_backward", "x");
  check_like(grad, x, "gelu_backward", "grad", "x");
  check_same_shape(grad, x, "gelu_backward", "grad", "x");
  const auto kernel = kernel_for(op::gelu_backward, x.device(), x.dtype());
  Tensor dx = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() > 0) kernel(as_rows(grad), as_rows(x), approximation, as_rows(dx));
  return dx;
}

}  // namespace accelera
