// searchsorted on OpenCL: one binary search per value over the keys of Note [Sort keys] (searchsorted.cl).
#include "backends/opencl/layouts.hpp"
#include "backends/opencl/sort_keys.hpp"
#include "ops/sort.hpp"

namespace accelera::opencl {

namespace {

void searchsorted_kernel(const Tensor& sorted, const Tensor& values, const Tensor& out, bool right) {
  ClDevice& d = cl_device(out.device());
  const Kernel kernel = make_kernel(d, "searchsorted", sort_key_options(sorted.dtype()), sort_key_prelude());
  KernelArgs(kernel.get())
      .add(static_cast<cl_long>(sorted.numel()))
      .add(static_cast<cl_long>(values.numel()))
      .add(buffer_of(sorted))
      .add(static_cast<cl_long>(sorted.offset()))
      .add(buffer_of(values))
      .add(static_cast<cl_long>(values.offset()))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(static_cast<cl_int>(right));
  launch(d, kernel, static_cast<std::size_t>(values.numel()), 256, "launching searchsorted");
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::searchsorted, DeviceKind::opencl, dtypes::all, &searchsorted_kernel); }

}  // namespace accelera::opencl
