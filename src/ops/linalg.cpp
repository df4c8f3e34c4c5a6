// tensordot, vecdot and the linalg functions built only from other ops (norms, powers, diagonals, products):
// they run on the inputs' device on every backend.
#include <algorithm>
#include <cmath>

#include "accelera/core/error.hpp"
#include "accelera/linalg.hpp"
#include "ops/common.hpp"
#include "ops/linalg_common.hpp"
#include "ops/linalg_kernels.hpp"

namespace accelera {

using namespace linalg_detail;

namespace {

std::int64_t normalized(std::int64_t axis, std::int64_t ndim, const char* op) {
  ACC_CHECK(axis >= -ndim && axis < ndim, ValueError, "{}: axis {} is out of range for {} dimensions", op, axis, ndim);
  return axis < 0 ? axis + ndim : axis;
}

}  // namespace

Tensor tensordot(const Tensor& a, const Tensor& b, std::int64_t axes) {
  ops_detail::check_defined(a, "tensordot", "a");
  ops_detail::check_defined(b, "tensordot", "b");
  ACC_CHECK(axes >= 0 && axes <= a.ndim() && axes <= b.ndim(), ValueError,
            "tensordot: axes = {} needs 0 <= axes <= the operands' dimensions ({} and {})", axes, a.ndim(), b.ndim());
  std::vector<std::int64_t> axes_a, axes_b;
  for (std::int64_t i = 0; i < axes; ++i) {
    axes_a.push_back(a.ndim() - axes + i);
    axes_b.push_back(i);
  }
  return tensordot(a, b, axes_a, axes_b);
}

// Contracted axes move to the end of a and the front of b; both become matrices and one matmul does the rest.
Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<std::int64_t>& axes_a,
                 const std::vector<std::int64_t>& axes_b) {
  ops_detail::check_defined(a, "tensordot", "a");
  ops_detail::check_defined(b, "tensordot", "b");
  ops_detail::check_same_device(a, b, "tensordot");
  ACC_CHECK(axes_a.size() == axes_b.size(), ValueError, "tensordot: {} axes of a paired with {} axes of b",
            axes_a.size(), axes_b.size());
  std::vector<bool> contracted_a(static_cast<std::size_t>(a.ndim())), contracted_b(static_cast<std::size_t>(b.ndim()));
  std::vector<std::int64_t> perm_a, perm_b, out_dims;
  std::int64_t k = 1;
  for (std::size_t i = 0; i < axes_a.size(); ++i) {
    const std::int64_t x = normalized(axes_a[i], a.ndim(), "tensordot"), y = normalized(axes_b[i], b.ndim(), "tensordot");
    ACC_CHECK(!contracted_a[x] && !contracted_b[y], ValueError, "tensordot: an axis is contracted twice");
    ACC_CHECK(a.dim(x) == b.dim(y), ShapeError, "tensordot: axis {} of a (extent {}) and axis {} of b (extent {}) differ",
              x, a.dim(x), y, b.dim(y));
    contracted_a[x] = contracted_b[y] = true;
    k *= a.dim(x);
  }
  std::int64_t m = 1, n = 1;
  for (std::int64_t d = 0; d < a.ndim(); ++d) {
    if (!contracted_a[d]) perm_a.push_back(d), out_dims.push_back(a.dim(d)), m *= a.dim(d);
  }
  for (std::size_t i = 0; i < axes_a.size(); ++i) perm_a.push_back(normalized(axes_a[i], a.ndim(), "tensordot"));
  for (std::size_t i = 0; i < axes_b.size(); ++i) perm_b.push_back(normalized(axes_b[i], b.ndim(), "tensordot"));
  for (std::int64_t d = 0; d < b.ndim(); ++d) {
    if (!contracted_b[d]) perm_b.push_back(d), out_dims.push_back(b.dim(d)), n *= b.dim(d);
  }
  const std::int64_t shape_a[] = {m, k}, shape_b[] = {k, n};
  const Tensor product = matmul(a.permute(perm_a).reshape(shape_a), b.permute(perm_b).reshape(shape_b));
  return product.reshape(out_dims);
}

// A multiply and a sum: measured faster than a batched matmul of (..., 1, n) by (..., n, 1), which runs one
// BLAS call per vector on the CPU (bench/bench_linalg.py).
Tensor vecdot(const Tensor& a, const Tensor& b, std::int64_t axis) {
  ops_detail::check_defined(a, "vecdot", "a");
  ops_detail::check_defined(b, "vecdot", "b");
  ACC_CHECK(a.ndim() >= 1 && b.ndim() >= 1, ShapeError, "vecdot: needs at least one axis, got shapes {} and {}",
            a.shape().str(), b.shape().str());
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  const std::int64_t ax = normalized(axis, shape.ndim(), "vecdot");
  ACC_CHECK(axis < 0 ? (-axis <= a.ndim() && -axis <= b.ndim()) : true, ValueError,
            "vecdot: axis {} is not an axis of both operands (shapes {} and {})", axis, a.shape().str(), b.shape().str());
  const std::int64_t from_end = shape.ndim() - ax;
  ACC_CHECK(a.dim(-from_end) == b.dim(-from_end), ShapeError,
            "vecdot: the operands' extents along axis {} differ ({} and {})", axis, a.dim(-from_end), b.dim(-from_end));
  // The standard's vecdot conjugates the first operand (conj is a copy for real dtypes, so skip it there).
  ACC_CHECK(a.dtype() != DType::boolean && b.dtype() != DType::boolean, DTypeError,
            "vecdot: needs numeric tensors, not bool (convert with astype)");
  const DType common = promote_types(a.dtype(), b.dtype());
  const auto fused = detail::registered_dtypes(op::vecdot_rows.name, a.device().kind);
  if (fused && fused->contains(common) && shape[ax] > 0) {
    ops_detail::check_same_device(a, b, "vecdot");
    // The vector axis moved last on both operands (views), then one pass over them.
    std::vector<std::int64_t> order, kept;
    for (std::int64_t d = 0; d < shape.ndim(); ++d) {
      if (d != ax) order.push_back(d), kept.push_back(shape[d]);
    }
    order.push_back(ax);
    const Tensor rows_a = ops_detail::cast_to(a, common).broadcast_to(shape).permute(order);
    const Tensor rows_b = ops_detail::cast_to(b, common).broadcast_to(shape).permute(order);
    Tensor out = Tensor::empty(Shape(kept), common, a.device());
    if (out.numel() > 0) kernel_for(op::vecdot_rows, a.device(), common)(rows_a, rows_b, out);
    return out;
  }
  const bool complex = is_complex(common);
  const Tensor products = multiply(complex ? conj(a) : a, b);
  // sum widens small integers and bool to int64; the standard's vecdot keeps the operands' promoted dtype
  // (NumPy's too: integers wrap).
  return ops_detail::cast_to(sum(products, std::vector<std::int64_t>{ax}), products.dtype());
}

namespace linalg {

Tensor diagonal(const Tensor& x, std::int64_t offset) {
  ops_detail::check_defined(x, "diagonal", "x");
  ACC_CHECK(x.ndim() >= 2, ShapeError, "diagonal: needs matrices (at least two axes), got shape {}", x.shape().str());
  const std::int64_t rows = x.dim(-2), cols = x.dim(-1);
  const std::int64_t first_row = offset < 0 ? std::min(-offset, rows) : 0;
  const std::int64_t first_col = offset > 0 ? std::min(offset, cols) : 0;
  const std::int64_t count = std::max<std::int64_t>(0, std::min(rows - first_row, cols - first_col));
  // The matrices flattened (a view when their layout allows, else a copy) and stepped by cols + 1.
  std::vector<std::int64_t> flat = batch_shape(x.shape()).dims();
  flat.push_back(rows * cols);
  const std::int64_t start = first_row * cols + first_col;
  return x.reshape(flat).slice(-1, start, count == 0 ? start : start + (count - 1) * (cols + 1) + 1, cols + 1);
}

Tensor trace(const Tensor& x, std::int64_t offset) {
  return sum(diagonal(x, offset), std::vector<std::int64_t>{-1});
}

Tensor outer(const Tensor& a, const Tensor& b) {
  ops_detail::check_defined(a, "outer", "a");
  ops_detail::check_defined(b, "outer", "b");
  ACC_CHECK(a.ndim() == 1 && b.ndim() == 1, ShapeError, "outer: needs two vectors, got shapes {} and {}",
            a.shape().str(), b.shape().str());
  return multiply(a.unsqueeze(1), b.unsqueeze(0));
}

Tensor cross(const Tensor& a, const Tensor& b, std::int64_t axis) {
  ops_detail::check_defined(a, "cross", "a");
  ops_detail::check_defined(b, "cross", "b");
  ACC_CHECK(axis < 0, ValueError, "cross: axis must be negative (counted from the end, as the standard says), got {}",
            axis);
  ACC_CHECK(-axis <= a.ndim() && -axis <= b.ndim(), ValueError, "cross: axis {} is out of range for shapes {} and {}",
            axis, a.shape().str(), b.shape().str());
  ACC_CHECK(a.dim(axis) == 3 && b.dim(axis) == 3, ShapeError, "cross: needs extent 3 along axis {}, got shapes {} and {}",
            axis, a.shape().str(), b.shape().str());
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  const Tensor x = a.broadcast_to(shape), y = b.broadcast_to(shape);
  const auto part = [&](const Tensor& t, std::int64_t i) { return t.slice(axis, i, i + 1); };
  Tensor out = Tensor::empty(shape, promote_types(a.dtype(), b.dtype()), a.device());
  for (std::int64_t i = 0; i < 3; ++i) {
    const std::int64_t j = (i + 1) % 3, l = (i + 2) % 3;
    copy_into(subtract(multiply(part(x, j), part(y, l)), multiply(part(x, l), part(y, j))), part(out, i));
  }
  return out;
}

Tensor matrix_power(const Tensor& a, std::int64_t n) {
  check_matrices(a, "matrix_power", true);
  if (n == 0) return identity(batch_shape(a.shape()), a.dim(-1), a.dtype(), a.device());
  Tensor base = n < 0 ? inv(a) : a;
  std::uint64_t e = n < 0 ? static_cast<std::uint64_t>(-(n + 1)) + 1 : static_cast<std::uint64_t>(n);
  Tensor result;
  // Binary powering: log2(n) squarings and at most as many products.
  while (true) {
    if (e & 1) result = result.defined() ? matmul(result, base) : base;
    e >>= 1;
    if (e == 0) break;
    base = matmul(base, base);
  }
  return result.shares_storage_with(a) ? result.clone() : result;
}

Tensor vector_norm(const Tensor& x, const Axes& axes, double ord, bool keepdims) {
  ops_detail::check_defined(x, "vector_norm", "x");
  ACC_CHECK(is_floating(x.dtype()) || is_complex(x.dtype()), DTypeError, "vector_norm: needs a floating dtype, not {}",
            dtype_name(x.dtype()));
  ACC_CHECK(!std::isnan(ord), ValueError, "vector_norm: ord is nan");
  // A complex vector's norm is that of its magnitudes, in the real dtype (the standard's rule).
  if (is_complex(x.dtype())) return vector_norm(abs(x), axes, ord, keepdims);
  const Device& device = x.device();
  if (std::isinf(ord)) return ord > 0 ? max(abs(x), axes, keepdims) : min(abs(x), axes, keepdims);
  if (ord == 0) return count_nonzero(x, axes, keepdims).astype(x.dtype());
  if (ord == 1) return sum(abs(x), axes, keepdims);
  if (ord == 2) return sqrt(sum(square(x), axes, keepdims));
  const Tensor p = scalar(ord, x.dtype(), device);
  return pow(sum(pow(abs(x), p), axes, keepdims), reciprocal(p));
}

namespace {

// The largest of `values` along the last axis; 0 where that axis is empty: a norm is never negative, and
// the norm of an empty matrix is 0 (NumPy's too). The smallest of nothing stays an error.
Tensor largest_norm(const Tensor& values) {
  if (values.dim(-1) > 0) return max(values, std::vector<std::int64_t>{-1});
  std::vector<std::int64_t> kept = values.shape().dims();
  kept.pop_back();
  Tensor zeros = Tensor::empty(Shape(kept), values.dtype(), values.device());
  ops_detail::fill_tensor(zeros, 0.0);
  return zeros;
}

}  // namespace

Tensor matrix_norm(const Tensor& a, const std::string& ord, bool keepdims) {
  check_matrices(a, "matrix_norm", false);
  const Axes both = std::vector<std::int64_t>{-2, -1};
  Tensor r;
  if (ord == "fro") {
    const Tensor magnitude = is_complex(a.dtype()) ? abs(a) : a;
    r = sqrt(sum(square(magnitude), both));
  } else if (ord == "nuc" || ord == "2" || ord == "-2") {
    const Tensor s = svdvals(a);
    const Axes last = std::vector<std::int64_t>{-1};
    r = ord == "nuc" ? sum(s, last) : (ord == "2" ? largest_norm(s) : min(s, last));
  } else if (ord == "1" || ord == "-1" || ord == "inf" || ord == "-inf") {
    // 1: the largest column sum of |a|; inf: the largest row sum.
    const bool columns = ord == "1" || ord == "-1";
    const Tensor sums = sum(abs(a), std::vector<std::int64_t>{columns ? -2 : -1});
    r = ord[0] == '-' ? min(sums, std::vector<std::int64_t>{-1}) : largest_norm(sums);
  } else {
    ACC_CHECK(false, ValueError, "matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, not {}", ord);
  }
  if (!keepdims) return r;
  return r.unsqueeze(-1).unsqueeze(-1);
}

}  // namespace linalg
}  // namespace accelera
