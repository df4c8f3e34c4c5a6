// The ops, taking Tensors; array-likes and Python scalars are converted by the Python package.
// The GIL is released while kernels run so that other Python threads keep going.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

namespace {

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
  m.def("var", &var, nb::arg("x"), nb::arg("axes").none() = nb::none(), nb::arg("correction") = 0.0,
        nb::arg("keepdims") = false, nb::call_guard<ReleaseGil>());
  m.def("std", &stddev, nb::arg("x"), nb::arg("axes").none() = nb::none(), nb::arg("correction") = 0.0,
        nb::arg("keepdims") = false, nb::call_guard<ReleaseGil>());
}

}  // namespace accelera::python
