#include "engine/multi_device_matmul.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "accelera/core/config.hpp"
#include "accelera/core/error.hpp"
#include "accelera/core/interrupt.hpp"
#include "accelera/ops.hpp"
#include "core/log.hpp"
#include "engine/blocks.hpp"
#include "engine/progress_bar.hpp"
#include "engine/stream_executor.hpp"
#include "engine/tile_planner.hpp"
#include "engine/tile_scheduler.hpp"

namespace accelera::engine {

namespace {

using Clock = std::chrono::steady_clock;

// Thrown inside a worker whose run was stopped (an error elsewhere, cancellation): not an error of its own.
struct StopRequested {};

// Tiles per device the plan aims at, so that stealing can even out devices of different speeds.
constexpr std::int64_t kTilesPerDevice = 4;
// No tile edge below this for balance's sake: smaller GEMMs run far below peak.
constexpr std::int64_t kMinBalancedEdge = 256;

// What the workers and the watching thread share.
class SharedRun {
 public:
  SharedRun(const Plan& plan, std::size_t devices) : plan(plan), scheduler(plan.tiles.size(), devices) {}

  void tile_done(std::size_t tile) {
    std::lock_guard lock(m_mutex);
    m_finished.push_back(tile);
    m_changed.notify_all();
  }

  void log(std::string line) {
    ACC_LOG_INFO("MatrixEngine: {}", line);
    std::lock_guard lock(m_mutex);
    m_log.push_back(std::move(line));
  }

  // The first real error stops every device; what the others throw because of the stop is not kept.
  void fail(std::exception_ptr error) {
    {
      std::lock_guard lock(m_mutex);
      if (!m_error) m_error = std::move(error);
    }
    scheduler.stop();
  }

  void worker_started() {
    std::lock_guard lock(m_mutex);
    ++m_running;
  }

  void worker_left() {
    std::lock_guard lock(m_mutex);
    --m_running;
    m_changed.notify_all();
  }

  // Waits a little for news; returns the tiles finished since the last call and whether every worker left.
  std::pair<std::vector<std::size_t>, bool> wait_for_news(std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_mutex);
    m_changed.wait_for(lock, timeout, [&] { return !m_finished.empty() || m_running == 0; });
    std::vector<std::size_t> finished;
    finished.swap(m_finished);
    return {std::move(finished), m_running == 0};
  }

  std::exception_ptr error() {
    std::lock_guard lock(m_mutex);
    return m_error;
  }
  std::vector<std::string> take_log() {
    std::lock_guard lock(m_mutex);
    return std::move(m_log);
  }

  const Plan& plan;
  TileScheduler scheduler;

 private:
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<std::size_t> m_finished;
  std::vector<std::string> m_log;
  std::exception_ptr m_error;
  int m_running = 0;
};

// One device's thread: the shared plan through its own pipeline, then, after running out of memory,
// tile by tile within a shrinking budget (Note [Several devices]).
class DeviceWorker {
 public:
  DeviceWorker(SharedRun& run, std::size_t index, const Device& device, const Tensor& a, const Tensor& b,
               const Tensor& c, const PlanRequest& request, FallbackStrategy fallback)
      : m_run(run), m_index(index), m_request(request), m_fallback(fallback) {
    m_job = StreamJob{a, b, c, device, request.panels_in_flight, request.output_buffers, [this] { check_stop(); }};
    stats.device = device.str();
  }

  void operator()() noexcept {
    try {
      work();
    } catch (const StopRequested&) {
      // Stopped because of another device's error or a cancellation; that is what the caller sees.
    } catch (...) {
      m_run.fail(std::current_exception());
    }
    stats.bytes_host_to_device = m_counters.bytes_host_to_device;
    stats.bytes_device_to_host = m_counters.bytes_device_to_host;
    stats.peak_device_bytes = m_counters.peak_device_bytes;
    m_run.worker_left();
  }

  std::int64_t bytes_moved() const { return m_moved.load(std::memory_order_relaxed); }

  DeviceRunStats stats;

 private:
  void work() {
    for (;;) {
      if (m_shrunk_budget == 0) {
        try {
          timed([&] { run_plan(); });
        } catch (const OutOfMemoryError& error) {
          if (!recover(error)) return;
        }
      } else if (const std::optional<std::size_t> tile = m_run.scheduler.take(m_index)) {
        bool stay = true;
        timed([&] { stay = run_shrunk(*tile); });
        if (!stay) return;
        continue;
      }
      if (!m_run.scheduler.wait_for_work()) return;
    }
  }

  // The shared plan's tiles through one pipeline, until none is free.
  void run_plan() {
    const TileSource next = [&]() -> std::optional<std::size_t> {
      std::optional<std::size_t> tile = m_run.scheduler.take(m_index);
      if (tile) m_held.push_back(*tile);
      return tile;
    };
    run_streamed(m_run.plan, m_job, next, m_counters, [&](std::size_t tile) {
      m_held.erase(std::find(m_held.begin(), m_held.end(), tile));
      finished(tile);
    });
  }

  // After out of memory on the shared plan: true to go on with smaller tiles, false to leave.
  bool recover(const OutOfMemoryError& error) {
    m_run.scheduler.give_back(m_index, m_held);
    const auto held = m_held.size();
    m_held.clear();
    ++stats.fallbacks;
    switch (m_fallback) {
      case FallbackStrategy::error: throw error;
      case FallbackStrategy::cpu:
        m_run.log(fmt::format("{}: out of device memory ({}); its {} unfinished tile(s) go to the other devices and it "
                              "takes no more",
                              stats.device, error.what(), held));
        return false;
      case FallbackStrategy::default_chunk: break;
    }
    m_shrunk_budget = m_run.plan.device_bytes / 2;
    m_run.log(fmt::format("{}: out of device memory with {}x{}x{} tiles ({}); it goes on with tiles planned within {} "
                          "bytes",
                          stats.device, m_run.plan.tile_m, m_run.plan.tile_n, m_run.plan.tile_k, error.what(),
                          m_shrunk_budget));
    return true;
  }

  // One tile of the shared plan in pieces that fit the shrunk budget: false when not even the smallest
  // piece fits (the device leaves).
  bool run_shrunk(std::size_t tile) {
    const OutputChunk& area = m_run.plan.tiles[tile];
    PlanRequest r = m_request;
    r.m = area.rows;
    r.n = area.cols;
    r.chunk_size = 0;
    r.budget_bytes = m_shrunk_budget;
    Plan pieces;
    try {
      pieces = plan_matmul(r);
    } catch (const OutOfMemoryError& error) {
      m_run.scheduler.give_back(m_index, {tile});
      ++stats.fallbacks;
      m_run.log(fmt::format("{}: not even the smallest tile fits in {} bytes ({}); it takes no more tiles", stats.device,
                            m_shrunk_budget, error.what()));
      return false;
    }
    for (auto& piece : pieces.tiles) {
      piece.row0 += area.row0;
      piece.col0 += area.col0;
    }
    std::vector<char> done(pieces.tiles.size(), 0);
    try {
      run_streamed(pieces, m_job, done, m_counters, nullptr);
    } catch (const OutOfMemoryError& error) {
      // The whole tile is computed again, by whichever device takes it: its finished pieces are not listed.
      m_run.scheduler.give_back(m_index, {tile});
      ++stats.fallbacks;
      m_shrunk_budget = pieces.device_bytes / 2;
      m_run.log(fmt::format("{}: out of device memory with {}x{}x{} tiles ({}); it goes on within {} bytes",
                            stats.device, pieces.tile_m, pieces.tile_n, pieces.tile_k, error.what(), m_shrunk_budget));
      return true;
    }
    finished(tile);
    return true;
  }

  void finished(std::size_t tile) {
    m_run.scheduler.finish(m_index, tile);
    ++stats.tiles;
    m_moved.store(m_counters.bytes_host_to_device + m_counters.bytes_device_to_host, std::memory_order_relaxed);
    m_run.tile_done(tile);
  }

  void check_stop() const {
    if (m_run.scheduler.stopped()) throw StopRequested{};
  }

  template <class F>
  void timed(F&& f) {
    const auto start = Clock::now();
    try {
      f();
    } catch (...) {
      stats.busy_seconds += std::chrono::duration<double>(Clock::now() - start).count();
      throw;
    }
    stats.busy_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }

  SharedRun& m_run;
  std::size_t m_index;
  PlanRequest m_request;  // all but a region's extents and budget
  FallbackStrategy m_fallback;
  StreamJob m_job;
  StreamCounters m_counters;
  std::vector<std::size_t> m_held;   // tiles of the shared plan taken and not yet finished
  std::int64_t m_shrunk_budget = 0;  // 0: running the shared plan
  std::atomic<std::int64_t> m_moved{0};
};

}  // namespace

Plan plan_for_devices(PlanRequest request, const Tiling& tiling, const std::vector<std::int64_t>& budgets) {
  ACC_ASSERT(!budgets.empty(), "a plan for no device");
  request.budget_bytes = *std::min_element(budgets.begin(), budgets.end());
  if (request.budget_bytes <= 0)
    throw OutOfMemoryError("live tensors on one of the engine's devices already hold its whole memory budget: no "
                           "room is left to stream tiles through");
  if (const auto* chunks = std::get_if<std::vector<OutputChunk>>(&tiling)) return plan_from_tiles(request, *chunks);
  if (request.chunk_size == 0) {
    // No tile edge above the one that gives every device kTilesPerDevice tiles: with a large budget the
    // planner would otherwise cover C with fewer tiles than there are devices.
    const auto devices = static_cast<double>(budgets.size());
    const double area = static_cast<double>(request.m) * static_cast<double>(request.n);
    const auto edge = std::max({kMinBalancedEdge, request.min_chunk,
                                static_cast<std::int64_t>(std::ceil(std::sqrt(area / (kTilesPerDevice * devices))))});
    request.max_chunk = request.max_chunk > 0 ? std::min(request.max_chunk, edge) : edge;
  }
  return plan_matmul(request);
}

PlanRequest plan_request(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype, const Tiling& tiling,
                         std::int64_t fixed_chunk) {
  const Config& cfg = config();
  PlanRequest request;
  request.m = m;
  request.n = n;
  request.k = k;
  request.element_size = static_cast<std::int64_t>(dtype_size(dtype));
  request.strategy = std::holds_alternative<ChunkingStrategy>(tiling) ? std::get<ChunkingStrategy>(tiling)
                                                                      : ChunkingStrategy::tile;
  request.min_chunk = cfg.min_chunk_size;
  request.max_chunk = cfg.max_chunk_size;
  request.panels_in_flight = cfg.enable_prefetch ? 2 : 1;
  request.chunk_size = fixed_chunk;
  return request;
}

namespace {

// Stops and joins the workers on every way out.
class WorkerThreads {
 public:
  explicit WorkerThreads(TileScheduler& scheduler) : m_scheduler(scheduler) {}
  ~WorkerThreads() {
    if (!m_threads.empty()) {
      m_scheduler.stop();
      join();
    }
  }
  void start(DeviceWorker& worker) { m_threads.emplace_back([&worker] { worker(); }); }
  void join() {
    for (auto& t : m_threads) t.join();
    m_threads.clear();
  }

 private:
  TileScheduler& m_scheduler;
  std::vector<std::thread> m_threads;
};

class MultiDeviceMatmul {
 public:
  MultiDeviceMatmul(const Tensor& a, const Tensor& b, const Tensor& c, const MultiDeviceSettings& settings,
                    RunStats& stats)
      : m_a(a), m_b(b), m_c(c), m_settings(settings), m_stats(stats) {}

  void run(const Tiling& tiling) {
    const PlanRequest request =
        plan_request(m_c.shape()[0], m_c.shape()[1], m_a.shape()[1], m_a.dtype(), tiling, m_settings.fixed_chunk);
    Plan plan;
    try {
      plan = plan_for_devices(request, tiling, m_settings.budgets);
    } catch (const OutOfMemoryError& error) {
      if (m_settings.fallback != FallbackStrategy::cpu) throw;
      all_on_cpu(error);
      return;
    }
    describe_plan(plan, std::holds_alternative<std::vector<OutputChunk>>(tiling), m_stats);
    run_plan(plan, request);
  }

 private:
  void run_plan(const Plan& plan, const PlanRequest& request) {
    SharedRun shared(plan, m_settings.devices.size());
    std::vector<std::unique_ptr<DeviceWorker>> workers;
    for (std::size_t d = 0; d < m_settings.devices.size(); ++d) {
      workers.push_back(std::make_unique<DeviceWorker>(shared, d, m_settings.devices[d], m_a, m_b, m_c, request,
                                                       m_settings.fallback));
    }
    ProgressBar progress("matmul", m_stats.tiles, m_settings.enable_progress);
    std::int64_t tiles_done = 0;
    {
      WorkerThreads threads(shared.scheduler);
      for (auto& w : workers) {
        shared.worker_started();
        threads.start(*w);
      }
      try {
        for (bool all_left = false; !all_left;) {
          std::vector<std::size_t> finished;
          std::tie(finished, all_left) = shared.wait_for_news(std::chrono::milliseconds(50));
          // One report per tile, as on one device: a callback that stops at tile t sees t tiles listed.
          for (std::size_t t : finished) {
            m_stats.finished_tiles.push_back(plan.tiles[t]);
            report(progress, ++tiles_done, moved(workers));
          }
          throw_if_interrupted("matmul");
        }
      } catch (...) {
        // Cancelled or interrupted: every worker stops after its current K step, and nothing is in flight
        // when the error reaches the caller.
        shared.scheduler.stop();
        threads.join();
        finish_stats(workers, shared);
        throw;
      }
      threads.join();
    }
    finish_stats(workers, shared);
    if (const std::exception_ptr error = shared.error()) std::rethrow_exception(error);
    // Every device left before the end: the CPU computes what is left.
    const std::vector<std::size_t> left = shared.scheduler.unfinished();
    if (left.empty()) return;
    log(fmt::format("every device left with {} tile(s) unfinished; they are computed on the CPU", left.size()));
    for (std::size_t t : left) {
      multiply_block_on_cpu(m_a, m_b, m_c, plan.tiles[t]);
      m_stats.finished_tiles.push_back(plan.tiles[t]);
      report(progress, ++tiles_done, moved(workers));
      throw_if_interrupted("matmul");
    }
  }

  void all_on_cpu(const OutOfMemoryError& error) {
    log(fmt::format("no tile fits the smallest device budget ({}); computed on the CPU", error.what()));
    m_stats.strategy = "cpu";
    m_stats.tiles = 1;
    const OutputChunk all{0, m_c.shape()[0], 0, m_c.shape()[1]};
    multiply_block_on_cpu(m_a, m_b, m_c, all);
    m_stats.finished_tiles.push_back(all);
  }

  static std::int64_t moved(const std::vector<std::unique_ptr<DeviceWorker>>& workers) {
    std::int64_t total = 0;
    for (const auto& w : workers) total += w->bytes_moved();
    return total;
  }

  void report(ProgressBar& progress, std::int64_t done, std::int64_t moved) {
    progress.update(done, moved);
    const ProgressCallback* callback = m_settings.callback;
    if (callback == nullptr || !*callback) return;
    if (!(*callback)(EngineProgress{done, m_stats.tiles, moved, progress.seconds()})) {
      throw CancelledError(
          fmt::format("matmul cancelled by its progress callback after {} of {} tiles", done, m_stats.tiles));
    }
  }

  void finish_stats(const std::vector<std::unique_ptr<DeviceWorker>>& workers, SharedRun& shared) {
    for (std::string& line : shared.take_log()) log_recorded(std::move(line));
    for (const auto& w : workers) {
      const DeviceRunStats& s = w->stats;
      m_stats.bytes_host_to_device += s.bytes_host_to_device;
      m_stats.bytes_device_to_host += s.bytes_device_to_host;
      m_stats.peak_device_bytes = std::max(m_stats.peak_device_bytes, s.peak_device_bytes);
      m_stats.per_device.push_back(s);
    }
  }

  void log(std::string line) {
    ACC_LOG_INFO("MatrixEngine: {}", line);
    log_recorded(std::move(line));
  }
  void log_recorded(std::string line) {
    ++m_stats.fallbacks;
    m_stats.fallback_log.push_back(std::move(line));
  }

  Tensor m_a, m_b, m_c;
  const MultiDeviceSettings& m_settings;
  RunStats& m_stats;
};

}  // namespace

Tensor multi_device_matmul(const Tensor& a, const Tensor& b, const Tiling& tiling, const std::optional<Tensor>& out,
                           const MultiDeviceSettings& settings, RunStats& stats) {
  ACC_ASSERT(!settings.devices.empty() && settings.devices.size() == settings.budgets.size(),
             "one budget per device");
  const Tensor ah = a.device().is_cpu() ? a : a.to(Device::cpu());
  const Tensor bh = b.device().is_cpu() ? b : b.to(Device::cpu());
  const Tensor ch = (out && out->device().is_cpu())
                        ? *out
                        : Tensor::empty(Shape({a.shape()[0], b.shape()[1]}), a.dtype(), Device::cpu());
  stats.streamed = true;
  MultiDeviceMatmul(ah, bh, ch, settings, stats).run(tiling);
  if (out && !out->device().is_cpu()) {
    copy_across_devices(ch, *out);
    return *out;
  }
  return ch;
}

}  // namespace accelera::engine
