// cumulative_sum, cumulative_prod (Note [Scans] in ops/scan.hpp) and nonzero, from flat_nonzero's positions
// (Note [Compaction] in ops/compress.hpp).
#include "ops/scan.hpp"

#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

// The array API's default: integers and bool accumulate in the default integer dtype (int64).
DType default_scan_dtype(DType in) { return accumulation_dtype(in); }

Tensor cumulative(const OpSchema<ScanKernel>& op, const Tensor& x, std::optional<std::int64_t> axis,
                  std::optional<DType> dtype, bool include_initial) {
  const auto name = op.name;
  check_defined(x, name, "x");
  ACC_CHECK(x.ndim() >= 1, ValueError, "{}: x must have at least one dimension (it is 0-d)", name);
  ACC_CHECK(axis.has_value() || x.ndim() == 1, ValueError,
            "{}: axis is required for a {}-d array (it may be omitted for 1-d arrays only)", name, x.ndim());
  const std::int64_t a = normalize_axis(axis.value_or(0), x.ndim());
  const DType result = dtype.value_or(default_scan_dtype(x.dtype()));
  if (is_complex(result)) {
    // A complex running sum is the real one of both parts, through the real view.
    ACC_CHECK(&op == &op::cumulative_sum, NotSupportedError, "{} of {} tensors is not implemented", name,
              dtype_name(result));
    return cumulative(op, cast_to(x, result).view_as_real(), a, real_dtype(result), include_initial).view_as_complex();
  }
  ACC_CHECK(result != DType::boolean, DTypeError, "{}: a bool result dtype is not supported", name);
  const DType computed = kernel_dtype(op.name, x.device(), accumulation_kernel_dtype(result));
  const auto kernel = kernel_for(op, x.device(), computed);

  std::vector<std::int64_t> out_dims = x.shape().dims();
  const std::int64_t n = out_dims[static_cast<std::size_t>(a)];
  if (include_initial) ++out_dims[static_cast<std::size_t>(a)];
  Tensor out = Tensor::empty(Shape(out_dims), computed, x.device());
  if (out.numel() > 0) {
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < a; ++d) outer *= x.dim(d);
    for (std::int64_t d = a + 1; d < x.ndim(); ++d) inner *= x.dim(d);
    kernel(cast_to(x, computed).contiguous(), outer, n, inner, include_initial, out);
  }
  return cast_to(out, result);
}

}  // namespace

Tensor cumulative_sum(const Tensor& x, std::optional<std::int64_t> axis, std::optional<DType> dtype,
                      bool include_initial) {
  return cumulative(op::cumulative_sum, x, axis, dtype, include_initial);
}

Tensor cumulative_prod(const Tensor& x, std::optional<std::int64_t> axis, std::optional<DType> dtype,
                       bool include_initial) {
  return cumulative(op::cumulative_prod, x, axis, dtype, include_initial);
}

std::vector<Tensor> nonzero(const Tensor& x) {
  check_defined(x, "nonzero", "x");
  ACC_CHECK(x.ndim() >= 1, ValueError, "nonzero: x must have at least one dimension (it is 0-d; use x[None])");
  const Tensor positions = flat_nonzero(x);
  std::vector<Tensor> coordinates;
  // Row-major coordinates: (position // (product of the later extents)) % extent.
  std::int64_t later = x.numel() == 0 ? 1 : x.numel();
  for (std::int64_t d = 0; d < x.ndim(); ++d) {
    const std::int64_t extent = x.dim(d);
    if (x.numel() > 0) later /= extent;
    if (x.ndim() == 1) {
      coordinates.push_back(positions);
      break;
    }
    Tensor c = positions;
    if (later > 1) c = floor_divide(c, full(Shape{}, static_cast<double>(later), DType::i64, x.device()));
    if (d > 0) c = remainder(c, full(Shape{}, static_cast<double>(extent), DType::i64, x.device()));
    coordinates.push_back(c);
  }
  return coordinates;
}

}  // namespace accelera
