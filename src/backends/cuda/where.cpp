// Launcher of the CUDA where kernel (where.cu; Note [where] in ops/where.hpp), registered for every dtype.
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/where_launch.hpp"
#include "ops/where.hpp"

namespace accelera::cuda {

namespace {

void where_kernel(const Tensor& condition, const Tensor& x1, const Tensor& x2, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  if (out.numel() == 0) return;
  const auto layout = backends::make_layout<4>(
      out.shape(), {&out.strides(), &condition.strides(), &x1.strides(), &x2.strides()});
  // Kernel layouts hold three operands: out, the condition and x1 in the first; x2 as the second's operand 0.
  backends::LoopLayout<3> first;
  backends::LoopLayout<1> second;
  first.dims = second.dims = layout.dims;
  first.numel = second.numel = layout.numel;
  for (std::size_t k = 0; k < 3; ++k) first.strides[k] = layout.strides[k];
  second.strides[0] = layout.strides[3];
  DeviceGuard guard(d.index);
  check_dispatched(kernels::where(to_kernel_layout(first, "where"), to_kernel_layout(second, "where"),
                                  out.data_ptr(), condition.data_ptr(), x1.data_ptr(), x2.data_ptr(),
                                  out.itemsize(), launch_of(d)),
                   "where", out.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::where, DeviceKind::cuda, dtypes::all, &where_kernel); }

}  // namespace accelera::cuda
