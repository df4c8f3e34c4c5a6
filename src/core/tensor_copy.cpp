// Tensor's copying methods: the copy kernel through the kernel table, and transfers between devices
// through the device interfaces.
#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"
#include "accelera/core/tensor.hpp"
#include "core/copy_kernel.hpp"
#include "ops/fill.hpp"
#include "ops/where.hpp"

namespace accelera {

namespace {

void check_defined(const Tensor& t, std::string_view op) {
  ACC_CHECK(t.defined(), ValueError, "{}: the tensor is undefined", op);
}

void copy_real(const Tensor& src, const Tensor& dst) { kernel_for(op::copy, dst.device(), dst.dtype())(src, dst); }

// Note [Complex copies]
// The copy kernels move real dtypes only; a complex tensor is copied as its real view (view_as_real), so
// every backend converts complex64 <-> complex128 with its float32 <-> float64 kernel. A real source fills
// the real parts and zeroes the imaginary ones; a complex source cast to a real dtype gives its real parts,
// as NumPy's astype does (and bool: whether either part is nonzero).
void copy_on_device(const Tensor& src, const Tensor& dst) {
  const bool src_complex = is_complex(src.dtype());
  const bool dst_complex = is_complex(dst.dtype());
  if (!src_complex && !dst_complex) return copy_real(src, dst);
  if (src_complex && dst_complex) return copy_real(src.view_as_real(), dst.view_as_real());
  if (src_complex && dst.dtype() == DType::boolean) {
    // True where either part is nonzero: the real parts' truth, then true wherever the imaginary part is
    // nonzero (kernels only: the core does not call the ops).
    const Tensor parts = src.view_as_real();
    copy_real(parts.select(-1, 0), dst);
    const Tensor imaginary = Tensor::empty(dst.shape(), DType::boolean, dst.device());
    copy_real(parts.select(-1, 1), imaginary);
    const Tensor truth = Tensor::empty(Shape{}, DType::boolean, dst.device());
    kernel_for(op::fill, dst.device(), DType::boolean)(truth, 1.0);
    kernel_for(op::where, dst.device(), DType::boolean)(imaginary, truth.broadcast_to(dst.shape()), dst, dst);
    return;
  }
  if (src_complex) return copy_real(src.view_as_real().select(-1, 0), dst);
  const Tensor parts = dst.view_as_real();
  copy_real(src, parts.select(-1, 0));
  kernel_for(op::fill, dst.device(), parts.dtype())(parts.select(-1, 1), 0.0);
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
