#pragma once
// Operand alignment for cuBLASLt (Note [linear_gelu on CUDA] in linear_gelu.cpp). Free of CUDA headers, so
// it is tested where no GPU is.
#include <cstdint>

namespace accelera::cuda {

// cuBLASLt assumes 256-byte aligned operands unless told otherwise, and may then pick vectorised kernels.
inline constexpr std::uint32_t kLtMaxAlignment = 256;
// A bias less aligned than this takes the unfused path: cuBLASLt judges the bias's alignment from its
// pointer (no preference attribute states it), and its epilogues are not documented for less.
inline constexpr std::uint32_t kLtBiasAlignment = 16;

// The largest power of two dividing `address`, at most kLtMaxAlignment: what an operand may promise in
// CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_{A,B,C,D}_BYTES. Address 0 (no operand) promises the most.
constexpr std::uint32_t lt_alignment(std::uintptr_t address) noexcept {
  const std::uintptr_t lowest = address & (~address + 1);  // the lowest set bit; 0 for address 0
  return lowest == 0 || lowest >= kLtMaxAlignment ? kLtMaxAlignment : static_cast<std::uint32_t>(lowest);
}

inline std::uint32_t lt_alignment(const void* ptr) noexcept {
  return lt_alignment(reinterpret_cast<std::uintptr_t>(ptr));
}

}  // namespace accelera::cuda
