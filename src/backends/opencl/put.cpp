// The scatter kernel of put on OpenCL (put.cl; Note [Scatter] in ops/put.hpp). Elements move as raw bits:
// one program per element size.
#include "backends/opencl/layouts.hpp"
#include "ops/put.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

void put_kernel(const Tensor& dest, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
                const Tensor& values) {
  ClDevice& d = cl_device(dest.device());
  const auto layout =
      backends::make_layout<3>(values.shape(), {&dest.strides(), &values.strides(), &indices.strides()});
  const Kernel kernel = make_kernel(d, "put", fmt::format("-DE={}", bits_type(dest.itemsize())));
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, "put"))
      .add(buffer_of(dest))
      .add(static_cast<cl_long>(dest.offset()))
      .add(buffer_of(values))
      .add(static_cast<cl_long>(values.offset()))
      .add(buffer_of(indices))
      .add(static_cast<cl_long>(indices.offset()))
      .add(static_cast<cl_long>(axis_stride))
      .add(static_cast<cl_long>(axis_size));
  launch(d, kernel, static_cast<std::size_t>(layout.numel), kLocal, "launching put");
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::put, DeviceKind::opencl, dtypes::all, &put_kernel); }

}  // namespace accelera::opencl
