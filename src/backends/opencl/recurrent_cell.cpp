// lstm_cell and lstm_cell_backward on OpenCL (lstm_cell.cl, lstm_cell_backward.cl; Note [Fused LSTM cell] in
// ops/recurrent_cell.hpp): one launch each way per step instead of the ten or twenty element-wise passes of
// the composed cell.
#include "backends/opencl/nn_common.hpp"
#include "ops/recurrent_cell.hpp"

namespace accelera::opencl {

using namespace nn;

namespace {

constexpr std::size_t kLocal = 64;

void lstm_cell_kernel(const Tensor& gates, const Tensor& c_prev, const Tensor& h, const Tensor& c, const Tensor& act) {
  ClDevice& d = cl_device(c.device());
  const Kernel kernel = make_kernel(d, "lstm_cell", element_options(d, c.dtype()));
  const cl_long rows = c.dim(0), hidden = c.dim(1);
  KernelArgs(kernel.get())
      .add(rows)
      .add(hidden)
      .add(buffer_of(gates))
      .add(off(gates))
      .add(buffer_of(c_prev))
      .add(off(c_prev))
      .add(buffer_of(h))
      .add(off(h))
      .add(buffer_of(c))
      .add(off(c))
      .add(buffer_of(act))
      .add(off(act));
  launch(d, kernel, static_cast<std::size_t>(rows * hidden), kLocal, "launching lstm_cell");
}

void lstm_cell_backward_kernel(const Tensor& grad_h, const Tensor& dc, const Tensor& act, const Tensor& c_prev,
                               const Tensor& c, const Tensor& d_gates, const Tensor& dc_prev) {
  ClDevice& d = cl_device(c.device());
  const Kernel kernel = make_kernel(d, "lstm_cell_backward", element_options(d, c.dtype()));
  const cl_long rows = c.dim(0), hidden = c.dim(1);
  KernelArgs args(kernel.get());
  args.add(rows).add(hidden);
  for (const Tensor* t : {&grad_h, &dc, &act, &c_prev, &c, &d_gates, &dc_prev}) args.add(buffer_of(*t)).add(off(*t));
  launch(d, kernel, static_cast<std::size_t>(rows * hidden), kLocal, "launching lstm_cell_backward");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::lstm_cell, DeviceKind::opencl, dtypes::floating, &lstm_cell_kernel);
  register_kernel(op::lstm_cell_backward, DeviceKind::opencl, dtypes::floating, &lstm_cell_backward_kernel);
}

}  // namespace accelera::opencl
