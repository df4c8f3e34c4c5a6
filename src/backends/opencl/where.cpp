// The where kernel on OpenCL (where.cl; Note [where] in ops/where.hpp): elements moved by size, so one
// program per element size serves every dtype.
#include "backends/opencl/layouts.hpp"
#include "ops/where.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

void where_kernel(const Tensor& condition, const Tensor& x1, const Tensor& x2, const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const auto layout = backends::make_layout<4>(
      out.shape(), {&out.strides(), &condition.strides(), &x1.strides(), &x2.strides()});
  // The three-operand layout form: out, condition and x1 in the first, x2 in the second's operand 0.
  backends::LoopLayout<3> first;
  backends::LoopLayout<3> second;
  first.dims = second.dims = layout.dims;
  first.numel = second.numel = layout.numel;
  for (std::size_t k = 0; k < 3; ++k) first.strides[k] = layout.strides[k];
  second.strides[0] = layout.strides[3];
  second.strides[1] = second.strides[2] = std::vector<std::int64_t>(layout.dims.size(), 0);
  const std::string options = std::string("-DT=") + bits_type(out.itemsize()) + linear_options(layout);
  const Kernel kernel = make_kernel(d, "where", options);
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(first, "where"))
      .add(to_cl_layout(second, "where"))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(condition))
      .add(static_cast<cl_long>(condition.offset()))
      .add(buffer_of(x1))
      .add(static_cast<cl_long>(x1.offset()))
      .add(buffer_of(x2))
      .add(static_cast<cl_long>(x2.offset()));
  launch(d, kernel, static_cast<std::size_t>(layout.numel), kLocal, "where");
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::where, DeviceKind::opencl, dtypes::all, &where_kernel); }

}  // namespace accelera::opencl
