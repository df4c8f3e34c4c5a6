#pragma once
// Note [Element-wise functions]
// Every element-wise function is defined once, here, by one line: its name, its dtype kind and its
// expression over x (and y). Each backend expands the same lists into its kernels (cpu/unary.cpp,
// opencl/unary.cpp + unary.cl, cuda/unary.cu, and the binary twins), so a new function costs one line
// here, one declaration in accelera/ops.hpp, one binding and one row of the op test table.
//
// Expressions are written in a small dialect that C++ (CPU, CUDA) and OpenCL C all compile: the
// arithmetic operators on floating values, integer literals, and the primitives below, which every
// backend implements once for each element type it computes (and, on OpenCL, for float8 vectors):
//   acc_neg, acc_add, acc_sub, acc_mul   integer-safe arithmetic: integers wrap as in NumPy
//   acc_abs                              |x| (the most negative integer stays itself, as in NumPy)
//   acc_exp, acc_log, acc_tanh, acc_sqrt the float functions, with libm's special values
//   acc_max, acc_min                     NumPy's maximum and minimum: a nan operand gives nan
//   acc_relu                             max(x, 0) that propagates nan
//   acc_sin ... acc_atanh, acc_expm1,    the float functions of the same names in libm (OpenCL and CUDA
//   acc_log1p, acc_log2, acc_log10        built-ins), whose special values are the array API standard's
//   acc_floor, acc_ceil, acc_trunc,      rounding to an integral value (round half to even); integers
//   acc_rint                             are returned unchanged
//   acc_sign                             -1, 0 or 1 (nan for nan, +0 for -0, as NumPy)
//   acc_pow                              libm's pow; integers: exponentiation by squaring, wrapping
//   acc_atan2, acc_hypot, acc_copysign,  libm's
//   acc_nextafter
//   acc_logaddexp                        log(exp(x) + exp(y)) without overflow, NumPy's special values
//   acc_floor_divide, acc_remainder      NumPy's: Python's sign convention (the remainder takes the
//                                        divisor's sign); integer division by zero gives 0
//   acc_isnan, acc_isinf, acc_isfinite,  the float classifications (integers are finite and never nan)
//   acc_signbit                          and the sign bit (x < 0 for integers)
//   acc_invert                           ~x for integers, !x for bool
//   acc_shift_left, acc_shift_right      NumPy's shifts: a count past the width (or negative) shifts
//                                        every bit out (the right shift of a negative value gives -1)
// A function's kind says which dtypes it accepts, which it computes in and which it returns:
//   kind        accepts                  computes in                       returns
//   floating    floats, integers (bool   the float; for integers NumPy's:  the compute dtype
//               only for binary ones)    float64 for divide, else the
//                                        smallest float holding the type
//   arithmetic  floats, integers         the (promoted) input dtype        the compute dtype
//   bitwise     integers, bool           the (promoted) input dtype        the compute dtype
//   integral    integers                 the (promoted) input dtype        the compute dtype
//   predicate   floats, integers         the input dtype                   bool
//   comparison  every dtype              the promoted dtype                bool
//   logical     every dtype              bool (inputs converted)           bool
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

// X(name, kind, expression of x)
#define ACC_UNARY_FUNCTIONS(X)         \
  X(negative, arithmetic, acc_neg(x))  \
  X(exp, floating, acc_exp(x))         \
  X(log, floating, acc_log(x))         \
  X(tanh, floating, acc_tanh(x))       \
  X(relu, arithmetic, acc_relu(x))     \
  X(sigmoid, floating, 1 / (1 + acc_exp(-x))) \
  X(abs, arithmetic, acc_abs(x))       \
  X(square, arithmetic, acc_mul(x, x)) \
  X(sqrt, floating, acc_sqrt(x))       \
  X(sin, floating, acc_sin(x))         \
  X(cos, floating, acc_cos(x))         \
  X(tan, floating, acc_tan(x))         \
  X(asin, floating, acc_asin(x))       \
  X(acos, floating, acc_acos(x))       \
  X(atan, floating, acc_atan(x))       \
  X(sinh, floating, acc_sinh(x))       \
  X(cosh, floating, acc_cosh(x))       \
  X(asinh, floating, acc_asinh(x))     \
  X(acosh, floating, acc_acosh(x))     \
  X(atanh, floating, acc_atanh(x))     \
  X(expm1, floating, acc_expm1(x))     \
  X(log1p, floating, acc_log1p(x))     \
  X(log2, floating, acc_log2(x))       \
  X(log10, floating, acc_log10(x))     \
  X(reciprocal, floating, 1 / x)       \
  X(floor, arithmetic, acc_floor(x))   \
  X(ceil, arithmetic, acc_ceil(x))     \
  X(trunc, arithmetic, acc_trunc(x))   \
  X(round, arithmetic, acc_rint(x))    \
  X(sign, arithmetic, acc_sign(x))     \
  X(positive, arithmetic, x)           \
  X(isnan, predicate, acc_isnan(x))    \
  X(isinf, predicate, acc_isinf(x))    \
  X(isfinite, predicate, acc_isfinite(x)) \
  X(signbit, predicate, acc_signbit(x))   \
  X(logical_not, logical, !x)             \
  X(bitwise_invert, bitwise, acc_invert(x))

// X(name, kind, expression of x and y); operands arrive broadcast to the output's shape.
#define ACC_BINARY_FUNCTIONS(X)            \
  X(add, arithmetic, acc_add(x, y))        \
  X(subtract, arithmetic, acc_sub(x, y))   \
  X(multiply, arithmetic, acc_mul(x, y))   \
  X(divide, floating, x / y)               \
  X(maximum, arithmetic, acc_max(x, y))    \
  X(minimum, arithmetic, acc_min(x, y))   \
  X(pow, arithmetic, acc_pow(x, y))       \
  X(atan2, floating, acc_atan2(x, y))     \
  X(hypot, floating, acc_hypot(x, y))     \
  X(logaddexp, floating, acc_logaddexp(x, y)) \
  X(copysign, floating, acc_copysign(x, y))   \
  X(nextafter, floating, acc_nextafter(x, y)) \
  X(remainder, arithmetic, acc_remainder(x, y)) \
  X(floor_divide, arithmetic, acc_floor_divide(x, y)) \
  X(equal, comparison, x == y)            \
  X(not_equal, comparison, x != y)        \
  X(less, comparison, x < y)              \
  X(less_equal, comparison, x <= y)       \
  X(greater, comparison, x > y)           \
  X(greater_equal, comparison, x >= y)    \
  X(logical_and, logical, x && y)         \
  X(logical_or, logical, x || y)          \
  X(logical_xor, logical, x != y)         \
  X(bitwise_and, bitwise, x & y)          \
  X(bitwise_or, bitwise, x | y)           \
  X(bitwise_xor, bitwise, x ^ y)          \
  X(bitwise_left_shift, integral, acc_shift_left(x, y)) \
  X(bitwise_right_shift, integral, acc_shift_right(x, y))

namespace accelera {

enum class ElementwiseKind { floating, arithmetic, bitwise, integral, predicate, comparison, logical };

// Whether functions of `kind` return bool whatever they compute in.
constexpr bool returns_bool(ElementwiseKind kind) {
  return kind == ElementwiseKind::predicate || kind == ElementwiseKind::comparison || kind == ElementwiseKind::logical;
}

// out = f(x); x and out have the same shape, any strides (zero and negative included). x has the compute
// dtype the kernel is registered for; out has it too, or bool where the function's kind returns bool.
using UnaryKernel = void(const Tensor& x, const Tensor& out);
// out = f(a, b); a, b and out have the same shape (a and b broadcast by stride-0 views); a and b have the
// compute dtype, out that dtype or bool.
using BinaryKernel = void(const Tensor& a, const Tensor& b, const Tensor& out);

namespace op {
#define ACC_DECLARE_UNARY(name, kind, expression) inline constexpr OpSchema<UnaryKernel> name{#name};
#define ACC_DECLARE_BINARY(name, kind, expression) inline constexpr OpSchema<BinaryKernel> name{#name};
ACC_UNARY_FUNCTIONS(ACC_DECLARE_UNARY)
ACC_BINARY_FUNCTIONS(ACC_DECLARE_BINARY)
#undef ACC_DECLARE_UNARY
#undef ACC_DECLARE_BINARY
}  // namespace op

// The compute dtypes a backend registers for a kind, given the floating dtypes it computes.
constexpr DTypeSet elementwise_dtypes(ElementwiseKind kind, DTypeSet floating) {
  switch (kind) {
    case ElementwiseKind::floating: return floating;
    case ElementwiseKind::arithmetic:
    case ElementwiseKind::predicate: return floating | dtypes::integers;
    case ElementwiseKind::bitwise: return dtypes::integers | DTypeSet{DType::boolean};
    case ElementwiseKind::integral: return dtypes::integers;
    case ElementwiseKind::comparison: return floating | dtypes::integers | DTypeSet{DType::boolean};
    case ElementwiseKind::logical: return DTypeSet{DType::boolean};
  }
  return {};
}

}  // namespace accelera
