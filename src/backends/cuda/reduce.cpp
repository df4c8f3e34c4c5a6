// The reductions sum, mean, prod, max and min on CUDA (ops/reduce.hpp): the launch shape is chosen here, the kernels
// are in reduce.cu.
#include "backends/cuda/reduce_plan.hpp"
#include "ops/reduce.hpp"

namespace accelera::cuda {

namespace {

// center: sum_squared_deviations' operand with out's layout (undefined for the other reductions).
template <kernels::ReduceFunction Fn>
void reduce_into(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out, const Tensor& center) {
  CudaDevice& d = cuda_device(out.device());
  const kernels::ReduceShape shape = plan_reduction(x, axes, out, d, /*allow_parts=*/true, "reduce");
  if (shape.outputs == 0) return;
  Tensor partials;
  if (shape.parts > 1) partials = Tensor::empty(Shape{shape.outputs * shape.parts}, DType::i64, out.device());
  DeviceGuard guard(d.index);
  // `partials` returns to the cache when this returns, while the kernels may still use it: only later work
  // on the compute stream can reuse it (Note [CUDA memory and streams]).
  check_dispatched(kernels::reduce(Fn, out.dtype(), shape, out.data_ptr(), x.data_ptr(),
                                   partials.defined() ? partials.data_ptr() : nullptr, launch_of(d),
                                   center.defined() ? center.data_ptr() : nullptr),
                   "reduce", out.dtype());
}

template <kernels::ReduceFunction Fn>
void reduce_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  reduce_into<Fn>(x, axes, out, Tensor{});
}

void sum_squared_deviations_kernel(const Tensor& x, const Tensor& center, std::span<const std::int64_t> axes,
                                   const Tensor& out) {
  reduce_into<kernels::ReduceFunction::squared_deviations>(x, axes, out, center);
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
  register_kernel(op::sum_squared_deviations, DeviceKind::cuda, dtypes::floating | dtypes::half,
                  &sum_squared_deviations_kernel);
}

}  // namespace accelera::cuda
