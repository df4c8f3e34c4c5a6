#pragma once
// Helpers of the linear-algebra ops (Note [Factorisation kernels] in ops/linalg_kernels.hpp).
#include <cstdint>
#include <string_view>
#include <vector>

#include "accelera/core/tensor.hpp"

namespace accelera::linalg_detail {

// Checks x is a defined floating (real or complex) tensor with at least two axes (square ones when `square`).
void check_matrices(const Tensor& x, std::string_view op, bool square);
// The dtype the factorisations compute x's dtype in: float16 and bfloat16 in float32.
DType compute_dtype(DType dtype);
// The leading (batch) extents of a (..., m, n) shape, and the shape with its last two extents replaced.
Shape batch_shape(const Shape& shape);
Shape with_matrix(const Shape& batch, std::int64_t rows, std::int64_t cols);
Shape with_vector(const Shape& batch, std::int64_t n);
// A fresh column-major copy of x's matrices in `dtype` (shape (..., n, m)), for a kernel to overwrite.
Tensor column_major(const Tensor& x, DType dtype);
// The row-major (..., m, n) view of a column-major (..., n, m) tensor.
Tensor row_major(const Tensor& w);
// The int32 info tensor of a batch, and the check of what the kernel put there: a positive value raises
// LinAlgError with `problem` ("is singular", ...), a negative one is a bug.
Tensor info_tensor(const Shape& batch, const Device& device);
void check_info(const Tensor& info, std::string_view op, std::string_view problem);
// Identity matrices (batch..., n, n) on a device.
Tensor identity(const Shape& batch, std::int64_t n, DType dtype, const Device& device);
// The lower (k <= 0 shifts down) / upper triangle of the last two axes, zeros elsewhere, on x's device.
Tensor tril(const Tensor& x, std::int64_t k = 0);
Tensor triu(const Tensor& x, std::int64_t k = 0);
// A 0-d tensor on a device.
Tensor scalar(double value, DType dtype, const Device& device);
// x in `dtype` (itself when it already has it), for results computed in float32 for half formats.
Tensor cast_result(const Tensor& x, DType dtype);

}  // namespace accelera::linalg_detail
