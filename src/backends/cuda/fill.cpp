// The fill kernel on CUDA (ops/fill.hpp): one element's bit pattern written over a strided tensor (fill.cu).
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "core/convert.hpp"
#include "ops/fill.hpp"

namespace accelera::cuda {

namespace {

void fill_kernel(const Tensor& dst, double value) {
  CudaDevice& d = cuda_device(dst.device());
  if (dst.numel() == 0) return;
  // The pattern is the value converted exactly as the CPU converts it.
  const std::uint64_t bits = detail::element_bits(dst.dtype(), value);
  DeviceGuard guard(d.index);
  const auto layout = to_kernel_layout(backends::make_layout<1>(dst.shape(), {&dst.strides()}), "fill");
  kernels::fill(layout, dst.data_ptr(), bits, dst.itemsize(), launch_of(d));
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::fill, DeviceKind::cuda, dtypes::all, &fill_kernel); }

}  // namespace accelera::cuda
