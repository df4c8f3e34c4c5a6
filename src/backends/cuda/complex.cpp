// Launchers of the complex element-wise kernels on CUDA (complex.cu; Note [Complex element-wise
// functions]).
#include "backends/cuda/complex_launch.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"

namespace accelera::cuda {

namespace {

void complex_unary_kernel(ComplexUnary fn, const Tensor& x, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  if (out.numel() == 0) return;
  const auto layout = backends::make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  DeviceGuard guard(d.index);
  check_dispatched(kernels::complex_unary(fn, x.dtype(), to_kernel_layout(layout, "complex_unary"), out.data_ptr(),
                                          x.data_ptr(), launch_of(d)),
                   "complex_unary", x.dtype());
}

void complex_binary_kernel(ComplexBinary fn, const Tensor& a, const Tensor& b, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  if (out.numel() == 0) return;
  const auto layout = backends::make_layout<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  DeviceGuard guard(d.index);
  check_dispatched(kernels::complex_binary(fn, a.dtype(), to_kernel_layout(layout, "complex_binary"), out.data_ptr(),
                                           a.data_ptr(), b.data_ptr(), launch_of(d)),
                   "complex_binary", a.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::complex_unary, DeviceKind::cuda, dtypes::complex, &complex_unary_kernel);
  register_kernel(op::complex_binary, DeviceKind::cuda, dtypes::complex, &complex_binary_kernel);
}

}  // namespace accelera::cuda
