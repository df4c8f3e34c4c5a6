// The ops, taking Tensors; array-likes and Python scalars are converted by the Python package.
// The GIL is released while kernels run so that other Python threads keep going.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

namespace {

// cumulative_sum and cumulative_prod: the dtype arrives as a name (or None).
template <Tensor (*F)(const Tensor&, std::optional<std::int64_t>, std::optional<DType>, bool)>
void def_scan(nb::module_& m, const char* name) {
  m.def(
      name,
      [](const Tensor& x, std::optional<std::int64_t> axis, std::optional<std::string> dtype, bool include_initial) {
        return F(x, axis, dtype ? std::optional<DType>(dtype_from_name(*dtype)) : std::nullopt, include_initial);
      },
      nb::arg("x"), nb::arg("axis").none(), nb::arg("dtype").none(), nb::arg("include_initial"),
      nb::call_guard<ReleaseGil>());
}

template <Tensor (*F)(const Tensor&, const Tensor&)>
void def_binary(nb::module_& m, const char* name) {
  m.def(name, [](const Tensor& a, const Tensor& b) { return F(a, b); }, nb::call_guard<ReleaseGil>());
}

template <Tensor (*F)(const Tensor&)>
void def_unary(nb::module_& m, const char* name) {
  m.def(name, [](const Tensor& x) { return F(x); }, nb::call_guard<ReleaseGil>());
}

template <Tensor (*F)(const Tensor&, const Axes&, bool)>
void def_reduce(nb::module_& m, const char* name) {
  m.def(
      name, [](const Tensor& x, const Axes& axes, bool keepdims) { return F(x, axes, keepdims); },
      nb::arg("x"), nb::arg("axes").none() = nb::none(), nb::arg("keepdims") = false,
      nb::call_guard<ReleaseGil>());
}

}  // namespace

void bind_ops(nb::module_& m) {
  def_binary<&matmul>(m, "matmul");
  def_binary<&add>(m, "add");
  def_binary<&subtract>(m, "subtract");
  def_binary<&multiply>(m, "multiply");
  def_binary<&divide>(m, "divide");
  def_binary<&maximum>(m, "maximum");
  def_binary<&minimum>(m, "minimum");
  def_unary<&neg>(m, "negative");
  def_unary<&exp>(m, "exp");
  def_unary<&log>(m, "log");
  def_unary<&tanh>(m, "tanh");
  def_unary<&relu>(m, "relu");
  def_unary<&sigmoid>(m, "sigmoid");
  def_unary<&accelera::abs>(m, "abs");
  def_unary<&square>(m, "square");
  def_unary<&accelera::sqrt>(m, "sqrt");
  // The array API's element-wise functions (python/accelera/_elementwise.py wraps them).
  def_unary<&accelera::sin>(m, "sin");
  def_unary<&accelera::cos>(m, "cos");
  def_unary<&accelera::tan>(m, "tan");
  def_unary<&accelera::asin>(m, "asin");
  def_unary<&accelera::acos>(m, "acos");
  def_unary<&accelera::atan>(m, "atan");
  def_unary<&accelera::sinh>(m, "sinh");
  def_unary<&accelera::cosh>(m, "cosh");
  def_unary<&accelera::asinh>(m, "asinh");
  def_unary<&accelera::acosh>(m, "acosh");
  def_unary<&accelera::atanh>(m, "atanh");
  def_unary<&accelera::expm1>(m, "expm1");
  def_unary<&accelera::log1p>(m, "log1p");
  def_unary<&accelera::log2>(m, "log2");
  def_unary<&accelera::log10>(m, "log10");
  def_unary<&accelera::reciprocal>(m, "reciprocal");
  def_unary<&accelera::floor>(m, "floor");
  def_unary<&accelera::ceil>(m, "ceil");
  def_unary<&accelera::trunc>(m, "trunc");
  def_unary<&accelera::round>(m, "round");
  def_unary<&accelera::sign>(m, "sign");
  def_unary<&accelera::positive>(m, "positive");
  def_unary<&accelera::real>(m, "real");
  def_unary<&accelera::imag>(m, "imag");
  def_unary<&accelera::conj>(m, "conj");
  def_binary<&accelera::complex_from_parts>(m, "complex_from_parts");
  def_unary<&accelera::isnan>(m, "isnan");
  def_unary<&accelera::isinf>(m, "isinf");
  def_unary<&accelera::isfinite>(m, "isfinite");
  def_unary<&accelera::signbit>(m, "signbit");
  def_unary<&accelera::logical_not>(m, "logical_not");
  def_unary<&accelera::bitwise_invert>(m, "bitwise_invert");
  def_binary<&accelera::pow>(m, "pow");
  def_binary<&accelera::atan2>(m, "atan2");
  def_binary<&accelera::hypot>(m, "hypot");
  def_binary<&accelera::logaddexp>(m, "logaddexp");
  def_binary<&accelera::copysign>(m, "copysign");
  def_binary<&accelera::nextafter>(m, "nextafter");
  def_binary<&accelera::remainder>(m, "remainder");
  def_binary<&accelera::floor_divide>(m, "floor_divide");
  def_binary<&accelera::equal>(m, "equal");
  def_binary<&accelera::not_equal>(m, "not_equal");
  def_binary<&accelera::less>(m, "less");
  def_binary<&accelera::less_equal>(m, "less_equal");
  def_binary<&accelera::greater>(m, "greater");
  def_binary<&accelera::greater_equal>(m, "greater_equal");
  def_binary<&accelera::logical_and>(m, "logical_and");
  def_binary<&accelera::logical_or>(m, "logical_or");
  def_binary<&accelera::logical_xor>(m, "logical_xor");
  def_binary<&accelera::bitwise_and>(m, "bitwise_and");
  def_binary<&accelera::bitwise_or>(m, "bitwise_or");
  def_binary<&accelera::bitwise_xor>(m, "bitwise_xor");
  def_binary<&accelera::bitwise_left_shift>(m, "bitwise_left_shift");
  def_binary<&accelera::bitwise_right_shift>(m, "bitwise_right_shift");
  m.def("where", [](const Tensor& c, const Tensor& a, const Tensor& b) { return where(c, a, b); },
        nb::call_guard<ReleaseGil>());
  def_reduce<&sum>(m, "sum");
  def_reduce<&mean>(m, "mean");
  def_reduce<&max>(m, "max");
  def_reduce<&min>(m, "min");
  def_reduce<&prod>(m, "prod");
  def_reduce<&all>(m, "all");
  def_reduce<&any>(m, "any");
  def_reduce<&count_nonzero>(m, "count_nonzero");
  m.def("argmax", &argmax, nb::arg("x"), nb::arg("axis").none() = nb::none(), nb::arg("keepdims") = false,
        nb::call_guard<ReleaseGil>());
  m.def("argmin", &argmin, nb::arg("x"), nb::arg("axis").none() = nb::none(), nb::arg("keepdims") = false,
        nb::call_guard<ReleaseGil>());
  def_scan<&cumulative_sum>(m, "cumulative_sum");
  def_scan<&cumulative_prod>(m, "cumulative_prod");
  m.def("nonzero", &nonzero, nb::arg("x"), nb::call_guard<ReleaseGil>());
  m.def("flat_nonzero", &flat_nonzero, nb::arg("x"), nb::call_guard<ReleaseGil>());
  m.def("masked_select", &masked_select, nb::arg("x"), nb::arg("mask"), nb::call_guard<ReleaseGil>());
  m.def("var", &var, nb::arg("x"), nb::arg("axes").none() = nb::none(), nb::arg("correction") = 0.0,
        nb::arg("keepdims") = false, nb::call_guard<ReleaseGil>());
  m.def("std", &stddev, nb::arg("x"), nb::arg("axes").none() = nb::none(), nb::arg("correction") = 0.0,
        nb::arg("keepdims") = false, nb::call_guard<ReleaseGil>());
}

}  // namespace accelera::python
