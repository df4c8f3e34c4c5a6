#pragma once
// Note [Streamed execution]
// A plan (Note [Out-of-core matmul plan]) runs as a pipeline over the device's three streams (Note
// [Streams and events]): for step q (an output tile and a K step) the host packs the A and B panels into
// pinned staging buffers (multithreaded, any source strides), the upload stream copies them into device
// panel slots, the compute stream runs GEMM (accumulating over K into the resident output tile), and after
// the last K step the download stream copies the tile into pinned staging, from which the host unpacks it
// into C while the device works on the next tiles. Events guard every reuse:
//   - a panel slot's staging is repacked only after its previous upload completed (host waits);
//   - a panel slot's device buffer is overwritten only after the GEMM that last read it (upload stream
//     waits for that GEMM's event);
//   - an output slot is computed into only after its previous download completed and was unpacked.
// A panel already resident in a slot (the same rows and K range) is not uploaded again. On the CPU device
// panels are packed straight into the slots: there is no bus to cross. Any error drains every stream before
// the buffers are released, so nothing in flight touches freed memory.
#include <functional>
#include <optional>
#include <vector>

#include "accelera/core/device_interface.hpp"
#include "engine/tile_planner.hpp"

namespace accelera::engine {

struct StreamJob {
  Tensor a, b, c;  // host views: a (M x K), b (K x N), c (M x N); any strides
  Device device;
  int panels_in_flight = 2;
  int output_buffers = 2;
  // Asked between K steps; throws to stop the run. Empty: throw_if_interrupted, which only the calling
  // thread may ask (it may take the Python GIL), so worker threads pass their own.
  std::function<void()> check_stop;
};

// The next tile of the plan to run (an index into plan.tiles); nullopt: no more.
using TileSource = std::function<std::optional<std::size_t>()>;

struct StreamCounters {
  std::int64_t bytes_host_to_device = 0;
  std::int64_t bytes_device_to_host = 0;
  std::int64_t peak_device_bytes = 0;
};

// Runs the plan's tiles (offsets relative to job.c); done[i] is set once tile i has landed in c, then
// on_tile_done(i) is called (it may throw, e.g. CancelledError, which stops the run). Throws
// OutOfMemoryError when a buffer cannot be had; the tiles already done stay done.
void run_streamed(const Plan& plan, const StreamJob& job, std::vector<char>& done, StreamCounters& counters,
                  const std::function<void(std::size_t)>& on_tile_done);

// The same over the tiles `next_tile` hands out, in the order it hands them out (several devices sharing
// one plan). on_tile_done(i) is called once tile i has landed in c.
void run_streamed(const Plan& plan, const StreamJob& job, const TileSource& next_tile, StreamCounters& counters,
                  const std::function<void(std::size_t)>& on_tile_done);

}  // namespace accelera::engine
