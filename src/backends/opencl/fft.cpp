// The fft kernel for OpenCL devices (Note [Fourier transforms] in src/ops/fft.cpp): no OpenCL FFT library
// is wired in yet, so each call copies x to the host, runs the CPU backend's pocketfft kernel there and copies
// the result back. The round trip is logged at info level on every call (never silent) and registered under
// the OpenCL device kind so that `docs/ops.md` shows where the work runs.
#include "accelera/core/device_interface.hpp"
#include "accelera/core/registry.hpp"
#include "core/log.hpp"
#include "ops/fft.hpp"

namespace accelera::opencl {

namespace {

void fft_kernel(FftKind kind, const Tensor& x, const Tensor& out, std::span<const std::int64_t> axes, bool forward,
                double scale) {
  ACC_LOG_INFO("fft on {}: no OpenCL FFT library; running on the CPU (pocketfft) with {} bytes copied to the host "
               "and back",
               out.device().str(), x.nbytes() + out.nbytes());
  const Tensor host_x = x.to(Device::cpu());
  const Tensor host_out = Tensor::empty(out.shape(), out.dtype(), Device::cpu());
  kernel_for(op::fft, Device::cpu(), kind == FftKind::c2r ? complex_dtype(out.dtype()) : complex_dtype(x.dtype()))(
      kind, host_x, host_out, axes, forward, scale);
  DeviceInterface& interface = device_interface(out.device());
  interface.copy_from_host(out, host_out.data_ptr());
  interface.synchronize(out.device().index);
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::fft, DeviceKind::opencl, dtypes::complex, &fft_kernel); }

}  // namespace accelera::opencl
