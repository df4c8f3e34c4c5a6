#pragma once
// Note [Several devices]
// A streamed matmul over several devices: one plan of output tiles (Note [Out-of-core matmul plan]) shared
// by work stealing (Note [Work stealing]), each device running its own pipeline (Note [Streamed execution])
// on a thread of its own. The plan is made within the smallest device's budget, with tiles small enough
// that every device gets several (balance needs more tiles than devices), so any device can take any tile.
// The calling thread only watches: it draws progress, calls the progress callback and asks the interrupt
// check (which may take the Python GIL), and stops the workers when either says so.
// Out of memory on one device never stops the others. Under FallbackStrategy::default_chunk the device hands
// back the tiles it held and goes on with tiles planned within half the failed plan's memory, halving again
// after each failure, until not even the smallest tile fits: then it leaves. Under FallbackStrategy::cpu it
// hands back its tiles and leaves at once. Tiles left when every device has left are computed on the CPU.
// Under FallbackStrategy::error the first failure stops the call. Every shrink and departure is logged and
// listed in RunStats::fallback_log; RunStats::per_device says what each device did.
#include <cstdint>
#include <optional>
#include <vector>

#include "accelera/engine.hpp"
#include "engine/tile_planner.hpp"

namespace accelera::engine {

// A request for an m x n x k product of `dtype` under the configuration's chunk limits; the strategy from
// `tiling` (`tile` for caller-chosen chunks, whose pieces are square), `fixed_chunk` 0 for none.
PlanRequest plan_request(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype, const Tiling& tiling,
                         std::int64_t fixed_chunk);

// The plan the devices of `budgets` share (Note [Several devices]): within the smallest budget, with tiles
// small enough that each device gets several. One budget: the single-device plan with balance-sized tiles.
Plan plan_for_devices(PlanRequest request, const Tiling& tiling, const std::vector<std::int64_t>& budgets);

struct MultiDeviceSettings {
  std::vector<Device> devices;
  std::vector<std::int64_t> budgets;  // per device: the bytes its buffers may occupy
  std::int64_t fixed_chunk = 0;       // a fixed tile edge; 0: planned
  bool enable_progress = true;
  const ProgressCallback* callback = nullptr;
  FallbackStrategy fallback = FallbackStrategy::default_chunk;
};

// C = A @ B over every device of `settings`; the result lands in `out` when given, else in a new host
// tensor. Throws OutOfMemoryError when the smallest budget plans nothing (unless the fallback is `cpu`),
// CancelledError / InterruptedError when asked to stop, or the first error a device met.
Tensor multi_device_matmul(const Tensor& a, const Tensor& b, const Tiling& tiling, const std::optional<Tensor>& out,
                           const MultiDeviceSettings& settings, RunStats& stats);

}  // namespace accelera::engine
