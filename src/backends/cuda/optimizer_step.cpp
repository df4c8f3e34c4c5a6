// Launcher of the CUDA optimizer kernel (optimizer_step.cu): the group's parameters in batches of
// kOptimizerTensors, one launch each.
#include <algorithm>

#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/optimizer_step_launch.hpp"
#include "ops/optimizer_step.hpp"

namespace accelera::cuda {

namespace {

void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

void optimizer_step_kernel(const std::vector<OptimizerSlot>& slots, const OptimizerCoefficients& c) {
  CudaDevice& d = cuda_device(slots.front().p.device());
  DeviceGuard guard(d.index);
  const kernels::OptimizerScalars scalars{c.rule,       c.lr,    c.eps,   c.decay_grad, c.decay_param, c.momentum,
                                          c.grad_scale, c.beta1, c.beta2, c.first,      c.nesterov};
  const DType dtype = slots.front().p.dtype();
  for (std::size_t first = 0; first < slots.size(); first += kernels::kOptimizerTensors) {
    kernels::OptimizerBatch batch;
    const std::size_t last = std::min(slots.size(), first + kernels::kOptimizerTensors);
    for (std::size_t i = first; i < last; ++i) {
      const OptimizerSlot& s = slots[i];
      const int k = batch.count++;
      batch.numel[k] = s.p.numel();
      batch.p[k] = s.p.data_ptr();
      batch.g[k] = s.g.data_ptr();
      batch.s0[k] = data_or_null(s.s0);
      batch.s1[k] = data_or_null(s.s1);
      batch.s2[k] = data_or_null(s.s2);
    }
    check_dispatched(kernels::optimizer_step(dtype, batch, scalars, launch_of(d)), "optimizer_step", dtype);
  }
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::optimizer_step, DeviceKind::cuda, dtypes::floating | dtypes::half, &optimizer_step_kernel);
}

}  // namespace accelera::cuda
