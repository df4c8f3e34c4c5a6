// The caching allocator over a fake device, and the cpu device's allocator under tensors and ops.
#include <bit>
#include <cstdlib>
#include <functional>
#include <map>
#include <thread>

#include "helpers.hpp"

using namespace accelera;
using namespace acc_test;

namespace {

constexpr std::int64_t KiB = 1024, MiB = 1024 * 1024;

// A device memory that counts calls, checks that frees match allocations, and can be told to fail.
class FakeRaw final : public RawAllocator {
 public:
  int calls = 0;           // raw_allocate calls
  int allocs = 0;          // successful ones
  int frees = 0;
  int nulls_to_return = 0;  // the next this-many raw_allocate calls return nullptr
  std::map<void*, std::size_t> live;

  void* raw_allocate(std::size_t nbytes) override {
    ++calls;
    if (nulls_to_return > 0) {
      --nulls_to_return;
      return nullptr;
    }
    ++allocs;
    void* p = std::malloc(nbytes);
    live[p] = nbytes;
    return p;
  }
  void raw_free(void* ptr, std::size_t nbytes) noexcept override {
    ++frees;
    const auto it = live.find(ptr);
    if (it == live.end()) {
      ADD_FAILURE() << "raw_free of a block that is not live";
      return;
    }
    EXPECT_EQ(it->second, nbytes) << "raw_free with a size other than the allocated one";
    live.erase(it);
    std::free(ptr);
  }
  ~FakeRaw() override {
    for (auto& [p, n] : live) std::free(p);
  }
};

const Device kFakeDevice{DeviceKind::cuda, 3};

// Accepts the byte count in any of the usual renderings.
bool mentions_bytes(const std::string& msg, std::int64_t bytes) {
  const double mib = static_cast<double>(bytes) / MiB;
  return msg.find(std::to_string(bytes)) != std::string::npos ||
         msg.find(fmt::format("{:.2f} MiB", mib)) != std::string::npos ||
         msg.find(fmt::format("{} MiB", bytes / MiB)) != std::string::npos;
}

}  // namespace

TEST(Allocator, RoundSizeClasses) {
  EXPECT_EQ(CachingAllocator::round_size(0), 512u);
  EXPECT_EQ(CachingAllocator::round_size(1), 512u);
  EXPECT_EQ(CachingAllocator::round_size(512), 512u);
  EXPECT_EQ(CachingAllocator::round_size(513), 1024u);
  EXPECT_EQ(CachingAllocator::round_size(MiB - 1), static_cast<std::size_t>(MiB));
  EXPECT_EQ(CachingAllocator::round_size(MiB), static_cast<std::size_t>(MiB));
  EXPECT_EQ(CachingAllocator::round_size(MiB + 1), static_cast<std::size_t>(MiB + MiB / 8));
  EXPECT_EQ(CachingAllocator::round_size(3 * MiB + 1), static_cast<std::size_t>(3 * MiB + MiB / 4));
  // Properties over a sweep: covers the request, small classes are 512-byte multiples, large classes
  // waste at most 1/8, rounding is monotone and idempotent.
  std::size_t prev = 0;
  for (std::size_t n = 0; n < 64 * MiB; n = n < 4096 ? n + 1 : n + n / 37 + 1) {
    const std::size_t r = CachingAllocator::round_size(n);
    ASSERT_GE(r, n);
    ASSERT_GE(r, prev) << n;
    ASSERT_EQ(CachingAllocator::round_size(r), r) << n;
    if (n < static_cast<std::size_t>(MiB)) {
      ASSERT_EQ(r % 512, 0u) << n;
      ASSERT_LT(r - n, 512u + (n == 0 ? 1u : 0u)) << n;
    } else {
      ASSERT_LE(r - n, std::bit_floor(n) / 8) << n;
    }
    prev = r;
  }
}

TEST(Allocator, StatisticsAreExactAfterASequence) {
  FakeRaw raw;
  CachingAllocator alloc(kFakeDevice, raw, 10 * MiB);
  EXPECT_EQ(alloc.device(), kFakeDevice);
  void* p1 = alloc.allocate(100);  // class 512
  void* p2 = alloc.allocate(600);  // class 1024
  auto s = alloc.stats();
  EXPECT_EQ(s.current_bytes, 1536);
  EXPECT_EQ(s.peak_bytes, 1536);
  EXPECT_EQ(s.reserved_bytes, 1536);
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.num_frees, 0);
  EXPECT_EQ(s.budget_bytes, 10 * MiB);

  alloc.deallocate(p1);
  s = alloc.stats();
  EXPECT_EQ(s.current_bytes, 1024);
  EXPECT_EQ(s.cached_bytes, 512);
  EXPECT_EQ(s.reserved_bytes, 1536);
  EXPECT_EQ(s.peak_bytes, 1536);
  EXPECT_EQ(s.num_frees, 1);

  void* p3 = alloc.allocate(512);  // reuses p1's block
  EXPECT_EQ(p3, p1);
  void* p4 = alloc.allocate(5000);  // class 5120, new
  s = alloc.stats();
  EXPECT_EQ(s.current_bytes, 512 + 1024 + 5120);
  EXPECT_EQ(s.peak_bytes, 512 + 1024 + 5120);
  EXPECT_EQ(s.reserved_bytes, 512 + 1024 + 5120);
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.cache_hits, 1);
  EXPECT_EQ(s.num_allocs, 4);
  EXPECT_EQ(raw.allocs, 3);

  alloc.deallocate(p4);
  alloc.deallocate(p2);
  alloc.deallocate(p3);
  alloc.deallocate(nullptr);  // ignored
  s = alloc.stats();
  EXPECT_EQ(s.current_bytes, 0);
  EXPECT_EQ(s.cached_bytes, 6656);
  EXPECT_EQ(s.reserved_bytes, 6656);
  EXPECT_EQ(s.peak_bytes, 6656);
  EXPECT_EQ(s.num_frees, 4);
  EXPECT_EQ(raw.frees, 0);

  alloc.empty_cache();
  s = alloc.stats();
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.reserved_bytes, 0);
  EXPECT_EQ(s.cache_flushes, 1);
  EXPECT_EQ(raw.frees, 3);
  EXPECT_TRUE(raw.live.empty());
  alloc.reset_peak();
  EXPECT_EQ(alloc.stats().peak_bytes, 0);
  EXPECT_EQ(s.num_ooms, 0);
}

TEST(Allocator, ReusesFreedBlockOfTheSameClassOnly) {
  FakeRaw raw;
  CachingAllocator alloc(kFakeDevice, raw, 10 * MiB);
  void* a = alloc.allocate(1000);
  alloc.deallocate(a);
  void* b = alloc.allocate(2000);  // other class: fresh memory
  EXPECT_NE(b, a);
  EXPECT_EQ(raw.allocs, 2);
  void* c = alloc.allocate(700);  // same 1024 class as a
  EXPECT_EQ(c, a);
  EXPECT_EQ(raw.allocs, 2);
  EXPECT_EQ(alloc.stats().cache_hits, 1);
  alloc.deallocate(b);
  alloc.deallocate(c);
}

TEST(Allocator, ZeroByteAllocationsAreUniqueBlocks) {
  FakeRaw raw;
  CachingAllocator alloc(kFakeDevice, raw, MiB);
  void* a = alloc.allocate(0);
  void* b = alloc.allocate(0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(alloc.stats().current_bytes, 1024);
  alloc.deallocate(a);
  alloc.deallocate(b);
  EXPECT_EQ(alloc.stats().current_bytes, 0);
}

TEST(Allocator, BudgetFlushesTheCacheBeforeFailing) {
  FakeRaw raw;
  CachingAllocator alloc(kFakeDevice, raw, 4 * MiB);
  // Flush, then success: a cached 2 MiB block makes room for a 3 MiB request.
  void* big = alloc.allocate(2 * MiB);
  alloc.deallocate(big);
  void* three = alloc.allocate(3 * MiB);
  auto s = alloc.stats();
  EXPECT_EQ(s.cache_flushes, 1);
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.reserved_bytes, 3 * MiB);
  EXPECT_EQ(raw.frees, 1);
  alloc.deallocate(three);

  // Flush, then failure: 2 MiB live and 1 MiB cached leave no room for 3 MiB.
  void* live = alloc.allocate(2 * MiB);  // flushes the cached 3 MiB block to fit
  void* cached = alloc.allocate(MiB);
  alloc.deallocate(cached);
  s = alloc.stats();
  const auto flushes = s.cache_flushes;
  EXPECT_EQ(s.reserved_bytes, 3 * MiB);
  EXPECT_EQ(s.cached_bytes, MiB);
  try {
    alloc.allocate(3 * MiB);
    ADD_FAILURE() << "no exception";
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cuda:3"), std::string::npos) << msg;
    EXPECT_TRUE(mentions_bytes(msg, 3 * MiB)) << msg;  // the request
    EXPECT_TRUE(mentions_bytes(msg, 2 * MiB)) << msg;  // in use
    EXPECT_TRUE(mentions_bytes(msg, 4 * MiB)) << msg;  // the budget
  }
  s = alloc.stats();
  EXPECT_EQ(s.cache_flushes, flushes + 1);
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.reserved_bytes, 2 * MiB);
  EXPECT_EQ(s.current_bytes, 2 * MiB);
  EXPECT_EQ(s.num_ooms, 1);
  EXPECT_LE(s.reserved_bytes, s.budget_bytes);
  EXPECT_EQ(raw.live.size(), 1u);
  alloc.deallocate(live);
}

TEST(Allocator, RawFailureFlushesAndRetriesOnce) {
  FakeRaw raw;
  CachingAllocator alloc(kFakeDevice, raw, 64 * MiB);
  void* keep = alloc.allocate(4096);
  alloc.deallocate(alloc.allocate(1000));  // one cached block

  raw.nulls_to_return = 1;  // the retry succeeds
  const int calls = raw.calls;
  void* p = alloc.allocate(8192);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(raw.calls, calls + 2);
  auto s = alloc.stats();
  EXPECT_EQ(s.cache_flushes, 1);
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.current_bytes, 4096 + 8192);
  EXPECT_EQ(s.reserved_bytes, 4096 + 8192);
  EXPECT_EQ(s.num_ooms, 0);

  raw.nulls_to_return = 2;  // the retry fails too
  const auto before = alloc.stats();
  try {
    alloc.allocate(16384);
    ADD_FAILURE() << "no exception";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:3"), std::string::npos) << e.what();
  }
  EXPECT_EQ(raw.calls, calls + 4);
  s = alloc.stats();
  EXPECT_EQ(s.num_ooms, 1);
  EXPECT_EQ(s.current_bytes, before.current_bytes);
  EXPECT_EQ(s.reserved_bytes, before.reserved_bytes);
  EXPECT_EQ(s.num_allocs, before.num_allocs);
  alloc.deallocate(p);
  alloc.deallocate(keep);
}

TEST(Allocator, SetBudgetValidatesAndShrinks) {
  FakeRaw raw;
  CachingAllocator alloc(kFakeDevice, raw, 8 * MiB);
  EXPECT_THROW(alloc.set_budget(0), ValueError);
  EXPECT_THROW(alloc.set_budget(-1), ValueError);
  EXPECT_EQ(alloc.budget(), 8 * MiB);
  void* live = alloc.allocate(MiB);
  alloc.deallocate(alloc.allocate(2 * MiB));
  alloc.set_budget(2 * MiB);  // below what is reserved: the cache goes
  EXPECT_EQ(alloc.budget(), 2 * MiB);
  EXPECT_EQ(alloc.stats().budget_bytes, 2 * MiB);
  EXPECT_EQ(alloc.stats().reserved_bytes, MiB);
  EXPECT_THROW(alloc.allocate(MiB + 1), OutOfMemoryError);
  EXPECT_NO_THROW(alloc.deallocate(alloc.allocate(MiB)));
  alloc.deallocate(live);
}

TEST(Allocator, FailNthAllocationFailsExactlyThatOne) {
  FakeRaw raw;
  CachingAllocator alloc(kFakeDevice, raw, 8 * MiB);
  EXPECT_THROW(alloc.fail_nth_allocation(-1), ValueError);
  alloc.fail_nth_allocation(3);
  void* a = alloc.allocate(100);
  void* b = alloc.allocate(100);
  EXPECT_THROW(alloc.allocate(100), OutOfMemoryError);
  void* c = alloc.allocate(100);  // disarmed again
  void* d = alloc.allocate(100);
  auto s = alloc.stats();
  EXPECT_EQ(s.num_ooms, 1);
  EXPECT_EQ(s.num_allocs, 4);
  EXPECT_EQ(s.current_bytes, 4 * 512);
  EXPECT_EQ(raw.allocs, 4);
  for (void* p : {a, b, c, d}) alloc.deallocate(p);
  EXPECT_EQ(alloc.stats().current_bytes, 0);

  alloc.fail_nth_allocation(2);
  alloc.fail_nth_allocation(0);  // disarm
  for (int i = 0; i < 4; ++i) EXPECT_NO_THROW(alloc.deallocate(alloc.allocate(100)));
}

TEST(Allocator, ConcurrentUseKeepsStatsConsistent) {
  FakeRaw raw;
  CachingAllocator alloc(kFakeDevice, raw, 64 * MiB);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&alloc, t] {
      std::vector<void*> held;
      for (int i = 0; i < 500; ++i) {
        held.push_back(alloc.allocate(static_cast<std::size_t>(100 + 700 * ((i + t) % 5))));
        if (held.size() > 8) {
          alloc.deallocate(held.front());
          held.erase(held.begin());
        }
      }
      for (void* p : held) alloc.deallocate(p);
    });
  }
  for (auto& th : threads) th.join();
  const auto s = alloc.stats();
  EXPECT_EQ(s.num_allocs, 2000);
  EXPECT_EQ(s.num_frees, 2000);
  EXPECT_EQ(s.current_bytes, 0);
  EXPECT_EQ(s.reserved_bytes, s.cached_bytes);
  EXPECT_EQ(static_cast<std::int64_t>(raw.live.size()), raw.allocs - raw.frees);
}

// ---- the cpu allocator ------------------------------------------------------------------------------

TEST(CpuAllocator, TensorsAreCountedAndCached) {
  CpuAllocatorGuard guard;
  empty_cache(Device::cpu());
  const auto base = memory_stats(Device::cpu());
  EXPECT_EQ(base.cached_bytes, 0);
  {
    Tensor t = Tensor::empty(Shape{1000}, DType::f64);  // 8000 B -> 8192
    EXPECT_EQ(memory_stats(Device::cpu()).current_bytes, base.current_bytes + 8192);
  }
  auto s = memory_stats(Device::cpu());
  EXPECT_EQ(s.current_bytes, base.current_bytes);
  EXPECT_EQ(s.cached_bytes, 8192);
  {
    Tensor t = Tensor::empty(Shape{2000}, DType::f32);  // same class: a cache hit
    EXPECT_EQ(memory_stats(Device::cpu()).cache_hits, s.cache_hits + 1);
  }
  {
    Tensor e = Tensor::empty(Shape{0, 5}, DType::f32);  // no bytes: no allocation
    EXPECT_EQ(memory_stats(Device::cpu()).num_allocs, s.num_allocs + 1);
    EXPECT_NE(e.data_ptr(), nullptr);
  }
  empty_cache(Device::cpu());
  EXPECT_EQ(memory_stats(Device::cpu()).cached_bytes, 0);
}

TEST(CpuAllocator, BudgetExhaustionNamesTheDevice) {
  CpuAllocatorGuard guard;
  EXPECT_THROW(set_memory_budget(Device::cpu(), 0), ValueError);
  EXPECT_THROW(set_memory_budget(Device::cpu(), -5), ValueError);
  set_memory_budget(Device::cpu(), 4 * MiB);
  EXPECT_EQ(memory_stats(Device::cpu()).budget_bytes, 4 * MiB);
  const auto before = memory_stats(Device::cpu());
  try {
    Tensor::empty(Shape{MiB}, DType::f64);  // 8 MiB
    ADD_FAILURE() << "no exception";
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cpu"), std::string::npos) << msg;
    EXPECT_TRUE(mentions_bytes(msg, 8 * MiB)) << msg;
  }
  const auto after = memory_stats(Device::cpu());
  EXPECT_EQ(after.current_bytes, before.current_bytes);
  EXPECT_EQ(after.num_ooms, before.num_ooms + 1);
  EXPECT_NO_THROW(Tensor::empty(Shape{1000}, DType::f32));
  // Far beyond any budget.
  EXPECT_THROW(Tensor::empty(Shape{1LL << 50}, DType::f32), OutOfMemoryError);
}

TEST(CpuAllocator, EmptyAfterFailNthThrowsAndLeavesStats) {
  CpuAllocatorGuard guard;
  const auto before = memory_stats(Device::cpu());
  allocator_for(Device::cpu()).fail_nth_allocation(1);
  EXPECT_THROW(Tensor::empty(Shape{100}, DType::f32), OutOfMemoryError);
  const auto after = memory_stats(Device::cpu());
  EXPECT_EQ(after.current_bytes, before.current_bytes);
  EXPECT_EQ(after.reserved_bytes, before.reserved_bytes);
  EXPECT_EQ(after.num_allocs, before.num_allocs);
  EXPECT_EQ(after.num_ooms, before.num_ooms + 1);
  EXPECT_NO_THROW(Tensor::empty(Shape{100}, DType::f32));
}

// Every allocation inside an op may fail: the op throws OutOfMemoryError and frees its temporaries.
TEST(CpuAllocator, FailuresInsideOpsDoNotLeak) {
  CpuAllocatorGuard guard;
  std::mt19937_64 rng(7);
  const Tensor i32 = random_tensor(Shape{31, 7}, DType::i32, rng, -50, 50);
  const Tensor f32 = random_tensor(Shape{7}, DType::f32, rng);
  const Tensor a = make_input(Shape{13, 31}, DType::f64, Layout::step2, rng);
  const Tensor b = make_input(Shape{31, 7}, DType::f32, Layout::negstep, rng);
  const std::vector<std::pair<const char*, std::function<Tensor()>>> ops = {
      {"add(i32, f32)", [&] { return add(i32, f32); }},
      {"matmul(strided)", [&] { return matmul(a, b); }},
      {"sum(i32)", [&] { return sum(i32, axes({0})); }},
      {"mean(i32)", [&] { return mean(i32); }},
      {"exp(i32)", [&] { return exp(i32); }},
      {"reshape(T)", [&] { return a.T().reshape(std::vector<std::int64_t>{-1}); }},
      {"astype", [&] { return b.astype(DType::f16); }},
  };
  auto& alloc = allocator_for(Device::cpu());
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    const auto base = alloc.stats();
    int failures = 0;
    for (int n = 1; n < 20; ++n) {
      alloc.fail_nth_allocation(n);
      try {
        Tensor r = op();
        alloc.fail_nth_allocation(0);
        break;  // n is past the op's last allocation
      } catch (const OutOfMemoryError&) {
        ++failures;
      }
      EXPECT_EQ(alloc.stats().current_bytes, base.current_bytes) << "after failing allocation " << n;
    }
    alloc.fail_nth_allocation(0);
    EXPECT_GE(failures, 1);
    EXPECT_EQ(alloc.stats().current_bytes, base.current_bytes);
  }
}

// Ops from several threads at once share the cpu allocator; results and the final stats stay right.
TEST(CpuAllocator, ConcurrentOpsFromSeveralThreads) {
  std::mt19937_64 rng(13);
  const Tensor a = random_tensor(Shape{64, 33}, DType::f64, rng), b = random_tensor(Shape{33}, DType::f64, rng);
  const Ref ref = ref_binary(a, b, [](double x, double y) { return x * y; });
  const auto base = memory_stats(Device::cpu()).current_bytes;
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const Tensor p = multiply(a, b);
        const Tensor s = sum(p.astype(DType::f32), axes({1}));
        if (!matches(p, ref, tol_for(DType::f64)) || s.shape() != Shape{64}) ++failures[static_cast<std::size_t>(t)];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
  EXPECT_EQ(memory_stats(Device::cpu()).current_bytes, base);
}
