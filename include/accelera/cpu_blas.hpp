#pragma once
// Which BLAS library the CPU backend's matrix products run on, and how to choose another one.
//
// A build with oneDNN runs float32 products on oneDNN's sgemm, on the OpenMP pool that the CPU backend's
// other kernels use (float64 products and LAPACK on the linked OpenBLAS); a build without it calls the
// OpenBLAS it was linked with. Two thread pools spinning on the same cores slow each other down by up to
// half whenever the caller alternates between them (OpenBLAS's pool against OpenMP's, or against NumPy's
// own OpenBLAS). use_cpu_blas() points the CPU backend at another library.
#include <string>

#include "accelera/core/export.hpp"

namespace accelera {

struct CpuBlasInfo {
  std::string library;  // path of the shared library that computes the products
  std::string symbols;  // the sgemm entry point used, e.g. "cblas_sgemm" or "scipy_cblas_sgemm64_"
  std::string config;   // OpenBLAS's build configuration when the library says it, else empty
  // OpenBLAS's kernel family (e.g. "SkylakeX", "Haswell"), empty when not OpenBLAS; with oneDNN, that of
  // the linked OpenBLAS, which runs the float64 products.
  std::string core;
  // Set when OpenBLAS chose kernels below what this CPU runs (an unrecognised model falls back to
  // "Prescott", SSE3, about 5x slower on an AVX-512 machine): the OPENBLAS_CORETYPE value that fixes it.
  // OpenBLAS reads that variable when it is loaded; the `accelera` program sets it and starts again, and
  // the Python package sets it before it loads the library (python/accelera/_openblas_core.py).
  std::string suggested_core;
  int integer_bits = 32;  // 32 or 64: the width of BLAS sizes (64 lifts the 2^31 limit on rows and columns)
  int threads = 0;        // the library's thread count when it says it, else 0
  // float32 products on oneDNN below this many FLOPs run on the calling thread (Note [Small products on one
  // thread] in src/backends/cpu/blas.cpp: measured on first use); 0 with another library or one thread.
  double one_thread_below_flops = 0;
  // OpenBLAS's workers spin 2^this cycles after a product before they sleep (OPENBLAS_THREAD_TIMEOUT, read
  // when the library loads; 28 by default, about 0.1 s: Note [OpenBLAS thread timeout] in cli/main.cpp); of
  // the library that runs float64 products; 0 when it is not OpenBLAS.
  int spin_log2_cycles = 0;
  bool builtin = false;   // true for the OpenBLAS that libaccelera was linked with
};

// The library in use now.
ACC_API CpuBlasInfo cpu_blas_info();

// "onednn" selects oneDNN for float32 products (ValueError in a build without it); "builtin" the linked
// OpenBLAS for every product; anything else is the path of a shared library with CBLAS
// sgemm and dgemm, opened (or found already loaded) and used from the next product on. Entry points are
// looked up as SciPy's OpenBLAS names them (scipy_cblas_sgemm64_, 64-bit sizes), then OpenBLAS's 64-bit
// suffix (cblas_sgemm64_), then plain cblas_sgemm (32-bit sizes unless OpenBLAS reports USE64BITINT).
// Throws ValueError when the library cannot be opened or lacks sgemm or dgemm; the choice is unchanged then.
ACC_API void use_cpu_blas(const std::string& library);
// Whether this build has oneDNN (use_cpu_blas("onednn"), the CPU's convolutions).
ACC_API bool cpu_blas_has_onednn();

}  // namespace accelera
