// lstm_cell, gru_cell and their backward passes on CUDA: launchers of recurrent_cell.cu.
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/nn_launch.hpp"
#include "ops/recurrent_cell.hpp"

namespace accelera::cuda {

namespace {

void lstm_cell_kernel(const Tensor& gates, const Tensor& c_prev, const Tensor& h, const Tensor& c, const Tensor& act) {
  CudaDevice& d = cuda_device(c.device());
  DeviceGuard guard(d.index);
  const bool ok = kernels::lstm_cell(c.dtype(), c.dim(0), c.dim(1), gates.data_ptr(), c_prev.data_ptr(), h.data_ptr(),
                                     c.data_ptr(), act.data_ptr(), launch_of(d));
  check_dispatched(ok, "lstm_cell", c.dtype());
}

void lstm_cell_backward_kernel(const Tensor& grad_h, const Tensor& dc, const Tensor& act, const Tensor& c_prev,
                               const Tensor& c, const Tensor& d_gates, const Tensor& dc_prev) {
  CudaDevice& d = cuda_device(c.device());
  DeviceGuard guard(d.index);
  const bool ok = kernels::lstm_cell_backward(c.dtype(), c.dim(0), c.dim(1), grad_h.data_ptr(), dc.data_ptr(),
                                              act.data_ptr(), c_prev.data_ptr(), c.data_ptr(), d_gates.data_ptr(),
                                              dc_prev.data_ptr(), launch_of(d));
  check_dispatched(ok, "lstm_cell_backward", c.dtype());
}

void gru_cell_kernel(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& h_prev, const Tensor& h,
                     const Tensor& act) {
  CudaDevice& d = cuda_device(h.device());
  DeviceGuard guard(d.index);
  const bool ok = kernels::gru_cell(h.dtype(), h.dim(0), h.dim(1), input_gates.data_ptr(), hidden_gates.data_ptr(),
                                    h_prev.data_ptr(), h.data_ptr(), act.data_ptr(), launch_of(d));
  check_dispatched(ok, "gru_cell", h.dtype());
}

void gru_cell_backward_kernel(const Tensor& grad_h, const Tensor& act, const Tensor& hidden_gates,
                              const Tensor& h_prev, const Tensor& d_input, const Tensor& d_hidden,
                              const Tensor& dh_prev) {
  CudaDevice& d = cuda_device(dh_prev.device());
  DeviceGuard guard(d.index);
  const bool ok = kernels::gru_cell_backward(dh_prev.dtype(), dh_prev.dim(0), dh_prev.dim(1), grad_h.data_ptr(),
                                             act.data_ptr(), hidden_gates.data_ptr(), h_prev.data_ptr(),
                                             d_input.data_ptr(), d_hidden.data_ptr(), dh_prev.data_ptr(), launch_of(d));
  check_dispatched(ok, "gru_cell_backward", dh_prev.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::lstm_cell, DeviceKind::cuda, dtypes::floating | dtypes::half, &lstm_cell_kernel);
  register_kernel(op::lstm_cell_backward, DeviceKind::cuda, dtypes::floating | dtypes::half, &lstm_cell_backward_kernel);
  register_kernel(op::gru_cell, DeviceKind::cuda, dtypes::floating | dtypes::half, &gru_cell_kernel);
  register_kernel(op::gru_cell_backward, DeviceKind::cuda, dtypes::floating | dtypes::half, &gru_cell_backward_kernel);
}

}  // namespace accelera::cuda
