// The element-wise functions on complex tensors (Note [Complex element-wise functions]): the ones that
// act on each part through the real view and the real kernels, the others through the complex kernels.
#include "ops/complex_elementwise.hpp"

#include <optional>
#include <string_view>

#include "accelera/op_table.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"
#include "ops/elementwise.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

std::optional<ComplexUnary> complex_unary_of(std::string_view name) {
#define ACC_COMPLEX_MATCH(fn) \
  if (name == #fn) return ComplexUnary::fn;
  ACC_COMPLEX_UNARY_FUNCTIONS(ACC_COMPLEX_MATCH)
  ACC_COMPLEX_PROJECTIONS(ACC_COMPLEX_MATCH)
#undef ACC_COMPLEX_MATCH
  return std::nullopt;
}

std::optional<ComplexBinary> complex_binary_of(std::string_view name) {
#define ACC_COMPLEX_MATCH(fn) \
  if (name == #fn) return ComplexBinary::fn;
  ACC_COMPLEX_BINARY_FUNCTIONS(ACC_COMPLEX_MATCH)
#undef ACC_COMPLEX_MATCH
  return std::nullopt;
}

[[noreturn]] void undefined_for_complex(std::string_view name, DType dtype) {
  throw DTypeError(fmt::format("{} is not defined for {} tensors", name, dtype_name(dtype)));
}

// The kernel of a complex function on x's device, or NotSupportedError naming the function (not the
// table's internal op).
template <typename Fn>
KernelCall<Fn> complex_kernel(const OpSchema<Fn>& schema, std::string_view name, const Device& device, DType dtype) {
  ACC_CHECK(supports(device, schema.name, dtype), NotSupportedError, "{} of {} tensors is not implemented on {}",
            name, dtype_name(dtype), device.str());
  return kernel_for(schema, device, dtype);
}

// A real kernel applied to both parts: out's real view = f(x's real view).
void on_parts(const OpSchema<UnaryKernel>& real_op, const Tensor& x, const Tensor& out) {
  const Tensor parts = x.view_as_real();
  kernel_for(real_op, x.device(), parts.dtype())(parts, out.view_as_real());
}

}  // namespace

namespace ops_detail {

Tensor complex_unary_function(std::string_view name, const Tensor& x) {
  Tensor out;
  if (name == "negative" || name == "round" || name == "positive") {
    out = Tensor::empty(x.shape(), x.dtype(), x.device());
    if (x.numel() == 0) return out;
    if (name == "positive") {
      copy_into(x, out);
    } else {
      on_parts(name == "negative" ? op::negative : op::round, x, out);
    }
    return out;
  }
  const auto fn = complex_unary_of(name);
  if (!fn) undefined_for_complex(name, x.dtype());
  const auto kernel = complex_kernel(op::complex_unary, name, x.device(), x.dtype());
  out = Tensor::empty(x.shape(), complex_result_dtype(*fn, x.dtype()), x.device());
  if (x.numel() > 0) kernel(*fn, x, out);
  return out;
}

Tensor complex_binary_function(std::string_view name, const Tensor& a, const Tensor& b, DType dtype) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  const Tensor x = cast_to(a, dtype).broadcast_to(shape);
  const Tensor y = cast_to(b, dtype).broadcast_to(shape);
  if (name == "add" || name == "subtract") {
    const auto kernel = kernel_for(name == "add" ? op::add : op::subtract, a.device(), real_dtype(dtype));
    Tensor out = Tensor::empty(shape, dtype, a.device());
    if (shape.numel() > 0) kernel(x.view_as_real(), y.view_as_real(), out.view_as_real());
    return out;
  }
  const auto fn = complex_binary_of(name);
  if (!fn) undefined_for_complex(name, dtype);
  const auto kernel = complex_kernel(op::complex_binary, name, a.device(), dtype);
  Tensor out = Tensor::empty(shape, complex_result_dtype(*fn, dtype), a.device());
  if (shape.numel() > 0) kernel(*fn, x, y, out);
  return out;
}

}  // namespace ops_detail

Tensor real(const Tensor& x) {
  check_defined(x, "real", "the operand");
  if (!is_complex(x.dtype())) return x.clone();
  return x.view_as_real().select(-1, 0).clone();
}

Tensor imag(const Tensor& x) {
  check_defined(x, "imag", "the operand");
  if (!is_complex(x.dtype())) return zeros(x.shape(), x.dtype(), x.device());
  return x.view_as_real().select(-1, 1).clone();
}

Tensor conj(const Tensor& x) {
  check_defined(x, "conj", "the operand");
  if (!is_complex(x.dtype())) return x.clone();
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() == 0) return out;
  const Tensor in = x.view_as_real(), parts = out.view_as_real();
  copy_into(in.select(-1, 0), parts.select(-1, 0));
  kernel_for(op::negative, x.device(), in.dtype())(in.select(-1, 1), parts.select(-1, 1));
  return out;
}

Tensor complex_from_parts(const Tensor& real_part, const Tensor& imag_part) {
  check_defined(real_part, "complex_from_parts", "the real part");
  check_defined(imag_part, "complex_from_parts", "the imaginary part");
  check_same_device(real_part, imag_part, "complex_from_parts");
  const DType in = promote_types(real_part.dtype(), imag_part.dtype());
  ACC_CHECK(is_floating(in), DTypeError, "complex_from_parts needs real floating parts, not {} and {}",
            dtype_name(real_part.dtype()), dtype_name(imag_part.dtype()));
  const Shape shape = broadcast_shapes(real_part.shape(), imag_part.shape());
  Tensor out = Tensor::empty(shape, complex_dtype(in), real_part.device());
  const Tensor parts = out.view_as_real();
  copy_into(real_part, parts.select(-1, 0));
  copy_into(imag_part, parts.select(-1, 1));
  return out;
}

}  // namespace accelera
