#pragma once
// The CPU backend's door to BLAS: row-major GEMM on whichever library use_cpu_blas chose
// (include/accelera/cpu_blas.hpp), with sizes checked against the library's integer width.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace accelera::cpu::blas {

enum class Transpose { no, yes };

// C = A·B + beta·C for row-major A (m x k, or k x m stored when transposed), B (k x n, or n x k) and C
// (m x n). `what` names the op in errors. A library with 32-bit sizes gets M split into parts that fit;
// N, K or a leading dimension beyond 2^31 raises NotSupportedError there.
void gemm(const char* what, Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
          std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc);
void gemm(const char* what, Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
          std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc);

// A LAPACK routine (Fortran name without the trailing underscore, e.g. "dgesv") of the library products
// run on, and the width of its integers (32 or 64). Raises NotSupportedError when the library lacks it.
struct LapackRoutine {
  void* address;
  int integer_bits;
};
LapackRoutine lapack_routine(const char* name);

// The OPENBLAS_CORETYPE that selects kernels fit for a CPU running `targets` (simd target names) when
// OpenBLAS reports kernels below them as `core`; empty when `core` is fine (Note [OpenBLAS core type]).
std::string suggested_openblas_core(std::string_view core, const std::vector<std::string>& targets);

}  // namespace accelera::cpu::blas
