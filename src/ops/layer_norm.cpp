// layer_norm and layer_norm_backward: validation and dispatch.
#include <limits>
#include <vector>

#include "ops/layer_norm.hpp"
#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

std::vector<std::int64_t> leading_dims(const Tensor& x) {
  return {x.shape().dims().begin(), x.shape().dims().end() - 1};
}

void check_x(const Tensor& x, std::string_view op) {
  check_nn_operand(x, op, "x");
  ACC_CHECK(x.ndim() >= 1 && x.dim(-1) >= 1, ShapeError,
            "{}: x must have at least one axis with at least one element to normalise over, got shape {}", op,
            x.shape().str());
}

// The dtype mean and rstd are kept in: the compute precision.
DType stats_dtype(DType dtype) { return dtype == DType::f64 ? DType::f64 : DType::f32; }

}  // namespace

LayerNormResult layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps) {
  constexpr std::string_view op = "layer_norm";
  check_x(x, op);
  check_vector(weight, x, x.dim(-1), op, "weight");
  check_vector(bias, x, x.dim(-1), op, "bias");
  ACC_CHECK(eps >= 0.0 && eps < std::numeric_limits<double>::infinity(), ValueError,
            "{}: eps must be finite and non-negative, got {}", op, eps);
  const Shape stats_shape(leading_dims(x));
  LayerNormResult r{Tensor::empty(x.shape(), x.dtype(), x.device()),
                    Tensor::empty(stats_shape, stats_dtype(x.dtype()), x.device()),
                    Tensor::empty(stats_shape, stats_dtype(x.dtype()), x.device())};
  const auto kernel = kernel_for(op::layer_norm, x.device(), x.dtype());
  if (x.numel() == 0) return r;
  const std::int64_t rows = stats_shape.numel();
  const std::int64_t flat[] = {rows};
  kernel(as_rows(x), contiguous_or_undefined(weight), contiguous_or_undefined(bias), eps, as_rows(r.out),
                  r.mean.reshape(flat), r.rstd.reshape(flat));
  return r;
}

LayerNormGrads layer_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& bias,
                                   const Tensor& mean, const Tensor& rstd) {
  constexpr std::string_view op = "layer_norm_backward";
  check_x(x, op);
  check_like(grad, x, op, "grad", "x");
  check_same_shape(grad, x, op, "grad", "x");
  check_vector(weight, x, x.dim(-1), op, "weight");
  check_vector(bias, x, x.dim(-1), op, "bias");
  const Shape stats_shape(leading_dims(x));
  for (const auto& [t, what] : {std::pair{&mean, "mean"}, std::pair{&rstd, "rstd"}}) {
    check_defined(*t, op, what);
    ACC_CHECK(t->dtype() == stats_dtype(x.dtype()), DTypeError, "{}: {} must be {} (as layer_norm returns it), got {}",
              op, what, dtype_name(stats_dtype(x.dtype())), dtype_name(t->dtype()));
    ACC_CHECK(t->device() == x.device(), DeviceError, "{}: {} is on {} but x is on {}", op, what, t->device().str(),
              x.device().str());
    ACC_CHECK(t->shape() == stats_shape, ShapeError, "{}: {} must have shape {} (x's leading axes), got {}", op, what,
              stats_shape.str(), t->shape().str());
  }
  const std::int64_t n = x.dim(-1);
  LayerNormGrads g{Tensor::empty(x.shape(), x.dtype(), x.device()),
                   weight.defined() ? Tensor::empty(Shape{n}, x.dtype(), x.device()) : Tensor(),
                   bias.defined() ? Tensor::empty(Shape{n}, x.dtype(), x.device()) : Tensor()};
  const auto kernel = kernel_for(op::layer_norm_backward, x.device(), x.dtype());
  if (x.numel() == 0) {  // no rows: the parameter gradients are empty sums
    if (g.dweight.defined()) fill_tensor(g.dweight, 0.0);
    if (g.dbias.defined()) fill_tensor(g.dbias, 0.0);
    return g;
  }
  const std::int64_t flat[] = {stats_shape.numel()};
  kernel(as_rows(grad), as_rows(x), contiguous_or_undefined(weight), mean.contiguous().reshape(flat),
                              rstd.contiguous().reshape(flat), as_rows(g.dx), g.dweight, g.dbias);
  return g;
}

}  // namespace accelera
