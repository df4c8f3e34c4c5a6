// The reductions sum, mean, prod, max and min on CUDA (ops/reduce.hpp): the launch shape is chosen here, the kernels
// are in reduce.cu.
#include "backends/cuda/reduce_plan.hpp"
#include "ops/reduce.hpp"

namespace accelera::cuda {

namespace {

template <kernels::ReduceFunction Fn>
void reduce_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  const kernels::ReduceShape shape = plan_reduction(x, axes, out, d, /*allow_parts=*/true, "reduce");
  if (shape.outputs == 0) return;
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
