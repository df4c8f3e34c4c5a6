// take and take_along_axis (Note [Gather and index checks] in ops/take.hpp).
#include "ops/take.hpp"

#include <vector>

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

namespace {

std::int64_t normalized_axis(std::int64_t axis, std::int64_t ndim, const char* op) {
  ACC_CHECK(ndim > 0, ValueError, "{}: axis {} given for a 0-d array", op, axis);
  ACC_CHECK(axis >= -ndim && axis < ndim, ValueError, "{}: axis {} is out of range for {} dimensions", op, axis,
            ndim);
  return axis < 0 ? axis + ndim : axis;
}

// The indices as the kernels take them (int32 or int64): the other integer dtypes convert to int64.
Tensor checked_indices(const Tensor& x, const Tensor& indices, const char* op) {
  ops_detail::check_defined(x, op, "x");
  ops_detail::check_defined(indices, op, "indices");
  ops_detail::check_same_device(x, indices, op);
  return index_dtype_tensor(indices, op);
}

// Raises IndexError naming the first index outside [-size, size); the error path of the gather only.
[[noreturn]] void raise_first_bad_index(const Tensor& indices, std::int64_t axis, std::int64_t size, const char* op) {
  const Tensor host = indices.to(Device::cpu()).astype(DType::i64);
  const std::int64_t* v = host.data<std::int64_t>();
  for (std::int64_t i = 0; i < host.numel(); ++i) {
    ACC_CHECK(v[i] >= -size && v[i] < size, IndexError, "{}: index {} is out of bounds for axis {} with size {}", op,
              v[i], axis, size);
  }
  ACC_ASSERT(false, "{}: the kernel flagged an index out of range but every index is within [-{}, {})", op, size, size);
}

// out[o] = source[o + wrap(index[o]) * axis_stride] (source and index are views with out's shape).
Tensor gather(const Tensor& x, std::int64_t axis, const Tensor& source, const Tensor& index, const Tensor& indices,
              const Shape& out_shape, const char* op) {
  const auto kernel = kernel_for(op::take, x.device(), x.dtype());
  Tensor out = Tensor::empty(out_shape, x.dtype(), x.device());
  if (out.numel() == 0) return out;
  const std::int64_t size = x.dim(axis);
  if (size == 0) raise_first_bad_index(indices, axis, size, op);  // nothing can be taken from an empty axis
  const Tensor bad = zeros(Shape{}, DType::i32, x.device());
  kernel(source, x.strides()[static_cast<std::size_t>(axis)], size, index, out, bad);
  if (*bad.to(Device::cpu()).data<std::int32_t>() != 0) raise_first_bad_index(indices, axis, size, op);
  return out;
}

}  // namespace

Tensor index_dtype_tensor(const Tensor& indices, const char* op) {
  const DType dtype = indices.dtype();
  if (dtype == DType::i32 || dtype == DType::i64) return indices;
  ACC_CHECK(is_integral(dtype), DTypeError, "{}: indices must be integers, not {}", op, dtype_name(dtype));
  if (dtype == DType::u64 && indices.numel() > 0) {
    // Values from 2^63 up would turn negative (counting from the end) as int64.
    const Tensor limit = full(Shape{}, 0x1p63, DType::u64, indices.device());
    const bool too_large = *any(greater_equal(indices, limit)).to(Device::cpu()).data<bool>();
    ACC_CHECK(!too_large, IndexError, "{}: an index of 2^63 or more is out of bounds for every axis", op);
  }
  return indices.astype(DType::i64);
}

Tensor take(const Tensor& x, const Tensor& given_indices, std::optional<std::int64_t> axis) {
  const Tensor indices = checked_indices(x, given_indices, "take");
  const std::int64_t flat[] = {-1};
  const Tensor source = axis ? x : x.reshape(flat);
  const std::int64_t a = normalized_axis(axis.value_or(0), source.ndim(), "take");
  // Complex elements move as pairs of reals (Note [Complex copies]): the real view's trailing axis rides along.
  if (is_complex(x.dtype())) return take(source.view_as_real(), indices, a).view_as_complex();
  // out: source.shape[:a] + indices.shape + source.shape[a + 1:]
  const std::vector<std::int64_t>& dims = source.shape().dims();
  std::vector<std::int64_t> out_dims(dims.begin(), dims.begin() + a);
  out_dims.insert(out_dims.end(), indices.shape().dims().begin(), indices.shape().dims().end());
  out_dims.insert(out_dims.end(), dims.begin() + a + 1, dims.end());
  const Shape out_shape(out_dims);
  if (out_shape.numel() == 0 || source.dim(a) == 0) {
    return gather(source, a, Tensor(), Tensor(), indices, out_shape, "take");
  }
  const AxisIndexViews views = axis_index_views(source, indices, a, out_shape);
  return gather(source, a, views.x, views.indices, indices, out_shape, "take");
}

Tensor take_along_axis(const Tensor& x, const Tensor& given_indices, std::int64_t axis) {
  const Tensor indices = checked_indices(x, given_indices, "take_along_axis");
  ACC_CHECK(x.ndim() == indices.ndim(), ShapeError,
            "take_along_axis: x and indices must have the same number of dimensions, got {} and {}", x.ndim(),
            indices.ndim());
  const std::int64_t a = normalized_axis(axis, x.ndim(), "take_along_axis");
  if (is_complex(x.dtype())) return take_along_axis(x.view_as_real(), indices.unsqueeze(-1), a).view_as_complex();
  std::vector<std::int64_t> out_dims(static_cast<std::size_t>(x.ndim()));
  for (std::int64_t d = 0; d < x.ndim(); ++d) {
    const std::int64_t xd = x.dim(d), id = indices.dim(d);
    ACC_CHECK(d == a || xd == id || xd == 1 || id == 1, ShapeError,
              "take_along_axis: shapes {} and {} do not broadcast outside axis {}", x.shape().str(),
              indices.shape().str(), a);
    out_dims[static_cast<std::size_t>(d)] = d == a ? id : (xd == 1 ? id : xd);
  }
  const Shape out_shape(out_dims);
  if (out_shape.numel() == 0 || x.dim(a) == 0) return gather(x, a, Tensor(), Tensor(), indices, out_shape, "take_along_axis");
  return gather(x, a, x.slice(a, 0, 1).broadcast_to(out_shape), indices.broadcast_to(out_shape), indices, out_shape,
                "take_along_axis");
}

}  // namespace accelera
