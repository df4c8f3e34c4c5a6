// The element-wise functions of Note [Element-wise functions]: NumPy broadcasting and promotion, then one
// kernel from the table.
#include "ops/elementwise.hpp"

#include "accelera/ops.hpp"
#include "ops/common.hpp"
#include "ops/complex_elementwise.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

bool accepts(ElementwiseKind kind, DType in, bool unary) {
  const bool integer = is_integral(in);
  switch (kind) {
    case ElementwiseKind::floating: return in != DType::boolean || !unary;  // True division of bools: float64
    case ElementwiseKind::arithmetic:
    case ElementwiseKind::predicate: return in != DType::boolean;
    case ElementwiseKind::bitwise: return integer || in == DType::boolean;
    case ElementwiseKind::integral: return integer;
    case ElementwiseKind::comparison:
    case ElementwiseKind::logical: return true;
  }
  return false;
}

// The dtype a function of `kind` computes in for operands of (promoted) dtype `in` (the table in Note
// [Element-wise functions]); a dtype the kind does not accept is a DTypeError naming op, device and dtype.
DType compute_dtype(ElementwiseKind kind, DType in, std::string_view name, const Device& device, bool unary) {
  ACC_CHECK(accepts(kind, in, unary), DTypeError, "{} is not defined for {} tensors (on {}){}", name, dtype_name(in),
            device.str(), in == DType::boolean ? "; convert with astype" : "");
  // NumPy's: true division of integers gives float64; the other float functions give the smallest float
  // that holds the integer type (float16 for int8, float32 for int16, float64 for int32 ...).
  if (kind == ElementwiseKind::floating && !is_floating(in)) return name == "divide" ? DType::f64 : float_result_dtype(in);
  if (kind == ElementwiseKind::logical) return DType::boolean;
  return in;
}

DType result_dtype(ElementwiseKind kind, DType compute) { return returns_bool(kind) ? DType::boolean : compute; }

Tensor unary(const OpSchema<UnaryKernel>& op, ElementwiseKind kind, const Tensor& x) {
  check_defined(x, op.name, "the operand");
  if (is_complex(x.dtype()) && kind != ElementwiseKind::logical) return complex_unary_function(op.name, x);
  const DType dtype = compute_dtype(kind, x.dtype(), op.name, x.device(), true);
  const DType computed = kernel_dtype(op.name, x.device(), dtype);
  const auto kernel = kernel_for(op, x.device(), computed);
  Tensor out = Tensor::empty(x.shape(), result_dtype(kind, computed), x.device());
  if (x.numel() > 0) kernel(cast_to(x, computed), out);
  return cast_to(out, result_dtype(kind, dtype));
}

Tensor binary(const OpSchema<BinaryKernel>& op, ElementwiseKind kind, const Tensor& a, const Tensor& b) {
  check_defined(a, op.name, "the first operand");
  check_defined(b, op.name, "the second operand");
  check_same_device(a, b, op.name);
  const DType promoted = promote_types(a.dtype(), b.dtype());
  if (is_complex(promoted) && kind != ElementwiseKind::logical) return complex_binary_function(op.name, a, b, promoted);
  const DType dtype = compute_dtype(kind, promoted, op.name, a.device(), false);
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  const DType computed = kernel_dtype(op.name, a.device(), dtype);
  const auto kernel = kernel_for(op, a.device(), computed);
  Tensor out = Tensor::empty(shape, result_dtype(kind, computed), a.device());
  if (shape.numel() > 0) {
    kernel(cast_to(a, computed).broadcast_to(shape), cast_to(b, computed).broadcast_to(shape), out);
  }
  return cast_to(out, result_dtype(kind, dtype));
}

}  // namespace

#define ACC_DEFINE_UNARY(name, kind, expression) \
  Tensor name(const Tensor& x) { return unary(op::name, ElementwiseKind::kind, x); }
#define ACC_DEFINE_BINARY(name, kind, expression) \
  Tensor name(const Tensor& a, const Tensor& b) { return binary(op::name, ElementwiseKind::kind, a, b); }
ACC_UNARY_FUNCTIONS(ACC_DEFINE_UNARY)
ACC_BINARY_FUNCTIONS(ACC_DEFINE_BINARY)

}  // namespace accelera
