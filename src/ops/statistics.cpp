// var, std, all, any and count_nonzero, composed from the reductions, casts and element-wise ops, so
// they run wherever those do. var is two-pass (the mean first, then the squares of the deviations), which
// keeps its accuracy where the one-pass sum of squares would cancel; its second pass is one kernel
// (sum_squared_deviations) wherever the device has it for the dtype, else subtract, square and sum.
#include <cmath>

#include "accelera/op_table.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"
#include "ops/reduce.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

// NumPy computes integer and bool statistics in float64.
DType statistics_dtype(DType in) { return is_floating(in) || is_complex(in) ? in : DType::f64; }

Tensor drop_reduced_axes(const Tensor& kept, const Tensor& x, const Axes& axes, bool keepdims) {
  if (keepdims) return kept;
  std::vector<bool> reduced(static_cast<std::size_t>(x.ndim()), !axes.has_value());
  if (axes) {
    for (auto a : *axes) reduced[static_cast<std::size_t>(a < 0 ? a + x.ndim() : a)] = true;
  }
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < x.ndim(); ++i) {
    if (!reduced[static_cast<std::size_t>(i)]) dims.push_back(x.shape()[i]);
  }
  return kept.reshape(dims);
}

// all (min of the truth values) or any (max): over int32 0/1, since the extremum kernels take no bool.
Tensor truth_reduction(const Tensor& x, const Axes& axes, bool keepdims, bool want_all, std::string_view name) {
  check_defined(x, name, "the operand");
  const Tensor truth = cast_to(cast_to(x, DType::boolean), DType::i32);
  if (x.numel() == 0) {
    // all's identity is true and any's false, which the extremum reductions would refuse; sum of the
    // empty operand validates the axes and gives the kept shape for free.
    Tensor out = Tensor::empty(sum(truth, axes, /*keepdims=*/true).shape(), DType::boolean, x.device());
    fill_tensor(out, want_all ? 1.0 : 0.0);
    return drop_reduced_axes(out, x, axes, keepdims);
  }
  const Tensor extremum = want_all ? min(truth, axes, true) : max(truth, axes, true);
  return drop_reduced_axes(cast_to(extremum, DType::boolean), x, axes, keepdims);
}

}  // namespace

Tensor var(const Tensor& x, const Axes& axes, double correction, bool keepdims) {
  check_defined(x, "var", "the operand");
  ACC_CHECK(std::isfinite(correction) && correction >= 0, ValueError,
            "var: correction must be a finite number >= 0, not {}", correction);
  const Tensor xf = cast_to(x, statistics_dtype(x.dtype()));
  const Tensor center = mean(xf, axes, /*keepdims=*/true);  // validates the axes
  Tensor squares;
  if (xf.numel() > 0 && supports(xf.device(), op::sum_squared_deviations.name, xf.dtype())) {
    squares = sum_squared_deviations(xf, center, axes);  // one pass, no temporaries
  } else {
    const Tensor deviation = subtract(xf, center);
    // Complex deviations count by their squared magnitude, so the variance is real (NumPy's).
    const Tensor magnitude = is_complex(deviation.dtype()) ? abs(deviation) : deviation;
    squares = sum(multiply(magnitude, magnitude), axes, /*keepdims=*/true);
  }
  const std::int64_t count = center.numel() == 0 ? 0 : x.numel() / center.numel();
  // As NumPy: a divisor <= 0 gives inf (or nan for 0/0) rather than an error.
  const double divisor = std::max(static_cast<double>(count) - correction, 0.0);
  const Tensor result = divide(squares, full(Shape{}, divisor, squares.dtype(), x.device()));
  return drop_reduced_axes(result, x, axes, keepdims);
}

Tensor stddev(const Tensor& x, const Axes& axes, double correction, bool keepdims) {
  return sqrt(var(x, axes, correction, keepdims));
}

Tensor all(const Tensor& x, const Axes& axes, bool keepdims) { return truth_reduction(x, axes, keepdims, true, "all"); }

Tensor any(const Tensor& x, const Axes& axes, bool keepdims) { return truth_reduction(x, axes, keepdims, false, "any"); }

Tensor count_nonzero(const Tensor& x, const Axes& axes, bool keepdims) {
  check_defined(x, "count_nonzero", "the operand");
  return sum(cast_to(x, DType::boolean), axes, keepdims);  // sum counts bool as int64
}

}  // namespace accelera
