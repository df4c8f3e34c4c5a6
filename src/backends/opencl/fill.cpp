// The fill kernel on OpenCL (ops/fill.hpp): clEnqueueFillBuffer for dense tensors; other views copy from a
// filled element broadcast over them.
#include "backends/opencl/opencl_interface.hpp"
#include "core/convert.hpp"
#include "core/copy_kernel.hpp"
#include "ops/fill.hpp"

namespace accelera::opencl {

namespace {

void fill_dense(ClDevice& d, const Tensor& dst, double value) {
  // The pattern is the value converted exactly as the CPU converts it.
  const std::uint64_t pattern = detail::element_bits(dst.dtype(), value);
  ACC_CL_CHECK(clEnqueueFillBuffer(d.compute(), buffer_of(dst), &pattern, dst.itemsize(),
                                   dst.offset() * dst.itemsize(), dst.nbytes(), 0, nullptr, nullptr),
               "filling a buffer");
  // The pattern lives on this call's stack: the fill must have read it before we return.
  ACC_CL_CHECK(clFinish(d.compute()), "waiting for a fill");
}

void fill_kernel(const Tensor& dst, double value) {
  ClDevice& d = cl_device(dst.device());
  if (dst.numel() == 0) return;
  if (dst.is_contiguous()) {
    fill_dense(d, dst, value);
    return;
  }
  const Tensor element = Tensor::empty(Shape{}, dst.dtype(), dst.device());
  fill_dense(d, element, value);
  kernel_for(op::copy, dst.device(), dst.dtype())(element.broadcast_to(dst.shape()), dst);
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::fill, DeviceKind::opencl, dtypes::all, &fill_kernel); }

}  // namespace accelera::opencl
