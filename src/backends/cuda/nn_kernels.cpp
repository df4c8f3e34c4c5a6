// The CUDA backend's fused neural-network kernels other than attention and linear_gelu: GELU (forward,
// backward, with a bias), LayerNorm (forward, backward) and softmax / log-softmax (forward, backward).
// Launch shapes are chosen here (kernels::plan_rows); the kernels are in kernels/<op>.cu.
#include <algorithm>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/kernels/nn.hpp"

namespace accelera::cuda {

namespace {

kernels::Target target_of(const CudaDevice& d) { return {d.index, d.sm_count, d.compute()}; }

bool aligned16(std::initializer_list<const Tensor*> tensors) {
  return std::ranges::all_of(tensors, [](const Tensor* t) {
    return !t->defined() || reinterpret_cast<std::uintptr_t>(t->data_ptr()) % 16 == 0;
  });
}

void* ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

kernels::Rows plan(const Tensor& x) { return kernels::plan_rows(x.dim(0), x.dim(1)); }

[[noreturn]] void not_computed(std::string_view op, DType dtype) {
  throw DTypeError(fmt::format("{} does not compute {} on CUDA", op, dtype_name(dtype)));
}

}  // namespace

void CudaBackend::gelu(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out) {
  CudaDevice& d = ready(out.device().index);
  DeviceGuard guard(d.index);
  const bool ok = kernels::gelu(out.dtype(), approximation == GeluApproximation::tanh, x.dim(0), x.dim(1),
                                x.data_ptr(), ptr_or_null(bias), out.data_ptr(), aligned16({&x, &bias, &out}),
                                {d.compute(), max_blocks(d)});
  if (!ok) not_computed("gelu", out.dtype());
}

void CudaBackend::gelu_backward(const Tensor& grad, const Tensor& x, GeluApproximation approximation,
                                const Tensor& dx) {
  CudaDevice& d = ready(dx.device().index);
  DeviceGuard guard(d.index);
  const bool ok = kernels::gelu_backward(dx.dtype(), approximation == GeluApproximation::tanh, dx.numel(),
                                         grad.data_ptr(), x.data_ptr(), dx.data_ptr(), aligned16({&grad, &x, &dx}),
                                         {d.compute(), max_blocks(d)});
  if (!ok) not_computed("gelu_backward", dx.dtype());
}

void CudaBackend::layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                             const Tensor& mean, const Tensor& rstd) {
  CudaDevice& d = ready(out.device().index);
  DeviceGuard guard(d.index);
  const bool ok = kernels::layer_norm(out.dtype(), plan(x), eps, x.data_ptr(), ptr_or_null(weight), ptr_or_null(bias),
                                      out.data_ptr(), mean.data_ptr(), rstd.data_ptr(), target_of(d));
  if (!ok) not_computed("layer_norm", out.dtype());
}

void CudaBackend::layer_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                      const Tensor& rstd, const Tensor& dx, const Tensor& dweight,
                                      const Tensor& dbias) {
  CudaDevice& d = ready(dx.device().index);
  DeviceGuard guard(d.index);
  if (!kernels::layer_norm_backward(dx.dtype(), plan(x), grad.data_ptr(), x.data_ptr(), ptr_or_null(weight),
                                    mean.data_ptr(), rstd.data_ptr(), dx.data_ptr(), target_of(d))) {
    not_computed("layer_norm_backward", dx.dtype());
  }
  if (!dweight.defined() && !dbias.defined()) return;
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  const std::int64_t parts = kernels::layer_norm_param_parts(rows, n, d.sm_count);
  // Per-part column sums in the compute precision. Returned to the cache when this returns, while the
  // kernels may still use it: only later work on the compute stream can reuse it (Note [CUDA memory and
  // streams]).
  const Tensor partials = Tensor::empty(Shape{2 * parts * n}, mean.dtype(), dx.device());
  kernels::layer_norm_param_grad(dx.dtype(), rows, n, grad.data_ptr(), x.data_ptr(), mean.data_ptr(), rstd.data_ptr(),
                                 ptr_or_null(dweight), ptr_or_null(dbias), partials.data_ptr(), parts,
                                 {d.compute(), max_blocks(d)});
}

void CudaBackend::softmax(const Tensor& x, bool log, const Tensor& out) {
  CudaDevice& d = ready(out.device().index);
  DeviceGuard guard(d.index);
  if (!kernels::softmax(out.dtype(), plan(x), log, x.data_ptr(), out.data_ptr(), target_of(d))) {
    not_computed(log ? "log_softmax" : "softmax", out.dtype());
  }
}

void CudaBackend::softmax_backward(const Tensor& grad, const Tensor& y, bool log, const Tensor& dx) {
  CudaDevice& d = ready(dx.device().index);
  DeviceGuard guard(d.index);
  if (!kernels::softmax_backward(dx.dtype(), plan(y), log, grad.data_ptr(), y.data_ptr(), dx.data_ptr(),
                                 target_of(d))) {
    not_computed(log ? "log_softmax_backward" : "softmax_backward", dx.dtype());
  }
}

}  // namespace accelera::cuda
