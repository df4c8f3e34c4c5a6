#pragma once
// Small types shared by the fused neural-network ops (nn_ops.hpp) and the Backend interface.
#include <string_view>
#include "accelera/core/export.hpp"

namespace accelera {

// The two GELU forms: `none` is the exact x * Phi(x) (through erf); `tanh` the approximation
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) that GPT-2 and cuBLASLt's GELU epilogue use.
enum class GeluApproximation { none, tanh };

ACC_API std::string_view gelu_approximation_name(GeluApproximation approximation) noexcept;
// Accepts "none" and "tanh"; throws ValueError naming the choices otherwise.
ACC_API GeluApproximation gelu_approximation_from_name(std::string_view name);

}  // namespace accelera
