// Launchers of the CUDA im2col and col2im kernels (im2col.cu; Note [Window geometry] in ops/im2col.hpp).

#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/im2col_launch.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "ops/im2col.hpp"

namespace accelera::cuda {

namespace {

kernels::Window window_of(const WindowGeometry& g) {
  kernels::Window w;
  w.batch = g.batch;
  w.channels = g.channels;
  for (int a = 0; a < 3; ++a) {
    w.in[a] = g.in[a];
    w.out[a] = g.out[a];
    w.kernel[a] = g.kernel[a];
    w.stride[a] = g.stride[a];
    w.pad[a] = g.pad[a];
    w.dilation[a] = g.dilation[a];
  }
  return w;
}

void im2col_kernel(const Tensor& x, const WindowGeometry& g, double pad_value, const Tensor& patches) {
  CudaDevice& d = cuda_device(patches.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::im2col(x.dtype(), window_of(g), x.data_ptr(), pad_value, patches.data_ptr(), launch_of(d)),
                   "im2col", x.dtype());
}

void col2im_kernel(const Tensor& patches, const WindowGeometry& g, const Tensor& image) {
  CudaDevice& d = cuda_device(image.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::col2im(image.dtype(), window_of(g), patches.data_ptr(), image.data_ptr(), launch_of(d)),
                   "col2im", image.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::im2col, DeviceKind::cuda, dtypes::floating | dtypes::half, &im2col_kernel);
  register_kernel(op::col2im, DeviceKind::cuda, dtypes::floating | dtypes::half, &col2im_kernel);
}

}  // namespace accelera::cuda
