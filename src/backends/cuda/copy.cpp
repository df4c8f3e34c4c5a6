// The copy kernel on CUDA (core/copy_kernel.hpp): cudaMemcpyAsync for dense copies of one dtype, the
// strided converting kernels of copy.cu otherwise, and peer copies between two CUDA devices.
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "core/copy_kernel.hpp"

namespace accelera::cuda {

namespace {

void copy_kernel(const Tensor& src, const Tensor& dst);

// Peer copies: both tensors are made contiguous on their own device, then copied by cudaMemcpyPeerAsync
// on the destination's compute stream, after the source device's queued kernels.
void copy_between_devices(const Tensor& src, const Tensor& dst) {
  ACC_CHECK(src.dtype() == dst.dtype() && src.shape() == dst.shape(), ValueError,
            "a copy between devices needs one dtype and shape, got {} and {}", src.str(), dst.str());
  CudaInterface& cuda = cuda_interface();
  CudaDevice& s = cuda_device(src.device());
  CudaDevice& d = cuda_device(dst.device());
  if (dst.numel() == 0) return;
  const Tensor packed = src.contiguous();
  const Tensor target = dst.is_contiguous() ? dst : Tensor::empty(dst.shape(), dst.dtype(), dst.device());
  EventPtr source_ready = cuda.record_event(s.index, Stream::compute);
  cuda.stream_wait(d.index, Stream::compute, *source_ready);
  {
    DeviceGuard guard(d.index);
    ACC_CUDA_CHECK(cudaMemcpyPeerAsync(target.data_ptr(), d.index, packed.data_ptr(), s.index, target.nbytes(),
                                       d.compute()),
                   fmt::format("copying from cuda:{} to cuda:{}", s.index, d.index));
  }
  // The source's memory must outlive the copy: wait for it before `packed` may be freed on its device.
  EventPtr copied = cuda.record_event(d.index, Stream::compute);
  cuda.stream_wait(s.index, Stream::compute, *copied);
  if (!target.shares_storage_with(dst)) copy_kernel(target, dst);
}

void copy_kernel(const Tensor& src, const Tensor& dst) {
  if (src.device() != dst.device()) return copy_between_devices(src, dst);
  CudaDevice& d = cuda_device(dst.device());
  if (dst.numel() == 0) return;
  DeviceGuard guard(d.index);
  const kernels::Launch launch = launch_of(d);
  if (src.dtype() == dst.dtype() && src.is_contiguous() && dst.is_contiguous()) {
    ACC_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDeviceToDevice,
                                   d.compute()),
                   "copying within " + dst.device().str());
    return;
  }
  const auto layout = to_kernel_layout(backends::make_layout<2>(dst.shape(), {&dst.strides(), &src.strides()}), "copy");
  if (src.dtype() == dst.dtype()) {
    kernels::copy_same(layout, dst.data_ptr(), src.data_ptr(), dst.itemsize(), launch);
  } else {
    kernels::copy_convert(layout, dst.data_ptr(), dst.dtype(), src.data_ptr(), src.dtype(), launch);
  }
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::copy, DeviceKind::cuda, dtypes::all, &copy_kernel); }

}  // namespace accelera::cuda
