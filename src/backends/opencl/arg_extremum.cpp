// argmax and argmin on OpenCL (ops/arg_extremum.hpp; the launch forms in arg_extremum.cl and reduce_plan.hpp).
#include <algorithm>

#include "backends/common/reduce_axes.hpp"
#include "backends/opencl/layouts.hpp"
#include "backends/opencl/reduce_plan.hpp"
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
  const std::string options = element_options(d, x.dtype()) + (kMax ? " -DARG_MAX" : " -DARG_MIN") +
                              (reduced.dims.size() == 1 ? " -DREDUCED_1D" : "");
  const std::size_t local = std::min<std::size_t>(64, d.max_work_group);
  const ReducePlan plan = plan_reduction(d, kept, reduced, /*allow_per_item=*/false);
  // Partial results of the parts (a one-element placeholder without parts: the argument needs a buffer).
  const std::int64_t slots = plan.parts > 1 ? kept.numel * plan.parts : 1;
  const Tensor part_values = Tensor::empty(Shape{slots}, x.dtype(), out.device());
  const Tensor part_at = Tensor::empty(Shape{slots}, DType::i64, out.device());
  const auto run = [&](const char* form, std::size_t items, std::size_t group_size) {
    const Kernel kernel = make_kernel(d, "arg_extremum", options + form);
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
        .add(buffer_of(part_values))
        .add(buffer_of(part_at))
        .add(static_cast<cl_long>(plan.parts))
        .local(local * x.itemsize())
        .local(local * sizeof(cl_long))
        .add(static_cast<cl_long>(kept.numel));
    launch(d, kernel, items, group_size, "launching argmax/argmin");
  };
  const auto outputs = static_cast<std::size_t>(kept.numel);
  if (chunked_reduction(d, reduced)) {
    const std::size_t items = outputs * static_cast<std::size_t>(plan.parts);
    const std::size_t group = chunked_group_size(d, items);
    if (plan.parts > 1) {
      run(" -DCHUNKED -DPARTIAL_PASS", items, group);
      run(" -DFINAL_PASS", outputs * local, local);
    } else {
      run(" -DCHUNKED", items, group);
    }
  } else if (plan.parts > 1) {
    run(" -DPARTIAL_PASS", outputs * static_cast<std::size_t>(plan.parts) * local, local);
    run(" -DFINAL_PASS", outputs * local, local);
  } else {
    run("", outputs * local, local);
  }
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::argmax, DeviceKind::opencl, dtypes::arithmetic, &arg_extremum_kernel<true>);
  register_kernel(op::argmin, DeviceKind::opencl, dtypes::arithmetic, &arg_extremum_kernel<false>);
}

}  // namespace accelera::opencl
