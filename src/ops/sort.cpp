// sort, argsort and searchsorted (Note [Sort keys] in ops/sort.hpp): the sorted axis is moved last and made
// contiguous, so every backend sorts the rows of a (rows, n) matrix.
#include "ops/sort.hpp"

#include <vector>

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

namespace {

std::int64_t sort_axis(const Tensor& x, std::int64_t axis, const char* op) {
  const std::int64_t ndim = x.ndim();
  ACC_CHECK(ndim > 0, ValueError, "{}: x is 0-dimensional; sorting needs an axis", op);
  ACC_CHECK(axis >= -ndim && axis < ndim, ValueError, "{}: axis {} is out of range for {} dimensions", op, axis,
            ndim);
  return axis < 0 ? axis + ndim : axis;
}

// The order that moves `axis` last (and, applied to the result's axes, back again).
std::vector<std::int64_t> axis_last_order(std::int64_t ndim, std::int64_t axis) {
  std::vector<std::int64_t> order;
  for (std::int64_t d = 0; d < ndim; ++d)
    if (d != axis) order.push_back(d);
  order.push_back(axis);
  return order;
}

std::vector<std::int64_t> inverse_order(const std::vector<std::int64_t>& order) {
  std::vector<std::int64_t> inverse(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) inverse[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  return inverse;
}

// Sorts x along axis; returns the sorted values (when want_values) or the int64 positions.
Tensor sort_along(const Tensor& x, std::int64_t axis, bool descending, bool want_values, const char* op) {
  ops_detail::check_defined(x, op, "x");
  ACC_CHECK(!is_complex(x.dtype()), DTypeError, "{} is not defined for {} tensors (complex numbers are not ordered)",
            op, dtype_name(x.dtype()));
  const std::int64_t a = sort_axis(x, axis, op);
  const auto kernel = kernel_for(op::sort, x.device(), x.dtype());
  const DType out_dtype = want_values ? x.dtype() : DType::i64;
  if (x.numel() == 0) return Tensor::empty(x.shape(), out_dtype, x.device());
  const bool last = a == x.ndim() - 1;
  const std::vector<std::int64_t> order = axis_last_order(x.ndim(), a);
  const Tensor rows_view = last ? x.contiguous() : x.permute(order).contiguous();
  const std::int64_t n = x.dim(a);
  const std::int64_t matrix[] = {rows_view.numel() / n, n};
  const Tensor rows = rows_view.reshape(matrix);
  Tensor out = Tensor::empty(Shape(matrix), out_dtype, x.device());
  if (want_values) kernel(rows, out, Tensor(), descending);
  else kernel(rows, Tensor(), out, descending);
  const Tensor shaped = out.reshape(rows_view.shape().dims());
  if (last) return shaped;
  const std::vector<std::int64_t> back = inverse_order(order);
  return shaped.permute(back).contiguous();
}

}  // namespace

Tensor sort(const Tensor& x, std::int64_t axis, bool descending, bool /*stable: always*/) {
  return sort_along(x, axis, descending, true, "sort");
}

Tensor argsort(const Tensor& x, std::int64_t axis, bool descending, bool /*stable: always*/) {
  return sort_along(x, axis, descending, false, "argsort");
}

Tensor searchsorted(const Tensor& x1, const Tensor& x2, bool right, const std::optional<Tensor>& sorter) {
  ops_detail::check_defined(x1, "searchsorted", "x1");
  ops_detail::check_defined(x2, "searchsorted", "x2");
  ops_detail::check_same_device(x1, x2, "searchsorted");
  ACC_CHECK(x1.ndim() == 1, ShapeError, "searchsorted: x1 must be 1-dimensional, got shape {}", x1.shape().str());
  const DType common = promote_types(x1.dtype(), x2.dtype());
  ACC_CHECK(!is_complex(common), DTypeError, "searchsorted is not defined for {} (complex numbers are not ordered)",
            dtype_name(common));
  const auto kernel = kernel_for(op::searchsorted, x1.device(), common);
  Tensor haystack = x1;
  if (sorter) {
    ops_detail::check_defined(*sorter, "searchsorted", "sorter");
    ops_detail::check_same_device(x1, *sorter, "searchsorted");
    ACC_CHECK(is_integral(sorter->dtype()), DTypeError, "searchsorted: sorter must be integers, not {}",
              dtype_name(sorter->dtype()));
    ACC_CHECK(sorter->shape() == x1.shape(), ShapeError, "searchsorted: sorter has shape {}, x1 has {}",
              sorter->shape().str(), x1.shape().str());
    haystack = take(x1, *sorter);
  }
  Tensor out = Tensor::empty(x2.shape(), DType::i64, x1.device());
  if (out.numel() == 0) return out;
  if (x1.numel() == 0) {
    ops_detail::fill_tensor(out, 0.0);
    return out;
  }
  kernel(ops_detail::cast_to(haystack, common).contiguous(), ops_detail::cast_to(x2, common).contiguous(), out, right);
  return out;
}

}  // namespace accelera
