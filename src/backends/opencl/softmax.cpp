// Softmax and log-softmax, forward and backward, on OpenCL: one work-group per row (softmax.cl,
// softmax_backward.cl).
#include "backends/opencl/nn_common.hpp"
#include "ops/softmax.hpp"

namespace accelera::opencl {

using namespace nn;

namespace {

template <bool Log>
void softmax_kernel(const Tensor& x, const Tensor& out) {
  constexpr bool log = Log;
  ClDevice& d = cl_device(out.device());
  const Kernel kernel = make_kernel(d, "softmax", element_options(d, out.dtype()) + (log ? " -DLOG_SOFTMAX" : ""));
  const std::size_t local = reduction_local(d, kernel.get());
  KernelArgs(kernel.get())
      .add(static_cast<cl_long>(x.dim(1)))
      .add(buffer_of(x))
      .add(off(x))
      .add(buffer_of(out))
      .add(off(out))
      .local(local * out.itemsize());
  launch(d, kernel, static_cast<std::size_t>(x.dim(0)) * local, local, "launching softmax");
}

template <bool Log>
void softmax_backward_kernel(const Tensor& grad, const Tensor& y, const Tensor& dx) {
  constexpr bool log = Log;
  ClDevice& d = cl_device(dx.device());
  const Kernel kernel =
      make_kernel(d, "softmax_backward", element_options(d, dx.dtype()) + (log ? " -DLOG_SOFTMAX" : ""));
  const std::size_t local = reduction_local(d, kernel.get());
  KernelArgs(kernel.get())
      .add(static_cast<cl_long>(y.dim(1)))
      .add(buffer_of(grad))
      .add(off(grad))
      .add(buffer_of(y))
      .add(off(y))
      .add(buffer_of(dx))
      .add(off(dx))
      .local(local * dx.itemsize());
  launch(d, kernel, static_cast<std::size_t>(y.dim(0)) * local, local, "launching softmax_backward");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::softmax, DeviceKind::opencl, dtypes::floating, &softmax_kernel<false>);
  register_kernel(op::log_softmax, DeviceKind::opencl, dtypes::floating, &softmax_kernel<true>);
  register_kernel(op::softmax_backward, DeviceKind::opencl, dtypes::floating, &softmax_backward_kernel<false>);
  register_kernel(op::log_softmax_backward, DeviceKind::opencl, dtypes::floating, &softmax_backward_kernel<true>);
}

}  // namespace accelera::opencl
