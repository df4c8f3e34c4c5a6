// Launchers of the CUDA compaction kernels (compress.cu; Note [Compaction] in ops/compress.hpp).
#include "backends/cuda/compress_launch.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "ops/compress.hpp"

namespace accelera::cuda {

namespace {

void mask_counts_kernel(const Tensor& mask, std::int64_t chunk, const Tensor& counts) {
  CudaDevice& d = cuda_device(mask.device());
  DeviceGuard guard(d.index);
  kernels::mask_counts(mask.numel(), chunk, static_cast<const std::uint8_t*>(mask.data_ptr()),
                       counts.data<std::int64_t>(), launch_of(d));
}

void compress_kernel(const Tensor& x, const Tensor& mask, std::int64_t chunk, const Tensor& offsets,
                     const Tensor& out) {
  CudaDevice& d = cuda_device(mask.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::compress(mask.numel(), chunk, x.defined() ? x.data_ptr() : nullptr, out.itemsize(),
                                     static_cast<const std::uint8_t*>(mask.data_ptr()),
                                     offsets.data<std::int64_t>(), out.data_ptr(), launch_of(d)),
                   "compress", out.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::mask_counts, DeviceKind::cuda, DTypeSet{DType::boolean}, &mask_counts_kernel);
  register_kernel(op::compress, DeviceKind::cuda, dtypes::all, &compress_kernel);
}

}  // namespace accelera::cuda
