#include "engine/tile_planner.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "accelera/core/allocator.hpp"
#include "accelera/core/error.hpp"

namespace accelera::engine {

namespace {

// A GEMM step costs a launch, a synchronisation and a far-from-peak GEMM when small: counted as this
// many bytes of traffic, so that the search prefers fewer, larger steps when traffic is equal.
constexpr double kStepCostBytes = 1 << 20;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Tile extents for an axis of `extent`: the even splits ceil(extent / d) for geometrically spaced d,
// within [lo, hi] (lo is lowered to the extent when the axis is shorter).
std::vector<std::int64_t> axis_candidates(std::int64_t extent, std::int64_t lo, std::int64_t hi) {
  lo = std::min(std::max<std::int64_t>(lo, 1), extent);
  hi = hi > 0 ? std::min(hi, extent) : extent;
  std::set<std::int64_t> values;
  for (double d = 1; d <= static_cast<double>(extent); d = std::max(d + 1, d * 1.15)) {
    const std::int64_t v = ceil_div(extent, static_cast<std::int64_t>(d));
    if (v >= lo && v <= hi) values.insert(v);
  }
  if (lo <= hi) {
    values.insert(hi);
    values.insert(lo);
  }
  return {values.rbegin(), values.rend()};  // largest first
}

struct Traffic {
  std::int64_t in = 0, out = 0, steps = 0;
  bool rows_outer = true;
};

Traffic traffic(const PlanRequest& r, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  const std::int64_t tiles_m = ceil_div(r.m, tm), tiles_n = ceil_div(r.n, tn), steps_k = ceil_div(r.k, tk);
  Traffic t;
  t.out = r.m * r.n * r.element_size;
  t.steps = tiles_m * tiles_n * steps_k;
  const std::int64_t a_all = r.m * r.k * r.element_size, b_all = r.k * r.n * r.element_size;
  if (steps_k == 1) {
    // The panel shared by consecutive tiles stays resident: reuse whichever saves more.
    const std::int64_t rows_outer = a_all + tiles_m * b_all;
    const std::int64_t cols_outer = b_all + tiles_n * a_all;
    t.rows_outer = rows_outer <= cols_outer;
    t.in = std::min(rows_outer, cols_outer);
  } else {
    t.in = tiles_n * a_all + tiles_m * b_all;
  }
  return t;
}

double cost(const Traffic& t) { return static_cast<double>(t.in + t.out) + kStepCostBytes * static_cast<double>(t.steps); }

Plan make_plan(const PlanRequest& r, ChunkingStrategy s, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  Plan p;
  p.k = r.k;
  p.strategy = s;
  p.tile_m = tm;
  p.tile_n = tn;
  p.tile_k = tk;
  const Traffic t = traffic(r, tm, tn, tk);
  p.rows_outer = t.rows_outer;
  p.bytes_in = t.in;
  p.bytes_out = t.out;
  p.device_bytes = plan_footprint(tm, tn, tk, r.element_size, r.panels_in_flight, r.output_buffers);
  const std::int64_t tiles_m = ceil_div(r.m, tm), tiles_n = ceil_div(r.n, tn);
  p.tiles.reserve(static_cast<std::size_t>(tiles_m * tiles_n));
  auto tile = [&](std::int64_t i, std::int64_t j) {
    return OutputChunk{i * tm, std::min(tm, r.m - i * tm), j * tn, std::min(tn, r.n - j * tn)};
  };
  if (p.rows_outer) {
    for (std::int64_t i = 0; i < tiles_m; ++i)
      for (std::int64_t j = 0; j < tiles_n; ++j) p.tiles.push_back(tile(i, j));
  } else {
    for (std::int64_t j = 0; j < tiles_n; ++j)
      for (std::int64_t i = 0; i < tiles_m; ++i) p.tiles.push_back(tile(i, j));
  }
  return p;
}

void check_request(const PlanRequest& r) {
  ACC_CHECK(r.m > 0 && r.n > 0 && r.k > 0, ValueError, "plan: matrix extents must be positive (M={}, N={}, K={})",
            r.m, r.n, r.k);
  ACC_CHECK(r.element_size > 0 && r.budget_bytes > 0, ValueError, "plan: element size and budget must be positive");
  ACC_CHECK(r.panels_in_flight >= 1 && r.output_buffers >= 1, ValueError, "plan: at least one buffer of each kind");
  ACC_CHECK(r.min_chunk >= 1, ValueError, "plan: the minimum chunk size must be >= 1, got {}", r.min_chunk);
  ACC_CHECK(r.max_chunk == 0 || r.max_chunk >= r.min_chunk, ValueError,
            "plan: the maximum chunk size ({}) is below the minimum ({})", r.max_chunk, r.min_chunk);
  ACC_CHECK(r.chunk_size >= 0, ValueError, "plan: the chunk size must be >= 0 (0: automatic), got {}", r.chunk_size);
}

std::string describe(const OutputChunk& c) {
  return fmt::format("rows [{}, {}) x cols [{}, {})", c.row0, c.row0 + c.rows, c.col0, c.col0 + c.cols);
}

[[noreturn]] void too_small(const PlanRequest& r, std::int64_t tm, std::int64_t tn) {
  const std::int64_t need = plan_footprint(tm, tn, 1, r.element_size, r.panels_in_flight, r.output_buffers);
  throw OutOfMemoryError(fmt::format(
      "the device budget of {} bytes cannot hold even a {}x{} output tile with its panels ({} bytes); raise the "
      "budget or lower the minimum chunk size",
      r.budget_bytes, tm, tn, need));
}

}  // namespace

std::int64_t Plan::k_steps() const { return ceil_div(k, tile_k); }

std::int64_t plan_footprint(std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t e, int panels,
                            int outputs) {
  auto rounded = [](std::int64_t bytes) {
    return static_cast<std::int64_t>(CachingAllocator::round_size(static_cast<std::size_t>(bytes)));
  };
  return outputs * rounded(tm * tn * e) + panels * (rounded(tm * tk * e) + rounded(tk * tn * e));
}

Plan plan_matmul(const PlanRequest& r) {
  check_request(r);
  const ChunkingStrategy s = r.strategy;
  std::vector<std::int64_t> ms, ns;
  if (r.chunk_size > 0) {
    ms = {std::min(r.chunk_size, r.m)};
    ns = {s == ChunkingStrategy::row ? r.n : std::min(r.chunk_size, r.n)};
  } else {
    ms = axis_candidates(r.m, r.min_chunk, r.max_chunk);
    ns = s == ChunkingStrategy::row ? std::vector<std::int64_t>{r.n} : axis_candidates(r.n, r.min_chunk, r.max_chunk);
  }
  const std::vector<std::int64_t> ks = axis_candidates(r.k, 1, 0);

  auto search = [&](const std::vector<std::int64_t>& m_values, const std::vector<std::int64_t>& n_values,
                    bool square) -> std::optional<Plan> {
    double best_cost = std::numeric_limits<double>::infinity();
    std::int64_t bm = 0, bn = 0, bk = 0;
    for (std::int64_t tm : m_values) {
      for (std::int64_t tn : n_values) {
        // Square tiles: equal edges, except where an axis is shorter than the edge.
        if (square && std::min(tm, r.n) != tn && std::min(tn, r.m) != tm) continue;
        for (std::int64_t tk : ks) {
          if (plan_footprint(tm, tn, tk, r.element_size, r.panels_in_flight, r.output_buffers) > r.budget_bytes) {
            continue;  // smaller tk may fit: ks is largest first
          }
          const double c = cost(traffic(r, tm, tn, tk));
          if (c < best_cost) {
            best_cost = c;
            bm = tm;
            bn = tn;
            bk = tk;
          }
          break;  // the largest tk that fits is the cheapest for this tm, tn
        }
      }
    }
    if (bm == 0) return std::nullopt;
    const ChunkingStrategy used =
        s == ChunkingStrategy::adaptive ? (bn == r.n ? ChunkingStrategy::row : ChunkingStrategy::tile) : s;
    return make_plan(r, used, bm, bn, bk);
  };

  std::optional<Plan> plan;
  if (s == ChunkingStrategy::tile && r.chunk_size == 0) {
    // Square tiles: one edge candidate list over the longer axis, clamped to each axis.
    const auto edges = axis_candidates(std::max(r.m, r.n), r.min_chunk, r.max_chunk);
    std::vector<std::int64_t> m_values, n_values;
    for (auto e : edges) {
      m_values.push_back(std::min(e, r.m));
      n_values.push_back(std::min(e, r.n));
    }
    std::sort(m_values.rbegin(), m_values.rend());
    m_values.erase(std::unique(m_values.begin(), m_values.end()), m_values.end());
    std::sort(n_values.rbegin(), n_values.rend());
    n_values.erase(std::unique(n_values.begin(), n_values.end()), n_values.end());
    plan = search(m_values, n_values, true);
  } else {
    plan = search(ms, ns, false);
  }
  if (!plan && s == ChunkingStrategy::row && r.chunk_size == 0) {
    // Not even one row of C with its panels fits: split the columns as well.
    plan = search(ms, axis_candidates(r.n, r.min_chunk, r.max_chunk), false);
    if (plan) plan->strategy = ChunkingStrategy::row;
  }
  if (!plan) {
    if (r.chunk_size > 0) {
      throw ValueError(fmt::format("a fixed chunk of {} does not fit the device budget of {} bytes: lower the chunk "
                                   "size or raise the budget",
                                   r.chunk_size, r.budget_bytes));
    }
    too_small(r, std::min(std::max<std::int64_t>(r.min_chunk, 1), r.m), std::min(std::max<std::int64_t>(r.min_chunk, 1), r.n));
  }
  return *plan;
}

void check_exact_cover(const std::vector<OutputChunk>& chunks, std::int64_t m, std::int64_t n) {
  ACC_CHECK(!chunks.empty(), ValueError, "the chunking strategy returned no chunks for the {}x{} result", m, n);
  for (const auto& c : chunks) {
    ACC_CHECK(c.rows > 0 && c.cols > 0, ValueError, "chunk {} is empty", describe(c));
    ACC_CHECK(c.row0 >= 0 && c.col0 >= 0, ValueError, "chunk {} starts before the result's first row or column",
              describe(c));
    ACC_CHECK(c.row0 + c.rows <= m, ValueError, "chunk {} extends past the result's {} rows", describe(c), m);
    ACC_CHECK(c.col0 + c.cols <= n, ValueError, "chunk {} extends past the result's {} columns", describe(c), n);
  }
  // No two chunks overlap (checked against those starting above each one's last row) and together they
  // have the area of C: every element is computed exactly once.
  std::vector<std::size_t> order(chunks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto x, auto y) { return chunks[x].row0 < chunks[y].row0; });
  for (std::size_t a = 0; a < order.size(); ++a) {
    const auto& ca = chunks[order[a]];
    for (std::size_t b = a + 1; b < order.size() && chunks[order[b]].row0 < ca.row0 + ca.rows; ++b) {
      const auto& cb = chunks[order[b]];
      const bool cols_overlap = cb.col0 < ca.col0 + ca.cols && ca.col0 < cb.col0 + cb.cols;
      ACC_CHECK(!cols_overlap, ValueError, "chunks {} and {} overlap", describe(ca), describe(cb));
    }
  }
  std::int64_t area = 0;
  for (const auto& c : chunks) area += c.rows * c.cols;
  ACC_CHECK(area == m * n, ValueError, "the chunks cover {} of the {} elements of the {}x{} result", area, m * n, m,
            n);
}

Plan plan_from_tiles(const PlanRequest& r, std::vector<OutputChunk> tiles) {
  check_request(r);
  check_exact_cover(tiles, r.m, r.n);
  std::int64_t tm = 0, tn = 0;
  for (const auto& t : tiles) {
    tm = std::max(tm, t.rows);
    tn = std::max(tn, t.cols);
  }
  std::int64_t tk = 0;
  for (std::int64_t candidate : axis_candidates(r.k, 1, 0)) {
    if (plan_footprint(tm, tn, candidate, r.element_size, r.panels_in_flight, r.output_buffers) <= r.budget_bytes) {
      tk = candidate;
      break;
    }
  }
  if (tk == 0) too_small(r, tm, tn);
  Plan p;
  p.k = r.k;
  p.strategy = ChunkingStrategy::tile;
  p.tile_m = tm;
  p.tile_n = tn;
  p.tile_k = tk;
  p.rows_outer = true;
  p.device_bytes = plan_footprint(tm, tn, tk, r.element_size, r.panels_in_flight, r.output_buffers);
  // An upper bound: panel reuse between consecutive chunks is found at run time.
  for (const auto& t : tiles) p.bytes_in += (t.rows + t.cols) * r.k * r.element_size;
  p.bytes_out = r.m * r.n * r.element_size;
  p.tiles = std::move(tiles);
  return p;
}

void describe_plan(const Plan& plan, bool caller_chunks, RunStats& stats) {
  stats.strategy = caller_chunks ? "chunks" : std::string(strategy_name(plan.strategy));
  stats.tile_m = plan.tile_m;
  stats.tile_n = plan.tile_n;
  stats.tile_k = plan.tile_k;
  stats.k_steps = plan.k_steps();
  stats.tiles = static_cast<std::int64_t>(plan.tiles.size());
}

}  // namespace accelera::engine
