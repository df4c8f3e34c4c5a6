// Launchers of the unary element-wise functions on CUDA (unary.cu), one registration per function of
// ops/elementwise.hpp.
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "ops/elementwise.hpp"

namespace accelera::cuda {

namespace {

template <kernels::UnaryFunction Fn>
void unary_kernel(const Tensor& x, const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  if (out.numel() == 0) return;
  const auto layout = backends::make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  DeviceGuard guard(d.index);
  check_dispatched(kernels::unary(Fn, x.dtype(), to_kernel_layout(layout, "unary"), out.data_ptr(), x.data_ptr(),
                                  vectorizable(layout, {&out, &x}), launch_of(d)),
                   "unary", x.dtype());
}

}  // namespace

// The kernels are chosen by the compute dtype (x's); the output's is that or bool (Note [Element-wise
// functions]).
ACC_REGISTER_KERNELS {
#define ACC_CUDA_REGISTER_UNARY(name, kind, expression)                                                   \
  register_kernel(op::name, DeviceKind::cuda,                                                            \
                  elementwise_dtypes(ElementwiseKind::kind, dtypes::floating | dtypes::half),            \
                  &unary_kernel<kernels::UnaryFunction::name>);
  ACC_UNARY_FUNCTIONS(ACC_CUDA_REGISTER_UNARY)
#undef ACC_CUDA_REGISTER_UNARY
}

}  // namespace accelera::cuda
