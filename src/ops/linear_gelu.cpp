// linear_gelu: validation and dispatch.
#include "ops/linear_gelu.hpp"

#include <vector>

#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

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
  const auto kernel = kernel_for(op::linear_gelu, x.device(), x.dtype());
  std::vector<std::int64_t> dims = x.shape().dims();
  dims.back() = out_features;
  Tensor out = Tensor::empty(Shape(dims), x.dtype(), x.device());
  if (out.numel() == 0) return out;
  if (in == 0) {  // an empty sum: GELU(bias), or GELU(0) = 0
    fill_tensor(out, 0.0);
    if (bias.defined()) return bias_gelu(out, bias, approximation);
    return out;
  }
  kernel(as_rows(x), weight.contiguous(), contiguous_or_undefined(bias), approximation, as_rows(out));
  return out;
}

}  // namespace accelera
