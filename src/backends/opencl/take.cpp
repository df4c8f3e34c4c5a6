// The gather kernel of take and take_along_axis on OpenCL (take.cl; Note [Gather and index checks] in
// ops/take.hpp). Elements move as raw bits: one program per element size and index type.
#include "backends/opencl/layouts.hpp"
#include "ops/take.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

void take_kernel(const Tensor& source, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
                 const Tensor& out, const Tensor& bad) {
  ClDevice& d = cl_device(out.device());
  const auto layout = backends::make_layout<3>(out.shape(), {&out.strides(), &source.strides(), &indices.strides()});
  const Kernel kernel = make_kernel(
      d, "take", fmt::format("-DE={} -DI={}", bits_type(out.itemsize()), indices.dtype() == DType::i32 ? "int" : "long"));
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, "take"))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(source))
      .add(static_cast<cl_long>(source.offset()))
      .add(buffer_of(indices))
      .add(static_cast<cl_long>(indices.offset()))
      .add(static_cast<cl_long>(axis_stride))
      .add(static_cast<cl_long>(axis_size))
      .add(buffer_of(bad));
  launch(d, kernel, static_cast<std::size_t>(layout.numel), kLocal, "launching take");
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::take, DeviceKind::opencl, dtypes::all, &take_kernel); }

}  // namespace accelera::opencl
