// Default fused neural-network kernels: a backend that does not implement one says so by name.
#include "accelera/backend.hpp"
#include "accelera/core/error.hpp"

namespace accelera {

namespace {

[[noreturn]] void not_implemented(const Backend& backend, std::string_view op) {
  throw NotSupportedError(
      fmt::format("{} is not implemented on the {} backend", op, device_kind_name(backend.kind())));
}

}  // namespace

std::vector<std::string> Backend::compiled_kernels(int) const { return {}; }

void Backend::gelu(const Tensor&, const Tensor&, GeluApproximation, const Tensor&) { not_implemented(*this, "gelu"); }
void Backend::gelu_backward(const Tensor&, const Tensor&, GeluApproximation, const Tensor&) {
  not_implemented(*this, "gelu_backward");
}
void Backend::linear_gelu(const Tensor&, const Tensor&, const Tensor&, GeluApproximation, const Tensor&) {
  not_implemented(*this, "linear_gelu");
}
void Backend::layer_norm(const Tensor&, const Tensor&, const Tensor&, double, const Tensor&, const Tensor&,
                         const Tensor&) {
  not_implemented(*this, "layer_norm");
}
void Backend::layer_norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                  const Tensor&, const Tensor&, const Tensor&) {
  not_implemented(*this, "layer_norm_backward");
}
void Backend::softmax(const Tensor&, bool log, const Tensor&) { not_implemented(*this, log ? "log_softmax" : "softmax"); }
void Backend::softmax_backward(const Tensor&, const Tensor&, bool log, const Tensor&) {
  not_implemented(*this, log ? "log_softmax_backward" : "softmax_backward");
}
void Backend::attention(const Tensor&, const Tensor&, const Tensor&, double, bool, const Tensor&, const Tensor&) {
  not_implemented(*this, "attention");
}
void Backend::attention_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                 const Tensor&, double, bool, const Tensor&, const Tensor&, const Tensor&) {
  not_implemented(*this, "attention_backward");
}

}  // namespace accelera
