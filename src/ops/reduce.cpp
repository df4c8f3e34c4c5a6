// sum, mean and max over axes, with NumPy's result dtypes and keepdims.
#include <algorithm>

#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

std::vector<std::int64_t> normalize_axes(const Axes& axes, std::int64_t ndim, std::string_view op) {
  std::vector<std::int64_t> out;
  if (!axes) {
    for (std::int64_t i = 0; i < ndim; ++i) out.push_back(i);
    return out;
  }
  for (auto a : *axes) out.push_back(normalize_axis(a, ndim));
  std::ranges::sort(out);
  ACC_CHECK(std::ranges::adjacent_find(out) == out.end(), ValueError, "{}: duplicate axis in ({})", op,
            fmt::join(*axes, ", "));
  return out;
}

DType result_dtype(ReduceOp op, DType in) {
  switch (op) {
    case ReduceOp::sum:  // NumPy sums bool and int32 as int64
      return (in == DType::boolean || in == DType::i32) ? DType::i64 : in;
    case ReduceOp::mean:
      return (in == DType::boolean || is_integral(in)) ? DType::f64 : in;
    case ReduceOp::max:
      return in;
  }
  return in;
}

Tensor reduce(ReduceOp op, const Tensor& x, const Axes& axes, bool keepdims) {
  const auto name = reduce_op_name(op);
  check_defined(x, name, "the operand");
  const auto axis_list = normalize_axes(axes, x.ndim(), name);
  const DType dtype = result_dtype(op, x.dtype());
  check_computed(dtype, name, x.device());
  std::vector<std::int64_t> kept_dims = x.shape().dims();
  std::int64_t count = 1;
  for (auto a : axis_list) {
    count *= x.shape()[a];
    kept_dims[static_cast<std::size_t>(a)] = 1;
  }
  const Shape kept_shape(kept_dims);
  ACC_CHECK(op != ReduceOp::max || count > 0 || kept_shape.numel() == 0, ValueError,
            "max of an empty selection has no identity (reduced axes of {} have no elements)", x.shape().str());
  Tensor out = Tensor::empty(kept_shape, dtype, x.device());
  if (kept_shape.numel() > 0) backend_for(x.device()).reduce(op, cast_to(x, dtype), axis_list, out);
  if (keepdims) return out;
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < x.ndim(); ++i) {
    if (!std::ranges::binary_search(axis_list, i)) dims.push_back(x.shape()[i]);
  }
  return out.reshape(dims);
}

}  // namespace

Tensor sum(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(ReduceOp::sum, x, axes, keepdims); }
Tensor mean(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(ReduceOp::mean, x, axes, keepdims); }
Tensor max(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(ReduceOp::max, x, axes, keepdims); }

}  // namespace accelera
