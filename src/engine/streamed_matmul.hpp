#pragma once
// Note [Out-of-memory recovery]
// A streamed matmul works through a queue of regions of C, each with a device budget and a flag saying
// whether a failure has been seen. The first item is all of C (tiled by the caller's chunks, or planned by
// the strategy) within the call's budget. An item is planned (Note [Out-of-core matmul plan]) and run
// (Note [Streamed execution]); when a buffer cannot be had (another user of the device, fragmentation),
// every tile of its plan that has not landed in C goes back on the queue as a region of its own, with half
// the failed plan's footprint. A region that cannot be planned once a failure has been seen is computed on
// the CPU; before any failure, a budget that plans nothing is the caller's OutOfMemoryError. Every shrink
// and CPU fallback is an info log line and a line in RunStats::fallback_log.
// That is FallbackStrategy::default_chunk. Under FallbackStrategy::cpu a failed plan's unfinished tiles are
// computed on the CPU at once (no shrinking), and so is a region whose budget plans nothing, failure or
// not. Under FallbackStrategy::error the OutOfMemoryError goes to the caller.
// The queue is worked last-in first-out, so the pieces of a failed tile finish before the next tile starts
// (fallbacks are logged in the order they happen). Progress counts the tiles of the first plan: one is done
// when the last piece queued for it finishes.
#include <cstdint>
#include <optional>

#include "accelera/engine.hpp"

namespace accelera::engine {

struct StreamSettings {
  Device device;
  std::int64_t fixed_chunk = 0;  // a fixed tile edge (EngineOptions::chunk_size without auto-detection); 0: none
  bool enable_progress = true;
  const ProgressCallback* callback = nullptr;  // after every tile; may be null or empty
  FallbackStrategy fallback = FallbackStrategy::default_chunk;
};

// C = A @ B through settings.device within `budget` bytes, tiled as `tiling` says. The result lands in
// `out` when given, else in a new host tensor. `stats` gets the plan, the traffic and the fallbacks; a
// fallback already recorded in it (the in-core attempt ran out of memory) counts as a failure seen.
// Throws OutOfMemoryError when the budget plans nothing and no failure has been seen, ValueError for chunks
// that do not cover C exactly once, CancelledError when the callback says stop.
Tensor streamed_matmul(const Tensor& a, const Tensor& b, const Tiling& tiling, const std::optional<Tensor>& out,
                       std::int64_t budget, const StreamSettings& settings, RunStats& stats);

}  // namespace accelera::engine
