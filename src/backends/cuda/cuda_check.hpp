#pragma once
// Every CUDA runtime, cuBLAS and NVRTC status is checked: a failure becomes a typed error naming the call,
// the status and what was being done. Out-of-memory statuses become OutOfMemoryError, the rest
// DeviceError (NVRTC compile errors are reported by the kernel compiler itself, with the log).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <string>

#include "accelera/core/error.hpp"

namespace accelera::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const std::string& context);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const std::string& context);
[[noreturn]] void throw_nvrtc_error(nvrtcResult status, const char* call, const std::string& context);

}  // namespace accelera::cuda

// ACC_CUDA_CHECK(cudaCall(...), "what it was doing")
#define ACC_CUDA_CHECK(expr, context)                                        \
  do {                                                                       \
    const cudaError_t acc_cuda_status_ = (expr);                             \
    if (acc_cuda_status_ != cudaSuccess) [[unlikely]] {                      \
      ::accelera::cuda::throw_cuda_error(acc_cuda_status_, #expr, (context)); \
    }                                                                        \
  } while (0)

#define ACC_CUBLAS_CHECK(expr, context)                                          \
  do {                                                                           \
    const cublasStatus_t acc_cublas_status_ = (expr);                            \
    if (acc_cublas_status_ != CUBLAS_STATUS_SUCCESS) [[unlikely]] {              \
      ::accelera::cuda::throw_cublas_error(acc_cublas_status_, #expr, (context)); \
    }                                                                            \
  } while (0)

#define ACC_NVRTC_CHECK(expr, context)                                         \
  do {                                                                         \
    const nvrtcResult acc_nvrtc_status_ = (expr);                              \
    if (acc_nvrtc_status_ != NVRTC_SUCCESS) [[unlikely]] {                     \
      ::accelera::cuda::throw_nvrtc_error(acc_nvrtc_status_, #expr, (context)); \
    }                                                                          \
  } while (0)
