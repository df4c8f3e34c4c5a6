// put: the scatter that writes values into x along an axis (Note [Scatter] in ops/put.hpp).
#include "ops/put.hpp"

#include <vector>

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"
#include "ops/take.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

// IndexError naming the first index outside [-size, size), read on the host; nothing when all are in range.
void check_indices(const Tensor& indices, std::int64_t axis, std::int64_t size) {
  if (indices.numel() == 0) return;
  const auto bound = [&](double v) { return full(Shape{}, v, DType::i64, indices.device()); };
  const Tensor bad = logical_or(less(indices, bound(static_cast<double>(-size))),
                                greater_equal(indices, bound(static_cast<double>(size))));
  if (*any(bad).to(Device::cpu()).data<std::uint8_t>() == 0) return;
  const Tensor host = indices.to(Device::cpu()).contiguous();
  const std::int64_t* v = host.data<std::int64_t>();
  for (std::int64_t i = 0; i < host.numel(); ++i) {
    ACC_CHECK(v[i] >= -size && v[i] < size, IndexError, "index {} is out of bounds for axis {} with size {}", v[i],
              axis, size);
  }
}

}  // namespace

void put(const Tensor& x, const Tensor& indices, const Tensor& values, std::int64_t axis) {
  check_defined(x, "put", "x");
  check_defined(indices, "put", "indices");
  check_defined(values, "put", "values");
  check_same_device(x, indices, "put");
  check_same_device(x, values, "put");
  const Tensor index64 = cast_to(index_dtype_tensor(indices, "put"), DType::i64);
  ACC_CHECK(x.ndim() > 0, ValueError, "put: x is 0-d");
  const std::int64_t a = normalize_axis(axis, x.ndim());
  if (is_complex(x.dtype())) {  // pairs of reals (Note [Complex copies])
    Tensor v = cast_to(values, x.dtype());
    if (v.storage() == x.storage()) v = v.clone();
    return put(x.view_as_real(), index64, v.view_as_real(), a);
  }
  const std::vector<std::int64_t>& dims = x.shape().dims();
  std::vector<std::int64_t> target(dims.begin(), dims.begin() + a);
  target.insert(target.end(), indices.shape().dims().begin(), indices.shape().dims().end());
  target.insert(target.end(), dims.begin() + a + 1, dims.end());
  const Shape target_shape(target);
  check_indices(index64, a, x.dim(a));
  // Values are read whole before any write when they share x's memory (t[[0, 1]] = t[1:3]).
  Tensor v = cast_to(values, x.dtype());
  if (v.storage() == x.storage()) v = v.clone();
  v = v.broadcast_to(target_shape);  // ShapeError when the values do not fit
  if (target_shape.numel() == 0) return;
  const auto kernel = kernel_for(op::put, x.device(), x.dtype());
  const AxisIndexViews views = axis_index_views(x, index64, a, target_shape);
  kernel(views.x, x.strides()[static_cast<std::size_t>(a)], x.dim(a), views.indices, v);
}

}  // namespace accelera
