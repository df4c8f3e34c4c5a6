#pragma once
// Note [Complex element-wise functions]
// Complex64 and complex128 tensors take the element-wise functions the array API standard defines for
// them. Those that act on the two parts separately run through the real view (Tensor::view_as_real) and
// the real kernels, on every backend: add, subtract, negative, positive, conj, real, imag, round. The
// others need complex arithmetic and have their own kernels, one per backend, selected by function:
//   complex results   exp, log, sqrt, the trigonometric and hyperbolic functions and their inverses,
//                     expm1, log1p, log2, log10, reciprocal, square, sign, multiply, divide, pow
//   real results      abs (in the real dtype of the input)
//   bool results      isnan, isinf, isfinite, equal, not_equal
// Special values follow C99's Annex G, which is what the standard specifies (branch cuts included).
#include <cstdint>
#include <string_view>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

// X(name) for the unary functions with complex results.
#define ACC_COMPLEX_UNARY_FUNCTIONS(X)                                                                   \
  X(exp) X(log) X(sqrt) X(sin) X(cos) X(tan) X(sinh) X(cosh) X(tanh) X(asin) X(acos) X(atan) X(asinh) \
  X(acosh) X(atanh) X(expm1) X(log1p) X(log2) X(log10) X(reciprocal) X(square) X(sign)
// X(name) for the unary functions with real or bool results.
#define ACC_COMPLEX_PROJECTIONS(X) X(abs) X(isnan) X(isinf) X(isfinite)
// X(name) for the binary functions.
#define ACC_COMPLEX_BINARY_FUNCTIONS(X) X(multiply) X(divide) X(pow) X(equal) X(not_equal)

namespace accelera {

enum class ComplexUnary : std::uint8_t {
#define ACC_COMPLEX_ENUM(name) name,
  ACC_COMPLEX_UNARY_FUNCTIONS(ACC_COMPLEX_ENUM) ACC_COMPLEX_PROJECTIONS(ACC_COMPLEX_ENUM)
#undef ACC_COMPLEX_ENUM
};
enum class ComplexBinary : std::uint8_t {
#define ACC_COMPLEX_ENUM(name) name,
  ACC_COMPLEX_BINARY_FUNCTIONS(ACC_COMPLEX_ENUM)
#undef ACC_COMPLEX_ENUM
};

// The dtype a complex function gives for the complex dtype `in`.
constexpr DType complex_result_dtype(ComplexUnary fn, DType in) {
  switch (fn) {
    case ComplexUnary::abs: return in == DType::c64 ? DType::f32 : DType::f64;
    case ComplexUnary::isnan:
    case ComplexUnary::isinf:
    case ComplexUnary::isfinite: return DType::boolean;
    default: return in;
  }
}
constexpr DType complex_result_dtype(ComplexBinary fn, DType in) {
  return fn == ComplexBinary::equal || fn == ComplexBinary::not_equal ? DType::boolean : in;
}

// out = fn(x): x complex, out of complex_result_dtype's dtype, one shape, any strides.
using ComplexUnaryKernel = void(ComplexUnary fn, const Tensor& x, const Tensor& out);
// out = fn(a, b): a and b of one complex dtype, broadcast to out's shape by stride-0 views.
using ComplexBinaryKernel = void(ComplexBinary fn, const Tensor& a, const Tensor& b, const Tensor& out);

namespace ops_detail {
// The element-wise function `name` of a complex x; DTypeError for one the standard leaves undefined.
Tensor complex_unary_function(std::string_view name, const Tensor& x);
// The binary function `name` of a and b computed in the complex dtype `dtype` (their promotion).
Tensor complex_binary_function(std::string_view name, const Tensor& a, const Tensor& b, DType dtype);
}  // namespace ops_detail

namespace op {
inline constexpr OpSchema<ComplexUnaryKernel> complex_unary{"complex_unary"};
inline constexpr OpSchema<ComplexBinaryKernel> complex_binary{"complex_binary"};
}  // namespace op

}  // namespace accelera
