// sum, prod, mean, max and min over axes, with NumPy's result dtypes and keepdims.
#include <algorithm>
#include <complex>
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

Tensor reduce(const OpSchema<ReduceKernel>& op, const Tensor& x, const Axes& axes, bool keepdims);

// A complex product by pairwise halving: the reduced axes are moved last and flattened, then the first half
// of every row is multiplied by the second half (an odd last element into the first) until one remains:
// log2(count) element-wise passes over a shrinking tensor, O(numel) work, on any device with the complex
// multiply kernel.
Tensor complex_product(const Tensor& x, const std::vector<std::int64_t>& axis_list, bool keepdims) {
  std::vector<std::int64_t> order, kept_dims, out_dims;
  std::int64_t count = 1;
  for (std::int64_t d = 0; d < x.ndim(); ++d) {
    if (std::ranges::binary_search(axis_list, d)) {
      count *= x.dim(d);
      if (keepdims) out_dims.push_back(1);
    } else {
      order.push_back(d);
      kept_dims.push_back(x.dim(d));
      out_dims.push_back(x.dim(d));
    }
  }
  for (auto a : axis_list) order.push_back(a);
  if (count == 0) return full(Shape(out_dims), std::complex<double>(1.0, 0.0), x.dtype(), x.device());
  std::vector<std::int64_t> rows = kept_dims;
  rows.push_back(count);
  Tensor t = x.permute(order).reshape(rows);
  while (count > 1) {
    const std::int64_t half = count / 2;
    Tensor next = multiply(t.slice(-1, 0, half), t.slice(-1, half, 2 * half));
    if (count % 2 == 1) {
      const Tensor first = next.slice(-1, 0, 1);
      copy_into(multiply(first, t.slice(-1, count - 1, count)), first);
    }
    t = next;
    count = half;
  }
  return t.reshape(out_dims);
}

// A complex sum or mean is the real one of both parts: the real view reduced over x's axes, its trailing
// axis of two kept.
Tensor reduce_complex(const OpSchema<ReduceKernel>& op, const Tensor& x, const std::vector<std::int64_t>& axis_list,
                      bool keepdims) {
  ACC_CHECK(!is_extremum(op), DTypeError, "{} is not defined for {} tensors (complex numbers are not ordered)",
            op.name, dtype_name(x.dtype()));
  if (&op == &op::prod) return complex_product(x, axis_list, keepdims);
  if (static_cast<std::int64_t>(axis_list.size()) == x.ndim() && x.is_contiguous() && x.numel() > 0 &&
      x.device().is_cpu()) {
    // Everything reduced, on the CPU: the pairs as rows of up to 64 elements (128 reals), reduced down their
    // columns (which the kernel vectorises) and then across, rather than down two long columns: 0.86 ms
    // instead of 12 ms for 4 Mi complex64 (bench_array.py --only complex). OpenCL's kernel does the
    // opposite (4.2 ms for the two columns, 13 ms this way), so other devices keep the plain reduction.
    std::int64_t width = 64;
    while (x.numel() % width != 0) width /= 2;
    const std::int64_t rows[] = {x.numel() / width, 2 * width};
    const std::int64_t pairs[] = {width, 2};
    const Tensor partial = sum(x.view_as_real().reshape(rows), std::vector<std::int64_t>{0});
    Tensor total = sum(partial.reshape(pairs), std::vector<std::int64_t>{0});
    if (&op == &op::mean) total = divide(total, full(Shape{}, static_cast<double>(x.numel()), total.dtype(), x.device()));
    std::vector<std::int64_t> dims(keepdims ? static_cast<std::size_t>(x.ndim()) : 0, 1);
    dims.push_back(2);
    return total.reshape(dims).view_as_complex();
  }
  return reduce(op, x.view_as_real(), axis_list, keepdims).contiguous().view_as_complex();
}

Tensor reduce(const OpSchema<ReduceKernel>& op, const Tensor& x, const Axes& axes, bool keepdims) {
  const auto name = op.name;
  check_defined(x, name, "the operand");
  const auto axis_list = normalize_axes(axes, x.ndim(), name);
  if (is_complex(x.dtype())) return reduce_complex(op, x, axis_list, keepdims);
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

Tensor sum_squared_deviations(const Tensor& x, const Tensor& center, const Axes& axes) {
  check_defined(x, "sum_squared_deviations", "the operand");
  const auto axis_list = normalize_axes(axes, x.ndim(), "sum_squared_deviations");
  std::vector<std::int64_t> kept_dims = x.shape().dims();
  for (auto a : axis_list) kept_dims[static_cast<std::size_t>(a)] = 1;
  const Shape kept_shape(kept_dims);
  ACC_CHECK(center.defined() && center.shape() == kept_shape && center.dtype() == x.dtype() &&
                center.device() == x.device(),
            ValueError, "sum_squared_deviations: the center must be a {} tensor of shape {} on {}",
            dtype_name(x.dtype()), kept_shape.str(), x.device().str());
  ACC_CHECK(x.numel() > 0, ValueError, "sum_squared_deviations: the operand has no elements");
  const auto kernel = kernel_for(op::sum_squared_deviations, x.device(), x.dtype());
  Tensor out = Tensor::empty(kept_shape, x.dtype(), x.device());
  kernel(x, center.contiguous(), axis_list, out);
  return out;
}

Tensor sum(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::sum, x, axes, keepdims); }
Tensor mean(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::mean, x, axes, keepdims); }
Tensor max(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::max, x, axes, keepdims); }
Tensor min(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::min, x, axes, keepdims); }
Tensor prod(const Tensor& x, const Axes& axes, bool keepdims) { return reduce(op::prod, x, axes, keepdims); }

}  // namespace accelera
