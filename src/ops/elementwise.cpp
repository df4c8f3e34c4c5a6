// Element-wise binary and unary ops with NumPy broadcasting and promotion.
#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const auto name = binary_op_name(op);
  check_defined(a, name, "the first operand");
  check_defined(b, name, "the second operand");
  check_same_device(a, b, name);
  DType dtype = promote_types(a.dtype(), b.dtype());
  // True division: integers (and bools) divide as float64, as in NumPy.
  if (op == BinaryOp::divide && !is_floating(dtype)) dtype = DType::f64;
  check_computed(dtype, name, a.device());
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor out = Tensor::empty(shape, dtype, a.device());
  if (shape.numel() == 0) return out;
  const Tensor av = cast_to(a, dtype).broadcast_to(shape);
  const Tensor bv = cast_to(b, dtype).broadcast_to(shape);
  backend_for(a.device()).binary(op, av, bv, out);
  return out;
}

Tensor unary(UnaryOp op, const Tensor& x) {
  const auto name = unary_op_name(op);
  check_defined(x, name, "the operand");
  DType dtype = x.dtype();
  const bool transcendental = op != UnaryOp::neg && op != UnaryOp::relu;
  // NumPy computes transcendental functions of integers in float64.
  if (transcendental && is_integral(dtype)) dtype = DType::f64;
  ACC_CHECK(dtype != DType::boolean, DTypeError, "{} is not defined for bool tensors", name);
  check_computed(dtype, name, x.device());
  Tensor out = Tensor::empty(x.shape(), dtype, x.device());
  if (x.numel() == 0) return out;
  backend_for(x.device()).unary(op, cast_to(x, dtype), out);
  return out;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::add, a, b); }
Tensor subtract(const Tensor& a, const Tensor& b) { return binary(BinaryOp::subtract, a, b); }
Tensor multiply(const Tensor& a, const Tensor& b) { return binary(BinaryOp::multiply, a, b); }
Tensor divide(const Tensor& a, const Tensor& b) { return binary(BinaryOp::divide, a, b); }

Tensor neg(const Tensor& x) { return unary(UnaryOp::neg, x); }
Tensor exp(const Tensor& x) { return unary(UnaryOp::exp, x); }
Tensor log(const Tensor& x) { return unary(UnaryOp::log, x); }
Tensor tanh(const Tensor& x) { return unary(UnaryOp::tanh, x); }
Tensor relu(const Tensor& x) { return unary(UnaryOp::relu, x); }
Tensor sigmoid(const Tensor& x) { return unary(UnaryOp::sigmoid, x); }

}  // namespace accelera
