#pragma once
// Note [Out-of-core matmul plan]
// C (M x N) = A (M x K) @ B (K x N) with operands in host memory and a device budget of S bytes. The plan
// keeps an output tile (tile_m x tile_n) resident on the device across all of K, streaming K in steps of
// tile_k: A panels (tile_m x tile_k) and B panels (tile_k x tile_n) go up, C goes down once per tile. The
// device holds `output_buffers` C tiles (one computing while the previous one downloads) and
// `panels_in_flight` A and B panels each (one computing while the next uploads). Traffic in is
// M*K*(N/tile_n) + K*N*(M/tile_m) elements, less when K fits in one step: then the panel shared by
// consecutive tiles stays on the device (A's across a row of tiles, or B's down a column), and the loop
// order that reuses the larger panel is taken. For square tiles of edge b the traffic is about 2MNK/b,
// within a small constant of the 2MNK/sqrt(S) lower bound for any schedule.
//
// Strategies (accelera::ChunkingStrategy): `row` keeps tile_n = N (row chunks, as the seed's engine does)
// and splits N only when one row of C does not fit; `tile` uses square tiles; `adaptive` searches every
// shape for the least traffic. Sizes are searched over even splits of each axis, so edge tiles are never
// slivers, and scored by bytes moved plus a fixed cost per GEMM step (small steps run GEMMs far below
// peak). Tiles chosen by the caller (a Tiling holding OutputChunks) skip the search: they are checked to
// cover C exactly once and only tile_k is chosen. The planner is pure: no device is touched, so it is
// tested exhaustively.
#include <cstdint>
#include <vector>

#include "accelera/engine.hpp"

namespace accelera::engine {

struct PlanRequest {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t element_size = 4;
  std::int64_t budget_bytes = 0;  // device memory the plan's buffers may occupy, after allocator rounding
  ChunkingStrategy strategy = ChunkingStrategy::adaptive;
  std::int64_t chunk_size = 0;    // a fixed tile edge (rows for `row`); 0: chosen from the budget
  std::int64_t min_chunk = 1;     // no tile edge below this (except where the matrix is smaller)
  std::int64_t max_chunk = 0;     // no tile edge above this; 0: no limit
  int panels_in_flight = 2;
  int output_buffers = 2;
};

struct Plan {
  ChunkingStrategy strategy = ChunkingStrategy::adaptive;  // the one used (never `adaptive`)
  std::int64_t k = 0;
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0;  // the largest extents; edge tiles are smaller
  std::vector<OutputChunk> tiles;                   // in execution order
  bool rows_outer = true;                           // tiles of one row of C run consecutively
  std::int64_t device_bytes = 0;                    // footprint of the buffers
  std::int64_t bytes_in = 0, bytes_out = 0;         // predicted host->device and device->host traffic
  std::int64_t k_steps() const;
};

// Bytes the executor allocates for a plan of these extents (allocator size classes included).
std::int64_t plan_footprint(std::int64_t tile_m, std::int64_t tile_n, std::int64_t tile_k, std::int64_t element_size,
                            int panels_in_flight, int output_buffers);

// Throws OutOfMemoryError when not even the smallest tile allowed fits the budget, ValueError for
// non-positive sizes or a fixed chunk that cannot fit.
Plan plan_matmul(const PlanRequest& request);

// The plan's strategy ("chunks" for caller-chosen tiles), tile extents, K steps and tile count, in `stats`.
void describe_plan(const Plan& plan, bool caller_chunks, RunStats& stats);

// ValueError unless the chunks cover every element of an m x n result exactly once: each inside the result
// and not empty, no two overlapping, nothing left out. The one check of caller-chosen tiles.
void check_exact_cover(const std::vector<OutputChunk>& chunks, std::int64_t m, std::int64_t n);

// A plan over caller-chosen output tiles (check_exact_cover); tile_k is the largest K step that fits with
// the largest tile, OutOfMemoryError when none does.
Plan plan_from_tiles(const PlanRequest& request, std::vector<OutputChunk> tiles);

}  // namespace accelera::engine
