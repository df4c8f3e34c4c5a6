#pragma once
// Which vector instruction sets the CPU backend's kernels were compiled for, which of them this CPU runs,
// and which one they use now (the best supported one, unless ACCELERA_CPU_TARGET names a lesser one).
// Names: "avx512", "avx2", "sse4", "scalar" on x86; "sve2", "sve", "neon", "scalar" on Arm.
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

}  // namespace accelera
