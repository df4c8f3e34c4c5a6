// Softmax and log-softmax, forward and backward, on CUDA: launchers of softmax.cu.
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/nn_launch.hpp"
#include "ops/softmax.hpp"

namespace accelera::cuda {

namespace {

kernels::Target target_of(const CudaDevice& d) { return {d.index, d.sm_count, d.compute()}; }
kernels::Rows plan(const Tensor& x) { return kernels::plan_rows(x.dim(0), x.dim(1)); }

template <bool Log>
void softmax_kernel(const Tensor& x, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::softmax(out.dtype(), plan(x), Log, x.data_ptr(), out.data_ptr(), target_of(d)), "softmax",
                   out.dtype());
}

template <bool Log>
void softmax_backward_kernel(const Tensor& grad, const Tensor& y, const Tensor& dx) {
  CudaDevice& d = cuda_device(dx.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::softmax_backward(dx.dtype(), plan(y), Log, grad.data_ptr(), y.data_ptr(), dx.data_ptr(),
                                             target_of(d)),
                   "softmax_backward", dx.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS {
  const DTypeSet computed = dtypes::floating | dtypes::half;
  register_kernel(op::softmax, DeviceKind::cuda, computed, &softmax_kernel<false>);
  register_kernel(op::log_softmax, DeviceKind::cuda, computed, &softmax_kernel<true>);
  register_kernel(op::softmax_backward, DeviceKind::cuda, computed, &softmax_backward_kernel<false>);
  register_kernel(op::log_softmax_backward, DeviceKind::cuda, computed, &softmax_backward_kernel<true>);
}

}  // namespace accelera::cuda
