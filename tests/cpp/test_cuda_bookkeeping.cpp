// The CUDA backend's host-side logic, on the CPU (no GPU needed; these suites are not named Cuda*, so they
// run everywhere): the typed errors of the status checks.
#include <gtest/gtest.h>

#include <string>

#ifdef ACCELERA_TEST_CUDA
#include "backends/cuda/cuda_check.hpp"
#endif

namespace {

#ifdef ACCELERA_TEST_CUDA

template <typename Status>
std::string thrown_by(Status status) {
  try {
    ACC_CUDA_CHECK(status, "testing the checks");
  } catch (const accelera::Error& e) {
    return e.what();
  }
  return "nothing thrown";
}

// One macro for every status type; allocation failures are OutOfMemoryError, cuBLAS's NOT_SUPPORTED and
// ARCH_MISMATCH NotSupportedError, the rest DeviceError, each message naming the status, call and context.
TEST(StatusChecks, TypedErrorsForEveryStatusType) {
  EXPECT_NO_THROW(ACC_CUDA_CHECK(cudaSuccess, "nothing"));
  EXPECT_NO_THROW(ACC_CUDA_CHECK(CUBLAS_STATUS_SUCCESS, "nothing"));
  EXPECT_NO_THROW(ACC_CUDA_CHECK(NVRTC_SUCCESS, "nothing"));
  EXPECT_THROW(ACC_CUDA_CHECK(cudaErrorMemoryAllocation, "x"), accelera::OutOfMemoryError);
  EXPECT_THROW(ACC_CUDA_CHECK(cudaErrorInvalidValue, "x"), accelera::DeviceError);
  EXPECT_THROW(ACC_CUDA_CHECK(CUBLAS_STATUS_ALLOC_FAILED, "x"), accelera::OutOfMemoryError);
  EXPECT_THROW(ACC_CUDA_CHECK(CUBLAS_STATUS_NOT_SUPPORTED, "x"), accelera::NotSupportedError);
  EXPECT_THROW(ACC_CUDA_CHECK(CUBLAS_STATUS_ARCH_MISMATCH, "x"), accelera::NotSupportedError);
  EXPECT_THROW(ACC_CUDA_CHECK(CUBLAS_STATUS_EXECUTION_FAILED, "x"), accelera::DeviceError);
  EXPECT_THROW(ACC_CUDA_CHECK(NVRTC_ERROR_OUT_OF_MEMORY, "x"), accelera::OutOfMemoryError);
  EXPECT_THROW(ACC_CUDA_CHECK(NVRTC_ERROR_INVALID_INPUT, "x"), accelera::DeviceError);

  const std::string cuda = thrown_by(cudaErrorInvalidValue);
  EXPECT_NE(cuda.find("CUDA error cudaErrorInvalidValue (1: "), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("in status while testing the checks"), std::string::npos) << cuda;
  const std::string cublas = thrown_by(CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_NE(cublas.find("cuBLAS error CUBLAS_STATUS_NOT_SUPPORTED (15: "), std::string::npos) << cublas;
  EXPECT_NE(cublas.find("while testing the checks"), std::string::npos) << cublas;
  const std::string nvrtc = thrown_by(NVRTC_ERROR_INVALID_INPUT);
  EXPECT_NE(nvrtc.find("NVRTC error NVRTC_ERROR_INVALID_INPUT (3)"), std::string::npos) << nvrtc;
}

TEST(StatusChecks, TheContextIsOnlyBuiltOnFailure) {
  int built = 0;
  const auto context = [&] {
    ++built;
    return std::string("context");
  };
  ACC_CUDA_CHECK(cudaSuccess, context());
  ACC_CUDA_CHECK(CUBLAS_STATUS_SUCCESS, context());
  EXPECT_EQ(built, 0);
  EXPECT_THROW(ACC_CUDA_CHECK(CUBLAS_STATUS_INVALID_VALUE, context()), accelera::DeviceError);
  EXPECT_EQ(built, 1);
}

#endif  // ACCELERA_TEST_CUDA

}  // namespace
