// The fused optimizer update on OpenCL (optimizer_step.cl; Note [Optimizer update] in
// ops/optimizer_step.hpp): one launch per parameter, the rule and the state slots present fixed at build
// time, so each program variant carries only its own arithmetic.
#include <fmt/format.h>

#include "backends/opencl/nn_common.hpp"
#include "ops/optimizer_step.hpp"

namespace accelera::opencl {

using namespace nn;

namespace {

constexpr std::size_t kLocal = 256;

void optimizer_step_kernel(const std::vector<OptimizerSlot>& slots, const OptimizerCoefficients& c) {
  ClDevice& d = cl_device(slots.front().p.device());
  const DType dtype = slots.front().p.dtype();
  // Every parameter of the group has the same state slots, so one program variant serves them all.
  const OptimizerSlot& first = slots.front();
  const std::string options =
      fmt::format("{} -DRULE={}{}{}{}", element_options(d, dtype), c.rule, first.s0.defined() ? " -DHAS_S0" : "",
                  first.s1.defined() ? " -DHAS_S1" : "", first.s2.defined() ? " -DHAS_S2" : "");
  const Kernel kernel = make_kernel(d, "optimizer_step", options);
  for (const OptimizerSlot& s : slots) {
    KernelArgs args(kernel.get());
    args.add(static_cast<cl_long>(s.p.numel())).add(buffer_of(s.p)).add(off(s.p)).add(buffer_of(s.g)).add(off(s.g));
    for (const Tensor* t : {&s.s0, &s.s1, &s.s2}) args.add(buffer_or_null(*t)).add(off_or_zero(*t));
    for (const double v : {c.lr, c.eps, c.decay_grad, c.decay_param, c.momentum, c.grad_scale, c.beta1, c.beta2}) {
      with_scalar(dtype, v, [&](auto scalar) { args.add(scalar); });
    }
    args.add(static_cast<cl_int>(c.first)).add(static_cast<cl_int>(c.nesterov));
    launch(d, kernel, static_cast<std::size_t>(s.p.numel()), kLocal, "launching optimizer_step");
  }
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::optimizer_step, DeviceKind::opencl, dtypes::floating, &optimizer_step_kernel);
}

}  // namespace accelera::opencl
