// MatrixEngine over several devices (Note [Several devices]): results against float64 on every pair of
// devices present, the work-stealing scheduler, out of memory on one device, cancellation, bad device
// lists. ctest runs these suites with POCL_DEVICES="pthread pthread", so PoCL offers two OpenCL devices
// on any machine (tests/cpp/CMakeLists.txt).
#include <atomic>
#include <chrono>
#include <thread>

#include "accelera/engine.hpp"
#include "accelera/ops.hpp"
#include "engine/tile_planner.hpp"
#include "engine/tile_scheduler.hpp"
#include "engine_helpers.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

using accelera::EngineOptions;
using accelera::FallbackStrategy;
using accelera::MatrixEngine;
using accelera::engine::TileScheduler;

TEST(MultiDeviceScheduler, DevicesStartWithContiguousRunsAndStealTheBackHalfOfTheLongest) {
  TileScheduler s(10, 3);  // runs 0-3, 4-6, 7-9
  EXPECT_EQ(s.take(0), 0u);
  EXPECT_EQ(s.take(1), 4u);
  for (std::size_t t : {7u, 8u, 9u}) EXPECT_EQ(s.take(2), t);
  // Device 2 is out of work: device 0's run (1, 2, 3) is the longest; its back half comes in order.
  EXPECT_EQ(s.take(2), 2u);
  EXPECT_EQ(s.take(2), 3u);
  EXPECT_EQ(s.stolen(), 2);
  EXPECT_EQ(s.take(0), 1u);
  // Then device 1's run (5, 6): one tile.
  EXPECT_EQ(s.take(2), 6u);
  EXPECT_EQ(s.take(0), 5u);
  EXPECT_EQ(s.take(0), std::nullopt);
  EXPECT_EQ(s.stolen(), 4);
  EXPECT_EQ(s.unfinished().size(), 10u);  // taken, none finished
}

TEST(MultiDeviceScheduler, HandedBackTilesComeFirstAndAnyoneMayStealThem) {
  TileScheduler s(4, 2);  // runs 0-1, 2-3
  EXPECT_EQ(s.take(0), 0u);
  EXPECT_EQ(s.take(0), 1u);
  s.give_back(0, {0, 1});
  EXPECT_EQ(s.take(0), 0u);
  s.finish(0, 0);
  EXPECT_EQ(s.take(1), 2u);
  EXPECT_EQ(s.take(1), 3u);
  EXPECT_EQ(s.take(1), 1u);  // stolen from device 0's run, which holds the handed-back tile
  s.finish(1, 1);
  EXPECT_EQ(s.unfinished(), (std::vector<std::size_t>{2, 3}));
}

TEST(MultiDeviceScheduler, AnIdleDeviceWaitsWhileAnotherHoldsTilesAndLeavesWhenAllAreFinished) {
  TileScheduler s(1, 2);
  ASSERT_EQ(s.take(0), 0u);
  std::atomic<int> woke{-1};
  std::thread idle([&] { woke = s.wait_for_work() ? 1 : 0; });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(woke.load(), -1) << "device 1 must wait: device 0 may still hand its tile back";
  s.give_back(0, {0});
  idle.join();
  EXPECT_EQ(woke.load(), 1);
  ASSERT_EQ(s.take(1), 0u);
  s.finish(1, 0);
  EXPECT_FALSE(s.wait_for_work());
  EXPECT_TRUE(s.unfinished().empty());
}

TEST(MultiDeviceScheduler, StopEndsTakingAndWaiting) {
  TileScheduler s(2, 2);
  ASSERT_EQ(s.take(0), 0u);
  ASSERT_EQ(s.take(1), 1u);
  std::thread idle([&] { EXPECT_FALSE(s.wait_for_work()); });  // both held: it waits until the stop
  s.stop();
  idle.join();
  s.give_back(0, {0});
  EXPECT_EQ(s.take(0), std::nullopt);
  EXPECT_FALSE(s.wait_for_work());
}

std::vector<Device> non_cpu_devices() {
  std::vector<Device> found;
  for (const auto& info : accelera::devices()) {
    if (!info.device.is_cpu()) found.push_back(info.device);
  }
  return found;
}

// Every pair of devices worth testing here: two non-CPU devices (two PoCL devices in CI), and a device
// with the CPU (which packs panels in place, with no bus).
std::vector<std::vector<Device>> device_pairs() {
  const auto others = non_cpu_devices();
  std::vector<std::vector<Device>> pairs;
  if (others.size() >= 2) pairs.push_back({others[0], others[1]});
  if (!others.empty()) pairs.push_back({others[0], Device::cpu()});
  return pairs;
}

MatrixEngine engine_on(const std::vector<Device>& devices, std::int64_t budget,
                       FallbackStrategy fallback = FallbackStrategy::default_chunk) {
  EngineOptions o;
  o.devices = devices;
  o.memory_budget = budget;
  o.enable_progress = false;
  o.fallback = fallback;
  return MatrixEngine(o);
}

// Square tiles of a fixed edge, whatever the budget.
MatrixEngine fixed_tile_engine(const std::vector<Device>& devices, std::int64_t edge) {
  EngineOptions o;
  o.devices = devices;
  o.auto_detect_memory = false;
  o.chunk_size = edge;
  o.chunking_strategy = accelera::ChunkingStrategy::tile;
  o.enable_progress = false;
  return MatrixEngine(o);
}

std::string names(const std::vector<Device>& devices) {
  std::string s;
  for (const Device& d : devices) s += d.str() + " ";
  return s;
}

// What every successful run over several devices must say about itself.
void expect_accounted(const MatrixEngine& engine, const std::vector<Device>& devices, std::int64_t m, std::int64_t n) {
  const auto& run = engine.last_run();
  EXPECT_TRUE(run.completed);
  accelera::engine::check_exact_cover(run.finished_tiles, m, n);
  ASSERT_EQ(run.per_device.size(), devices.size());
  std::int64_t tiles = 0, up = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(run.per_device[i].device, devices[i].str());
    tiles += run.per_device[i].tiles;
    up += run.per_device[i].bytes_host_to_device;
  }
  // Tiles the CPU finished after every device left are not any device's.
  if (run.fallback_log.empty() || run.fallback_log.back().find("every device left") == std::string::npos) {
    EXPECT_EQ(tiles, run.tiles);
  }
  EXPECT_EQ(up, run.bytes_host_to_device);
}

TEST(MultiDeviceEngine, MatchesFloat64OnEveryPairForOddShapesAndBudgets) {
  const auto pairs = device_pairs();
  if (pairs.empty()) GTEST_SKIP() << "needs a GPU or OpenCL device besides the CPU";
  std::mt19937_64 rng(71);
  struct Case {
    std::int64_t m, k, n;
  };
  const Case cases[] = {{1, 1, 1}, {1, 97, 1}, {131, 89, 107}, {257, 31, 263}, {300, 173, 301}};
  for (const auto& pair : pairs) {
    for (const DType dt : {DType::f32, DType::f64}) {
      for (const Case& c : cases) {
        const Tensor a = random_tensor(Shape({c.m, c.k}), dt, rng), b = random_tensor(Shape({c.k, c.n}), dt, rng);
        const auto e = static_cast<std::int64_t>(dtype_size(dt));
        for (const double fraction : {1.0, 0.1, 0.02}) {
          const auto budget = std::max<std::int64_t>(
              16 * 1024, static_cast<std::int64_t>(fraction * static_cast<double>((c.m * c.k + c.k * c.n + c.m * c.n) * e)));
          Tensor out = Tensor::empty(Shape({c.m, c.n}), dt);
          poison(out);
          MatrixEngine engine = engine_on(pair, budget);
          engine.matmul(a, b, std::nullopt, out);
          const std::string what = fmt::format("{}{} {}x{}x{} budget {}", names(pair), dtype_name(dt), c.m, c.k, c.n,
                                               budget);
          expect_product(out, a, b, what);
          expect_accounted(engine, pair, c.m, c.n);
          EXPECT_EQ(engine.last_run().fallbacks, 0) << what;
        }
      }
    }
  }
}

TEST(MultiDeviceEngine, EveryDeviceTakesTilesOfALargeProduct) {
  const auto pairs = device_pairs();
  if (pairs.empty()) GTEST_SKIP() << "needs a GPU or OpenCL device besides the CPU";
  std::mt19937_64 rng(72);
  const Tensor a = random_tensor(Shape({512, 256}), DType::f32, rng), b = random_tensor(Shape({256, 512}), DType::f32, rng);
  for (const auto& pair : pairs) {
    // 64 x 64 tiles: 64 of them, 32 in each device's run, so each device has its own to start with.
    MatrixEngine engine = fixed_tile_engine(pair, 64);
    // Which device finishes how many tiles is up to the machine: a device still compiling its first kernel
    // may find every tile taken. So: correct and fully accounted every time, and shared in one run of five
    // (kernels are compiled by then; only a scheduler that never shares fails).
    bool shared = false;
    for (int run = 0; run < 5 && !shared; ++run) {
      const Tensor c = engine.matmul(a, b);
      if (run == 0) expect_product(c, a, b, names(pair));
      expect_accounted(engine, pair, 512, 512);
      EXPECT_EQ(engine.last_run().tiles, 64);
      shared = std::all_of(engine.last_run().per_device.begin(), engine.last_run().per_device.end(),
                           [](const accelera::DeviceRunStats& d) { return d.tiles > 0 && d.busy_seconds > 0; });
    }
    EXPECT_TRUE(shared) << names(pair) << "one device took every tile in five runs";
  }
}

// The first non-CPU device of the pair: the one whose allocator the fault tests trip (the CPU's serves
// every host tensor too).
Device faulty_device(const std::vector<Device>& pair) { return pair[0].is_cpu() ? pair[1] : pair[0]; }

TEST(MultiDeviceEngine, OutOfMemoryOnOneDeviceLeavesTheOthersWorking) {
  const auto pairs = device_pairs();
  if (pairs.empty()) GTEST_SKIP() << "needs a GPU or OpenCL device besides the CPU";
  std::mt19937_64 rng(73);
  const Tensor a = random_tensor(Shape({200, 50}), DType::f64, rng), b = random_tensor(Shape({50, 190}), DType::f64, rng);
  const std::int64_t budget = 64 * 1024;
  for (const auto& pair : pairs) {
    const Device faulty = faulty_device(pair);
    const std::size_t faulty_index = pair[0] == faulty ? 0 : 1;
    auto& allocator = accelera::allocator_for(faulty);
    for (const FallbackStrategy fallback : {FallbackStrategy::default_chunk, FallbackStrategy::cpu}) {
      for (const std::int64_t nth : {1, 3, 6}) {
        const std::string what = fmt::format("{}fault at allocation {} of {}, fallback {}", names(pair), nth,
                                             faulty.str(), accelera::fallback_strategy_name(fallback));
        Tensor out = Tensor::empty(Shape({200, 190}), DType::f64);
        poison(out);
        MatrixEngine engine = engine_on(pair, budget, fallback);
        allocator.fail_nth_allocation(nth);
        engine.matmul(a, b, std::nullopt, out);
        allocator.fail_nth_allocation(0);
        expect_product(out, a, b, what);
        expect_accounted(engine, pair, 200, 190);
        const auto& run = engine.last_run();
        ASSERT_GE(run.fallbacks, 1) << what;
        EXPECT_EQ(run.fallback_log[0].rfind(faulty.str() + ": out of device memory", 0), 0u) << run.fallback_log[0];
        EXPECT_GE(run.per_device[faulty_index].fallbacks, 1) << what;
        EXPECT_GT(run.per_device[1 - faulty_index].tiles, 0) << what;
        if (fallback == FallbackStrategy::cpu) {
          EXPECT_NE(run.fallback_log[0].find("takes no more"), std::string::npos) << run.fallback_log[0];
        }
      }
    }
    // Under `error` the first failure is the caller's.
    MatrixEngine strict = engine_on(pair, budget, FallbackStrategy::error);
    const auto baseline = allocator.stats().current_bytes;
    allocator.fail_nth_allocation(2);
    EXPECT_THROW(strict.matmul(a, b), accelera::OutOfMemoryError) << names(pair);
    allocator.fail_nth_allocation(0);
    EXPECT_FALSE(strict.last_run().completed);
    EXPECT_EQ(allocator.stats().current_bytes, baseline) << "leak on " << faulty.str();
  }
}

TEST(MultiDeviceEngine, CancellationStopsEveryDeviceAndSaysWhatOutHolds) {
  const auto pairs = device_pairs();
  if (pairs.empty()) GTEST_SKIP() << "needs a GPU or OpenCL device besides the CPU";
  std::mt19937_64 rng(74);
  const Tensor a = random_tensor(Shape({256, 40}), DType::f32, rng), b = random_tensor(Shape({40, 256}), DType::f32, rng);
  for (const auto& pair : pairs) {
    MatrixEngine engine = fixed_tile_engine(pair, 32);
    std::int64_t calls = 0;
    engine.set_progress_callback([&](const accelera::EngineProgress& p) {
      EXPECT_EQ(p.tiles_total, 64);
      return ++calls < 3;
    });
    Tensor out = Tensor::empty(Shape({256, 256}), DType::f32);
    poison(out);
    try {
      engine.matmul(a, b, std::nullopt, out);
      ADD_FAILURE() << "no error";
    } catch (const accelera::CancelledError& e) {
      EXPECT_NE(std::string(e.what()).find("finished before this"), std::string::npos) << e.what();
    }
    const auto& run = engine.last_run();
    EXPECT_FALSE(run.completed);
    EXPECT_EQ(run.per_device.size(), 2u);
    // The callback is called once per tile: the third call stops the run with three tiles listed (devices
    // may have finished more by then; those are in out but not listed, as the error says).
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(run.finished_tiles.size(), 3u);
    // The tiles listed hold their products.
    const auto ref = reference(a, b);
    for (const auto& t : run.finished_tiles) {
      for (std::int64_t i = t.row0; i < t.row0 + t.rows; ++i)
        for (std::int64_t j = t.col0; j < t.col0 + t.cols; ++j)
          ASSERT_NEAR(get(out, {i, j}), ref[static_cast<std::size_t>(i * 256 + j)], 1e-4) << i << "," << j;
    }
  }
}

TEST(MultiDeviceEngine, LargeBudgetsStillGiveEveryDeviceSeveralTiles) {
  // One device covers this product with a handful of tiles; eight must each get four.
  const auto one = accelera::plan_streamed_matmul(8192, 8192, 4096, DType::f32, {std::int64_t{1} << 30});
  const auto eight = accelera::plan_streamed_matmul(8192, 8192, 4096, DType::f32,
                                                    std::vector<std::int64_t>(8, std::int64_t{1} << 30));
  EXPECT_LT(one.tiles.size(), 32u);
  EXPECT_GE(eight.tiles.size(), 32u);
  accelera::engine::check_exact_cover(eight.tiles, 8192, 8192);
  EXPECT_LE(eight.device_bytes, std::int64_t{1} << 30);
  EXPECT_THROW(accelera::plan_streamed_matmul(64, 64, 64, DType::f32, {}), accelera::ValueError);
  EXPECT_THROW(accelera::plan_streamed_matmul(4096, 4096, 4096, DType::f64, {1024}), accelera::OutOfMemoryError);
}

TEST(MultiDeviceEngine, DeviceListsAreParsedAndCheckedWithClearErrors) {
  const auto others = non_cpu_devices();
  const auto all = accelera::parse_engine_devices("all");
  if (others.empty()) {
    EXPECT_EQ(all, std::vector<Device>{Device::cpu()});  // nothing else: the CPU does the work
  } else {
    EXPECT_EQ(all, others);
  }
  const auto with_cpu = accelera::parse_engine_devices("all", /*include_cpu=*/true);
  EXPECT_EQ(with_cpu.back(), Device::cpu());
  EXPECT_EQ(accelera::parse_engine_devices(" cpu "), std::vector<Device>{Device::cpu()});
  EXPECT_THROW(accelera::parse_engine_devices("cpu,cpu"), accelera::ValueError);
  EXPECT_THROW(accelera::parse_engine_devices(""), accelera::ValueError);
  EXPECT_THROW(accelera::parse_engine_devices(" , "), accelera::ValueError);
  try {
    accelera::parse_engine_devices("cpu,opencl:57");
    ADD_FAILURE() << "no error";
  } catch (const accelera::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("opencl:57 is not present; present: cpu"), std::string::npos) << e.what();
  } catch (const accelera::Error& e) {
    // A build without OpenCL says so in its own words.
    EXPECT_NE(std::string(e.what()).find("OpenCL"), std::string::npos) << e.what();
  }
  EngineOptions twice;
  twice.devices = {Device::cpu(), Device::cpu()};
  EXPECT_THROW(MatrixEngine{twice}, accelera::ValueError);
  if (!others.empty()) {
    EngineOptions both;
    both.device = Device::cpu();
    both.devices = {others[0], Device::cpu()};
    EXPECT_THROW(MatrixEngine{both}, accelera::ValueError);
    both.device = others[0];
    EXPECT_EQ(MatrixEngine(both).devices(), both.devices);
  }
  // One device listed: the ordinary single-device engine.
  EngineOptions one;
  one.devices = {Device::cpu()};
  one.enable_progress = false;
  MatrixEngine single(one);
  std::mt19937_64 rng(75);
  const Tensor a = random_tensor(Shape({9, 5}), DType::f64, rng), b = random_tensor(Shape({5, 7}), DType::f64, rng);
  expect_product(single.matmul(a, b), a, b, "devices = {cpu}");
  EXPECT_EQ(single.last_run().strategy, "in-core");
  ASSERT_EQ(single.last_run().per_device.size(), 1u);
}

}  // namespace
}  // namespace acc_test
