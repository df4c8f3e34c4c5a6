// Launcher of the CUDA where kernel (where.cu; Note [where] in ops/where.hpp), registered for every dtype.
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/where_launch.hpp"
#include "ops/where.hpp"

namespace accelera::cuda {

namespace {

void where_kernel(const Tensor& condition, const Tensor& x, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  if (out.numel() == 0) return;
  const auto layout = backends::make_layout<3>(out.shape(), {&out.strides(), &condition.strides(), &x.strides()});
  DeviceGuard guard(d.index);
  check_dispatched(kernels::where(to_kernel_layout(layout, "where"), out.data_ptr(), condition.data_ptr(),
                                  x.data_ptr(), out.itemsize(), launch_of(d)),
                   "where", out.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::where, DeviceKind::cuda, dtypes::all, &where_kernel); }

}  // namespace accelera::cuda
