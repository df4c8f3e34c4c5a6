// LayerNorm forward and backward on CUDA: launchers of layer_norm.cu (launch shapes from
// kernels::plan_rows).
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/nn_launch.hpp"
#include "ops/layer_norm.hpp"

namespace accelera::cuda {

namespace {

kernels::Target target_of(const CudaDevice& d) { return {d.index, d.sm_count, d.compute()}; }
void* ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }
kernels::Rows plan(const Tensor& x) { return kernels::plan_rows(x.dim(0), x.dim(1)); }

void layer_norm_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                       const Tensor& mean, const Tensor& rstd) {
  CudaDevice& d = cuda_device(out.device());
  DeviceGuard guard(d.index);
  const bool ok = kernels::layer_norm(out.dtype(), plan(x), eps, x.data_ptr(), ptr_or_null(weight), ptr_or_null(bias),
                                      out.data_ptr(), mean.data_ptr(), rstd.data_ptr(), target_of(d));
  check_dispatched(ok, "layer_norm", out.dtype());
}

void layer_norm_backward_kernel(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                const Tensor& rstd, const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  CudaDevice& d = cuda_device(dx.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::layer_norm_backward(dx.dtype(), plan(x), grad.data_ptr(), x.data_ptr(),
                                                ptr_or_null(weight), mean.data_ptr(), rstd.data_ptr(), dx.data_ptr(),
                                                target_of(d)),
                   "layer_norm_backward", dx.dtype());
  if (!dweight.defined() && !dbias.defined()) return;
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  const std::int64_t parts = kernels::layer_norm_param_parts(rows, n, d.sm_count);
  // Per-part column sums in the compute precision. Returned to the cache when this returns, while the
  // kernels may still use it: only later work on the compute stream can reuse it (Note [CUDA memory and
  // streams]).
  const Tensor partials = Tensor::empty(Shape{2 * parts * n}, mean.dtype(), dx.device());
  kernels::layer_norm_param_grad(dx.dtype(), rows, n, grad.data_ptr(), x.data_ptr(), mean.data_ptr(), rstd.data_ptr(),
                                 ptr_or_null(dweight), ptr_or_null(dbias), partials.data_ptr(), parts,
                                 launch_of(d));
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::layer_norm, DeviceKind::cuda, dtypes::floating | dtypes::half, &layer_norm_kernel);
  register_kernel(op::layer_norm_backward, DeviceKind::cuda, dtypes::floating | dtypes::half,
                  &layer_norm_backward_kernel);
}

}  // namespace accelera::cuda
