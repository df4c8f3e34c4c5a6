// max_pool and max_pool_backward on OpenCL (max_pool.cl, max_pool_backward.cl, sharing window.cl with
// im2col): one work-item per output element.
#include "backends/opencl/nn_common.hpp"
#include "ops/im2col.hpp"

namespace accelera::opencl {

using namespace nn;

namespace {

constexpr std::size_t kLocal = 256;

void max_pool_kernel(const Tensor& x, const WindowGeometry& g, const Tensor& values, const Tensor& indices) {
  ClDevice& d = cl_device(values.device());
  const Kernel kernel = make_kernel(d, "max_pool", element_options(d, x.dtype()), embedded_source("window"));
  KernelArgs(kernel.get())
      .add(g)
      .add(buffer_of(x))
      .add(off(x))
      .add(buffer_of(values))
      .add(off(values))
      .add(buffer_of(indices))
      .add(off(indices));
  launch(d, kernel, static_cast<std::size_t>(values.numel()), kLocal, "launching max_pool");
}

void max_pool_backward_kernel(const Tensor& grad, const Tensor& indices, const WindowGeometry& g,
                              const Tensor& image) {
  ClDevice& d = cl_device(image.device());
  const Kernel kernel =
      make_kernel(d, "max_pool_backward", element_options(d, image.dtype()), embedded_source("window"));
  KernelArgs(kernel.get())
      .add(g)
      .add(buffer_of(grad))
      .add(off(grad))
      .add(buffer_of(indices))
      .add(off(indices))
      .add(buffer_of(image))
      .add(off(image));
  launch(d, kernel, static_cast<std::size_t>(image.numel()), kLocal, "launching max_pool_backward");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::max_pool, DeviceKind::opencl, dtypes::floating, &max_pool_kernel);
  register_kernel(op::max_pool_backward, DeviceKind::opencl, dtypes::floating, &max_pool_backward_kernel);
}

}  // namespace accelera::opencl
