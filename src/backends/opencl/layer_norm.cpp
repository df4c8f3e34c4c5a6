// LayerNorm forward and backward on OpenCL: one work-group per row (layer_norm.cl,
// layer_norm_backward.cl), parameter gradients one work-item per column (layer_norm_param_grad.cl).
#include "backends/opencl/nn_common.hpp"
#include "ops/layer_norm.hpp"

namespace accelera::opencl {

using namespace nn;

namespace {

constexpr std::size_t kLocal = 64;

void layer_norm_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                       const Tensor& mean, const Tensor& rstd) {
  ClDevice& d = cl_device(out.device());
  const std::string options = element_options(d, out.dtype()) + (weight.defined() ? " -DHAS_WEIGHT" : "") +
                              (bias.defined() ? " -DHAS_BIAS" : "");
  const Kernel kernel = make_kernel(d, "layer_norm", options, embedded_source("row_reduce"));
  const std::size_t local = reduction_local(d, kernel.get());
  const cl_long rows = x.dim(0), n = x.dim(1);
  with_scalar(out.dtype(), eps, [&](auto eps_value) {
    KernelArgs(kernel.get())
        .add(n)
        .add(eps_value)
        .add(buffer_of(x))
        .add(off(x))
        .add(buffer_or_null(weight))
        .add(off_or_zero(weight))
        .add(buffer_or_null(bias))
        .add(off_or_zero(bias))
        .add(buffer_of(out))
        .add(off(out))
        .add(buffer_of(mean))
        .add(off(mean))
        .add(buffer_of(rstd))
        .add(off(rstd))
        .local(local * out.itemsize());
  });
  launch(d, kernel, static_cast<std::size_t>(rows) * local, local, "launching layer_norm");
}

void layer_norm_backward_kernel(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                const Tensor& rstd, const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  ClDevice& d = cl_device(dx.device());
  const cl_long rows = x.dim(0), n = x.dim(1);
  const std::string base = element_options(d, dx.dtype());
  const Kernel kernel = make_kernel(d, "layer_norm_backward", base + (weight.defined() ? " -DHAS_WEIGHT" : ""),
                                    embedded_source("row_reduce"));
  const std::size_t local = reduction_local(d, kernel.get());
  KernelArgs(kernel.get())
      .add(n)
      .add(buffer_of(grad))
      .add(off(grad))
      .add(buffer_of(x))
      .add(off(x))
      .add(buffer_or_null(weight))
      .add(off_or_zero(weight))
      .add(buffer_of(mean))
      .add(off(mean))
      .add(buffer_of(rstd))
      .add(off(rstd))
      .add(buffer_of(dx))
      .add(off(dx))
      .local(local * dx.itemsize());
  launch(d, kernel, static_cast<std::size_t>(rows) * local, local, "launching layer_norm_backward");
  if (!dweight.defined() && !dbias.defined()) return;
  const Kernel params = make_kernel(d, "layer_norm_param_grad", base + (dweight.defined() ? " -DHAS_WEIGHT" : "") +
                                                                    (dbias.defined() ? " -DHAS_BIAS" : ""));
  KernelArgs(params.get())
      .add(rows)
      .add(n)
      .add(buffer_of(grad))
      .add(off(grad))
      .add(buffer_of(x))
      .add(off(x))
      .add(buffer_of(mean))
      .add(off(mean))
      .add(buffer_of(rstd))
      .add(off(rstd))
      .add(buffer_or_null(dweight))
      .add(off_or_zero(dweight))
      .add(buffer_or_null(dbias))
      .add(off_or_zero(dbias));
  launch(d, params, static_cast<std::size_t>(n), kLocal, "launching layer_norm_param_grad");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::layer_norm, DeviceKind::opencl, dtypes::floating, &layer_norm_kernel);
  register_kernel(op::layer_norm_backward, DeviceKind::opencl, dtypes::floating, &layer_norm_backward_kernel);
}

}  // namespace accelera::opencl
