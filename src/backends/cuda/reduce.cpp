// The reductions sum, mean, prod, max and min on CUDA (ops/reduce.hpp): the launch shape is chosen here, the kernels
// are in reduce.cu.
#include <algorithm>

#include "backends/common/reduce_axes.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "ops/reduce.hpp"

namespace accelera::cuda {

namespace {

template <kernels::ReduceFunction Fn>
void reduce_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  const auto split = backends::split_axes(x, axes, out);
  const auto kept = backends::make_layout<2>(split.kept_shape, {&split.kept_out, &split.kept_x});
  const auto reduced = backends::make_layout<1>(split.reduced_shape, {&split.reduced_x});
  if (kept.numel == 0) return;
  kernels::ReduceShape shape;
  shape.kept = to_kernel_layout(kept, "reduce");
  shape.reduced = to_kernel_layout(reduced, "reduce");
  shape.outputs = kept.numel;
  shape.count = reduced.numel;
  // One thread per output when each output is short, or when there are many outputs whose neighbours are
  // neighbours in memory (column reductions): then a warp reads contiguous memory. Otherwise one block per
  // output, split into parts when a few outputs would leave most of the device idle.
  const bool column = kept.strides[1].back() == 1 && reduced.strides[0].back() != 1;
  const std::int64_t threads_to_fill = static_cast<std::int64_t>(d.sm_count) * 2048;
  shape.per_thread = shape.count <= 32 || (column && shape.outputs >= threads_to_fill);
  if (!shape.per_thread && shape.outputs < 4 * d.sm_count) {
    const std::int64_t by_size = shape.count / (16 * 256);  // at least 16 elements per thread and part
    const std::int64_t by_device = 8 * d.sm_count / shape.outputs;
    shape.parts = std::max<std::int64_t>(1, std::min(by_size, by_device));
  }
  Tensor partials;
  if (shape.parts > 1) partials = Tensor::empty(Shape{shape.outputs * shape.parts}, DType::i64, out.device());
  DeviceGuard guard(d.index);
  // `partials` returns to the cache when this returns, while the kernels may still use it: only later work
  // on the compute stream can reuse it (Note [CUDA memory and streams]).
  check_dispatched(kernels::reduce(Fn, out.dtype(), shape, out.data_ptr(), x.data_ptr(),
                                   partials.defined() ? partials.data_ptr() : nullptr, launch_of(d)),
                   "reduce", out.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS {
  const DTypeSet computed = dtypes::arithmetic | dtypes::half;
  // The op sums int32 and bool as int64 (NumPy), so int32 never reaches the kernel.
  register_kernel(op::sum, DeviceKind::cuda, dtypes::floating | dtypes::half | DTypeSet{DType::i64},
                  &reduce_kernel<kernels::ReduceFunction::sum>);
  register_kernel(op::mean, DeviceKind::cuda, dtypes::floating | dtypes::half,
                  &reduce_kernel<kernels::ReduceFunction::mean>);
  register_kernel(op::max, DeviceKind::cuda, computed, &reduce_kernel<kernels::ReduceFunction::max>);
  register_kernel(op::min, DeviceKind::cuda, computed, &reduce_kernel<kernels::ReduceFunction::min>);
  register_kernel(op::prod, DeviceKind::cuda, dtypes::floating | dtypes::half | DTypeSet{DType::i64},
                  &reduce_kernel<kernels::ReduceFunction::prod>);
}

}  // namespace accelera::cuda
