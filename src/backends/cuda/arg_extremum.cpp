// argmax and argmin on CUDA (ops/arg_extremum.hpp): the launch shape is chosen here, the kernels are in
// arg_extremum.cu.
#include "backends/cuda/reduce_plan.hpp"
#include "ops/arg_extremum.hpp"

namespace accelera::cuda {

namespace {

template <bool kMax>
void arg_extremum_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  // One block per output at most: partial (value, index) pairs would need a combining kernel of their own.
  const kernels::ReduceShape shape = plan_reduction(x, axes, out, d, /*allow_parts=*/false, "argmax");
  if (shape.outputs == 0) return;
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
