// The element-wise functions of Note [Element-wise functions]: NumPy broadcasting and promotion, then one
// kernel from the table.
#include "ops/elementwise.hpp"

#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

// The dtype a function of `kind` computes for operands of (promoted) dtype `in`. Floating functions of
// integers compute in float64, as NumPy's do; so does true division of bools.
DType compute_dtype(ElementwiseKind kind, DType in, std::string_view name, bool unary) {
  ACC_CHECK(in != DType::boolean || (!unary && kind == ElementwiseKind::floating), DTypeError,
            "{} is not defined for bool tensors (convert with astype)", name);
  if (kind == ElementwiseKind::floating && !is_floating(in)) return DType::f64;
  return in;
}

Tensor unary(const OpSchema<UnaryKernel>& op, ElementwiseKind kind, const Tensor& x) {
  check_defined(x, op.name, "the operand");
  const DType dtype = compute_dtype(kind, x.dtype(), op.name, true);
  const auto kernel = kernel_for(op, x.device(), dtype);
  Tensor out = Tensor::empty(x.shape(), dtype, x.device());
  if (x.numel() > 0) kernel(cast_to(x, dtype), out);
  return out;
}

Tensor binary(const OpSchema<BinaryKernel>& op, ElementwiseKind kind, const Tensor& a, const Tensor& b) {
  check_defined(a, op.name, "the first operand");
  check_defined(b, op.name, "the second operand");
  check_same_device(a, b, op.name);
  const DType dtype = compute_dtype(kind, promote_types(a.dtype(), b.dtype()), op.name, false);
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  const auto kernel = kernel_for(op, a.device(), dtype);
  Tensor out = Tensor::empty(shape, dtype, a.device());
  if (shape.numel() > 0) kernel(cast_to(a, dtype).broadcast_to(shape), cast_to(b, dtype).broadcast_to(shape), out);
  return out;
}

}  // namespace

#define ACC_DEFINE_UNARY(name, kind, expression) \
  Tensor name(const Tensor& x) { return unary(op::name, ElementwiseKind::kind, x); }
#define ACC_DEFINE_BINARY(name, kind, expression) \
  Tensor name(const Tensor& a, const Tensor& b) { return binary(op::name, ElementwiseKind::kind, a, b); }
ACC_UNARY_FUNCTIONS(ACC_DEFINE_UNARY)
ACC_BINARY_FUNCTIONS(ACC_DEFINE_BINARY)

}  // namespace accelera
