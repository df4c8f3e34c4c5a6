// full, zeros and ones.
#include "ops/fill.hpp"

#include "accelera/ops.hpp"

namespace accelera {

Tensor full(const Shape& shape, double value, DType dtype, const Device& device) {
  const auto kernel = kernel_for(op::fill, device, dtype);
  Tensor out = Tensor::empty(shape, dtype, device);
  if (out.numel() > 0) kernel(out, value);
  return out;
}

Tensor zeros(const Shape& shape, DType dtype, const Device& device) { return full(shape, 0.0, dtype, device); }
Tensor ones(const Shape& shape, DType dtype, const Device& device) { return full(shape, 1.0, dtype, device); }

}  // namespace accelera
