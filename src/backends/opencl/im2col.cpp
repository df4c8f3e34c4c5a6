// im2col and col2im on OpenCL (im2col.cl, col2im.cl, sharing window.cl; Note [Window geometry] in
// ops/im2col.hpp): one work-item per output element, the geometry passed as one struct argument.
#include <type_traits>

#include "backends/opencl/nn_common.hpp"
#include "ops/im2col.hpp"

namespace accelera::opencl {

using namespace nn;

namespace {

constexpr std::size_t kLocal = 256;

// window.cl's Window has this exact layout.
static_assert(std::is_trivially_copyable_v<WindowGeometry> && sizeof(WindowGeometry) == 20 * sizeof(cl_long));

void im2col_kernel(const Tensor& x, const WindowGeometry& g, double pad_value, const Tensor& patches) {
  ClDevice& d = cl_device(patches.device());
  const Kernel kernel = make_kernel(d, "im2col", element_options(d, x.dtype()), embedded_source("window"));
  with_scalar(x.dtype(), pad_value, [&](auto pad) {
    KernelArgs(kernel.get()).add(g).add(buffer_of(x)).add(off(x)).add(pad).add(buffer_of(patches)).add(off(patches));
  });
  launch(d, kernel, static_cast<std::size_t>(patches.numel()), kLocal, "launching im2col");
}

void col2im_kernel(const Tensor& patches, const WindowGeometry& g, const Tensor& image) {
  ClDevice& d = cl_device(image.device());
  const Kernel kernel = make_kernel(d, "col2im", element_options(d, image.dtype()), embedded_source("window"));
  KernelArgs(kernel.get()).add(g).add(buffer_of(patches)).add(off(patches)).add(buffer_of(image)).add(off(image));
  launch(d, kernel, static_cast<std::size_t>(image.numel()), kLocal, "launching col2im");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::im2col, DeviceKind::opencl, dtypes::floating, &im2col_kernel);
  register_kernel(op::col2im, DeviceKind::opencl, dtypes::floating, &col2im_kernel);
}

}  // namespace accelera::opencl
