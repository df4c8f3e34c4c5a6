// The factorisations on CUDA through cuSOLVER's dense API (Note [Factorisation kernels] in
// ops/linalg_kernels.hpp): one call per matrix of the batch on the device's compute stream, workspaces from
// the caching allocator, LAPACK's info written per matrix straight into the op's info tensor (devInfo).
// Every cuSOLVER status is checked. Every routine also takes complex64 and complex128 (heevd for syevd,
// ungqr for orgqr).
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "ops/linalg_kernels.hpp"

namespace accelera::cuda {

namespace {

void check_solver(cusolverStatus_t status, const char* call, const char* what) {
  if (status == CUSOLVER_STATUS_SUCCESS) [[likely]] return;
  const std::string message = fmt::format("{} failed while {}: cusolverStatus {}", call, what, static_cast<int>(status));
  if (status == CUSOLVER_STATUS_ALLOC_FAILED) throw OutOfMemoryError(message);
  if (status == CUSOLVER_STATUS_NOT_SUPPORTED || status == CUSOLVER_STATUS_ARCH_MISMATCH) {
    throw NotSupportedError(message);
  }
  throw DeviceError(message);
}
#define ACC_SOLVER_CHECK(expr, what) check_solver((expr), #expr, what)

// One cuSOLVER handle per device, bound to its compute stream, created on first use and kept (as the cuBLAS
// handle); calls on one handle are serialised by its mutex.
struct Solver {
  std::mutex mutex;
  cusolverDnHandle_t handle = nullptr;
};

Solver& solver_for(CudaDevice& d) {
  static std::mutex registry_mutex;
  static std::map<int, Solver> solvers;  // map nodes stay where they are
  Solver* s = nullptr;
  {
    std::lock_guard lock(registry_mutex);
    s = &solvers[d.index];
    if (s->handle == nullptr) ACC_SOLVER_CHECK(cusolverDnCreate(&s->handle), "creating a cuSOLVER handle");
  }
  return *s;
}

int extent(std::int64_t v, const char* op) {
  ACC_CHECK(v <= INT_MAX, NotSupportedError, "{}: extent {} exceeds cuSOLVER's 32-bit sizes", op, v);
  return static_cast<int>(v);
}

// The s and d entry points as overloads, column-major with the leading dimension of packed matrices.
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, float* a, int* lwork) {
  return cusolverDnSgetrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, double* a, int* lwork) {
  return cusolverDnDgetrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, float* a, float* w, int* piv, int* info) {
  return cusolverDnSgetrf(h, m, n, a, m, w, piv, info);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, double* a, double* w, int* piv, int* info) {
  return cusolverDnDgetrf(h, m, n, a, m, w, piv, info);
}
cusolverStatus_t getrs(cusolverDnHandle_t h, int n, int k, const float* a, const int* piv, float* b, int* info) {
  return cusolverDnSgetrs(h, CUBLAS_OP_N, n, k, a, n, piv, b, n, info);
}
cusolverStatus_t getrs(cusolverDnHandle_t h, int n, int k, const double* a, const int* piv, double* b, int* info) {
  return cusolverDnDgetrs(h, CUBLAS_OP_N, n, k, a, n, piv, b, n, info);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, float* a, int* lwork) {
  return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, double* a, int* lwork) {
  return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, float* a, float* w, int lwork, int* info) {
  return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork, info);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, double* a, double* w, int lwork, int* info) {
  return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork, info);
}
cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t job, int n, const float* a, const float* w,
                            int* lwork) {
  return cusolverDnSsyevd_bufferSize(h, job, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork);
}
cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t job, int n, const double* a, const double* w,
                            int* lwork) {
  return cusolverDnDsyevd_bufferSize(h, job, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork);
}
cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t job, int n, float* a, float* w, float* work, int lwork,
                       int* info) {
  return cusolverDnSsyevd(h, job, CUBLAS_FILL_MODE_LOWER, n, a, n, w, work, lwork, info);
}
cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t job, int n, double* a, double* w, double* work,
                       int lwork, int* info) {
  return cusolverDnDsyevd(h, job, CUBLAS_FILL_MODE_LOWER, n, a, n, w, work, lwork, info);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, float*, int* lwork) {
  return cusolverDnSgesvd_bufferSize(h, m, n, lwork);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, double*, int* lwork) {
  return cusolverDnDgesvd_bufferSize(h, m, n, lwork);
}
cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char job, int m, int n, float* a, float* s, float* u, int ldu,
                       float* vt, float* work, int lwork, float* rwork, int* info) {
  return cusolverDnSgesvd(h, job, job, m, n, a, m, s, u, ldu, vt, n, work, lwork, rwork, info);
}
cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char job, int m, int n, double* a, double* s, double* u, int ldu,
                       double* vt, double* work, int lwork, double* rwork, int* info) {
  return cusolverDnDgesvd(h, job, job, m, n, a, m, s, u, ldu, vt, n, work, lwork, rwork, info);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, float* a, int* lwork) {
  return cusolverDnSgeqrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, double* a, int* lwork) {
  return cusolverDnDgeqrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, float* a, float* tau, float* w, int lwork, int* info) {
  return cusolverDnSgeqrf(h, m, n, a, m, tau, w, lwork, info);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, double* a, double* tau, double* w, int lwork, int* info) {
  return cusolverDnDgeqrf(h, m, n, a, m, tau, w, lwork, info);
}
cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int c, int k, const float* a, const float* tau, int* lwork) {
  return cusolverDnSorgqr_bufferSize(h, m, c, k, a, m, tau, lwork);
}
cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int c, int k, const double* a, const double* tau,
                            int* lwork) {
  return cusolverDnDorgqr_bufferSize(h, m, c, k, a, m, tau, lwork);
}
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int c, int k, float* a, const float* tau, float* w, int lwork,
                       int* info) {
  return cusolverDnSorgqr(h, m, c, k, a, m, tau, w, lwork, info);
}
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int c, int k, double* a, const double* tau, double* w, int lwork,
                       int* info) {
  return cusolverDnDorgqr(h, m, c, k, a, m, tau, w, lwork, info);
}

// The complex entry points of the LU, Cholesky and QR routines (Hermitian: ungqr for orgqr).
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, cuComplex* a, int* lwork) {
  return cusolverDnCgetrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, cuDoubleComplex* a, int* lwork) {
  return cusolverDnZgetrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, cuComplex* a, cuComplex* w, int* piv, int* info) {
  return cusolverDnCgetrf(h, m, n, a, m, w, piv, info);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, cuDoubleComplex* a, cuDoubleComplex* w, int* piv, int* info) {
  return cusolverDnZgetrf(h, m, n, a, m, w, piv, info);
}
cusolverStatus_t getrs(cusolverDnHandle_t h, int n, int k, const cuComplex* a, const int* piv, cuComplex* b, int* info) {
  return cusolverDnCgetrs(h, CUBLAS_OP_N, n, k, a, n, piv, b, n, info);
}
cusolverStatus_t getrs(cusolverDnHandle_t h, int n, int k, const cuDoubleComplex* a, const int* piv, cuDoubleComplex* b,
                       int* info) {
  return cusolverDnZgetrs(h, CUBLAS_OP_N, n, k, a, n, piv, b, n, info);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, cuComplex* a, int* lwork) {
  return cusolverDnCpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, cuDoubleComplex* a, int* lwork) {
  return cusolverDnZpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, cuComplex* a, cuComplex* w, int lwork, int* info) {
  return cusolverDnCpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork, info);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, cuDoubleComplex* a, cuDoubleComplex* w, int lwork, int* info) {
  return cusolverDnZpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork, info);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, cuComplex* a, int* lwork) {
  return cusolverDnCgeqrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, cuDoubleComplex* a, int* lwork) {
  return cusolverDnZgeqrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, cuComplex* a, cuComplex* tau, cuComplex* w, int lwork,
                       int* info) {
  return cusolverDnCgeqrf(h, m, n, a, m, tau, w, lwork, info);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, cuDoubleComplex* a, cuDoubleComplex* tau,
                       cuDoubleComplex* w, int lwork, int* info) {
  return cusolverDnZgeqrf(h, m, n, a, m, tau, w, lwork, info);
}
cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int c, int k, const cuComplex* a, const cuComplex* tau,
                            int* lwork) {
  return cusolverDnCungqr_bufferSize(h, m, c, k, a, m, tau, lwork);
}
cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int c, int k, const cuDoubleComplex* a,
                            const cuDoubleComplex* tau, int* lwork) {
  return cusolverDnZungqr_bufferSize(h, m, c, k, a, m, tau, lwork);
}
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int c, int k, cuComplex* a, const cuComplex* tau, cuComplex* w,
                       int lwork, int* info) {
  return cusolverDnCungqr(h, m, c, k, a, m, tau, w, lwork, info);
}
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int c, int k, cuDoubleComplex* a, const cuDoubleComplex* tau,
                       cuDoubleComplex* w, int lwork, int* info) {
  return cusolverDnZungqr(h, m, c, k, a, m, tau, w, lwork, info);
}

cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t job, int n, const cuComplex* a, const float* w,
                            int* lwork) {
  return cusolverDnCheevd_bufferSize(h, job, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork);
}
cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t job, int n, const cuDoubleComplex* a,
                            const double* w, int* lwork) {
  return cusolverDnZheevd_bufferSize(h, job, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork);
}
cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t job, int n, cuComplex* a, float* w, cuComplex* work,
                       int lwork, int* info) {
  return cusolverDnCheevd(h, job, CUBLAS_FILL_MODE_LOWER, n, a, n, w, work, lwork, info);
}
cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t job, int n, cuDoubleComplex* a, double* w,
                       cuDoubleComplex* work, int lwork, int* info) {
  return cusolverDnZheevd(h, job, CUBLAS_FILL_MODE_LOWER, n, a, n, w, work, lwork, info);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, cuComplex*, int* lwork) {
  return cusolverDnCgesvd_bufferSize(h, m, n, lwork);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, cuDoubleComplex*, int* lwork) {
  return cusolverDnZgesvd_bufferSize(h, m, n, lwork);
}
cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char job, int m, int n, cuComplex* a, float* s, cuComplex* u,
                       int ldu, cuComplex* vt, cuComplex* work, int lwork, float* rwork, int* info) {
  return cusolverDnCgesvd(h, job, job, m, n, a, m, s, u, ldu, vt, n, work, lwork, rwork, info);
}
cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char job, int m, int n, cuDoubleComplex* a, double* s,
                       cuDoubleComplex* u, int ldu, cuDoubleComplex* vt, cuDoubleComplex* work, int lwork,
                       double* rwork, int* info) {
  return cusolverDnZgesvd(h, job, job, m, n, a, m, s, u, ldu, vt, n, work, lwork, rwork, info);
}

// The part type of an element type: eigenvalues and singular values are real.
template <typename T>
struct PartOf {
  using type = T;
};
template <>
struct PartOf<cuComplex> {
  using type = float;
};
template <>
struct PartOf<cuDoubleComplex> {
  using type = double;
};

// Runs body(handle, T{}) with the device's solver bound to its compute stream; `complex` kernels also take
// complex64 and complex128 (as cuComplex and cuDoubleComplex).
template <bool complex = false, typename Body>
void with_solver(const Tensor& work, const char* op, Body&& body) {
  CudaDevice& d = cuda_device(work.device());
  DeviceGuard guard(d.index);
  Solver& s = solver_for(d);
  std::lock_guard lock(s.mutex);
  ACC_SOLVER_CHECK(cusolverDnSetStream(s.handle, d.compute()), "binding cuSOLVER to the compute stream");
  if (work.dtype() == DType::f32) return body(s.handle, float{});
  if constexpr (complex) {
    if (work.dtype() == DType::c64) return body(s.handle, cuComplex{});
    if (work.dtype() == DType::c128) return body(s.handle, cuDoubleComplex{});
  }
  ACC_ASSERT(work.dtype() == DType::f64, "the cuda {} kernel was called for {}", op, dtype_name(work.dtype()));
  body(s.handle, double{});
}

// A workspace of `lwork` elements of like's dtype from the caching allocator (stream-ordered reuse).
Tensor workspace(int lwork, const Tensor& like) {
  return Tensor::empty(Shape{std::max(lwork, 1)}, like.dtype(), like.device());
}

struct Dims {
  int rows, cols;
  std::int64_t count;
  Dims(const Tensor& t, const char* op)
      : rows(extent(t.dim(-1), op)), cols(extent(t.dim(-2), op)),
        count(static_cast<std::int64_t>(rows) * cols == 0 ? 0 : t.numel() / (static_cast<std::int64_t>(rows) * cols)) {}
  std::int64_t size() const { return static_cast<std::int64_t>(rows) * cols; }
};

void lu_factor_kernel(const Tensor& work, const Tensor& pivots, const Tensor& info) {
  const Dims d(work, "lu_factor");
  const std::int64_t k = std::min(d.rows, d.cols);
  with_solver<true>(work, "lu_factor", [&](cusolverDnHandle_t h, auto t) {
    using T = decltype(t);
    int lwork = 0;
    ACC_SOLVER_CHECK(getrf_size(h, d.rows, d.cols, work.data<T>(), &lwork), "sizing getrf");
    const Tensor w = workspace(lwork, work);
    for (std::int64_t i = 0; i < d.count; ++i) {
      ACC_SOLVER_CHECK(getrf(h, d.rows, d.cols, work.data<T>() + i * d.size(), w.data<T>(),
                             pivots.data<int>() + i * k, info.data<int>() + i),
                       "factorising (getrf)");
    }
  });
}

void lu_solve_kernel(const Tensor& a, const Tensor& b, const Tensor& info) {
  const Dims da(a, "solve"), db(b, "solve");
  const int n = da.rows, k = db.cols;
  with_solver<true>(a, "lu_solve", [&](cusolverDnHandle_t h, auto t) {
    using T = decltype(t);
    int lwork = 0;
    ACC_SOLVER_CHECK(getrf_size(h, n, n, a.data<T>(), &lwork), "sizing getrf");
    const Tensor w = workspace(lwork, a);
    const Tensor pivots = Tensor::empty(Shape{n}, DType::i32, a.device());
    // getrs reports only illegal arguments; its info goes here so that getrf's stays in `info`.
    const Tensor solve_info = Tensor::empty(Shape{1}, DType::i32, a.device());
    for (std::int64_t i = 0; i < da.count; ++i) {
      T* ai = a.data<T>() + i * da.size();
      ACC_SOLVER_CHECK(getrf(h, n, n, ai, w.data<T>(), pivots.data<int>(), info.data<int>() + i), "factorising (getrf)");
      ACC_SOLVER_CHECK(getrs(h, n, k, ai, pivots.data<int>(), b.data<T>() + i * db.size(), solve_info.data<int>()),
                       "solving (getrs)");
    }
  });
}

void cholesky_kernel(const Tensor& work, const Tensor& info) {
  const Dims d(work, "cholesky");
  with_solver<true>(work, "cholesky", [&](cusolverDnHandle_t h, auto t) {
    using T = decltype(t);
    int lwork = 0;
    ACC_SOLVER_CHECK(potrf_size(h, d.rows, work.data<T>(), &lwork), "sizing potrf");
    const Tensor w = workspace(lwork, work);
    for (std::int64_t i = 0; i < d.count; ++i) {
      ACC_SOLVER_CHECK(potrf(h, d.rows, work.data<T>() + i * d.size(), w.data<T>(), lwork, info.data<int>() + i),
                       "factorising (potrf)");
    }
  });
}

void eigh_kernel(const Tensor& work, const Tensor& eigenvalues, const Tensor& info, bool vectors) {
  const Dims d(work, "eigh");
  const cusolverEigMode_t job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  with_solver<true>(work, "eigh", [&](cusolverDnHandle_t h, auto t) {
    using T = decltype(t);
    using R = typename PartOf<T>::type;
    int lwork = 0;
    ACC_SOLVER_CHECK(syevd_size(h, job, d.rows, work.data<T>(), eigenvalues.data<R>(), &lwork), "sizing syevd");
    const Tensor w = workspace(lwork, work);
    for (std::int64_t i = 0; i < d.count; ++i) {
      ACC_SOLVER_CHECK(syevd(h, job, d.rows, work.data<T>() + i * d.size(), eigenvalues.data<R>() + i * d.rows,
                             w.data<T>(), lwork, info.data<int>() + i),
                       "computing eigenvalues (syevd)");
    }
  });
}

void svd_kernel(const Tensor& work, const Tensor& s, const Tensor& u, const Tensor& vt, bool full, const Tensor& info) {
  const Dims d(work, "svd");
  const int m = d.rows, n = d.cols;
  ACC_ASSERT(m >= n, "svd kernel called with m = {} < n = {}", m, n);
  const bool vectors = u.defined();
  const signed char job = !vectors ? 'N' : (full ? 'A' : 'S');
  const std::int64_t u_size = static_cast<std::int64_t>(m) * (full ? m : n);
  with_solver<true>(work, "svd", [&](cusolverDnHandle_t h, auto t) {
    using T = decltype(t);
    using R = typename PartOf<T>::type;
    int lwork = 0;
    ACC_SOLVER_CHECK(gesvd_size(h, m, n, work.data<T>(), &lwork), "sizing gesvd");
    const Tensor w = workspace(lwork, work);
    const Tensor rwork = workspace(n, work);  // min(m, n) - 1 reals are needed
    for (std::int64_t i = 0; i < d.count; ++i) {
      ACC_SOLVER_CHECK(gesvd(h, job, m, n, work.data<T>() + i * d.size(), s.data<R>() + i * n,
                             vectors ? u.data<T>() + i * u_size : nullptr, m,
                             vectors ? vt.data<T>() + i * n * n : nullptr, w.data<T>(), lwork, rwork.data<R>(),
                             info.data<int>() + i),
                       "computing singular values (gesvd)");
    }
  });
}

void qr_factor_kernel(const Tensor& work, const Tensor& tau, const Tensor& info) {
  const Dims d(work, "qr");
  const int k = std::min(d.rows, d.cols);
  with_solver<true>(work, "qr_factor", [&](cusolverDnHandle_t h, auto t) {
    using T = decltype(t);
    int lwork = 0;
    ACC_SOLVER_CHECK(geqrf_size(h, d.rows, d.cols, work.data<T>(), &lwork), "sizing geqrf");
    const Tensor w = workspace(lwork, work);
    for (std::int64_t i = 0; i < d.count; ++i) {
      ACC_SOLVER_CHECK(geqrf(h, d.rows, d.cols, work.data<T>() + i * d.size(), tau.data<T>() + i * k, w.data<T>(),
                             lwork, info.data<int>() + i),
                       "factorising (geqrf)");
    }
  });
}

void householder_product_kernel(const Tensor& q, const Tensor& tau, const Tensor& info) {
  const Dims d(q, "qr");
  const int k = extent(tau.dim(-1), "qr");
  with_solver<true>(q, "householder_product", [&](cusolverDnHandle_t h, auto t) {
    using T = decltype(t);
    int lwork = 0;
    ACC_SOLVER_CHECK(orgqr_size(h, d.rows, d.cols, k, q.data<T>(), tau.data<T>(), &lwork), "sizing orgqr");
    const Tensor w = workspace(lwork, q);
    for (std::int64_t i = 0; i < d.count; ++i) {
      ACC_SOLVER_CHECK(orgqr(h, d.rows, d.cols, k, q.data<T>() + i * d.size(), tau.data<T>() + i * k, w.data<T>(),
                             lwork, info.data<int>() + i),
                       "forming Q (orgqr)");
    }
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  constexpr DTypeSet with_complex = dtypes::floating | dtypes::complex;
  register_kernel(op::lu_factor, DeviceKind::cuda, with_complex, &lu_factor_kernel);
  register_kernel(op::lu_solve, DeviceKind::cuda, with_complex, &lu_solve_kernel);
  register_kernel(op::cholesky, DeviceKind::cuda, with_complex, &cholesky_kernel);
  register_kernel(op::eigh, DeviceKind::cuda, with_complex, &eigh_kernel);
  register_kernel(op::svd, DeviceKind::cuda, with_complex, &svd_kernel);
  register_kernel(op::qr_factor, DeviceKind::cuda, with_complex, &qr_factor_kernel);
  register_kernel(op::householder_product, DeviceKind::cuda, with_complex, &householder_product_kernel);
}

}  // namespace accelera::cuda
