// sum, prod, mean, max and min over axes, with NumPy's result dtypes and keepdims.
#include <algorithm>
#include <limits>

#include "ops/reduce.hpp"

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

bool is_extremum(const OpSchema<ReduceKernel>& op) { return &op == &op::max || &op == &op::min; }

DType result_dtype(const OpSchema<ReduceKernel>& op, DType in) {
  if (&op == &op::sum || &op == &op::prod) {
    return accumulation_dtype(in);  // as NumPy
  }
  if (&op == &op::mean) return (in == DType::boolean || is_integral(in)) ? DType::f64 : in;
  return in;
}

Tensor reduce(const OpSchema<ReduceKernel>& op, const Tensor& x, const Axes& axes, bool keepdims) {
  const auto name = op.name;
  check_defined(x, name, "the operand");
  const auto axis_list = normalize_axes(axes, x.ndim(), name);
  ACC_CHECK(!is_extremum(op) || x.dtype() != DType::boolean, DTypeError,
            "{} is not defined for bool tensors (use all/any, or convert with astype)", name);
  const DType result = result_dtype(op, x.dtype());
  const bool accumulates = &op == &op::sum || &op == &op::prod;
  const DType dtype = kernel_dtype(op.name, x.device(), accumulates ? accumulation_kernel_dtype(result) : result);
  // A device whose sum (prod) kernel reads an integer dtype itself accumulates it into the int64 output
  // without a widened copy; the others read int64 (Note [Integer accumulation]).
  const auto registered = detail::registered_dtypes(op.name, x.device().kind);
  const bool reads_own = accumulates && is_integral(x.dtype()) && registered && registered->contains(x.dtype());
  const auto kernel = kernel_for(op, x.device(), reads_own ? x.dtype() : dtype);
  std::vector<std::int64_t> kept_dims = x.shape().dims();
  std::int64_t count = 1;
  for (auto a : axis_list) {
    count *= x.shape()[a];
    kept_dims[static_cast<std::size_t>(a)] = 1;
  }
  const Shape kept_shape(kept_dims);
  ACC_CHECK(!is_extremum(op) || count > 0 || kept_shape.numel() == 0, ValueError,
            "{} of an empty selection has no identity (reduced axes of {} have no elements)", name, x.shape().str());
  Tensor out = Tensor::empty(kept_shape, dtype, x.device());
  if (count == 0) {
    // Nothing to reduce (kernels never see an empty operand): the sum is 0, the product 1, the mean nan,
    // as in NumPy.
    fill_tensor(out, &op == &op::mean   ? std::numeric_limits<double>::quiet_NaN()
                     : &op == &op::prod ? 1.0
                                        : 0.0);
  } else if (kept_shape.numel() > 0) {
    kernel(reads_own ? x : cast_to(x, dtype), axis_list, out);
  }
  out = cast_to(out, result);
  if (keepdims) return out;
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < x.ndim(); ++i) {
    if (!std::ranges::binary_search(axis_list, i)) dims.push_back(x.shape()[i]);
  }
  return out.reshape(dims);
}

}  // namespace

Tensor sum(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::sum, x, axes, keepdims); }
Tensor mean(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::mean, x, axes, keepdims); }
Tensor max(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::max, x, axes, keepdims); }
Tensor min(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::min, x, axes, keepdims); }
Tensor prod(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::prod, x, axes, keepdims); }

}  // namespace accelera
