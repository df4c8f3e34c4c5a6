// argmax and argmin over one axis or over all of them (the index into the row-major flattening), with
// NumPy's and the array API's keepdims.
#include "ops/arg_extremum.hpp"

#include <numeric>

#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

Tensor arg_extremum(const OpSchema<ArgExtremumKernel>& op, const Tensor& x, std::optional<std::int64_t> axis,
                    bool keepdims) {
  const auto name = op.name;
  check_defined(x, name, "the operand");
  ACC_CHECK(!is_complex(x.dtype()), DTypeError, "{} is not defined for {} tensors (complex numbers are not ordered)",
            name, dtype_name(x.dtype()));
  ACC_CHECK(x.dtype() != DType::boolean, DTypeError, "{} is not defined for bool tensors (convert with astype)",
            name);
  std::vector<std::int64_t> axes(static_cast<std::size_t>(axis ? 1 : x.ndim()));
  if (axis) {
    axes[0] = normalize_axis(*axis, x.ndim());
  } else {
    std::iota(axes.begin(), axes.end(), std::int64_t{0});
  }
  // float16/bfloat16 widen to float32 exactly where the device has no half kernel: the order is the same.
  const DType computed = kernel_dtype(op.name, x.device(), x.dtype());
  const auto kernel = kernel_for(op, x.device(), computed);
  std::vector<std::int64_t> kept_dims = x.shape().dims();
  std::int64_t count = 1;
  for (auto a : axes) {
    count *= x.shape()[a];
    kept_dims[static_cast<std::size_t>(a)] = 1;
  }
  const Shape kept_shape(kept_dims);
  ACC_CHECK(count > 0 || kept_shape.numel() == 0, ValueError,
            "{} of an empty selection has no answer (the reduced axes of {} have no elements)", name,
            x.shape().str());
  Tensor out = Tensor::empty(kept_shape, DType::i64, x.device());
  if (kept_shape.numel() > 0) kernel(cast_to(x, computed), axes, out);
  if (keepdims) return out;
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < x.ndim(); ++i) {
    if (axis && i != axes[0]) dims.push_back(x.shape()[i]);  // no axis: a 0-d result
  }
  return out.reshape(dims);
}

}  // namespace

Tensor argmax(const Tensor& x, std::optional<std::int64_t> axis, bool keepdims) {
  return arg_extremum(op::argmax, x, axis, keepdims);
}

Tensor argmin(const Tensor& x, std::optional<std::int64_t> axis, bool keepdims) {
  return arg_extremum(op::argmin, x, axis, keepdims);
}

}  // namespace accelera
