// The scatter kernel of put on CUDA: launcher of put.cu (Note [Scatter] in ops/put.hpp).
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/put_launch.hpp"
#include "ops/put.hpp"

namespace accelera::cuda {

namespace {

void put_kernel(const Tensor& dest, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
                const Tensor& values) {
  CudaDevice& d = cuda_device(dest.device());
  DeviceGuard guard(d.index);
  const auto layout = to_kernel_layout(
      backends::make_layout<3>(values.shape(), {&dest.strides(), &values.strides(), &indices.strides()}), "put");
  kernels::put(layout, dest.data_ptr(), values.data_ptr(), indices.data<std::int64_t>(), dest.itemsize(),
               axis_stride, axis_size, launch_of(d));
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::put, DeviceKind::cuda, dtypes::all, &put_kernel); }

}  // namespace accelera::cuda
