// solve, inv, det, slogdet and cholesky (Note [Factorisation kernels] in ops/linalg_kernels.hpp).
#include "accelera/core/error.hpp"
#include "accelera/linalg.hpp"
#include "ops/common.hpp"
#include "ops/linalg_common.hpp"
#include "ops/linalg_kernels.hpp"

namespace accelera::linalg {

using namespace linalg_detail;

namespace {

// x of a @ x = b for a (batch, n, n) and b (batch, n, k) of one batch shape, both in the compute dtype.
Tensor solve_batch(const Tensor& a, const Tensor& b, const char* op) {
  const Shape batch = batch_shape(b.shape());
  if (b.numel() == 0) return Tensor::empty(b.shape(), b.dtype(), b.device());
  const Tensor a_work = column_major(a, a.dtype());
  const Tensor b_work = column_major(b, b.dtype());
  const Tensor info = info_tensor(batch, a.device());
  kernel_for(op::lu_solve, a.device(), a.dtype())(a_work, b_work, info);
  check_info(info, op, "is singular");
  return row_major(b_work).contiguous();
}

}  // namespace

Tensor solve(const Tensor& a, const Tensor& b) {
  check_matrices(a, "solve", true);
  ops_detail::check_defined(b, "solve", "b");
  ops_detail::check_same_device(a, b, "solve");
  ACC_CHECK(is_floating(b.dtype()) || is_complex(b.dtype()), DTypeError, "solve: b needs a floating dtype, not {}", dtype_name(b.dtype()));
  const std::int64_t n = a.dim(-1);
  const bool vector = b.ndim() == 1;
  const Tensor bm = vector ? b.unsqueeze(1) : b;
  ACC_CHECK(bm.ndim() >= 2 && bm.dim(-2) == n, ShapeError,
            "solve: b of shape {} does not fit matrices of shape {} (b needs {} rows)", b.shape().str(),
            a.shape().str(), n);
  const Shape batch = broadcast_shapes(batch_shape(a.shape()), batch_shape(bm.shape()));
  const DType result = promote_types(a.dtype(), b.dtype());
  const DType dt = compute_dtype(result);
  const Tensor x = solve_batch(ops_detail::cast_to(a.broadcast_to(with_matrix(batch, n, n)), dt),
                               ops_detail::cast_to(bm.broadcast_to(with_matrix(batch, n, bm.dim(-1))), dt), "solve");
  const Tensor out = cast_result(x, result);
  return vector ? out.select(-1, 0) : out;
}

Tensor inv(const Tensor& a) {
  check_matrices(a, "inv", true);
  const DType dt = compute_dtype(a.dtype());
  const Shape batch = batch_shape(a.shape());
  const Tensor eye = identity(batch, a.dim(-1), dt, a.device());
  return cast_result(solve_batch(ops_detail::cast_to(a, dt), eye, "inv"), a.dtype());
}

namespace {

struct LuDiagonal {
  Tensor diagonal;    // (batch, n) of U
  Tensor swap_sign;   // (batch) +1 or -1: the sign of the row permutation
};

LuDiagonal lu_diagonal(const Tensor& a, const char* op) {
  check_matrices(a, op, true);
  const DType dt = compute_dtype(a.dtype());
  const Shape batch = batch_shape(a.shape());
  const std::int64_t n = a.dim(-1);
  const Tensor work = column_major(a, dt);
  const Tensor pivots = Tensor::empty(with_vector(batch, n), DType::i32, a.device());
  if (work.numel() > 0) {
    // info > 0 marks an exactly singular matrix: U has a zero on its diagonal and the determinant is 0.
    kernel_for(op::lu_factor, a.device(), dt)(work, pivots, info_tensor(batch, a.device()));
  }
  // Row i was swapped with pivots[i] - 1; the permutation's sign is (-1)^(number of real swaps).
  Tensor rows = Tensor::empty(Shape{n}, DType::i32, Device::cpu());
  for (std::int64_t i = 0; i < n; ++i) rows.data<std::int32_t>()[i] = static_cast<std::int32_t>(i + 1);
  const Axes last = std::vector<std::int64_t>{-1};
  const Tensor swaps = count_nonzero(not_equal(pivots, rows.to(a.device())), last);
  const Tensor odd = remainder(swaps, scalar(2, DType::i64, a.device())).astype(dt);
  const Tensor sign = subtract(scalar(1.0, dt, a.device()), multiply(scalar(2.0, dt, a.device()), odd));
  return {diagonal(work), sign};  // the diagonal of the column-major factors is U's diagonal
}

}  // namespace

Tensor det(const Tensor& a) {
  const LuDiagonal lu = lu_diagonal(a, "det");
  const Axes last = std::vector<std::int64_t>{-1};
  return cast_result(multiply(prod(lu.diagonal, last), lu.swap_sign), a.dtype());
}

SlogdetResult slogdet(const Tensor& a) {
  const LuDiagonal lu = lu_diagonal(a, "slogdet");
  const Axes last = std::vector<std::int64_t>{-1};
  const Tensor sign = multiply(prod(accelera::sign(lu.diagonal), last), lu.swap_sign);
  const Tensor logabs = sum(log(abs(lu.diagonal)), last);
  // A complex matrix's sign is a complex number of modulus 1 (or 0); logabsdet is real either way.
  return {cast_result(sign, a.dtype()), cast_result(logabs, real_dtype(a.dtype()))};
}

Tensor cholesky(const Tensor& a, bool upper) {
  check_matrices(a, "cholesky", true);
  const DType dt = compute_dtype(a.dtype());
  const Shape batch = batch_shape(a.shape());
  const Tensor work = column_major(a, dt);
  if (work.numel() == 0) return Tensor::empty(a.shape(), a.dtype(), a.device());
  const Tensor info = info_tensor(batch, a.device());
  kernel_for(op::cholesky, a.device(), dt)(work, info);
  check_info(info, "cholesky", "is not positive definite");
  const Tensor lower = tril(row_major(work));
  // a = L L^H: the upper factor is L's conjugate transpose.
  const Tensor transposed = lower.transpose(-2, -1);
  return cast_result(upper ? (is_complex(dt) ? conj(transposed) : transposed.contiguous()) : lower, a.dtype());
}

}  // namespace accelera::linalg
