// accelera::cpu_simd_info (include/accelera/cpu_features.hpp).
#include "accelera/cpu_features.hpp"

#include "backends/cpu/simd/simd_kernels.hpp"

namespace accelera {

CpuSimdInfo cpu_simd_info() {
  CpuSimdInfo info;
  info.active = cpu::simd::active_target_name();  // first: applies (and checks) ACCELERA_CPU_TARGET
  info.compiled = cpu::simd::compiled_target_names();
  info.supported = cpu::simd::supported_target_names();
  return info;
}

}  // namespace accelera
