// Launchers of the CUDA sliding-window kernels: im2col and col2im (im2col.cu), max_pool and its backward
// (max_pool.cu); Note [Window geometry] in ops/im2col.hpp.

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

void max_pool_kernel(const Tensor& x, const WindowGeometry& g, const Tensor& values, const Tensor& indices) {
  CudaDevice& d = cuda_device(values.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::max_pool(x.dtype(), window_of(g), x.data_ptr(), values.data_ptr(), indices.data_ptr(),
                                     launch_of(d)),
                   "max_pool", x.dtype());
}

void max_pool_backward_kernel(const Tensor& grad, const Tensor& indices, const WindowGeometry& g,
                              const Tensor& image) {
  CudaDevice& d = cuda_device(image.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::max_pool_backward(image.dtype(), window_of(g), grad.data_ptr(), indices.data_ptr(),
                                              image.data_ptr(), launch_of(d)),
                   "max_pool_backward", image.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::im2col, DeviceKind::cuda, dtypes::floating | dtypes::half, &im2col_kernel);
  register_kernel(op::col2im, DeviceKind::cuda, dtypes::floating | dtypes::half, &col2im_kernel);
  register_kernel(op::max_pool, DeviceKind::cuda, dtypes::floating | dtypes::half, &max_pool_kernel);
  register_kernel(op::max_pool_backward, DeviceKind::cuda, dtypes::floating | dtypes::half, &max_pool_backward_kernel);
}

}  // namespace accelera::cuda
