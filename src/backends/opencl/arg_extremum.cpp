// argmax and argmin on OpenCL (ops/arg_extremum.hpp): one work-group per output (arg_extremum.cl).
#include <algorithm>

#include "backends/common/reduce_axes.hpp"
#include "backends/opencl/layouts.hpp"
#include "ops/arg_extremum.hpp"

namespace accelera::opencl {

namespace {

template <bool kMax>
void arg_extremum_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const auto split = backends::split_axes(x, axes, out);
  const Strides zeros(split.reduced_x.size(), 0);
  const auto kept = backends::make_layout<2>(split.kept_shape, {&split.kept_out, &split.kept_x});
  // The reduced layout's x strides go in slot 1, as the kernel reads them.
  const auto reduced = backends::make_layout<2>(split.reduced_shape, {&zeros, &split.reduced_x});
  const std::string options = element_options(d, x.dtype()) + (kMax ? " -DARG_MAX" : " -DARG_MIN");
  const std::size_t local = std::min<std::size_t>(64, d.max_work_group);
  const Kernel kernel = make_kernel(d, "arg_extremum", options);
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(kept.dims.size()))
      .add(to_cl_layout(kept, "arg_extremum"))
      .add(static_cast<cl_int>(reduced.dims.size()))
      .add(static_cast<cl_long>(reduced.numel))
      .add(to_cl_layout(reduced, "arg_extremum"))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(x))
      .add(static_cast<cl_long>(x.offset()))
      .local(local * x.itemsize())
      .local(local * sizeof(cl_long));
  launch(d, kernel, static_cast<std::size_t>(kept.numel) * local, local, "launching argmax/argmin");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::argmax, DeviceKind::opencl, dtypes::arithmetic, &arg_extremum_kernel<true>);
  register_kernel(op::argmin, DeviceKind::opencl, dtypes::arithmetic, &arg_extremum_kernel<false>);
}

}  // namespace accelera::opencl
