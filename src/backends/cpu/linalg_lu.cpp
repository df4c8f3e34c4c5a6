// LU, solve and Cholesky on the CPU through LAPACK (Note [Factorisation kernels] in ops/linalg_kernels.hpp).
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/lapack.hpp"
#include "backends/cpu/linalg_batch.hpp"
#include "ops/linalg_kernels.hpp"

namespace accelera::cpu {

namespace {

void lu_factor_kernel(const Tensor& work, const Tensor& pivots, const Tensor& info) {
  const MatrixBatch mb(work);
  const std::int64_t m = mb.rows, n = mb.cols, k = std::min(m, n);
  dispatch_float_or_complex(work.dtype(), "lu_factor", [&](auto t) {
    using T = decltype(t);
    const Lapack<T> lapack;
    for_each_matrix(mb.count, std::max(m, n), [&](std::int64_t i) {
      lapack.getrf(m, n, work.data<T>() + i * m * n, pivots.data<int>() + i * k, info.data<int>() + i);
    });
  });
}

void lu_solve_kernel(const Tensor& a, const Tensor& b, const Tensor& info) {
  const MatrixBatch ma(a), mb(b);
  const std::int64_t n = ma.rows, k = mb.cols;
  dispatch_float_or_complex(a.dtype(), "lu_solve", [&](auto t) {
    using T = decltype(t);
    const Lapack<T> lapack;
    for_each_matrix(ma.count, n, [&](std::int64_t i) {
      lapack.gesv(n, k, a.data<T>() + i * n * n, b.data<T>() + i * n * k, info.data<int>() + i);
    });
  });
}

void cholesky_kernel(const Tensor& work, const Tensor& info) {
  const MatrixBatch mb(work);
  const std::int64_t n = mb.rows;
  dispatch_float_or_complex(work.dtype(), "cholesky", [&](auto t) {
    using T = decltype(t);
    const Lapack<T> lapack;
    for_each_matrix(mb.count, n, [&](std::int64_t i) { lapack.potrf(n, work.data<T>() + i * n * n, info.data<int>() + i); });
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::lu_factor, DeviceKind::cpu, dtypes::floating | dtypes::complex, &lu_factor_kernel);
  register_kernel(op::lu_solve, DeviceKind::cpu, dtypes::floating | dtypes::complex, &lu_solve_kernel);
  register_kernel(op::cholesky, DeviceKind::cpu, dtypes::floating | dtypes::complex, &cholesky_kernel);
}

}  // namespace accelera::cpu
