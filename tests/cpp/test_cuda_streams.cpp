// Memory, streams and error state on cuda:0 (label `gpu`; every test skips, saying why, where no CUDA device
// answers): Note [CUDA memory and streams] (record-stream protection of device blocks and pinned staging
// blocks, synchronisation before cached blocks go back to the driver), user kernels outliving their
// module, and Note [CUDA last error]. A slow kernel (a clock64 spin, compiled by NVRTC) holds the compute
// stream so that copies ordered after it are still in flight when the test frees their memory: the
// outcomes are then deterministic, not a matter of timing. The host-side bookkeeping is tested on the CPU
// in test_cuda_bookkeeping.cpp.
#include <cstring>
#include <stop_token>
#include <string>
#include <thread>

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

using CudaStaging = CudaStreamsTest;
using CudaSync = CudaStreamsTest;
using CudaCache = CudaStreamsTest;
using CudaUserKernel = CudaStreamsTest;
using CudaLastError = CudaStreamsTest;

float* floats(const accelera::HostBuffer& b) { return static_cast<float*>(b.data()); }

// A staging buffer freed while the copy that reads it waits behind the spin must not be handed out again
// (and overwritten) before that copy has run.
TEST_F(CudaStaging, AFreedBufferReturnsToThePoolOnlyAfterItsCopy) {
  const std::int64_t n = 1 << 22;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  auto staging = backend().allocate_host(0, bytes);
  for (std::int64_t i = 0; i < n; ++i) floats(*staging)[i] = static_cast<float>(i % 1000);
  const Tensor dst = Tensor::empty(Shape{n}, DType::f32, kCuda);
  spin(accelera::zeros(Shape{1}, DType::f32, kCuda));
  backend().copy_from_host_async(dst, staging->data(), Stream::upload);  // a first use: after the spin
  const void* old = staging->data();
  staging.reset();
  auto other = backend().allocate_host(0, bytes);  // the same size class
  EXPECT_NE(other->data(), old) << "a staging block was reused while its copy was still queued";
  std::memset(other->data(), 0xff, bytes);  // nan: shows up in dst if the copy read this memory
  backend().synchronize(0);
  const Tensor got = dst.to(Device::cpu());
  const auto* g = static_cast<const float*>(got.data_ptr());
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(g[i], static_cast<float>(i % 1000)) << i;
}

// synchronize() on one thread while another enqueues copies of tensors it then frees: a block reused while
// its copy still runs would show the -1 of the next tensor in the copied values. Before the fix,
// synchronize() released every pending use after waiting for the streams, including those added since.
TEST_F(CudaSync, SynchronizeOnAnotherThreadReleasesOnlyFinishedCopies) {
  auto& alloc = accelera::allocator_for(kCuda);
  const auto baseline = alloc.stats().current_bytes;
  const std::int64_t n = 1 << 22;
  auto staging = backend().allocate_host(0, static_cast<std::size_t>(n) * sizeof(float));
  std::string sync_error;
  std::jthread syncer([&](const std::stop_token& stop) {  // joins even when the loop below throws
    try {
      while (!stop.stop_requested()) backend().synchronize(0);
    } catch (const accelera::Error& e) {
      sync_error = e.what();
    }
  });
  int bad_iteration = -1;
  for (int it = 0; it < 200 && bad_iteration < 0; ++it) {
    Tensor t = accelera::full(Shape{n}, static_cast<double>(it), DType::f32, kCuda);
    backend().copy_to_host_async(staging->data(), t, Stream::download);
    t = Tensor();  // kept by the copy until it has run
    Tensor u = accelera::full(Shape{n}, -1.0, DType::f32, kCuda);  // t's block, were it released early
    backend().record_event(0, Stream::download)->synchronize();
    for (std::int64_t i = 0; i < n; i += 4093) {
      if (floats(*staging)[i] != static_cast<float>(it)) bad_iteration = it;
    }
    if (floats(*staging)[n - 1] != static_cast<float>(it)) bad_iteration = it;
  }
  syncer.request_stop();
  syncer.join();
  EXPECT_EQ(sync_error, "");
  EXPECT_EQ(bad_iteration, -1) << "a copy read a block that a later tensor had been given";
  backend().synchronize(0);
  EXPECT_EQ(alloc.stats().current_bytes, baseline);
}

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

// A kernel and its manager dropped while its launch is still queued: the module stays loaded until the
// launch has run, so it completes and the context stays usable.
TEST_F(CudaUserKernel, DroppingAKernelWaitsForItsLaunches) {
  const Tensor done = accelera::zeros(Shape{1}, DType::f32, kCuda);
  {
    accelera::KernelManager own(kCuda);
    auto kernel = own.compile_kernel("spin", kSpinSource, "cuda");
    const KernelArg args[] = {std::int64_t{kSpinCycles}, done};
    kernel->launch(args, LaunchSize{1}, LaunchSize{1});
    kernel->launch(args, LaunchSize{1}, LaunchSize{1});
  }
  EXPECT_EQ(values_of(done.to(Device::cpu()))[0], 1.0);
  EXPECT_NO_THROW(backend().synchronize(0));
}

// Statuses handled as answers (not ready, out of memory) leave no last error behind for the next launch
// check to report (Note [CUDA last error]).
TEST_F(CudaLastError, HandledStatusesDoNotReachTheNextLaunchCheck) {
#ifdef ACCELERA_TEST_CUDA
  const Tensor x = accelera::ones(Shape{1000}, DType::f32, kCuda);
  auto staging = backend().allocate_host(0, 4 * 1000);
  spin(accelera::zeros(Shape{1}, DType::f32, kCuda));
  const auto pending = backend().record_event(0, Stream::compute);
  EXPECT_FALSE(pending->query());  // cudaErrorNotReady: an answer
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  const Tensor fresh = accelera::ones(Shape{1000}, DType::f32, kCuda);
  backend().copy_to_host_async(staging->data(), fresh, Stream::download);  // waits for the spin
  backend().synchronize_stream(0, Stream::upload);  // queries the pending copy's event: not ready
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  EXPECT_NO_THROW(accelera::add(x, x));  // its launch check passes
  backend().synchronize(0);

  // A cudaMalloc the device cannot serve: the allocator flushes, retries and raises OutOfMemoryError.
  auto& alloc = accelera::allocator_for(kCuda);
  const auto budget = alloc.budget();
  alloc.set_budget(std::int64_t{1} << 50);
  EXPECT_THROW(Tensor::empty(Shape{std::int64_t{1} << 46}, DType::f32, kCuda), accelera::OutOfMemoryError);
  alloc.set_budget(budget);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  const Tensor y = accelera::add(x, x);
  EXPECT_EQ(values_of(y.to(Device::cpu()))[999], 2.0);
#else
  GTEST_SKIP() << "the test build has no CUDA runtime headers";
#endif
}

}  // namespace
}  // namespace acc_test
