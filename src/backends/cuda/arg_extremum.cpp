// argmax and argmin on CUDA (ops/arg_extremum.hpp): the launch shape is chosen here, the kernels are in
// arg_extremum.cu.
#include "backends/common/reduce_axes.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "ops/arg_extremum.hpp"

namespace accelera::cuda {

namespace {

template <bool kMax>
void arg_extremum_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  const auto split = backends::split_axes(x, axes, out);
  const auto kept = backends::make_layout<2>(split.kept_shape, {&split.kept_out, &split.kept_x});
  const auto reduced = backends::make_layout<1>(split.reduced_shape, {&split.reduced_x});
  if (kept.numel == 0) return;
  kernels::ReduceShape shape;
  shape.kept = to_kernel_layout(kept, "argmax");
  shape.reduced = to_kernel_layout(reduced, "argmax");
  shape.outputs = kept.numel;
  shape.count = reduced.numel;
  // As for the reductions: a thread per output when outputs are short, or many and adjacent in memory.
  const bool column = kept.strides[1].back() == 1 && reduced.strides[0].back() != 1;
  shape.per_thread = shape.count <= 32 || (column && shape.outputs >= static_cast<std::int64_t>(d.sm_count) * 2048);
  DeviceGuard guard(d.index);
  check_dispatched(kernels::arg_extremum(kMax, x.dtype(), shape, out.data_ptr(), x.data_ptr(), launch_of(d)),
                   kMax ? "argmax" : "argmin", x.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS {
  const DTypeSet computed = dtypes::arithmetic | dtypes::half;
  register_kernel(op::argmax, DeviceKind::cuda, computed, &arg_extremum_kernel<true>);
  register_kernel(op::argmin, DeviceKind::cuda, computed, &arg_extremum_kernel<false>);
}

}  // namespace accelera::cuda
