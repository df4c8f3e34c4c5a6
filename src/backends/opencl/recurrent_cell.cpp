// lstm_cell, gru_cell and their backward passes on OpenCL (lstm_cell.cl, lstm_cell_backward.cl, gru_cell.cl,
// gru_cell_backward.cl; Notes [Fused LSTM cell] and [Fused GRU cell] in ops/recurrent_cell.hpp): one launch
// each way per step instead of the ten or twenty element-wise passes of the composed cell.
#include <initializer_list>
#include <string>

#include "backends/opencl/nn_common.hpp"
#include "ops/recurrent_cell.hpp"

namespace accelera::opencl {

using namespace nn;

namespace {

constexpr std::size_t kLocal = 64;

// Launches the cell kernel `name` (its .cl file's) with one work item per (row, unit) of `state` (rows,
// hidden): arguments rows, hidden, then each operand's buffer and offset in order.
void launch_cell(const char* name, const Tensor& state, std::initializer_list<const Tensor*> operands) {
  ClDevice& d = cl_device(state.device());
  const Kernel kernel = make_kernel(d, name, element_options(d, state.dtype()));
  const cl_long rows = state.dim(0), hidden = state.dim(1);
  KernelArgs args(kernel.get());
  args.add(rows).add(hidden);
  for (const Tensor* t : operands) args.add(buffer_of(*t)).add(off(*t));
  const std::string what = std::string("launching ") + name;
  launch(d, kernel, static_cast<std::size_t>(rows * hidden), kLocal, what.c_str());
}

void lstm_cell_kernel(const Tensor& gates, const Tensor& c_prev, const Tensor& h, const Tensor& c, const Tensor& act) {
  launch_cell("lstm_cell", c, {&gates, &c_prev, &h, &c, &act});
}

void lstm_cell_backward_kernel(const Tensor& grad_h, const Tensor& dc, const Tensor& act, const Tensor& c_prev,
                               const Tensor& c, const Tensor& d_gates, const Tensor& dc_prev) {
  launch_cell("lstm_cell_backward", c, {&grad_h, &dc, &act, &c_prev, &c, &d_gates, &dc_prev});
}

void gru_cell_kernel(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& h_prev, const Tensor& h,
                     const Tensor& act) {
  launch_cell("gru_cell", h, {&input_gates, &hidden_gates, &h_prev, &h, &act});
}

void gru_cell_backward_kernel(const Tensor& grad_h, const Tensor& act, const Tensor& hidden_gates,
                              const Tensor& h_prev, const Tensor& d_input, const Tensor& d_hidden,
                              const Tensor& dh_prev) {
  launch_cell("gru_cell_backward", dh_prev, {&grad_h, &act, &hidden_gates, &h_prev, &d_input, &d_hidden, &dh_prev});
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::lstm_cell, DeviceKind::opencl, dtypes::floating, &lstm_cell_kernel);
  register_kernel(op::lstm_cell_backward, DeviceKind::opencl, dtypes::floating, &lstm_cell_backward_kernel);
  register_kernel(op::gru_cell, DeviceKind::opencl, dtypes::floating, &gru_cell_kernel);
  register_kernel(op::gru_cell_backward, DeviceKind::opencl, dtypes::floating, &gru_cell_backward_kernel);
}

}  // namespace accelera::opencl
