#include "accelera/core/nn_types.hpp"

#include "accelera/core/error.hpp"

namespace accelera {

std::string_view gelu_approximation_name(GeluApproximation approximation) noexcept {
  return approximation == GeluApproximation::tanh ? "tanh" : "none";
}

GeluApproximation gelu_approximation_from_name(std::string_view name) {
  if (name == "none") return GeluApproximation::none;
  if (name == "tanh") return GeluApproximation::tanh;
  throw ValueError(fmt::format("unknown GELU approximation '{}': choose 'none' (exact, erf) or 'tanh'", name));
}

}  // namespace accelera
