// The where kernel on OpenCL (where.cl; Note [where] in ops/where.hpp): elements moved by size, so one
// program per element size serves every dtype.
#include "backends/opencl/layouts.hpp"
#include "ops/where.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

void where_kernel(const Tensor& condition, const Tensor& x, const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const auto layout =
      backends::make_layout<3>(out.shape(), {&out.strides(), &condition.strides(), &x.strides()});
  const std::string options =
      std::string("-DT=") + bits_type(out.itemsize()) + linear_options(layout);
  const Kernel kernel = make_kernel(d, "where", options);
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, "where"))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(condition))
      .add(static_cast<cl_long>(condition.offset()))
      .add(buffer_of(x))
      .add(static_cast<cl_long>(x.offset()));
  launch(d, kernel, static_cast<std::size_t>(layout.numel), kLocal, "where");
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::where, DeviceKind::opencl, dtypes::all, &where_kernel); }

}  // namespace accelera::opencl
