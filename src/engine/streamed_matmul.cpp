#include "engine/streamed_matmul.hpp"

#include <algorithm>
#include <memory>
#include <variant>
#include <vector>

#include "accelera/core/config.hpp"
#include "accelera/core/error.hpp"
#include "accelera/core/interrupt.hpp"
#include "accelera/ops.hpp"
#include "core/log.hpp"
#include "engine/blocks.hpp"
#include "engine/progress_bar.hpp"
#include "engine/stream_executor.hpp"
#include "engine/tile_planner.hpp"

namespace accelera::engine {

namespace {

// One item of the work queue (Note [Out-of-memory recovery]).
struct Region {
  OutputChunk area;
  std::int64_t budget = 0;
  bool after_failure = false;
  std::int64_t first_plan_tile = -1;  // the tile of the first plan this region is a piece of; -1: the first item
  bool is_first() const { return first_plan_tile < 0; }
};

class StreamedMatmul {
 public:
  // a, b and c are host views.
  StreamedMatmul(const Tensor& a, const Tensor& b, const Tensor& c, const Tiling& tiling,
                 const StreamSettings& settings, RunStats& stats)
      : m_a(a),
        m_b(b),
        m_c(c),
        m_chunks(std::get_if<std::vector<OutputChunk>>(&tiling)),
        m_settings(settings),
        m_stats(stats) {
    const Config& cfg = config();
    m_request.k = a.shape()[1];
    m_request.element_size = static_cast<std::int64_t>(dtype_size(a.dtype()));
    // Regions split after a failure are planned with square tiles when the caller chose the chunks.
    m_request.strategy = m_chunks ? ChunkingStrategy::tile : std::get<ChunkingStrategy>(tiling);
    m_request.min_chunk = cfg.min_chunk_size;
    m_request.max_chunk = cfg.max_chunk_size;
    m_request.panels_in_flight = cfg.enable_prefetch ? 2 : 1;
    m_request.chunk_size = settings.fixed_chunk;
    m_job = StreamJob{a, b, c, settings.device, m_request.panels_in_flight, 2, nullptr};
  }

  void run(std::int64_t budget, bool after_failure) {
    m_queue.push_back(Region{{0, m_c.shape()[0], 0, m_c.shape()[1]}, budget, after_failure, -1});
    while (!m_queue.empty()) {
      const Region region = m_queue.back();
      m_queue.pop_back();
      run_region(region);
    }
    m_stats.bytes_host_to_device = m_counters.bytes_host_to_device;
    m_stats.bytes_device_to_host = m_counters.bytes_device_to_host;
    m_stats.peak_device_bytes = m_counters.peak_device_bytes;
  }

 private:
  void run_region(const Region& region) {
    Plan plan;
    try {
      plan = plan_region(region);
    } catch (const OutOfMemoryError& error) {
      // A budget too small from the start is the caller's error, unless the CPU is the chosen fallback.
      if (!region.after_failure && m_settings.fallback != FallbackStrategy::cpu) throw;
      compute_on_cpu(region, error);
      return;
    }
    for (auto& t : plan.tiles) {
      t.row0 += region.area.row0;
      t.col0 += region.area.col0;
    }
    if (region.is_first()) record_first_plan(plan);
    std::vector<char> done(plan.tiles.size(), 0);
    try {
      run_streamed(plan, m_job, done, m_counters, [&](std::size_t i) {
        m_stats.finished_tiles.push_back(plan.tiles[i]);
        if (region.is_first()) ++m_tiles_done;
        report_progress();
      });
    } catch (const OutOfMemoryError& error) {
      switch (m_settings.fallback) {
        case FallbackStrategy::error: throw;
        case FallbackStrategy::cpu: finish_on_cpu(region, plan, done, error); break;
        case FallbackStrategy::default_chunk: requeue_unfinished(region, plan, done, error); break;
      }
    }
    if (!region.is_first()) piece_finished(region);
  }

  Plan plan_region(const Region& region) const {
    PlanRequest r = m_request;
    r.m = region.area.rows;
    r.n = region.area.cols;
    r.budget_bytes = region.budget;
    // Live tensors may already hold the device's whole budget: that is running out of memory, not a bad
    // request, so it takes the out-of-memory path (an error, or the CPU when that is the fallback).
    if (r.budget_bytes <= 0)
      throw OutOfMemoryError(fmt::format("live tensors on {} already hold its whole memory budget: no room is left "
                                         "to stream tiles through; free tensors there or raise its budget",
                                         m_settings.device.str()));
    if (m_chunks && region.is_first()) return plan_from_tiles(r, *m_chunks);
    return plan_matmul(r);
  }

  // Not even the smallest tile fits any more: the region is computed on the CPU, straight into C.
  void compute_on_cpu(const Region& region, const OutOfMemoryError& error) {
    const OutputChunk& c = region.area;
    log_fallback(fmt::format("rows [{}, {}) x cols [{}, {}) computed on the CPU: {}", c.row0, c.row0 + c.rows, c.col0,
                             c.col0 + c.cols, error.what()));
    multiply_block_on_cpu(m_a, m_b, m_c, c);
    m_stats.finished_tiles.push_back(c);
    if (!region.is_first()) {
      piece_finished(region);
      return;
    }
    m_stats.strategy = "cpu";
    m_stats.tiles = 1;
    start_progress(1);
    ++m_tiles_done;
  }

  // FallbackStrategy::cpu: every tile of the failed plan that has not landed is computed on the CPU.
  void finish_on_cpu(const Region& region, const Plan& plan, const std::vector<char>& done,
                     const OutOfMemoryError& error) {
    const auto left = static_cast<std::int64_t>(std::count(done.begin(), done.end(), 0));
    log_fallback(fmt::format("out of device memory with {}x{}x{} tiles ({}); the {} unfinished tile(s) computed on "
                             "the CPU",
                             plan.tile_m, plan.tile_n, plan.tile_k, error.what(), left));
    for (std::size_t i = 0; i < plan.tiles.size(); ++i) {
      if (done[i]) continue;
      const OutputChunk& c = plan.tiles[i];
      multiply_block_on_cpu(m_a, m_b, m_c, c);
      m_stats.finished_tiles.push_back(c);
      if (region.is_first()) {
        ++m_tiles_done;
        report_progress();
      }
    }
  }

  void record_first_plan(const Plan& plan) {
    describe_plan(plan, m_chunks != nullptr, m_stats);
    m_pieces_left.assign(plan.tiles.size(), 0);
    start_progress(m_stats.tiles);
  }

  // Every tile of the failed plan that has not landed becomes a region with half the plan's memory,
  // queued so that the first of them runs next.
  void requeue_unfinished(const Region& region, const Plan& plan, const std::vector<char>& done,
                          const OutOfMemoryError& error) {
    const std::int64_t smaller = plan.device_bytes / 2;
    log_fallback(fmt::format("out of device memory with {}x{}x{} tiles ({}); resuming the unfinished tiles within {} "
                             "bytes",
                             plan.tile_m, plan.tile_n, plan.tile_k, error.what(), smaller));
    for (std::size_t i = plan.tiles.size(); i-- > 0;) {
      if (done[i]) continue;
      const std::int64_t owner = region.is_first() ? static_cast<std::int64_t>(i) : region.first_plan_tile;
      ++m_pieces_left[static_cast<std::size_t>(owner)];
      m_queue.push_back(Region{plan.tiles[i], smaller, true, owner});
    }
  }

  // A tile of the first plan is done when the last piece queued for it is.
  void piece_finished(const Region& region) {
    if (--m_pieces_left[static_cast<std::size_t>(region.first_plan_tile)] > 0) return;
    ++m_tiles_done;
    report_progress();
  }

  void start_progress(std::int64_t total) {
    m_tiles_total = total;
    m_progress = std::make_unique<ProgressBar>("matmul", total, m_settings.enable_progress);
  }

  // After every tile computed on the device, and after every tile of the first plan finished in pieces.
  void report_progress() {
    const std::int64_t moved = m_counters.bytes_host_to_device + m_counters.bytes_device_to_host;
    m_progress->update(m_tiles_done, moved);
    throw_if_interrupted("matmul");
    const ProgressCallback* callback = m_settings.callback;
    if (callback == nullptr || !*callback) return;
    if (!(*callback)(EngineProgress{m_tiles_done, m_tiles_total, moved, m_progress->seconds()})) {
      throw CancelledError(fmt::format("matmul cancelled by its progress callback after {} of {} tiles", m_tiles_done,
                                       m_tiles_total));
    }
  }

  void log_fallback(std::string line) {
    ++m_stats.fallbacks;
    m_stats.fallback_log.push_back(std::move(line));
    ACC_LOG_INFO("MatrixEngine: {}", m_stats.fallback_log.back());
  }

  Tensor m_a, m_b, m_c;
  const std::vector<OutputChunk>* m_chunks;  // the caller's tiles; null when the planner chooses
  const StreamSettings& m_settings;
  RunStats& m_stats;
  PlanRequest m_request;  // all but the region's extents and budget
  StreamJob m_job;
  StreamCounters m_counters;
  std::vector<Region> m_queue;              // worked from the back
  std::vector<std::int64_t> m_pieces_left;  // per tile of the first plan: its queued pieces not yet finished
  std::int64_t m_tiles_done = 0, m_tiles_total = 0;
  std::unique_ptr<ProgressBar> m_progress;
};

}  // namespace

Tensor streamed_matmul(const Tensor& a, const Tensor& b, const Tiling& tiling, const std::optional<Tensor>& out,
                       std::int64_t budget, const StreamSettings& settings, RunStats& stats) {
  // Host views of the operands; the result is written tile by tile into host memory.
  const Tensor ah = a.device().is_cpu() ? a : a.to(Device::cpu());
  const Tensor bh = b.device().is_cpu() ? b : b.to(Device::cpu());
  const Tensor ch = (out && out->device().is_cpu())
                        ? *out
                        : Tensor::empty(Shape({a.shape()[0], b.shape()[1]}), a.dtype(), Device::cpu());
  stats.streamed = true;
  StreamedMatmul(ah, bh, ch, tiling, settings, stats).run(budget, /*after_failure=*/stats.fallbacks > 0);
  if (out && !out->device().is_cpu()) {
    copy_across_devices(ch, *out);
    return *out;
  }
  return ch;
}

}  // namespace accelera::engine
