// searchsorted on CUDA: launcher of searchsorted.cu (Note [Sort keys] in ops/sort.hpp).
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/sort_launch.hpp"
#include "ops/sort.hpp"

namespace accelera::cuda {

namespace {

void searchsorted_kernel(const Tensor& sorted, const Tensor& values, const Tensor& out, bool right) {
  CudaDevice& d = cuda_device(out.device());
  DeviceGuard guard(d.index);
  kernels::searchsorted(sorted.dtype(), sorted.data_ptr(), sorted.numel(), values.data_ptr(), values.numel(),
                        out.data<std::int64_t>(), right, launch_of(d));
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::searchsorted, DeviceKind::cuda, dtypes::all, &searchsorted_kernel); }

}  // namespace accelera::cuda
