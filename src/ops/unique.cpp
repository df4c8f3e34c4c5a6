// unique_values, unique_counts, unique_inverse and unique_all in one (Note [Unique by groups] in
// ops/unique.hpp).
#include "ops/unique.hpp"

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"
#include "ops/sort.hpp"

namespace accelera {

namespace {

// The results of an empty x: every one empty (inverse_indices of x's shape).
UniqueResult empty_unique(const Tensor& x, bool with_indices, bool with_inverse, bool with_counts) {
  UniqueResult r;
  r.values = Tensor::empty(Shape{0}, x.dtype(), x.device());
  if (with_indices) r.indices = Tensor::empty(Shape{0}, DType::i64, x.device());
  if (with_inverse) r.inverse_indices = Tensor::empty(x.shape(), DType::i64, x.device());
  if (with_counts) r.counts = Tensor::empty(Shape{0}, DType::i64, x.device());
  return r;
}

// Note [Complex unique]
// Complex numbers have no sort key of one word, so their unique is composed from device ops: stable
// argsorts by imaginary part, then by real part, then by whether either part is nan, order x as NumPy's
// sort does (lexicographically, real part first, every nan last), with equal elements in their original
// order. A group starts wherever an element differs from the one before it (a nan differs from everything,
// itself included: each nan is its own group, the standard's rule); the first element of a group is then
// its first occurrence in x. The one value read back is the group count.
UniqueResult complex_unique(const Tensor& x, bool with_indices, bool with_inverse, bool with_counts) {
  const std::int64_t n = x.numel();
  const Device& device = x.device();
  UniqueResult r;
  if (n == 0) return empty_unique(x, with_indices, with_inverse, with_counts);
  const std::int64_t flat_shape[] = {n};
  const Tensor flat = x.contiguous().reshape(flat_shape);
  const Tensor by_imag = argsort(imag(flat), 0, false, true);
  const Tensor by_real = take(by_imag, argsort(take(real(flat), by_imag), 0, false, true));
  const Tensor order = take(by_real, argsort(take(isnan(flat), by_real), 0, false, true));
  const Tensor sorted = take(flat, order);
  Tensor starts = Tensor::empty(Shape{n}, DType::boolean, device);
  ops_detail::fill_tensor(starts.slice(0, 0, 1), 1.0);
  if (n > 1) copy_into(not_equal(sorted.slice(0, 1, n), sorted.slice(0, 0, n - 1)), starts.slice(0, 1, n));
  const Tensor first_positions = nonzero(starts).front();  // reads the group count back
  const std::int64_t groups = first_positions.numel();
  r.values = take(sorted, first_positions);
  if (with_indices) r.indices = take(order, first_positions);
  if (with_counts) {
    Tensor bounds = Tensor::empty(Shape{groups + 1}, DType::i64, device);
    copy_into(first_positions, bounds.slice(0, 0, groups));
    ops_detail::fill_tensor(bounds.slice(0, groups, groups + 1), static_cast<double>(n));
    r.counts = subtract(bounds.slice(0, 1, groups + 1), bounds.slice(0, 0, groups));
  }
  if (with_inverse) {
    // The group of the i-th sorted element, scattered back to its place in x.
    const Tensor group = subtract(cumulative_sum(starts, 0, DType::i64, false), full(Shape{}, 1.0, DType::i64, device));
    const Tensor inverse = Tensor::empty(Shape{n}, DType::i64, device);
    put(inverse, order, group, 0);
    r.inverse_indices = inverse.reshape(x.shape().dims());
  }
  return r;
}

}  // namespace

UniqueResult unique(const Tensor& x, bool with_indices, bool with_inverse, bool with_counts) {
  ops_detail::check_defined(x, "unique", "x");
  if (is_complex(x.dtype())) return complex_unique(x, with_indices, with_inverse, with_counts);
  const auto sort_kernel = kernel_for(op::sort, x.device(), x.dtype());
  const auto groups_kernel = kernel_for(op::unique_groups, x.device(), x.dtype());
  const auto scatter_kernel = kernel_for(op::unique_scatter, x.device(), x.dtype());
  const std::int64_t n = x.numel();
  const Device& device = x.device();
  UniqueResult r;
  if (n == 0) return empty_unique(x, with_indices, with_inverse, with_counts);
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
