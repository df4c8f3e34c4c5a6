#pragma once
// Device-agnostic operations. Each validates its inputs (typed errors, inputs never modified), allocates
// the result on the inputs' device and runs that device's kernel from the kernel table (an op a device
// does not run in a dtype raises NotSupportedError naming the op, the device and the dtype). NumPy
// semantics: broadcasting, dtype promotion, shapes of results.
#include <complex>
#include <cstdint>
#include <optional>
#include <vector>

#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"

namespace accelera {

using Axes = std::optional<std::vector<std::int64_t>>;  // nullopt: all axes

ACC_API Tensor zeros(const Shape& shape, DType dtype = DType::f32, const Device& device = Device::cpu());
ACC_API Tensor ones(const Shape& shape, DType dtype = DType::f32, const Device& device = Device::cpu());
ACC_API Tensor full(const Shape& shape, double value, DType dtype = DType::f32, const Device& device = Device::cpu());
// A complex value fills a complex64 or complex128 tensor (DTypeError for another dtype).
ACC_API Tensor full(const Shape& shape, std::complex<double> value, DType dtype, const Device& device = Device::cpu());

// NumPy matmul: 1-D operands are promoted and the added axis removed; batch axes broadcast. Floating dtypes.
ACC_API Tensor matmul(const Tensor& a, const Tensor& b);
// out = a @ b, or out += a @ b with `accumulate`, into an existing tensor (any strides) of the result's
// shape and dtype on the operands' device; a and b have at least two axes, batch axes broadcast. out must
// not share memory with a or b. The out-of-core engine's tiles go through here too.
ACC_API void matmul_into(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate = false);

// Element-wise functions (Note [Element-wise functions] in src/ops/elementwise.hpp).
ACC_API Tensor add(const Tensor& a, const Tensor& b);
ACC_API Tensor subtract(const Tensor& a, const Tensor& b);
ACC_API Tensor multiply(const Tensor& a, const Tensor& b);
ACC_API Tensor divide(const Tensor& a, const Tensor& b);  // true division: integer inputs give float64
ACC_API Tensor maximum(const Tensor& a, const Tensor& b);  // NumPy's: a nan operand gives nan
ACC_API Tensor minimum(const Tensor& a, const Tensor& b);

ACC_API Tensor negative(const Tensor& x);
inline Tensor neg(const Tensor& x) { return negative(x); }
ACC_API Tensor exp(const Tensor& x);
ACC_API Tensor log(const Tensor& x);
ACC_API Tensor tanh(const Tensor& x);
ACC_API Tensor relu(const Tensor& x);
ACC_API Tensor sigmoid(const Tensor& x);
ACC_API Tensor abs(const Tensor& x);
ACC_API Tensor square(const Tensor& x);
ACC_API Tensor sqrt(const Tensor& x);
ACC_API Tensor sin(const Tensor& x);
ACC_API Tensor cos(const Tensor& x);
ACC_API Tensor tan(const Tensor& x);
ACC_API Tensor asin(const Tensor& x);
ACC_API Tensor acos(const Tensor& x);
ACC_API Tensor atan(const Tensor& x);
ACC_API Tensor sinh(const Tensor& x);
ACC_API Tensor cosh(const Tensor& x);
ACC_API Tensor asinh(const Tensor& x);
ACC_API Tensor acosh(const Tensor& x);
ACC_API Tensor atanh(const Tensor& x);
ACC_API Tensor expm1(const Tensor& x);
ACC_API Tensor log1p(const Tensor& x);
ACC_API Tensor log2(const Tensor& x);
ACC_API Tensor log10(const Tensor& x);
ACC_API Tensor reciprocal(const Tensor& x);
ACC_API Tensor floor(const Tensor& x);
ACC_API Tensor ceil(const Tensor& x);
ACC_API Tensor trunc(const Tensor& x);
ACC_API Tensor round(const Tensor& x);  // half to even; integers unchanged
ACC_API Tensor sign(const Tensor& x);   // sign(nan) = nan
ACC_API Tensor positive(const Tensor& x);
// The parts of a complex x in its real dtype (a real x: a copy of x, and zeros), its conjugate (a real x:
// a copy), and the complex tensor of two real floating parts (broadcast, promoted).
ACC_API Tensor real(const Tensor& x);
ACC_API Tensor imag(const Tensor& x);
ACC_API Tensor conj(const Tensor& x);
ACC_API Tensor complex_from_parts(const Tensor& real_part, const Tensor& imag_part);
ACC_API Tensor pow(const Tensor& a, const Tensor& b);  // integers: wrapping; a negative exponent gives 1/a^|b| truncated
ACC_API Tensor atan2(const Tensor& a, const Tensor& b);
ACC_API Tensor hypot(const Tensor& a, const Tensor& b);
ACC_API Tensor logaddexp(const Tensor& a, const Tensor& b);
ACC_API Tensor copysign(const Tensor& a, const Tensor& b);
ACC_API Tensor nextafter(const Tensor& a, const Tensor& b);
ACC_API Tensor remainder(const Tensor& a, const Tensor& b);     // the divisor's sign; integer x % 0 = 0
ACC_API Tensor floor_divide(const Tensor& a, const Tensor& b);  // integer x // 0 = 0
// Functions that return bool: the classifications (floats and integers), the comparisons (every dtype,
// after promotion) and the logical functions (operands converted to bool).
ACC_API Tensor isnan(const Tensor& x);
ACC_API Tensor isinf(const Tensor& x);
ACC_API Tensor isfinite(const Tensor& x);
ACC_API Tensor signbit(const Tensor& x);
ACC_API Tensor equal(const Tensor& a, const Tensor& b);
ACC_API Tensor not_equal(const Tensor& a, const Tensor& b);
ACC_API Tensor less(const Tensor& a, const Tensor& b);
ACC_API Tensor less_equal(const Tensor& a, const Tensor& b);
ACC_API Tensor greater(const Tensor& a, const Tensor& b);
ACC_API Tensor greater_equal(const Tensor& a, const Tensor& b);
ACC_API Tensor logical_and(const Tensor& a, const Tensor& b);
ACC_API Tensor logical_or(const Tensor& a, const Tensor& b);
ACC_API Tensor logical_xor(const Tensor& a, const Tensor& b);
ACC_API Tensor logical_not(const Tensor& x);
// Bitwise functions of integers and bools (the shifts: integers only; NumPy's results for counts past
// the width).
ACC_API Tensor bitwise_and(const Tensor& a, const Tensor& b);
ACC_API Tensor bitwise_or(const Tensor& a, const Tensor& b);
ACC_API Tensor bitwise_xor(const Tensor& a, const Tensor& b);
ACC_API Tensor bitwise_invert(const Tensor& x);
ACC_API Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);
ACC_API Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
// x1 where condition (converted to bool) holds, else x2: the three broadcast, x1 and x2 promote.
ACC_API Tensor where(const Tensor& condition, const Tensor& x1, const Tensor& x2);

ACC_API Tensor sum(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
ACC_API Tensor mean(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
ACC_API Tensor max(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
ACC_API Tensor min(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
ACC_API Tensor prod(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
// Statistics built on the reductions (src/ops/statistics.cpp). var and std divide by count - correction
// (0 gives the population figure, 1 the sample one) and compute integers in float64, as NumPy does.
ACC_API Tensor var(const Tensor& x, const Axes& axes = std::nullopt, double correction = 0.0, bool keepdims = false);
ACC_API Tensor stddev(const Tensor& x, const Axes& axes = std::nullopt, double correction = 0.0, bool keepdims = false);
// Logical reductions: bool results; an element is true when it is nonzero (nan is true).
ACC_API Tensor all(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
ACC_API Tensor any(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
// The index (int64) of the first largest / smallest element along `axis`, or in the row-major flattening
// when axis is nullopt; a nan counts as the extremum (NumPy's rule).
ACC_API Tensor argmax(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt, bool keepdims = false);
ACC_API Tensor argmin(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt, bool keepdims = false);
// The number of nonzero elements, as int64.
ACC_API Tensor count_nonzero(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);

// NumPy's take: the elements of x at `indices` (int32 or int64 on x's device; negative ones count from the
// end) along `axis`, or of x flattened when axis is nullopt. The result has shape
// x.shape[:axis] + indices.shape + x.shape[axis + 1:]. An index outside the axis raises IndexError.
ACC_API Tensor take(const Tensor& x, const Tensor& indices, std::optional<std::int64_t> axis = std::nullopt);
// The array API's take_along_axis: out[..., j, ...] = x[..., indices[..., j, ...], ...] along `axis`;
// indices has x's number of dimensions and broadcasts with x along the others.
ACC_API Tensor take_along_axis(const Tensor& x, const Tensor& indices, std::int64_t axis = -1);
// take's mirror, in place: x[..., indices[j...], ...] = values[..., j..., ...] along `axis`. values are
// converted to x's dtype and broadcast to x.shape[:axis] + indices.shape + x.shape[axis + 1:]. Indices are
// checked before anything is written (IndexError leaves x untouched); where one repeats, which value lands
// is unspecified.
ACC_API void put(const Tensor& x, const Tensor& indices, const Tensor& values, std::int64_t axis);

// The array API's cumulative sum and product along `axis` (which may be omitted for 1-d x only). The result
// dtype is `dtype`, or x's, except that bool and int32 accumulate in int64; with include_initial the result
// starts with the identity (0 or 1) and is one longer along the axis.
ACC_API Tensor cumulative_sum(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt,
                              std::optional<DType> dtype = std::nullopt, bool include_initial = false);
ACC_API Tensor cumulative_prod(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt,
                               std::optional<DType> dtype = std::nullopt, bool include_initial = false);
// The coordinates of x's nonzero elements in row-major order: one int64 tensor per axis (x has at least one).
// The count is read back to the host once, since it gives the results' length.
ACC_API std::vector<Tensor> nonzero(const Tensor& x);
// The row-major flat positions of x's nonzero elements (int64; any rank, 0-d included).
ACC_API Tensor flat_nonzero(const Tensor& x);
// x[mask] for a mask of x's shape (any dtype, its nonzero elements are true): x's elements where the mask
// holds, in row-major order, as a 1-d tensor (Note [Compaction] in src/ops/compress.hpp). The count is read
// back to the host once. ShapeError when the shapes differ.
ACC_API Tensor masked_select(const Tensor& x, const Tensor& mask);
// Sorting, searching and sets (the array API's; Note [Sort keys] in src/ops/sort.hpp). sort and argsort
// order x along `axis` stably (also when `stable` is false: one algorithm serves both), NaNs last in
// ascending order and first in descending order, -0.0 equal to +0.0; argsort returns int64 positions.
ACC_API Tensor sort(const Tensor& x, std::int64_t axis = -1, bool descending = false, bool stable = true);
ACC_API Tensor argsort(const Tensor& x, std::int64_t axis = -1, bool descending = false, bool stable = true);
// For each element of x2, the int64 position in the 1-D ascending x1 (or x1[sorter]) before which it would
// be inserted: before equal elements (right = false) or after them.
ACC_API Tensor searchsorted(const Tensor& x1, const Tensor& x2, bool right = false,
                            const std::optional<Tensor>& sorter = std::nullopt);
// The unique elements of x flattened, ascending (NaNs last, each NaN distinct, as the array API says).
// indices: the first position of each in x flattened; inverse_indices: for each element of x (x's shape),
// the position of its value in `values`; counts: how often each occurs. All int64; the fields not asked for
// are undefined. The number of unique elements is read back to the host to size the results.
struct UniqueResult {
  Tensor values, indices, inverse_indices, counts;
};
ACC_API UniqueResult unique(const Tensor& x, bool with_indices, bool with_inverse, bool with_counts);
}  // namespace accelera
