// unique_values, unique_counts, unique_inverse and unique_all in one (Note [Unique by groups] in
// ops/unique.hpp).
#include "ops/unique.hpp"

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"
#include "ops/sort.hpp"

namespace accelera {

UniqueResult unique(const Tensor& x, bool with_indices, bool with_inverse, bool with_counts) {
  ops_detail::check_defined(x, "unique", "x");
  ACC_CHECK(!is_complex(x.dtype()), NotSupportedError, "unique of {} tensors is not implemented yet",
            dtype_name(x.dtype()));
  const auto sort_kernel = kernel_for(op::sort, x.device(), x.dtype());
  const auto groups_kernel = kernel_for(op::unique_groups, x.device(), x.dtype());
  const auto scatter_kernel = kernel_for(op::unique_scatter, x.device(), x.dtype());
  const std::int64_t n = x.numel();
  const Device& device = x.device();
  UniqueResult r;
  if (n == 0) {
    r.values = Tensor::empty(Shape{0}, x.dtype(), device);
    if (with_indices) r.indices = Tensor::empty(Shape{0}, DType::i64, device);
    if (with_inverse) r.inverse_indices = Tensor::empty(x.shape(), DType::i64, device);
    if (with_counts) r.counts = Tensor::empty(Shape{0}, DType::i64, device);
    return r;
  }
  const std::int64_t row[] = {1, n};
  const Tensor flat = x.contiguous().reshape(row);
  const Tensor sorted = Tensor::empty(Shape{n}, x.dtype(), device);
  // Positions only when an output needs them: unique_values and unique_counts sort the values alone.
  const bool with_order = with_indices || with_inverse;
  const Tensor order = with_order ? Tensor::empty(Shape{n}, DType::i64, device) : Tensor();
  sort_kernel(flat, sorted.reshape(row), with_order ? order.reshape(row) : Tensor(), false);
  const Tensor group = Tensor::empty(Shape{n}, DType::i64, device);
  const std::int64_t groups = groups_kernel(sorted, group);  // the one value read back
  ACC_ASSERT(groups >= 1 && groups <= n, "unique: {} groups among {} elements", groups, n);
  r.values = Tensor::empty(Shape{groups}, x.dtype(), device);
  const Tensor first = with_indices ? Tensor::empty(Shape{groups}, DType::i64, device) : Tensor();
  const Tensor bounds = Tensor::empty(Shape{groups + 1}, DType::i64, device);
  const Tensor inverse = with_inverse ? Tensor::empty(Shape{n}, DType::i64, device) : Tensor();
  scatter_kernel(sorted, order, group, r.values, first, bounds, inverse);
  if (with_indices) r.indices = first;
  if (with_inverse) r.inverse_indices = inverse.reshape(x.shape().dims());
  if (with_counts) r.counts = subtract(bounds.slice(0, 1, groups + 1), bounds.slice(0, 0, groups));
  return r;
}

}  // namespace accelera
