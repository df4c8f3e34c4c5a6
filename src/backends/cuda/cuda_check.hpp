#pragma once
// Every CUDA runtime, cuBLAS(Lt) and NVRTC status is checked by one macro, ACC_CUDA_CHECK, over an
// is_success / throw_status overload per status type: a failure becomes a typed error naming the call, the
// status and what was being done. Allocation failures become OutOfMemoryError, cuBLAS's NOT_SUPPORTED
// and ARCH_MISMATCH NotSupportedError, the rest DeviceError (NVRTC compile errors are reported by the
// kernel compiler itself, with the log).
// Note [CUDA last error]
// The runtime keeps the status of every failed call as the calling thread's "last error" until
// cudaGetLastError reads it, and a kernel launch reports its own failure only there: check_launch reads it
// after each launch. So that it blames the launch it follows and nothing older, every failed status is
// cleared where it is handled: throw_status clears it before throwing, and a status taken as an answer
// (cudaErrorNotReady from a query, cudaErrorMemoryAllocation the allocator retries) or only logged (in
// destructors and raw_free, which must not throw) goes through clear_error. A sticky error (a kernel
// faulted: the context is unusable) cannot be cleared; check_launch tells it apart with
// cudaPeekAtLastError, which still reports it after cudaGetLastError, and says so instead of blaming the
// launch.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <string>

#include "accelera/core/error.hpp"

namespace accelera::cuda {

constexpr bool is_success(cudaError_t status) noexcept { return status == cudaSuccess; }
constexpr bool is_success(cublasStatus_t status) noexcept { return status == CUBLAS_STATUS_SUCCESS; }
constexpr bool is_success(nvrtcResult status) noexcept { return status == NVRTC_SUCCESS; }

// Throws the typed error for a failed `status` returned by `call` while doing `context`.
[[noreturn]] void throw_status(cudaError_t status, const char* call, const std::string& context);
[[noreturn]] void throw_status(cublasStatus_t status, const char* call, const std::string& context);
[[noreturn]] void throw_status(nvrtcResult status, const char* call, const std::string& context);

// Note [CUDA last error]: for a runtime status handled without throwing. Clears the thread's last error
// when `status` is a failure (a sticky error stays) and returns `status`.
cudaError_t clear_error(cudaError_t status) noexcept;
// Logs a failed `status` of a call that cannot throw (a destructor, raw_free) and clears it; silent for
// cudaErrorCudartUnloading (at process exit the runtime may be gone before our last objects).
void log_failure(cudaError_t status, const char* what) noexcept;

}  // namespace accelera::cuda

// ACC_CUDA_CHECK(call(...), "what it was doing") for any status type with an is_success overload: the
// context (a string or a C string) is only evaluated on failure.
#define ACC_CUDA_CHECK(expr, context)                                             \
  do {                                                                            \
    const auto acc_cuda_status_ = (expr);                                         \
    if (!::accelera::cuda::is_success(acc_cuda_status_)) [[unlikely]] {           \
      ::accelera::cuda::throw_status(acc_cuda_status_, #expr, (context));         \
    }                                                                             \
  } while (0)
