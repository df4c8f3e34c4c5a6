// GELU forward (with an optional bias) and backward on CUDA: launchers of gelu.cu.
#include "backends/cuda/gelu.hpp"

#include <algorithm>

#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/nn_launch.hpp"
#include "ops/gelu.hpp"

namespace accelera::cuda {

namespace {

bool aligned16(std::initializer_list<const Tensor*> tensors) {
  return std::ranges::all_of(tensors, [](const Tensor* t) {
    return !t->defined() || reinterpret_cast<std::uintptr_t>(t->data_ptr()) % 16 == 0;
  });
}

void* ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

}  // namespace

void gelu_kernel(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  DeviceGuard guard(d.index);
  const bool ok = kernels::gelu(out.dtype(), approximation == GeluApproximation::tanh, x.dim(0), x.dim(1),
                                x.data_ptr(), ptr_or_null(bias), out.data_ptr(), aligned16({&x, &bias, &out}),
                                launch_of(d));
  check_dispatched(ok, "gelu", out.dtype());
}

void gelu_backward_kernel(const Tensor& grad, const Tensor& x, GeluApproximation approximation, const Tensor& dx) {
  CudaDevice& d = cuda_device(dx.device());
  DeviceGuard guard(d.index);
  const bool ok = kernels::gelu_backward(dx.dtype(), approximation == GeluApproximation::tanh, dx.numel(),
                                         grad.data_ptr(), x.data_ptr(), dx.data_ptr(), aligned16({&grad, &x, &dx}),
                                         launch_of(d));
  check_dispatched(ok, "gelu_backward", dx.dtype());
}

ACC_REGISTER_KERNELS {
  register_kernel(op::gelu, DeviceKind::cuda, dtypes::floating | dtypes::half, &gelu_kernel);
  register_kernel(op::gelu_backward, DeviceKind::cuda, dtypes::floating | dtypes::half, &gelu_backward_kernel);
}

}  // namespace accelera::cuda
