// eigh, eigvalsh, svd, svdvals, qr, pinv and matrix_rank (Note [Factorisation kernels] in
// ops/linalg_kernels.hpp).
#include <algorithm>
#include <limits>

#include "accelera/core/error.hpp"
#include "accelera/linalg.hpp"
#include "ops/common.hpp"
#include "ops/linalg_common.hpp"
#include "ops/linalg_kernels.hpp"

namespace accelera::linalg {

using namespace linalg_detail;

namespace {

EighResult eigh_of(const Tensor& a, bool vectors, const char* op) {
  check_matrices(a, op, true);
  const DType dt = compute_dtype(a.dtype());
  const Shape batch = batch_shape(a.shape());
  const std::int64_t n = a.dim(-1);
  const Tensor work = column_major(a, dt);
  // A Hermitian matrix's eigenvalues are real: in the real dtype of a complex input.
  const Tensor w = Tensor::empty(with_vector(batch, n), real_dtype(dt), a.device());
  if (work.numel() > 0) {
    const Tensor info = info_tensor(batch, a.device());
    kernel_for(op::eigh, a.device(), dt)(work, w, info, vectors);
    check_info(info, op, "has eigenvalues that did not converge");
  }
  const DType values = real_dtype(a.dtype());
  if (!vectors) return {cast_result(w, values), Tensor()};
  return {cast_result(w, values), cast_result(row_major(work).contiguous(), a.dtype())};
}

// The SVD in the compute dtype; U and Vh undefined when !vectors.
SvdResult svd_of(const Tensor& a, bool full, bool vectors, const char* op) {
  check_matrices(a, op, false);
  const DType dt = compute_dtype(a.dtype());
  const Shape batch = batch_shape(a.shape());
  const std::int64_t m = a.dim(-2), n = a.dim(-1), k = std::min(m, n);
  const Device& device = a.device();
  if (k == 0 || batch.numel() == 0) {  // nothing to factorise (empty matrices: U and Vh full are identities)
    SvdResult r{Tensor(), Tensor::empty(with_vector(batch, k), real_dtype(dt), device), Tensor()};
    if (vectors) {
      r.U = full ? identity(batch, m, dt, device) : Tensor::empty(with_matrix(batch, m, k), dt, device);
      r.Vh = full ? identity(batch, n, dt, device) : Tensor::empty(with_matrix(batch, k, n), dt, device);
    }
    return r;
  }
  // The kernels take tall matrices (cuSOLVER's gesvd needs m >= n): a wide A is run as A^T = U' S V'^T, so
  // A = V' S U'^T. The column-major copy of A^T is A's row-major copy.
  const bool wide = m < n;
  const std::int64_t rows = wide ? n : m, cols = wide ? m : n;
  const Tensor work = wide ? ops_detail::cast_to(a, dt).clone() : column_major(a, dt);
  // A wide complex A runs as A^T = U' S V'^H, so A = conj(V') S U'^T: read row-major, the column-major V'^H
  // is conj(V') and the column-major U' is U'^T, the same reading as for real matrices.
  SvdResult r{Tensor(), Tensor::empty(with_vector(batch, k), real_dtype(dt), device), Tensor()};
  Tensor u, vt;
  if (vectors) {
    u = Tensor::empty(with_matrix(batch, full ? rows : cols, rows), dt, device);  // column-major rows x (rows|cols)
    vt = Tensor::empty(with_matrix(batch, cols, cols), dt, device);
  }
  const Tensor info = info_tensor(batch, device);
  kernel_for(op::svd, device, dt)(work, r.S, u, vt, full, info);
  check_info(info, op, "has singular values that did not converge");
  if (vectors) {
    // Column-major storage read row-major is the transpose.
    r.U = wide ? vt : row_major(u).contiguous();
    r.Vh = wide ? u : row_major(vt).contiguous();
  }
  return r;
}

double default_rtol(const Tensor& a, DType dt) {
  const double eps = dt == DType::f64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  return static_cast<double>(std::max(a.dim(-2), a.dim(-1))) * eps;
}

// Singular values above rtol * the largest, as a bool tensor (batch, k).
Tensor significant(const Tensor& s, double rtol) {
  const Axes last = std::vector<std::int64_t>{-1};
  const Tensor cutoff = multiply(max(s, last, true), scalar(rtol, s.dtype(), s.device()));
  return greater(s, cutoff);
}

}  // namespace

EighResult eigh(const Tensor& a) { return eigh_of(a, true, "eigh"); }
Tensor eigvalsh(const Tensor& a) { return eigh_of(a, false, "eigvalsh").eigenvalues; }

SvdResult svd(const Tensor& a, bool full_matrices) {
  SvdResult r = svd_of(a, full_matrices, true, "svd");
  return {cast_result(r.U, a.dtype()), cast_result(r.S, real_dtype(a.dtype())), cast_result(r.Vh, a.dtype())};
}

Tensor svdvals(const Tensor& a) { return cast_result(svd_of(a, false, false, "svdvals").S, real_dtype(a.dtype())); }

QrResult qr(const Tensor& a, const std::string& mode) {
  check_matrices(a, "qr", false);
  ACC_CHECK(mode == "reduced" || mode == "complete", ValueError, "qr: mode must be 'reduced' or 'complete', not '{}'",
            mode);
  const bool complete = mode == "complete";
  const DType dt = compute_dtype(a.dtype());
  const Shape batch = batch_shape(a.shape());
  const std::int64_t m = a.dim(-2), n = a.dim(-1), k = std::min(m, n), c = complete ? m : k;
  const Device& device = a.device();
  const Tensor work = column_major(a, dt);  // (batch, n, m)
  if (k == 0 || batch.numel() == 0) {
    const Tensor q = complete ? identity(batch, m, dt, device) : Tensor::empty(with_matrix(batch, m, k), dt, device);
    return {cast_result(q, a.dtype()), zeros(with_matrix(batch, c, n), a.dtype(), device)};
  }
  const Tensor tau = Tensor::empty(with_vector(batch, k), dt, device);
  const Tensor info = info_tensor(batch, device);
  kernel_for(op::qr_factor, device, dt)(work, tau, info);
  check_info(info, "qr", "could not be factorised");
  const Tensor r = triu(row_major(work).slice(-2, 0, c));
  // Q starts from the Householder vectors: the first k columns of the factored matrix.
  const Tensor q = Tensor::empty(with_matrix(batch, c, m), dt, device);
  copy_into(work.slice(-2, 0, k), q.slice(-2, 0, k));
  kernel_for(op::householder_product, device, dt)(q, tau, info);
  check_info(info, "qr", "could not be factorised");
  return {cast_result(row_major(q).contiguous(), a.dtype()), cast_result(r, a.dtype())};
}

Tensor pinv(const Tensor& a, std::optional<double> rtol) {
  check_matrices(a, "pinv", false);
  const DType dt = compute_dtype(a.dtype());
  const SvdResult r = svd_of(a, false, true, "pinv");
  if (r.S.dim(-1) == 0) return zeros(with_matrix(batch_shape(a.shape()), a.dim(-1), a.dim(-2)), a.dtype(), a.device());
  const Tensor zero = scalar(0.0, r.S.dtype(), a.device());
  const Tensor s_inv = where(significant(r.S, rtol.value_or(default_rtol(a, dt))), reciprocal(r.S), zero);
  // pinv = V diag(1/s) U^H (conj is a copy for real dtypes, so it is applied to complex ones only).
  const auto adjoint = [&](const Tensor& x) { return is_complex(dt) ? conj(x.transpose(-2, -1)) : x.transpose(-2, -1); };
  const Tensor v_scaled = multiply(adjoint(r.Vh), s_inv.unsqueeze(-2));
  return cast_result(matmul(v_scaled, adjoint(r.U)), a.dtype());
}

Tensor matrix_rank(const Tensor& a, std::optional<double> rtol) {
  check_matrices(a, "matrix_rank", false);
  const DType dt = compute_dtype(a.dtype());
  const Tensor s = svd_of(a, false, false, "matrix_rank").S;
  const Axes last = std::vector<std::int64_t>{-1};
  if (s.dim(-1) == 0) return zeros(batch_shape(a.shape()), DType::i64, a.device());
  return count_nonzero(significant(s, rtol.value_or(default_rtol(a, dt))), last);
}

}  // namespace accelera::linalg
