// eigh, SVD and QR on the CPU through LAPACK (Note [Factorisation kernels] in ops/linalg_kernels.hpp).
// Workspaces come from LAPACK's own size queries (lwork = -1), per thread (backends/cpu/lapack.hpp).
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/lapack.hpp"
#include "backends/cpu/linalg_batch.hpp"
#include "ops/linalg_kernels.hpp"

namespace accelera::cpu {

namespace {

void eigh_kernel(const Tensor& work, const Tensor& eigenvalues, const Tensor& info, bool vectors) {
  const MatrixBatch mb(work);
  const std::int64_t n = mb.rows;
  dispatch_float_or_complex(work.dtype(), "eigh", [&](auto t) {
    using T = decltype(t);
    using R = typename Lapack<T>::Real;  // the eigenvalues of a Hermitian matrix are real
    const Lapack<T> lapack;
    for_each_matrix(mb.count, n, [&](std::int64_t i) {
      lapack.syevd(vectors ? 'V' : 'N', n, work.data<T>() + i * n * n, eigenvalues.data<R>() + i * n,
                   info.data<int>() + i);
    });
  });
}

// gesdd: 'N' values only, 'S' thin (u: m x n), 'A' full (u: m x m); m >= n.
void svd_kernel(const Tensor& work, const Tensor& s, const Tensor& u, const Tensor& vt, bool full,
                const Tensor& info) {
  const MatrixBatch mb(work);
  const std::int64_t m = mb.rows, n = mb.cols;
  ACC_ASSERT(m >= n, "svd kernel called with m = {} < n = {}", m, n);
  const bool vectors = u.defined();
  const char jobz = !vectors ? 'N' : (full ? 'A' : 'S');
  const std::int64_t u_cols = full ? m : n;
  dispatch_float_or_complex(work.dtype(), "svd", [&](auto t) {
    using T = decltype(t);
    using R = typename Lapack<T>::Real;  // singular values are real
    const Lapack<T> lapack;
    for_each_matrix(mb.count, m, [&](std::int64_t i) {
      lapack.gesdd(jobz, m, n, work.data<T>() + i * m * n, s.data<R>() + i * n,
                   vectors ? u.data<T>() + i * m * u_cols : nullptr, vectors ? vt.data<T>() + i * n * n : nullptr,
                   info.data<int>() + i);
    });
  });
}

void qr_factor_kernel(const Tensor& work, const Tensor& tau, const Tensor& info) {
  const MatrixBatch mb(work);
  const std::int64_t m = mb.rows, n = mb.cols, k = std::min(m, n);
  dispatch_float_or_complex(work.dtype(), "qr_factor", [&](auto t) {
    using T = decltype(t);
    const Lapack<T> lapack;
    for_each_matrix(mb.count, std::max(m, n), [&](std::int64_t i) {
      lapack.geqrf(m, n, work.data<T>() + i * m * n, tau.data<T>() + i * k, info.data<int>() + i);
    });
  });
}

void householder_product_kernel(const Tensor& q, const Tensor& tau, const Tensor& info) {
  const MatrixBatch mb(q);
  const std::int64_t m = mb.rows, c = mb.cols, k = tau.dim(tau.ndim() - 1);
  dispatch_float_or_complex(q.dtype(), "householder_product", [&](auto t) {
    using T = decltype(t);
    const Lapack<T> lapack;
    for_each_matrix(mb.count, m, [&](std::int64_t i) {
      lapack.orgqr(m, c, k, q.data<T>() + i * m * c, tau.data<T>() + i * k, info.data<int>() + i);
    });
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::eigh, DeviceKind::cpu, dtypes::floating | dtypes::complex, &eigh_kernel);
  register_kernel(op::svd, DeviceKind::cpu, dtypes::floating | dtypes::complex, &svd_kernel);
  register_kernel(op::qr_factor, DeviceKind::cpu, dtypes::floating | dtypes::complex, &qr_factor_kernel);
  register_kernel(op::householder_product, DeviceKind::cpu, dtypes::floating | dtypes::complex,
                  &householder_product_kernel);
}

}  // namespace accelera::cpu
