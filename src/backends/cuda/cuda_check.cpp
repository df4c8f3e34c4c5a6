#include "backends/cuda/cuda_check.hpp"

#include <fmt/format.h>

#include "backends/cuda/launch.hpp"
#include "core/log.hpp"

namespace accelera::cuda {

void throw_status(cudaError_t status, const char* call, const std::string& context) {
  clear_error(status);  // Note [CUDA last error]
  const std::string message = fmt::format("CUDA error {} ({}: {}) in {} while {}", cudaGetErrorName(status),
                                          static_cast<int>(status), cudaGetErrorString(status), call, context);
  if (status == cudaErrorMemoryAllocation) throw OutOfMemoryError(message);
  throw DeviceError(message);
}

void throw_status(cublasStatus_t status, const char* call, const std::string& context) {
  cudaGetLastError();  // a runtime call inside cuBLAS may have failed with it: not the next launch's error
  const std::string message = fmt::format("cuBLAS error {} ({}: {}) in {} while {}", cublasGetStatusName(status),
                                          static_cast<int>(status), cublasGetStatusString(status), call, context);
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(message);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH) {
    throw NotSupportedError(message);
  }
  throw DeviceError(message);
}

void throw_status(nvrtcResult status, const char* call, const std::string& context) {
  const std::string message =
      fmt::format("NVRTC error {} ({}) in {} while {}", nvrtcGetErrorString(status), static_cast<int>(status), call,
                  context);
  if (status == NVRTC_ERROR_OUT_OF_MEMORY) throw OutOfMemoryError(message);
  throw DeviceError(message);
}

cudaError_t clear_error(cudaError_t status) noexcept {
  if (status != cudaSuccess) cudaGetLastError();
  return status;
}

void log_failure(cudaError_t status, const char* what) noexcept {
  if (clear_error(status) == cudaSuccess || status == cudaErrorCudartUnloading) return;
  ACC_LOG_ERROR("{} failed: {} ({})", what, cudaGetErrorName(status), cudaGetErrorString(status));
}

namespace kernels {

void check_status(cudaError_t status, const char* what) { ACC_CUDA_CHECK(status, what); }

// Note [CUDA last error]: the last error is this launch's own unless it is sticky.
void check_launch(const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess) [[likely]] return;
  if (cudaPeekAtLastError() == status) {
    throw DeviceError(fmt::format(
        "CUDA error {} ({}: {}) reported when launching {}: a sticky error left by earlier work on the device (a "
        "kernel or copy that faulted), not by this launch; the CUDA context is unusable until the process exits",
        cudaGetErrorName(status), static_cast<int>(status), cudaGetErrorString(status), kernel));
  }
  throw_status(status, "a kernel launch", std::string("launching ") + kernel);
}

}  // namespace kernels

}  // namespace accelera::cuda
