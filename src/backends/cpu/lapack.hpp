#pragma once
// LAPACK of the linked OpenBLAS (Debian's libopenblas carries it), called through its Fortran symbols:
// column-major, 32-bit integers, every argument by pointer. One overload set per routine picks s or d.
#include <climits>
#include <cstdint>

#include "accelera/core/error.hpp"

extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb, int* info);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, std::size_t uplo_len);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t uplo_len);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t jobz_len, std::size_t uplo_len);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t jobz_len, std::size_t uplo_len);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info, std::size_t jobz_len);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             std::size_t jobz_len);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
}

namespace accelera::cpu::lapack {

// A matrix extent as LAPACK's int; larger ones raise NotSupportedError.
inline int extent(std::int64_t v, const char* op) {
  ACC_CHECK(v <= INT_MAX, NotSupportedError, "{}: extent {} exceeds the 32-bit sizes of the CPU's LAPACK", op, v);
  return static_cast<int>(v);
}

inline void getrf(int m, int n, float* a, int* piv, int* info) { sgetrf_(&m, &n, a, &m, piv, info); }
inline void getrf(int m, int n, double* a, int* piv, int* info) { dgetrf_(&m, &n, a, &m, piv, info); }
inline void gesv(int n, int k, float* a, int* piv, float* b, int* info) { sgesv_(&n, &k, a, &n, piv, b, &n, info); }
inline void gesv(int n, int k, double* a, int* piv, double* b, int* info) { dgesv_(&n, &k, a, &n, piv, b, &n, info); }
inline void potrf(int n, float* a, int* info) { spotrf_("L", &n, a, &n, info, 1); }
inline void potrf(int n, double* a, int* info) { dpotrf_("L", &n, a, &n, info, 1); }
inline void syevd(char jobz, int n, float* a, float* w, float* work, int lwork, int* iwork, int liwork, int* info) {
  ssyevd_(&jobz, "L", &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
inline void syevd(char jobz, int n, double* a, double* w, double* work, int lwork, int* iwork, int liwork, int* info) {
  dsyevd_(&jobz, "L", &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
inline void gesdd(char jobz, int m, int n, float* a, float* s, float* u, int ldu, float* vt, int ldvt, float* work,
                  int lwork, int* iwork, int* info) {
  sgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
inline void gesdd(char jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt, double* work,
                  int lwork, int* iwork, int* info) {
  dgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
inline void geqrf(int m, int n, float* a, float* tau, float* work, int lwork, int* info) {
  sgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
inline void geqrf(int m, int n, double* a, double* tau, double* work, int lwork, int* info) {
  dgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
inline void orgqr(int m, int n, int k, float* a, const float* tau, float* work, int lwork, int* info) {
  sorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
inline void orgqr(int m, int n, int k, double* a, const double* tau, double* work, int lwork, int* info) {
  dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}

}  // namespace accelera::cpu::lapack
