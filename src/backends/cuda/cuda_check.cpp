#include "backends/cuda/cuda_check.hpp"

#include <fmt/format.h>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda {

void throw_cuda_error(cudaError_t status, const char* call, const std::string& context) {
  // A failed call leaves its status as the thread's last error; clear it (sticky errors stay regardless).
  cudaGetLastError();
  const std::string message = fmt::format("CUDA error {} ({}: {}) in {} while {}", cudaGetErrorName(status),
                                          static_cast<int>(status), cudaGetErrorString(status), call, context);
  if (status == cudaErrorMemoryAllocation) throw OutOfMemoryError(message);
  throw DeviceError(message);
}

void throw_cublas_error(cublasStatus_t status, const char* call, const std::string& context) {
  const std::string message = fmt::format("cuBLAS error {} ({}: {}) in {} while {}", cublasGetStatusName(status),
                                          static_cast<int>(status), cublasGetStatusString(status), call, context);
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(message);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH) {
    throw NotSupportedError(message);
  }
  throw DeviceError(message);
}

void throw_nvrtc_error(nvrtcResult status, const char* call, const std::string& context) {
  const std::string message =
      fmt::format("NVRTC error {} ({}) in {} while {}", nvrtcGetErrorString(status), static_cast<int>(status), call,
                  context);
  if (status == NVRTC_ERROR_OUT_OF_MEMORY) throw OutOfMemoryError(message);
  throw DeviceError(message);
}

namespace kernels {
void check_status(cudaError_t status, const char* what) { ACC_CUDA_CHECK(status, what); }
void check_launch(const char* kernel) { ACC_CUDA_CHECK(cudaGetLastError(), std::string("launching ") + kernel); }
}  // namespace kernels

}  // namespace accelera::cuda
