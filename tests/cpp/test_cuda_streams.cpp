// Memory and streams on cuda:0 (label `gpu`; every test skips, saying why, where no CUDA device answers):
// Note [CUDA memory and streams] (synchronisation before cached blocks go back to the driver). A slow
// kernel (a clock64 spin, compiled by NVRTC) holds the compute stream so that work ordered after it is
// still in flight when the test frees its memory: the outcomes are then deterministic, not a matter of
// timing.
#include "accelera/kernel.hpp"
#include "helpers.hpp"

#ifdef ACCELERA_TEST_CUDA
#include <cuda_runtime_api.h>
#endif

namespace acc_test {
namespace {

using accelera::KernelArg;
using accelera::LaunchSize;
using accelera::Stream;

const Device kCuda{accelera::DeviceKind::cuda, 0};

const char* kSpinSource = R"(
extern "C" __global__ void spin(long long cycles, float* done) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) done[0] = 1.0f;
}
)";
// About 0.1 s at 2 GHz: far longer than the host needs to enqueue and free what follows.
constexpr std::int64_t kSpinCycles = 200'000'000;

class CudaStreamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_compiled()) GTEST_SKIP() << "built without CUDA support";
    if (const std::string why = device_absence(kCuda); !why.empty()) GTEST_SKIP() << why;
    spin_kernel = manager.compile_kernel("spin", kSpinSource, "cuda");
  }
  accelera::DeviceInterface& backend() { return accelera::device_interface(kCuda); }
  // Enqueues the spin on the compute stream; it writes 1 to done[0] when it ends.
  void spin(const Tensor& done) {
    const KernelArg args[] = {std::int64_t{kSpinCycles}, done};
    spin_kernel->launch(args, LaunchSize{1}, LaunchSize{1});
  }

  accelera::KernelManager manager{kCuda};
  std::shared_ptr<accelera::CompiledKernel> spin_kernel;
};

using CudaCache = CudaStreamsTest;

// Returning cached blocks to the driver waits for the kernels that may still use them (Note [CUDA memory
// and streams]): cudaFree alone is not documented to.
TEST_F(CudaCache, EmptyCacheWaitsForKernelsUsingCachedBlocks) {
  auto& alloc = accelera::allocator_for(kCuda);
  Tensor written = accelera::zeros(Shape{1 << 20}, DType::f32, kCuda);
  spin(written);           // writes written[0] after about 0.1 s
  written = Tensor();      // its block goes to the cache while the spin runs
  const auto after_spin = backend().record_event(0, Stream::compute);
  alloc.empty_cache();
  EXPECT_TRUE(after_spin->query()) << "cached blocks were freed while a kernel still wrote to one";
  EXPECT_EQ(alloc.stats().cached_bytes, 0);
  EXPECT_NO_THROW(backend().synchronize(0));
  EXPECT_EQ(values_of(accelera::full(Shape{3}, 2.0, DType::f32, kCuda).to(Device::cpu()))[2], 2.0);
}

// DeviceMemory::raw_free makes its device current and must give the caller's back.
TEST_F(CudaCache, FreeingCachedBlocksKeepsTheCallersCurrentDevice) {
#ifdef ACCELERA_TEST_CUDA
  if (backend().device_count() < 2) GTEST_SKIP() << "one CUDA device: no other device to keep current";
  { const Tensor t = Tensor::empty(Shape{1 << 16}, DType::f32, kCuda); }  // a cached block of cuda:0
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  accelera::allocator_for(kCuda).empty_cache();
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 1);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
#else
  GTEST_SKIP() << "the test build has no CUDA runtime headers";
#endif
}

}  // namespace
}  // namespace acc_test
