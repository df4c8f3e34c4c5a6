// Helpers of the linear-algebra ops (ops/linalg_common.hpp).
#include "ops/linalg_common.hpp"

#include <cstring>

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera::linalg_detail {

void check_matrices(const Tensor& x, std::string_view op, bool square) {
  ops_detail::check_defined(x, op, "x");
  ACC_CHECK(is_floating(x.dtype()) || is_complex(x.dtype()), DTypeError, "{}: needs a floating dtype, not {} (convert with astype)", op,
            dtype_name(x.dtype()));
  ACC_CHECK(x.ndim() >= 2, ShapeError, "{}: needs matrices (at least two axes), got shape {}", op, x.shape().str());
  ACC_CHECK(!square || x.dim(-1) == x.dim(-2), ShapeError, "{}: needs square matrices, got shape {}", op,
            x.shape().str());
}

DType compute_dtype(DType dtype) {
  if (is_complex(dtype)) return dtype;
  return dtype == DType::f64 ? DType::f64 : DType::f32;
}

Shape batch_shape(const Shape& shape) {
  return Shape(std::vector<std::int64_t>(shape.dims().begin(), shape.dims().end() - 2));
}

Shape with_matrix(const Shape& batch, std::int64_t rows, std::int64_t cols) {
  std::vector<std::int64_t> dims = batch.dims();
  dims.push_back(rows);
  dims.push_back(cols);
  return Shape(dims);
}

Shape with_vector(const Shape& batch, std::int64_t n) {
  std::vector<std::int64_t> dims = batch.dims();
  dims.push_back(n);
  return Shape(dims);
}

Tensor column_major(const Tensor& x, DType dtype) {
  const Tensor t = x.transpose(-2, -1);
  return t.dtype() == dtype ? t.clone() : t.astype(dtype).contiguous();
}

Tensor row_major(const Tensor& w) { return w.transpose(-2, -1); }

Tensor info_tensor(const Shape& batch, const Device& device) { return Tensor::empty(batch, DType::i32, device); }

void check_info(const Tensor& info, std::string_view op, std::string_view problem) {
  if (info.numel() == 0) return;
  const Tensor host = info.to(Device::cpu());
  const std::int32_t* v = host.data<std::int32_t>();
  for (std::int64_t i = 0; i < host.numel(); ++i) {
    ACC_ASSERT(v[i] >= 0, "{}: LAPACK reported its argument {} illegal", op, -v[i]);
    if (v[i] > 0) {
      const std::string where = host.numel() > 1 ? fmt::format(" (matrix {} of the batch)", i) : std::string();
      throw LinAlgError(fmt::format("{}: the matrix {}{}", op, problem, where));
    }
  }
}

Tensor identity(const Shape& batch, std::int64_t n, DType dtype, const Device& device) {
  const Tensor out = zeros(with_matrix(batch, n, n), dtype, device);
  if (out.numel() == 0) return out;
  std::vector<std::int64_t> flat = batch.dims();
  flat.push_back(n * n);
  ops_detail::fill_tensor(out.reshape(flat).slice(-1, 0, n * n, n + 1), 1.0);
  return out;
}

namespace {

// keep[i][j] = (j - i >= k) for upper, (j - i <= k) for lower; built on the host (rows x cols bools) and
// copied to the device once: the selection itself runs there.
Tensor triangle_mask(std::int64_t rows, std::int64_t cols, std::int64_t k, bool upper, const Device& device) {
  Tensor mask = Tensor::empty(Shape{rows, cols}, DType::boolean, Device::cpu());
  auto* m = mask.data<bool>();
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) m[i * cols + j] = upper ? j - i >= k : j - i <= k;
  }
  return mask.to(device);
}

}  // namespace

Tensor tril(const Tensor& x, std::int64_t k) {
  return where(triangle_mask(x.dim(-2), x.dim(-1), k, false, x.device()), x, scalar(0.0, x.dtype(), x.device()));
}

Tensor triu(const Tensor& x, std::int64_t k) {
  return where(triangle_mask(x.dim(-2), x.dim(-1), k, true, x.device()), x, scalar(0.0, x.dtype(), x.device()));
}

Tensor scalar(double value, DType dtype, const Device& device) { return full(Shape{}, value, dtype, device); }

Tensor cast_result(const Tensor& x, DType dtype) { return x.dtype() == dtype ? x : x.astype(dtype); }

}  // namespace accelera::linalg_detail
