#include <unistd.h>

#include <cstdlib>

#include "cli.hpp"

int main(int argc, char** argv) {
  // Note [OpenMP wait policy]: OpenMP worker threads that spin after a parallel region steal the cores
  // that OpenBLAS's and the OpenCL driver's own threads need next (a streamed matmul alternates packing
  // loops and GEMMs, and ran 10x slower so). libgomp reads the policy once, when it is loaded, so the
  // program sets it and starts itself again unless the user chose a policy.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    execv("/proc/self/exe", argv);  // returns only on failure: then run with the default policy
  }
  return accelera::cli::run(argc, argv);
}
