#pragma once
// Device-agnostic operations. Each validates its inputs (typed errors, inputs never modified), allocates
// the result on the inputs' device and dispatches to that device's backend. NumPy semantics: broadcasting,
// dtype promotion, shapes of results.
#include <cstdint>
#include <optional>
#include <vector>

#include "accelera/core/tensor.hpp"

namespace accelera {

using Axes = std::optional<std::vector<std::int64_t>>;  // nullopt: all axes

Tensor zeros(const Shape& shape, DType dtype = DType::f32, const Device& device = Device::cpu());
Tensor ones(const Shape& shape, DType dtype = DType::f32, const Device& device = Device::cpu());
Tensor full(const Shape& shape, double value, DType dtype = DType::f32, const Device& device = Device::cpu());

// NumPy matmul: 1-D operands are promoted and the added axis removed; batch axes broadcast. f32/f64.
Tensor matmul(const Tensor& a, const Tensor& b);

Tensor add(const Tensor& a, const Tensor& b);
Tensor subtract(const Tensor& a, const Tensor& b);
Tensor multiply(const Tensor& a, const Tensor& b);
Tensor divide(const Tensor& a, const Tensor& b);  // true division: integer inputs give float64

Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);

Tensor sum(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
Tensor mean(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
Tensor max(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);

}  // namespace accelera
