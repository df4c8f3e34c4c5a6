#include <unistd.h>

#include <cstdlib>
#include <string>

#include "accelera/cpu_blas.hpp"
#include "cli.hpp"

int main(int argc, char** argv) {
  // Note [OpenMP wait policy]: OpenMP workers that spin long after a parallel region (libgomp's default,
  // 300000 spins) steal the cores that OpenBLAS's and the OpenCL driver's own threads need next (a streamed
  // matmul alternates packing loops and GEMMs, and ran 10x slower so); workers that sleep at once
  // (OMP_WAIT_POLICY=PASSIVE) pay a futex wake-up at every region, which made a training step of small
  // kernels 1.45x slower (an MLP step: 1.2 ms against 0.82). A short spin (GOMP_SPINCOUNT=2000, a few
  // microseconds) bridges the gap between back-to-back kernels and is over before another pool's work.
  // libgomp reads it once, when it is loaded, so the program sets it and starts itself again unless the
  // user chose a policy or a spin count.
  bool restart = false;
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
    setenv("GOMP_SPINCOUNT", "2000", 1);
    restart = true;
  }
  // Note [OpenBLAS thread timeout]: OpenBLAS's own workers spin for 2^28 cycles (about 0.1 s) after each
  // product before they sleep, on cores that the OpenMP kernels after the product need, and burn 0.12 s of
  // a core per product. 2^20 cycles (half a millisecond) still bridges back-to-back products: a float64
  // layer (a 1024 x 512 by 512 x 512 product, bias, tanh) took a median of 7.2 ms per step with the
  // default and 6.5 ms so (eight interleaved runs: 5.5-9.7 ms and 5.4-7.1), products alone no slower. The
  // variable, too, is read when OpenBLAS is loaded.
  if (std::getenv("OPENBLAS_THREAD_TIMEOUT") == nullptr) {
    setenv("OPENBLAS_THREAD_TIMEOUT", "20", 1);
    restart = true;
  }
  // Note [OpenBLAS core type] (src/backends/cpu/blas.cpp): OpenBLAS also reads its kernel choice when it
  // is loaded; where it fell back to kernels below this CPU's, name the right ones, unless the user did.
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    const std::string core = accelera::cpu_blas_info().suggested_core;
    if (!core.empty()) {
      setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
      restart = true;
    }
  }
  if (restart) execv("/proc/self/exe", argv);  // returns only on failure: then run as started
  return accelera::cli::run(argc, argv);
}
