// Tensor's copying methods: the copy kernel through the kernel table, and transfers between devices
// through the device interfaces.
#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"
#include "accelera/core/tensor.hpp"
#include "core/copy_kernel.hpp"

namespace accelera {

namespace {

void check_defined(const Tensor& t, std::string_view op) {
  ACC_CHECK(t.defined(), ValueError, "{}: the tensor is undefined", op);
}

void copy_on_device(const Tensor& src, const Tensor& dst) {
  kernel_for(op::copy, dst.device(), dst.dtype())(src, dst);
}

}  // namespace

void copy_into(const Tensor& src, const Tensor& dst) {
  check_defined(src, "copy_into");
  check_defined(dst, "copy_into");
  ACC_CHECK(src.device() == dst.device(), DeviceError,
            "copy_into: src is on {} but dst is on {}; move one with .to(device)", src.device().str(),
            dst.device().str());
  ACC_CHECK(!dst.storage()->is_read_only(), ValueError, "copy_into: dst is read-only");
  const Tensor source = src.shares_storage_with(dst) ? src.clone() : src;  // overlapping views read a snapshot
  if (dst.numel() > 0) copy_on_device(source.broadcast_to(dst.shape()), dst);
}

Tensor Tensor::clone() const {
  check_defined(*this, "clone");
  Tensor out = Tensor::empty(m_shape, m_dtype, device());
  copy_on_device(*this, out);
  return out;
}

Tensor Tensor::contiguous() const {
  check_defined(*this, "contiguous");
  return is_contiguous() ? *this : clone();
}

Tensor Tensor::astype(DType dtype) const {
  check_defined(*this, "astype");
  Tensor out = Tensor::empty(m_shape, dtype, device());
  copy_on_device(*this, out);
  return out;
}

Tensor Tensor::to(const Device& target) const {
  check_defined(*this, "to");
  if (target == device()) return *this;
  DeviceInterface& dst_interface = device_interface(target);
  DeviceInterface& src_interface = device_interface(device());
  const Tensor src = contiguous();
  Tensor out = Tensor::empty(m_shape, m_dtype, target);
  if (src.nbytes() == 0) return out;
  if (device().is_cpu()) {
    dst_interface.copy_from_host(out, src.data_ptr());
    dst_interface.synchronize(target.index);
  } else if (target.is_cpu()) {
    src_interface.copy_to_host(out.data_ptr(), src);
    src_interface.synchronize(device().index);
  } else if (target.kind == device().kind && dst_interface.copies_between_devices()) {
    // Two devices of one kind with a direct path (CUDA peer copies).
    copy_on_device(src, out);
    dst_interface.synchronize(target.index);
  } else {
    // Between two device kinds (or two devices without a direct path): stage through the host.
    const Tensor staged = src.to(Device::cpu());
    dst_interface.copy_from_host(out, staged.data_ptr());
    dst_interface.synchronize(target.index);
  }
  return out;
}

}  // namespace accelera
