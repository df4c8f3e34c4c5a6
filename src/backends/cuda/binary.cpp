// Launchers of the binary element-wise functions on CUDA (binary.cu), one registration per function of
// ops/elementwise.hpp.
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "ops/elementwise.hpp"

namespace accelera::cuda {

namespace {

template <kernels::BinaryFunction Fn>
void binary_kernel(const Tensor& a, const Tensor& b, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  if (out.numel() == 0) return;
  const auto layout = backends::make_layout<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  DeviceGuard guard(d.index);
  check_dispatched(kernels::binary(Fn, a.dtype(), to_kernel_layout(layout, "binary"), out.data_ptr(), a.data_ptr(),
                                   b.data_ptr(), vectorizable(layout, {&out, &a, &b}), launch_of(d)),
                   "binary", a.dtype());
}

}  // namespace

// The kernels are chosen by the compute dtype (a's); the output's is that or bool (Note [Element-wise
// functions]).
ACC_REGISTER_KERNELS {
#define ACC_CUDA_REGISTER_BINARY(name, kind, expression)                                                  \
  register_kernel(op::name, DeviceKind::cuda,                                                            \
                  elementwise_dtypes(ElementwiseKind::kind, dtypes::floating | dtypes::half),            \
                  &binary_kernel<kernels::BinaryFunction::name>);
  ACC_BINARY_FUNCTIONS(ACC_CUDA_REGISTER_BINARY)
#undef ACC_CUDA_REGISTER_BINARY
}

}  // namespace accelera::cuda
