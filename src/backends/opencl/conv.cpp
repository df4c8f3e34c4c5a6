// conv and conv_backward on OpenCL: im2col and one CLBlast GEMM per image (Note [Convolution kernels] in
// ops/conv.hpp). CLBlast's convgemm fuses the two but has no backward, and its forward still materialises
// the patches per image; the device's own im2col feeds one batched GEMM instead.
#include "ops/conv_gemm.hpp"

namespace accelera::opencl {

ACC_REGISTER_KERNELS {
  register_kernel(op::conv, DeviceKind::opencl, dtypes::floating, &conv_gemm_kernel);
  register_kernel(op::conv_backward, DeviceKind::opencl, dtypes::floating, &conv_backward_gemm_kernel);
}

}  // namespace accelera::opencl
