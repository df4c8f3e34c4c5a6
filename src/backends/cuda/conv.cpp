// conv and conv_backward on CUDA: im2col and one cuBLAS GEMM per image (Note [Convolution kernels] in
// ops/conv.hpp), in every floating dtype CUDA's im2col and GEMM compute. cuDNN's direct convolutions are
// the next step: they never build the patch matrix.
#include "ops/conv_gemm.hpp"

namespace accelera::cuda {

ACC_REGISTER_KERNELS {
  register_kernel(op::conv, DeviceKind::cuda, dtypes::floating | dtypes::half, &conv_gemm_kernel);
  register_kernel(op::conv_backward, DeviceKind::cuda, dtypes::floating | dtypes::half, &conv_backward_gemm_kernel);
}

}  // namespace accelera::cuda
