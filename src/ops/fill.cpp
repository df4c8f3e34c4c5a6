// full, zeros and ones.
#include "ops/fill.hpp"

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"

namespace accelera {

Tensor full(const Shape& shape, double value, DType dtype, const Device& device) {
  if (is_complex(dtype)) return full(shape, std::complex<double>(value, 0.0), dtype, device);
  const auto kernel = kernel_for(op::fill, device, dtype);
  Tensor out = Tensor::empty(shape, dtype, device);
  if (out.numel() > 0) kernel(out, value);
  return out;
}

Tensor full(const Shape& shape, std::complex<double> value, DType dtype, const Device& device) {
  ACC_CHECK(is_complex(dtype), DTypeError, "full: a complex fill value needs a complex dtype, not {}",
            dtype_name(dtype));
  // The two parts are filled through the real view (Note [Complex copies]).
  Tensor out = Tensor::empty(shape, dtype, device);
  const Tensor parts = out.view_as_real();
  const auto kernel = kernel_for(op::fill, device, parts.dtype());
  if (out.numel() > 0) {
    kernel(parts.select(-1, 0), value.real());
    kernel(parts.select(-1, 1), value.imag());
  }
  return out;
}

Tensor zeros(const Shape& shape, DType dtype, const Device& device) { return full(shape, 0.0, dtype, device); }
Tensor ones(const Shape& shape, DType dtype, const Device& device) { return full(shape, 1.0, dtype, device); }

}  // namespace accelera
