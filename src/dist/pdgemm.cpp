// accelera_pdgemm / accelera_psgemm: ScaLAPACK's pdgemm_ / psgemm_ arguments over accelera::dist::gemm.
#include <cstdio>
#include <exception>

#include "accelera/dist.hpp"

namespace {

// ScaLAPACK stops the job on a bad argument (PXERBLA, then BLACS_ABORT); so do these entries, for any error,
// saying which rank and why, since an exception cannot cross a C or Fortran caller.
template <class T>
void scalapack_gemm(const char* name, const char* transa, const char* transb, const int* m, const int* n,
                    const int* k, const T* alpha, const T* a, const int* ia, const int* ja, const int* desca,
                    const T* b, const int* ib, const int* jb, const int* descb, const T* beta, T* c, const int* ic,
                    const int* jc, const int* descc) noexcept {
  using accelera::dist::Descriptor;
  try {
    accelera::dist::gemm<T>(*transa, *transb, *m, *n, *k, *alpha, a, *ia, *ja, Descriptor::from_scalapack(desca), b,
                            *ib, *jb, Descriptor::from_scalapack(descb), *beta, c, *ic, *jc,
                            Descriptor::from_scalapack(descc));
  } catch (const std::exception& error) {
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "%s on rank %d: %s\n", name, rank, error.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

}  // namespace

extern "C" {

void accelera_pdgemm(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                     const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
                     const double* b, const int* ib, const int* jb, const int* descb, const double* beta, double* c,
                     const int* ic, const int* jc, const int* descc) {
  scalapack_gemm("accelera_pdgemm", transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic,
                 jc, descc);
}

void accelera_psgemm(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                     const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
                     const float* b, const int* ib, const int* jb, const int* descb, const float* beta, float* c,
                     const int* ic, const int* jc, const int* descc) {
  scalapack_gemm("accelera_psgemm", transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic,
                 jc, descc);
}

}  // extern "C"
