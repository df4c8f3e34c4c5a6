// MatrixEngine: streamed matmul against float64 references on every device, with budgets that force 1 to
// ~1000 tiles, every strategy, strided inputs, memory-mapped operands, faults, cancellation, bad input.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>

#include "accelera/engine.hpp"
#include "accelera/ops.hpp"
#include "engine_helpers.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

using accelera::ChunkingStrategy;
using accelera::EngineOptions;
using accelera::MatrixEngine;

Tensor host_matrix(std::int64_t rows, std::int64_t cols, DType dt, std::mt19937_64& rng) {
  return random_tensor(Shape({rows, cols}), dt, rng);
}

class EngineTest : public ::testing::TestWithParam<Device> {
 protected:
  MatrixEngine engine_with_budget(std::int64_t budget, ChunkingStrategy strategy = ChunkingStrategy::adaptive) {
    EngineOptions o;
    o.device = GetParam();
    o.memory_budget = budget;
    o.chunking_strategy = strategy;
    o.enable_progress = false;
    return MatrixEngine(o);
  }
};

TEST_P(EngineTest, StreamedMatmulMatchesFloat64ForEveryStrategyAndBudget) {
  std::mt19937_64 rng(5);
  struct Case {
    std::int64_t m, k, n;
  };
  const Case cases[] = {{1, 1, 1}, {1, 97, 1}, {67, 1, 53}, {131, 89, 107}, {64, 256, 96}, {257, 31, 263}};
  const double fractions[] = {1.0, 0.3, 0.08, 0.01};
  for (const DType dt : {DType::f32, DType::f64}) {
    for (const auto& c : cases) {
      const Tensor a = host_matrix(c.m, c.k, dt, rng), b = host_matrix(c.k, c.n, dt, rng);
      const Tensor a_before = a.clone(), b_before = b.clone();
      const std::int64_t e = static_cast<std::int64_t>(dtype_size(dt));
      const std::int64_t total = (c.m * c.k + c.k * c.n + c.m * c.n) * e;
      for (const double f : fractions) {
        for (const auto strategy : {ChunkingStrategy::row, ChunkingStrategy::tile, ChunkingStrategy::adaptive}) {
          const std::int64_t budget = std::max<std::int64_t>(static_cast<std::int64_t>(f * static_cast<double>(total)), 6 * 512);
          MatrixEngine engine = engine_with_budget(budget, strategy);
          const std::string what = fmt::format("{}x{}x{} {} budget {} {}", c.m, c.k, c.n, dtype_name(dt), budget,
                                               accelera::strategy_name(strategy));
          Tensor out;
          try {
            out = engine.matmul(a, b);
          } catch (const accelera::OutOfMemoryError&) {
            continue;  // budgets below one minimal tile are refused (checked in BadInput)
          }
          expect_product(out, a, b, what);
          const auto& run = engine.last_run();
          EXPECT_LE(run.peak_device_bytes, budget) << what;
          EXPECT_EQ(run.fallbacks, 0) << what;
          const bool any_plan = strategy == ChunkingStrategy::adaptive || !run.streamed;  // adaptive picks one
          EXPECT_TRUE(any_plan || run.strategy == accelera::strategy_name(strategy)) << what << ": " << run.strategy;
          if (run.streamed) {
            EXPECT_GE(run.tiles, 1);
            EXPECT_GE(run.bytes_device_to_host, GetParam().is_cpu() ? 0 : c.m * c.n * e) << what;
          }
        }
      }
      EXPECT_EQ(values_of(a), values_of(a_before));
      EXPECT_EQ(values_of(b), values_of(b_before));
    }
  }
}

// Typed strategies (names are parsed where a caller names one: test_planner.cpp) reach the planner as given.
TEST_P(EngineTest, StrategyFromTheSetterOrTheCall) {
  std::mt19937_64 rng(21);
  const Tensor a = host_matrix(64, 32, DType::f32, rng), b = host_matrix(32, 48, DType::f32, rng);
  MatrixEngine engine = engine_with_budget(16 * 1024, ChunkingStrategy::row);
  engine.set_chunking_strategy(ChunkingStrategy::tile);
  engine.matmul(a, b);
  EXPECT_EQ(engine.last_run().strategy, "tile");
  engine.matmul(a, b, ChunkingStrategy::row);
  EXPECT_EQ(engine.last_run().strategy, "row");
  EXPECT_EQ(engine.options().chunking_strategy, ChunkingStrategy::tile);
}

TEST_P(EngineTest, ManyTilesAndKSteps) {
  std::mt19937_64 rng(9);
  const Tensor a = host_matrix(211, 173, DType::f32, rng), b = host_matrix(173, 199, DType::f32, rng);
  MatrixEngine engine = engine_with_budget(12 * 1024, ChunkingStrategy::tile);
  const Tensor c = engine.matmul(a, b);
  expect_product(c, a, b, "many tiles");
  EXPECT_GE(engine.last_run().tiles, 100);
  EXPECT_GT(engine.last_run().k_steps, 1);
  EXPECT_LE(engine.last_run().peak_device_bytes, 12 * 1024);
}

TEST_P(EngineTest, ThousandTiles) {
  std::mt19937_64 rng(10);
  const Tensor a = host_matrix(320, 16, DType::f32, rng), b = host_matrix(16, 300, DType::f32, rng);
  EngineOptions o;
  o.device = GetParam();
  o.memory_budget = 1 << 20;
  o.auto_detect_memory = false;
  o.chunk_size = 10;
  o.chunking_strategy = ChunkingStrategy::tile;
  o.enable_progress = false;
  MatrixEngine engine(o);
  const Tensor c = engine.matmul(a, b);
  expect_product(c, a, b, "1000 tiles");
  EXPECT_EQ(engine.last_run().tiles, 32 * 30);
}

TEST_P(EngineTest, TransposedAndStridedInputsAndOutput) {
  std::mt19937_64 rng(6);
  const Tensor at = host_matrix(71, 103, DType::f64, rng);  // A = at.T: column-major
  const Tensor bbig = host_matrix(2 * 71 + 1, 3 * 59, DType::f64, rng);
  const Tensor b = bbig.slice(0, 1, 2 * 71 + 1, 2).slice(1, 0, 3 * 59, 3);  // stepped view, 71 x 59
  const Tensor a = at.T();
  Tensor out_base = accelera::full(Shape({59, 103}), kNaN, DType::f64);
  const Tensor out = out_base.T();  // a column-major output view, poisoned
  MatrixEngine engine = engine_with_budget(40 * 1024);
  engine.matmul(a, b, std::nullopt, out);
  expect_product(out, a, b, "strided");
  EXPECT_TRUE(engine.last_run().streamed);
}

TEST_P(EngineTest, OutputOnTheDeviceAndInputsOnTheDevice) {
  std::mt19937_64 rng(8);
  const Device d = GetParam();
  const Tensor a = host_matrix(40, 30, DType::f32, rng), b = host_matrix(30, 20, DType::f32, rng);
  MatrixEngine engine = engine_with_budget(1 << 24);
  const Tensor c = engine.matmul(a.to(d), b.to(d));
  EXPECT_EQ(c.device(), d);
  expect_product(c.to(Device::cpu()), a, b, "in core on the device");
  EXPECT_EQ(engine.last_run().strategy, "in-core");
  // In core into a given out: on the host, on the device, strided on the device.
  const Tensor on_host = accelera::full(Shape({40, 20}), kNaN, DType::f32);
  const Tensor on_device = accelera::full(Shape({40, 20}), kNaN, DType::f32, d);
  const Tensor strided = accelera::full(Shape({20, 40}), kNaN, DType::f32, d).T();
  for (const Tensor& out : {on_host, on_device, strided}) {
    engine.matmul(a, b, std::nullopt, out);
    expect_product(out.to(Device::cpu()), a, b, "in core into " + out.device().str());
    EXPECT_EQ(engine.last_run().strategy, "in-core");
  }
}

TEST_P(EngineTest, RecoversFromOutOfMemoryAtEveryAllocation) {
  std::mt19937_64 rng(12);
  const Device d = GetParam();
  const Tensor a = host_matrix(37, 41, DType::f32, rng), b = host_matrix(41, 43, DType::f32, rng);
  Tensor out = Tensor::empty(Shape({37, 43}), DType::f32);
  auto& allocator = accelera::allocator_for(d);
  // How many allocations a clean run makes on the device; then fail each one in turn.
  const auto before = allocator.stats();
  engine_with_budget(8 * 1024).matmul(a, b, std::nullopt, out);
  const auto allocations = allocator.stats().num_allocs - before.num_allocs;
  ASSERT_GE(allocations, 4);
  const auto baseline = allocator.stats().current_bytes;
  for (std::int64_t nth = 1; nth <= allocations; ++nth) {
    poison(out);
    MatrixEngine engine = engine_with_budget(8 * 1024);
    allocator.fail_nth_allocation(nth);
    engine.matmul(a, b, std::nullopt, out);
    allocator.fail_nth_allocation(0);
    expect_product(out, a, b, fmt::format("failure at allocation {}", nth));
    EXPECT_GE(engine.last_run().fallbacks, 1) << nth;
    EXPECT_EQ(engine.last_run().fallback_log.size(), static_cast<std::size_t>(engine.last_run().fallbacks));
    EXPECT_EQ(allocator.stats().current_bytes, baseline) << "leak after failure at allocation " << nth;
  }
}

TEST_P(EngineTest, FallbackStrategyCpuAndErrorAtEveryAllocation) {
  std::mt19937_64 rng(17);
  const Device d = GetParam();
  const Tensor a = host_matrix(37, 41, DType::f32, rng), b = host_matrix(41, 43, DType::f32, rng);
  Tensor out = Tensor::empty(Shape({37, 43}), DType::f32);
  auto& allocator = accelera::allocator_for(d);
  const auto before = allocator.stats();
  engine_with_budget(8 * 1024).matmul(a, b, std::nullopt, out);
  const auto allocations = allocator.stats().num_allocs - before.num_allocs;
  const auto baseline = allocator.stats().current_bytes;
  for (std::int64_t nth = 1; nth <= allocations; ++nth) {
    poison(out);
    MatrixEngine cpu = engine_with_budget(8 * 1024);
    cpu.set_fallback_strategy(accelera::FallbackStrategy::cpu);
    allocator.fail_nth_allocation(nth);
    cpu.matmul(a, b, std::nullopt, out);
    allocator.fail_nth_allocation(0);
    expect_product(out, a, b, fmt::format("cpu fallback after failure at allocation {}", nth));
    ASSERT_EQ(cpu.last_run().fallbacks, 1) << nth;  // no shrinking: one failure, the CPU does the rest
    EXPECT_NE(cpu.last_run().fallback_log[0].find("on the CPU"), std::string::npos);

    MatrixEngine strict = engine_with_budget(8 * 1024);
    strict.set_fallback_strategy(accelera::FallbackStrategy::error);
    allocator.fail_nth_allocation(nth);
    EXPECT_THROW(strict.matmul(a, b, std::nullopt, out), accelera::OutOfMemoryError) << nth;
    allocator.fail_nth_allocation(0);
    EXPECT_EQ(strict.last_run().fallbacks, 0);
    EXPECT_FALSE(strict.last_run().completed);
    EXPECT_EQ(allocator.stats().current_bytes, baseline) << "leak after failure at allocation " << nth;
  }
  // A budget too small for any tile: the caller's error, unless the CPU is the chosen fallback.
  EXPECT_THROW(engine_with_budget(64).matmul(a, b), accelera::OutOfMemoryError);
  MatrixEngine cpu = engine_with_budget(64);
  cpu.set_fallback_strategy(accelera::FallbackStrategy::cpu);
  expect_product(cpu.matmul(a, b), a, b, "budget too small, cpu fallback");
  EXPECT_EQ(cpu.last_run().strategy, "cpu");
}

TEST(EngineFallbackNames, ParsedWithTheChoicesInTheError) {
  for (auto f : accelera::kFallbackStrategies) {
    EXPECT_EQ(accelera::parse_fallback_strategy(accelera::fallback_strategy_name(f)), f);
  }
  EXPECT_EQ(accelera::EngineOptions{}.fallback, accelera::FallbackStrategy::default_chunk);
  try {
    accelera::parse_fallback_strategy("gpu");
    ADD_FAILURE() << "no error";
  } catch (const accelera::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'cpu', 'default_chunk' or 'error'"), std::string::npos);
  }
}

TEST_P(EngineTest, FallsBackToTheCpuWhenNoTileFitsAfterFailures) {
  std::mt19937_64 rng(13);
  const Device d = GetParam();
  const Tensor a = host_matrix(24, 24, DType::f32, rng), b = host_matrix(24, 24, DType::f32, rng);
  Tensor out = Tensor::empty(Shape({24, 24}), DType::f32);
  poison(out);
  // The smallest budget that plans at all: every retry at half of it cannot plan, so the CPU finishes.
  MatrixEngine engine = engine_with_budget(6 * 512);
  accelera::allocator_for(d).fail_nth_allocation(1);
  engine.matmul(a, b, std::nullopt, out);
  accelera::allocator_for(d).fail_nth_allocation(0);
  expect_product(out, a, b, "cpu fallback");
  bool cpu_line = false;
  for (const auto& line : engine.last_run().fallback_log) cpu_line |= line.find("on the CPU") != std::string::npos;
  EXPECT_TRUE(cpu_line);
  // In core fails; half of its few bytes cannot hold one streamed tile, so the CPU computes it all.
  const Tensor x = host_matrix(2, 3, DType::f64, rng), y = host_matrix(3, 2, DType::f64, rng);
  accelera::allocator_for(d).fail_nth_allocation(1);
  const Tensor z = engine.matmul(x, y);
  accelera::allocator_for(d).fail_nth_allocation(0);
  expect_product(z, x, y, "whole call on the CPU");
  const auto& log = engine.last_run().fallback_log;
  EXPECT_EQ(engine.last_run().strategy, "cpu");
  ASSERT_EQ(log.size(), 2u);
  EXPECT_TRUE(log[0].find("in core") != std::string::npos && log[1].find("on the CPU") != std::string::npos);
}

TEST_P(EngineTest, RecoversFromOutOfMemoryInTwoRegionsInTurn) {
  std::mt19937_64 rng(19);
  const Device d = GetParam();
  const Tensor a = host_matrix(96, 80, DType::f32, rng), b = host_matrix(80, 88, DType::f32, rng);
  const Tensor out = accelera::full(Shape({96, 88}), kNaN, DType::f32);
  auto& allocator = accelera::allocator_for(d);
  const auto baseline = allocator.stats().current_bytes;
  MatrixEngine engine = engine_with_budget(48 * 1024);
  // The first plan fails at once and its tiles are queued with half the memory; once the first of them
  // has finished, the next one's first buffer fails as well.
  bool failed_again = false;
  std::int64_t done = 0, total = 0;
  engine.set_progress_callback([&](const accelera::EngineProgress& p) {
    EXPECT_GE(p.tiles_done, done);
    done = p.tiles_done;
    total = p.tiles_total;
    if (p.tiles_done == 1 && !failed_again) allocator.fail_nth_allocation(1);
    failed_again |= p.tiles_done == 1;
    return true;
  });
  allocator.fail_nth_allocation(1);
  engine.matmul(a, b, std::nullopt, out);
  allocator.fail_nth_allocation(0);
  expect_product(out, a, b, "two failures");
  const auto& run = engine.last_run();
  EXPECT_TRUE(failed_again && run.tiles >= 2 && done == run.tiles && total == run.tiles) << done << "/" << total;
  ASSERT_EQ(run.fallbacks, 2);
  ASSERT_EQ(run.fallback_log.size(), 2u);
  for (const auto& line : run.fallback_log) EXPECT_EQ(line.rfind("out of device memory with", 0), 0u) << line;
  EXPECT_EQ(allocator.stats().current_bytes, baseline);
}

TEST_P(EngineTest, CancellationRaisesAndFreesEverything) {
  std::mt19937_64 rng(14);
  const Device d = GetParam();
  const Tensor a = host_matrix(64, 64, DType::f32, rng), b = host_matrix(64, 64, DType::f32, rng);
  const auto baseline = accelera::allocator_for(d).stats().current_bytes;
  MatrixEngine engine = engine_with_budget(16 * 1024);
  std::int64_t calls = 0;
  engine.set_progress_callback([&](const accelera::EngineProgress& p) {
    ++calls;
    EXPECT_LE(p.tiles_done, p.tiles_total);
    return p.tiles_done < 3;
  });
  EXPECT_THROW(engine.matmul(a, b), accelera::CancelledError);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(accelera::allocator_for(d).stats().current_bytes, baseline);
}

TEST_P(EngineTest, UserChunksAreUsedAndValidated) {
  std::mt19937_64 rng(15);
  const Tensor a = host_matrix(30, 20, DType::f32, rng), b = host_matrix(20, 25, DType::f32, rng);
  MatrixEngine engine = engine_with_budget(1 << 20);
  const Tensor c = engine.matmul_chunks(a, b, {{0, 10, 0, 25}, {10, 20, 0, 12}, {10, 20, 12, 13}});
  expect_product(c, a, b, "user chunks");
  EXPECT_EQ(engine.last_run().tiles, 3);
  EXPECT_EQ(engine.last_run().strategy, "chunks");
  EXPECT_THROW(engine.matmul_chunks(a, b, {{0, 30, 0, 24}}), accelera::ValueError);
  // A chunk past the result is refused, not clipped; out stays as it was.
  const Tensor out = accelera::full(Shape({30, 25}), 7.0, DType::f32);
  EXPECT_THROW(engine.matmul_chunks(a, b, {{0, 1000, 0, 25}}, out), accelera::ValueError);
  for (const double v : values_of(out)) ASSERT_EQ(v, 7.0);
}

INSTANTIATE_TEST_SUITE_P(Devices, EngineTest, ::testing::ValuesIn(all_devices()), device_name);

// A file mapped into memory, removed when done.
class MappedFile {
 public:
  MappedFile(const std::string& name, std::size_t bytes)
      : m_path(std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))), m_bytes(bytes) {
    m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    EXPECT_GE(m_fd, 0);
    EXPECT_EQ(::ftruncate(m_fd, static_cast<off_t>(bytes)), 0);
    m_data = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m_fd, 0);
    EXPECT_NE(m_data, MAP_FAILED);
  }
  ~MappedFile() {
    ::munmap(m_data, m_bytes);
    ::close(m_fd);
    std::filesystem::remove(m_path);
  }
  Tensor tensor(std::int64_t rows, std::int64_t cols) const {
    const Shape shape({rows, cols});
    return Tensor::from_blob(m_data, shape, shape.contiguous_strides(), DType::f32, Device::cpu(), [] {});
  }

 private:
  std::filesystem::path m_path;
  std::size_t m_bytes;
  int m_fd = -1;
  void* m_data = nullptr;
};

TEST(EngineMapped, MemoryMappedInputsAndOutput) {
  std::mt19937_64 rng(16);
  const std::int64_t m = 150, k = 120, n = 130;
  MappedFile fa("acc_a_", m * k * 4), fb("acc_b_", k * n * 4), fc("acc_c_", m * n * 4);
  const Tensor a = fa.tensor(m, k), b = fb.tensor(k, n), c = fc.tensor(m, n);
  fill_random(a, rng, -1, 1);
  fill_random(b, rng, -1, 1);
  poison(c);
  EngineOptions o;
  o.memory_budget = 24 * 1024;
  o.enable_progress = false;
  MatrixEngine engine(o);
  engine.matmul(a, b, std::nullopt, c);
  expect_product(c, a, b, "memory-mapped");
  EXPECT_TRUE(engine.last_run().streamed);
}

TEST(EngineBadInput, TypedErrorsAndInputsUntouched) {
  std::mt19937_64 rng(17);
  EngineOptions o;
  o.enable_progress = false;
  MatrixEngine engine(o);
  const Tensor a = host_matrix(4, 5, DType::f32, rng), b = host_matrix(6, 3, DType::f32, rng);
  const auto before = values_of(a);
  EXPECT_THROW(engine.matmul(a, b), accelera::ShapeError);
  EXPECT_THROW(engine.matmul(a, host_matrix(5, 3, DType::f64, rng)), accelera::DTypeError);
  EXPECT_THROW(engine.matmul(a.astype(DType::i32), host_matrix(5, 3, DType::f32, rng).astype(DType::i32)),
               accelera::DTypeError);
  EXPECT_THROW(engine.matmul(random_tensor(Shape({2, 3, 4}), DType::f32, rng), b), accelera::ShapeError);
  const Tensor b5 = host_matrix(5, 3, DType::f32, rng);
  EXPECT_THROW(engine.matmul(a, b5, std::nullopt, accelera::zeros(Shape({4, 4}))), accelera::ShapeError);
  EXPECT_THROW(engine.matmul(a, b5, std::nullopt, accelera::zeros(Shape({4, 3}), DType::f64)), accelera::DTypeError);
  EXPECT_THROW(engine.matmul(a, b5, std::nullopt, a.slice(1, 0, 3)), accelera::ValueError);  // overlaps A
  EXPECT_THROW(engine.set_chunk_size(0), accelera::ValueError);
  EXPECT_THROW(engine.set_memory_budget(-1), accelera::ValueError);
  EngineOptions tiny;
  tiny.memory_budget = 64;
  tiny.enable_progress = false;
  MatrixEngine small(tiny);
  EXPECT_THROW(small.matmul(host_matrix(100, 100, DType::f32, rng), host_matrix(100, 100, DType::f32, rng)),
               accelera::OutOfMemoryError);
  EXPECT_EQ(values_of(a), before);
}

TEST(EngineElementwise, HostOperandsRunOnTheCpu) {
  std::mt19937_64 rng(18);
  EngineOptions o;
  o.enable_progress = false;
  MatrixEngine engine(o);
  const Tensor x = host_matrix(33, 17, DType::f32, rng), y = host_matrix(33, 17, DType::f32, rng);
  const Tensor s = engine.add(x, y);
  EXPECT_EQ(engine.last_run().device, "cpu");
  const Tensor p = engine.multiply(x, y);
  for (std::int64_t i = 0; i < 33; ++i) {
    EXPECT_FLOAT_EQ(static_cast<float>(get(s, {i, 3})), static_cast<float>(get(x, {i, 3}) + get(y, {i, 3})));
    EXPECT_FLOAT_EQ(static_cast<float>(get(p, {i, 5})), static_cast<float>(get(x, {i, 5}) * get(y, {i, 5})));
  }
  const auto info = engine.memory_info();
  EXPECT_GT(info.cpu_total_gb, 0);
  EXPECT_GE(info.gpu_available_gb, 0);
}

}  // namespace
}  // namespace acc_test
