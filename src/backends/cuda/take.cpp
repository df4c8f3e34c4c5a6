// The gather kernel of take and take_along_axis on CUDA: launcher of take.cu (Note [Gather and index
// checks] in ops/take.hpp).
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/take_launch.hpp"
#include "ops/take.hpp"

namespace accelera::cuda {

namespace {

void take_kernel(const Tensor& source, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
                 const Tensor& out, const Tensor& bad) {
  CudaDevice& d = cuda_device(out.device());
  DeviceGuard guard(d.index);
  const auto layout = to_kernel_layout(
      backends::make_layout<3>(out.shape(), {&out.strides(), &source.strides(), &indices.strides()}), "take");
  kernels::take(layout, out.data_ptr(), source.data_ptr(), indices.data_ptr(), indices.dtype() == DType::i32,
                out.itemsize(), axis_stride, axis_size, bad.data<std::int32_t>(), launch_of(d));
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::take, DeviceKind::cuda, dtypes::all, &take_kernel); }

}  // namespace accelera::cuda
