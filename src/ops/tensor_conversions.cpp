// Tensor's copying methods. They live with the ops because they run backend kernels.
#include <vector>

#include "ops/common.hpp"

namespace accelera {

Tensor Tensor::clone() const {
  ops_detail::check_defined(*this, "clone", "the tensor");
  Tensor out = Tensor::empty(m_shape, m_dtype, device());
  backend_for(device()).copy(*this, out);
  return out;
}

Tensor Tensor::contiguous() const {
  ops_detail::check_defined(*this, "contiguous", "the tensor");
  return is_contiguous() ? *this : clone();
}

Tensor Tensor::astype(DType dtype) const {
  ops_detail::check_defined(*this, "astype", "the tensor");
  Tensor out = Tensor::empty(m_shape, dtype, device());
  backend_for(device()).copy(*this, out);
  return out;
}

Tensor Tensor::to(const Device& target) const {
  ops_detail::check_defined(*this, "to", "the tensor");
  if (target == device()) return *this;
  Backend& dst_backend = backend_for(target);
  Backend& src_backend = backend_for(device());
  const Tensor src = contiguous();
  Tensor out = Tensor::empty(m_shape, m_dtype, target);
  if (src.nbytes() == 0) return out;
  if (device().is_cpu()) {
    dst_backend.copy_from_host(out, src.data_ptr());
    dst_backend.synchronize(target.index);
  } else if (target.is_cpu()) {
    src_backend.copy_to_host(out.data_ptr(), src);
    src_backend.synchronize(device().index);
  } else if (target.kind == device().kind && dst_backend.copies_between_devices()) {
    // Two devices of one backend with a direct path (CUDA peer copies).
    dst_backend.copy(src, out);
    dst_backend.synchronize(target.index);
  } else {
    // Between two device kinds (or two devices without a direct path): stage through the host.
    const Tensor staged = src.to(Device::cpu());
    dst_backend.copy_from_host(out, staged.data_ptr());
    dst_backend.synchronize(target.index);
  }
  return out;
}

Tensor full(const Shape& shape, double value, DType dtype, const Device& device) {
  Tensor out = Tensor::empty(shape, dtype, device);
  backend_for(device).fill(out, value);
  return out;
}

Tensor zeros(const Shape& shape, DType dtype, const Device& device) { return full(shape, 0.0, dtype, device); }
Tensor ones(const Shape& shape, DType dtype, const Device& device) { return full(shape, 1.0, dtype, device); }

}  // namespace accelera
