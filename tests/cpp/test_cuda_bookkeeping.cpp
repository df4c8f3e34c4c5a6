// The CUDA backend's host-side logic, on the CPU (no GPU needed; these suites are not named Cuda*, so they
// run everywhere): cuBLASLt operand alignment, the pending-use list and staging-block registry of Note [CUDA
// memory and streams], per-device call_once, and the typed errors of the status checks. The same
// behaviour on a device is tested in test_cuda_streams.cpp and test_cuda_nn.cpp (label `gpu`).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backends/cuda/lt_alignment.hpp"
#include "backends/cuda/pending_uses.hpp"
#include "backends/cuda/per_device_once.hpp"

#ifdef ACCELERA_TEST_CUDA
#include "backends/cuda/cuda_check.hpp"
#endif

namespace {

using accelera::cuda::EventState;
using accelera::cuda::lt_alignment;

TEST(LtAlignment, LargestPowerOfTwoDividingTheAddressUpTo256) {
  EXPECT_EQ(lt_alignment(std::uintptr_t{0}), 256u);  // no operand
  EXPECT_EQ(lt_alignment(std::uintptr_t{1}), 1u);
  EXPECT_EQ(lt_alignment(std::uintptr_t{2}), 2u);
  EXPECT_EQ(lt_alignment(std::uintptr_t{6}), 2u);
  EXPECT_EQ(lt_alignment(std::uintptr_t{24}), 8u);
  EXPECT_EQ(lt_alignment(std::uintptr_t{0x7f00'0000'0010}), 16u);
  EXPECT_EQ(lt_alignment(std::uintptr_t{0x7f00'0000'0080}), 128u);
  EXPECT_EQ(lt_alignment(std::uintptr_t{0x7f00'0000'0100}), 256u);
  EXPECT_EQ(lt_alignment(std::uintptr_t{0x7f00'0001'0000}), 256u);  // capped
  static_assert(lt_alignment(std::uintptr_t{48}) == 16u);
}

// A view at an offset of 1..7 two-byte elements from a 256-byte aligned block (x = batch[1:] in float16 with
// an odd width): never promises more than the offset allows, and the bias rule follows.
TEST(LtAlignment, HalfViewsAtElementOffsets) {
  const std::uintptr_t block = 0x7f12'3456'7800;  // what cudaMalloc returns: 256-byte aligned
  const std::uint32_t expected[] = {2, 4, 2, 8, 2, 4, 2};
  for (std::uintptr_t k = 1; k <= 7; ++k) {
    const std::uint32_t a = lt_alignment(block + 2 * k);
    EXPECT_EQ(a, expected[k - 1]) << k;
    EXPECT_EQ((block + 2 * k) % a, 0u) << k;
    EXPECT_LT(a, accelera::cuda::kLtBiasAlignment) << "a bias at this offset takes the unfused path";
  }
  EXPECT_EQ(lt_alignment(block + 2 * 8), 16u);  // 8 elements: aligned enough for the fused bias
  // Through a real pointer too.
  alignas(256) static unsigned char storage[512];
  EXPECT_EQ(lt_alignment(static_cast<const void*>(storage + 6)), 2u);
  EXPECT_EQ(lt_alignment(static_cast<const void*>(storage + 256)), 256u);
}

// Fake events: an index into a table of states the test sets.
struct FakeEvents {
  std::vector<std::atomic<int>> states;
  explicit FakeEvents(std::size_t n) : states(n) {}
  void set(int e, EventState s) { states[static_cast<std::size_t>(e)] = static_cast<int>(s); }
  EventState operator()(int e) const { return static_cast<EventState>(states[static_cast<std::size_t>(e)].load()); }
};

// A block that counts its return to the pool.
std::shared_ptr<const void> counted_block(std::atomic<int>& returned) {
  return std::shared_ptr<const void>(new int(0), [&returned](const void* p) {
    delete static_cast<const int*>(p);
    ++returned;
  });
}

TEST(PendingUses, ReleasesOnlyWhatHasCompleted) {
  accelera::cuda::PendingUses<int> pending;
  FakeEvents events(4);
  std::atomic<int> returned{0};
  for (int e = 0; e < 4; ++e) pending.add(e, {counted_block(returned)});
  events.set(1, EventState::done);
  events.set(3, EventState::failed);  // the work will never run: released too
  auto finished = pending.take_finished(events);
  ASSERT_EQ(finished.size(), 2u);
  EXPECT_EQ(finished[0].done, 1);
  EXPECT_EQ(finished[1].done, 3);
  EXPECT_EQ(pending.size(), 2u);
  EXPECT_EQ(returned, 0);  // the caller drops them, outside the list's lock
  finished.clear();
  EXPECT_EQ(returned, 2);
  events.set(0, EventState::done);
  events.set(2, EventState::done);
  pending.take_finished(events);
  EXPECT_EQ(pending.size(), 0u);
  EXPECT_EQ(returned, 4);
}

// The defect synchronize() had: after synchronising its streams a thread released every pending use,
// including one another thread added after those waits, whose copy was still running. The list only ever
// releases uses whose own event has completed.
TEST(PendingUses, AUseAddedAfterASynchronisationStaysUntilItsEventCompletes) {
  accelera::cuda::PendingUses<int> pending;
  FakeEvents events(2);
  std::atomic<int> returned{0};
  pending.add(0, {counted_block(returned)});
  events.set(0, EventState::done);            // thread A: its streams are synchronised...
  pending.add(1, {counted_block(returned)});  // ...thread B enqueues a copy meanwhile...
  pending.take_finished(events);              // ...A releases what has finished
  EXPECT_EQ(returned, 1);
  EXPECT_EQ(pending.size(), 1u);
  events.set(1, EventState::done);
  pending.take_finished(events);
  EXPECT_EQ(returned, 2);
}

TEST(PendingUses, ConcurrentAddsAndReleasesNeverReleaseAPendingUse) {
  constexpr int kUses = 4000;
  accelera::cuda::PendingUses<int> pending;
  FakeEvents events(kUses);
  std::vector<std::atomic<bool>> released(kUses);
  std::atomic<int> violations{0};
  std::atomic<bool> adding{true};
  std::thread adder([&] {
    for (int e = 0; e < kUses; ++e) {
      auto keep = std::shared_ptr<const void>(new int(e), [&, e](const void* p) {
        delete static_cast<const int*>(p);
        if (events(e) == EventState::pending) ++violations;
        released[static_cast<std::size_t>(e)] = true;
      });
      pending.add(e, {std::move(keep)});
      if (e >= 3) events.set(e - 3, EventState::done);  // copies finish a little later
    }
    adding = false;
  });
  std::thread releaser([&] {
    while (adding) pending.take_finished(events);
  });
  adder.join();
  releaser.join();
  for (int e = kUses - 3; e < kUses; ++e) events.set(e, EventState::done);
  pending.take_finished(events);
  EXPECT_EQ(violations, 0);
  EXPECT_EQ(pending.size(), 0u);
  for (const auto& r : released) EXPECT_TRUE(r);
}

// Record-stream semantics for host staging: a buffer freed while a copy that uses it is in flight returns
// to the pool only once that copy's event has completed.
TEST(StagingBlocks, AFreedBufferReturnsToThePoolOnlyAfterItsCopy) {
  accelera::cuda::StagingBlocks staging;
  accelera::cuda::PendingUses<int> pending;
  FakeEvents events(1);
  std::atomic<int> returned{0};
  std::vector<unsigned char> memory(4096);
  const void* data = memory.data() + 1024;
  std::shared_ptr<const void> buffer(data, [&returned](const void*) { ++returned; });  // the pool's deleter
  staging.add(data, 1024, buffer);
  // A copy reading from inside the buffer keeps it; addresses outside it are not staging memory.
  auto found = staging.find(memory.data() + 1024 + 100);
  ASSERT_EQ(found, buffer);
  EXPECT_EQ(staging.find(memory.data() + 1023), nullptr);
  EXPECT_EQ(staging.find(memory.data() + 2048), nullptr);
  pending.add(0, {std::move(found)});
  // The user frees the buffer while the copy runs.
  staging.remove(data);
  buffer.reset();
  EXPECT_EQ(returned, 0);
  pending.take_finished(events);
  EXPECT_EQ(returned, 0);  // still pending
  events.set(0, EventState::done);
  pending.take_finished(events);
  EXPECT_EQ(returned, 1);
  EXPECT_EQ(staging.find(memory.data() + 1024), nullptr);
}

TEST(StagingBlocks, FindsTheRightBlockAmongMany) {
  accelera::cuda::StagingBlocks staging;
  std::vector<unsigned char> memory(1 << 16);
  std::vector<std::shared_ptr<const void>> blocks;
  for (int i = 0; i < 16; ++i) {
    const void* p = memory.data() + i * 4096;
    blocks.emplace_back(p, [](const void*) {});
    staging.add(p, 1000, blocks.back());
  }
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(staging.find(memory.data() + i * 4096 + 999), blocks[static_cast<std::size_t>(i)]) << i;
    EXPECT_EQ(staging.find(memory.data() + i * 4096 + 1000), nullptr) << i;  // past the block's size
  }
  blocks[3].reset();  // a buffer gone without remove(): never found again (weak reference)
  EXPECT_EQ(staging.find(memory.data() + 3 * 4096), nullptr);
}

TEST(PerDeviceOnce, RunsOncePerDeviceUnderContention) {
  accelera::cuda::PerDeviceOnce once;
  std::atomic<int> runs[4] = {0, 0, 0, 0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) once.run((t + i) % 4, [&runs, d = (t + i) % 4] { ++runs[d]; });
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : runs) EXPECT_EQ(r, 1);
}

TEST(PerDeviceOnce, AFailedRunIsRetried) {
  accelera::cuda::PerDeviceOnce once;
  int attempts = 0;
  EXPECT_THROW(once.run(0, [&] {
    ++attempts;
    throw std::runtime_error("cudaFuncSetAttribute failed");
  }),
               std::runtime_error);
  once.run(0, [&] { ++attempts; });
  once.run(0, [&] { ++attempts; });
  EXPECT_EQ(attempts, 2);
}

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
