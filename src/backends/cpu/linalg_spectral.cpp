// eigh, SVD and QR on the CPU through LAPACK (Note [Factorisation kernels] in ops/linalg_kernels.hpp).
// Workspaces come from LAPACK's own size queries (lwork = -1), per thread.
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/lapack.hpp"
#include "backends/cpu/linalg_batch.hpp"
#include "ops/linalg_kernels.hpp"

namespace accelera::cpu {

namespace {

template <typename T>
void eigh_one(char jobz, int n, T* a, T* w, int* info) {
  T work_size{};
  int iwork_size = 0;
  lapack::syevd(jobz, n, a, w, &work_size, -1, &iwork_size, -1, info);
  if (*info != 0) return;
  const int lwork = static_cast<int>(work_size), liwork = iwork_size;
  lapack::syevd(jobz, n, a, w, scratch<T>(static_cast<std::size_t>(lwork)), lwork,
                scratch<int>(static_cast<std::size_t>(liwork)), liwork, info);
}

void eigh_kernel(const Tensor& work, const Tensor& eigenvalues, const Tensor& info, bool vectors) {
  const MatrixBatch mb(work);
  const int n = lapack::extent(mb.rows, "eigh");
  dispatch_float(work.dtype(), "eigh", [&](auto t) {
    using T = decltype(t);
    for_each_matrix(mb.count, n, [&](std::int64_t i) {
      eigh_one<T>(vectors ? 'V' : 'N', n, work.data<T>() + i * n * n, eigenvalues.data<T>() + i * n,
                  info.data<int>() + i);
    });
  });
}

// gesdd: 'N' values only, 'S' thin (u: m x n), 'A' full (u: m x m). m >= n.
template <typename T>
void svd_one(char jobz, int m, int n, T* a, T* s, T* u, T* vt, int* info) {
  const int ldu = m, ldvt = n;
  T dummy{};
  if (jobz == 'N') u = vt = &dummy;
  int* iwork = scratch<int>(static_cast<std::size_t>(8 * n));
  T work_size{};
  lapack::gesdd(jobz, m, n, a, s, u, ldu, vt, ldvt, &work_size, -1, iwork, info);
  if (*info != 0) return;
  const int lwork = static_cast<int>(work_size);
  lapack::gesdd(jobz, m, n, a, s, u, ldu, vt, ldvt, scratch<T>(static_cast<std::size_t>(lwork)), lwork, iwork, info);
}

void svd_kernel(const Tensor& work, const Tensor& s, const Tensor& u, const Tensor& vt, bool full,
                const Tensor& info) {
  const MatrixBatch mb(work);
  const int m = lapack::extent(mb.rows, "svd"), n = lapack::extent(mb.cols, "svd");
  ACC_ASSERT(m >= n, "svd kernel called with m = {} < n = {}", m, n);
  const bool vectors = u.defined();
  const char jobz = !vectors ? 'N' : (full ? 'A' : 'S');
  const std::int64_t u_cols = full ? m : n;
  dispatch_float(work.dtype(), "svd", [&](auto t) {
    using T = decltype(t);
    for_each_matrix(mb.count, m, [&](std::int64_t i) {
      svd_one<T>(jobz, m, n, work.data<T>() + i * m * n, s.data<T>() + i * n,
                 vectors ? u.data<T>() + i * m * u_cols : nullptr, vectors ? vt.data<T>() + i * n * n : nullptr,
                 info.data<int>() + i);
    });
  });
}

template <typename T>
void geqrf_one(int m, int n, T* a, T* tau, int* info) {
  T work_size{};
  lapack::geqrf(m, n, a, tau, &work_size, -1, info);
  if (*info != 0) return;
  const int lwork = std::max(1, static_cast<int>(work_size));
  lapack::geqrf(m, n, a, tau, scratch<T>(static_cast<std::size_t>(lwork)), lwork, info);
}

void qr_factor_kernel(const Tensor& work, const Tensor& tau, const Tensor& info) {
  const MatrixBatch mb(work);
  const int m = lapack::extent(mb.rows, "qr"), n = lapack::extent(mb.cols, "qr");
  const int k = std::min(m, n);
  dispatch_float(work.dtype(), "qr_factor", [&](auto t) {
    using T = decltype(t);
    for_each_matrix(mb.count, std::max(m, n), [&](std::int64_t i) {
      geqrf_one<T>(m, n, work.data<T>() + i * m * n, tau.data<T>() + i * k, info.data<int>() + i);
    });
  });
}

template <typename T>
void orgqr_one(int m, int c, int k, T* q, const T* tau, int* info) {
  T work_size{};
  lapack::orgqr(m, c, k, q, tau, &work_size, -1, info);
  if (*info != 0) return;
  const int lwork = std::max(1, static_cast<int>(work_size));
  lapack::orgqr(m, c, k, q, tau, scratch<T>(static_cast<std::size_t>(lwork)), lwork, info);
}

void householder_product_kernel(const Tensor& q, const Tensor& tau, const Tensor& info) {
  const MatrixBatch mb(q);
  const int m = lapack::extent(mb.rows, "qr"), c = lapack::extent(mb.cols, "qr");
  const int k = lapack::extent(tau.dim(tau.ndim() - 1), "qr");
  dispatch_float(q.dtype(), "householder_product", [&](auto t) {
    using T = decltype(t);
    for_each_matrix(mb.count, m, [&](std::int64_t i) {
      orgqr_one<T>(m, c, k, q.data<T>() + i * m * c, tau.data<T>() + i * k, info.data<int>() + i);
    });
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::eigh, DeviceKind::cpu, dtypes::floating, &eigh_kernel);
  register_kernel(op::svd, DeviceKind::cpu, dtypes::floating, &svd_kernel);
  register_kernel(op::qr_factor, DeviceKind::cpu, dtypes::floating, &qr_factor_kernel);
  register_kernel(op::householder_product, DeviceKind::cpu, dtypes::floating, &householder_product_kernel);
}

}  // namespace accelera::cpu
