#pragma once
// Which vector instruction sets the CPU backend's kernels were compiled for, which of them this CPU runs,
// and which one they use now (the best supported one, unless ACCELERA_CPU_TARGET names a lesser one).
// Names: "avx512", "avx2", "sse4", "scalar" on x86; "sve2", "sve", "neon", "scalar" on Arm.
#include <cstdint>
#include <string>
#include <vector>

#include "accelera/core/export.hpp"

namespace accelera {

struct CpuSimdInfo {
  std::vector<std::string> compiled;   // best first
  std::vector<std::string> supported;  // the compiled targets this CPU can run, best first
  std::string active;                  // the one the kernels run on
};

// Throws ValueError when ACCELERA_CPU_TARGET names no compiled target.
ACC_API CpuSimdInfo cpu_simd_info();

// Note [Parallel grain]: element-wise CPU loops shorter than `elements` run on the calling thread. Waking
// the OpenMP workers costs a few microseconds on bare metal with spinning workers and up to ~100 on a VM
// under the passive wait policy, so no constant suits every machine: the cost is measured once, on first
// use (about a millisecond), and the grain set where splitting the work starts to pay. Reductions and scans
// keep a fixed grain, so that their summation order does not depend on the machine's timing.
// ACCELERA_PARALLEL_GRAIN=<elements> sets the grain instead (the C++ tests use a small one, so that their
// small shapes run the parallel paths too); a value that is not a positive integer is a ValueError.
struct CpuParallelGrain {
  std::int64_t elements = 0;              // the grain in use
  double wake_microseconds = 0;           // median cost of an empty parallel region
  double elements_per_microsecond = 0;    // one thread's rate on a simple out-of-cache element-wise loop
  int threads = 1;                        // OpenMP threads
};
ACC_API CpuParallelGrain cpu_parallel_grain();

}  // namespace accelera
