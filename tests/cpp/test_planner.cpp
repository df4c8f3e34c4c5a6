// The out-of-core planner (Note [Out-of-core matmul plan]): properties over thousands of requests.
#include <array>
#include <random>

#include "engine/tile_planner.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

using accelera::ChunkingStrategy;
using accelera::OutputChunk;
using accelera::engine::check_exact_cover;
using accelera::engine::Plan;
using accelera::engine::plan_footprint;
using accelera::engine::plan_from_tiles;
using accelera::engine::plan_matmul;
using accelera::engine::PlanRequest;

// Every element of C is covered by exactly one tile (checked on a grid of counters).
void expect_exact_cover(const Plan& plan, std::int64_t m, std::int64_t n) {
  std::vector<int> count(static_cast<std::size_t>(m * n), 0);
  for (const auto& t : plan.tiles) {
    ASSERT_GT(t.rows, 0);
    ASSERT_GT(t.cols, 0);
    ASSERT_LE(t.rows, plan.tile_m);
    ASSERT_LE(t.cols, plan.tile_n);
    ASSERT_LE(t.row0 + t.rows, m);
    ASSERT_LE(t.col0 + t.cols, n);
    for (std::int64_t i = t.row0; i < t.row0 + t.rows; ++i)
      for (std::int64_t j = t.col0; j < t.col0 + t.cols; ++j) ++count[static_cast<std::size_t>(i * n + j)];
  }
  for (int c : count) ASSERT_EQ(c, 1);
}

TEST(Planner, RandomRequestsCoverCOnceWithinBudget) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::int64_t> extent(1, 300);
  const ChunkingStrategy strategies[] = {ChunkingStrategy::row, ChunkingStrategy::tile, ChunkingStrategy::adaptive};
  int planned = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    PlanRequest r;
    r.m = extent(rng);
    r.n = extent(rng);
    r.k = extent(rng);
    r.element_size = trial % 2 ? 4 : 8;
    r.strategy = strategies[trial % 3];
    r.budget_bytes = std::uniform_int_distribution<std::int64_t>(512, 4 * (r.m * r.n + r.m * r.k + r.k * r.n) * 8)(rng);
    if (trial % 7 == 0) r.min_chunk = std::uniform_int_distribution<std::int64_t>(1, 64)(rng);
    if (trial % 11 == 0) r.max_chunk = r.min_chunk + std::uniform_int_distribution<std::int64_t>(0, 100)(rng);
    Plan plan;
    try {
      plan = plan_matmul(r);
    } catch (const accelera::OutOfMemoryError&) {
      // Refused only when the smallest allowed tile with a K step of 1 does not fit.
      const std::int64_t lo_m = std::min(r.min_chunk, r.m), lo_n = std::min(r.min_chunk, r.n);
      EXPECT_GT(plan_footprint(lo_m, lo_n, 1, r.element_size, 2, 2), r.budget_bytes);
      ++refused;
      continue;
    }
    ++planned;
    SCOPED_TRACE(::testing::Message() << "M=" << r.m << " N=" << r.n << " K=" << r.k << " budget=" << r.budget_bytes
                                      << " strategy=" << static_cast<int>(r.strategy));
    EXPECT_LE(plan.device_bytes, r.budget_bytes);
    EXPECT_EQ(plan.device_bytes, plan_footprint(plan.tile_m, plan.tile_n, plan.tile_k, r.element_size, 2, 2));
    EXPECT_GE(plan.tile_k, 1);
    EXPECT_LE(plan.tile_k, r.k);
    EXPECT_NE(plan.strategy, ChunkingStrategy::adaptive);
    if (r.strategy == ChunkingStrategy::tile) {
      EXPECT_TRUE(plan.tile_m == plan.tile_n || plan.tile_m == r.m || plan.tile_n == r.n);
    }
    if (r.max_chunk > 0) {
      EXPECT_LE(plan.tile_m, std::max(r.max_chunk, std::int64_t{1}));
    }
    EXPECT_GE(plan.tile_m, std::min(r.min_chunk, r.m));
    expect_exact_cover(plan, r.m, r.n);
    // Predicted traffic: at least each operand once, and the result once.
    EXPECT_GE(plan.bytes_in, (r.m * r.k + r.k * r.n) * r.element_size);
    EXPECT_EQ(plan.bytes_out, r.m * r.n * r.element_size);
  }
  EXPECT_GT(planned, 2000);
  EXPECT_GT(refused, 0);
}

TEST(Planner, EverythingFitsIsOneTile) {
  PlanRequest r{.m = 100, .n = 200, .k = 300, .element_size = 4, .budget_bytes = 1 << 30};
  const Plan plan = plan_matmul(r);
  EXPECT_EQ(plan.tiles.size(), 1u);
  EXPECT_EQ(plan.k_steps(), 1);
  EXPECT_EQ(plan.bytes_in, (100 * 300 + 300 * 200) * 4);
}

TEST(Planner, RowStrategyKeepsWholeRows) {
  PlanRequest r{
      .m = 1000, .n = 64, .k = 64, .element_size = 4, .budget_bytes = 200000, .strategy = ChunkingStrategy::row};
  const Plan plan = plan_matmul(r);
  EXPECT_EQ(plan.tile_n, 64);
  EXPECT_GT(plan.tiles.size(), 1u);
  for (const auto& t : plan.tiles) EXPECT_EQ(t.cols, 64);
}

TEST(Planner, RowStrategySplitsColumnsWhenOneRowIsTooWide) {
  PlanRequest r{
      .m = 10, .n = 100000, .k = 10, .element_size = 4, .budget_bytes = 64 * 1024, .strategy = ChunkingStrategy::row};
  const Plan plan = plan_matmul(r);
  EXPECT_LT(plan.tile_n, r.n);
  EXPECT_LE(plan.device_bytes, r.budget_bytes);
  expect_exact_cover(plan, r.m, r.n);
}

TEST(Planner, TrafficApproachesTheLowerBoundForLargeSquareProblems) {
  // 16384^3 float32 with 256 MiB: the output-stationary schedule moves within ~2x of 2MNK/sqrt(S) + MN.
  PlanRequest r{.m = 16384, .n = 16384, .k = 16384, .element_size = 4, .budget_bytes = 256ll << 20};
  const Plan plan = plan_matmul(r);
  const double s_elems = static_cast<double>(r.budget_bytes) / 4;
  const double bound = 2.0 * 16384.0 * 16384.0 * 16384.0 / std::sqrt(s_elems) * 4;
  EXPECT_LE(static_cast<double>(plan.bytes_in), 2.0 * bound);
  EXPECT_LE(plan.device_bytes, r.budget_bytes);
}

TEST(Planner, HugeExtentsBeyond32Bits) {
  PlanRequest r{.m = 3'000'000'000, .n = 8, .k = 8, .element_size = 4, .budget_bytes = 1ll << 30};
  const Plan plan = plan_matmul(r);
  std::int64_t rows = 0;
  for (const auto& t : plan.tiles) {
    if (t.col0 == 0) rows += t.rows;
  }
  EXPECT_EQ(rows, r.m);
  EXPECT_LE(plan.device_bytes, r.budget_bytes);
}

TEST(Planner, FixedChunkIsHonouredOrRefused) {
  PlanRequest r{.m = 1000,
                .n = 1000,
                .k = 100,
                .element_size = 4,
                .budget_bytes = 64 << 20,
                .strategy = ChunkingStrategy::tile,
                .chunk_size = 300};
  const Plan plan = plan_matmul(r);
  EXPECT_EQ(plan.tile_m, 300);
  EXPECT_EQ(plan.tile_n, 300);
  expect_exact_cover(plan, r.m, r.n);
  r.budget_bytes = 100000;
  EXPECT_THROW(plan_matmul(r), accelera::ValueError);
}

TEST(Planner, BadRequestsAreTyped) {
  EXPECT_THROW(plan_matmul(PlanRequest{.m = 0, .n = 1, .k = 1, .budget_bytes = 1 << 20}), accelera::ValueError);
  EXPECT_THROW(plan_matmul(PlanRequest{.m = 1, .n = 1, .k = 1, .budget_bytes = 0}), accelera::ValueError);
  EXPECT_THROW(plan_matmul(PlanRequest{.m = 1, .n = 1, .k = 1, .budget_bytes = 1 << 20, .min_chunk = 0}),
               accelera::ValueError);
  EXPECT_THROW(plan_matmul(PlanRequest{.m = 100, .n = 100, .k = 100, .budget_bytes = 100}), accelera::OutOfMemoryError);
}

TEST(Planner, UserTilesAreValidated) {
  PlanRequest r{.m = 10, .n = 10, .k = 5, .element_size = 4, .budget_bytes = 1 << 20};
  const Plan ok = plan_from_tiles(r, {{0, 5, 0, 10}, {5, 5, 0, 3}, {5, 5, 3, 7}});
  expect_exact_cover(ok, 10, 10);
  EXPECT_THROW(plan_from_tiles(r, {}), accelera::ValueError);
  EXPECT_THROW(plan_from_tiles(r, {{0, 10, 0, 10}, {0, 1, 0, 1}}), accelera::ValueError);  // overlap
  EXPECT_THROW(plan_from_tiles(r, {{0, 5, 0, 10}}), accelera::ValueError);                 // a gap
  EXPECT_THROW(plan_from_tiles(r, {{0, 11, 0, 10}}), accelera::ValueError);                // outside
  EXPECT_THROW(plan_from_tiles(r, {{0, 0, 0, 10}, {0, 10, 0, 10}}), accelera::ValueError);  // empty
  r.budget_bytes = 600;
  EXPECT_THROW(plan_from_tiles(r, {{0, 10, 0, 10}}), accelera::OutOfMemoryError);
}

// The message of the ValueError check_exact_cover throws for `chunks` over an m x n result.
std::string cover_error(const std::vector<OutputChunk>& chunks, std::int64_t m, std::int64_t n) {
  try {
    check_exact_cover(chunks, m, n);
  } catch (const accelera::ValueError& error) {
    return error.what();
  }
  return "no error";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Planner, ChunksOutsideTheResultAreRejectedNamingTheBound) {
  EXPECT_EQ(cover_error({{0, 300, 0, 40}}, 300, 40), "no error");
  // A chunk reaching past the result is refused, not clipped to it.
  EXPECT_PRED2(contains, cover_error({{0, 1000, 0, 40}}, 300, 40),
               "rows [0, 1000) x cols [0, 40) extends past the result's 300 rows");
  EXPECT_PRED2(contains, cover_error({{0, 300, 0, 41}}, 300, 40), "past the result's 40 columns");
  EXPECT_PRED2(contains, cover_error({{-1, 301, 0, 40}}, 300, 40), "starts before");
  EXPECT_PRED2(contains, cover_error({{0, 300, 0, 40}, {5, 0, 0, 40}}, 300, 40), "is empty");
  EXPECT_PRED2(contains, cover_error({{0, 150, 0, 40}, {100, 200, 0, 40}}, 300, 40), "overlap");
  EXPECT_PRED2(contains, cover_error({{0, 150, 0, 40}}, 300, 40), "cover 6000 of the 12000 elements");
  EXPECT_PRED2(contains, cover_error({}, 300, 40), "no chunks");
}

// Strategy names are parsed once, where a caller names one (the command line, the Python bindings); below
// that the engine and the planner see the type.
TEST(Planner, StrategyNamesParseIntoTheTypeOrAreRefusedNamingTheChoices) {
  // The list the messages and the command line's help are built from: every strategy, in this order.
  const std::array<ChunkingStrategy, 3> expected = {ChunkingStrategy::row, ChunkingStrategy::tile,
                                                    ChunkingStrategy::adaptive};
  EXPECT_EQ(accelera::kChunkingStrategies, expected);
  for (const auto s : accelera::kChunkingStrategies) {
    EXPECT_EQ(accelera::parse_chunking_strategy(accelera::strategy_name(s)), s);
  }
  for (const std::string bad : {"spiral", "", "Row", "tile ", "chunks"}) {
    try {
      accelera::parse_chunking_strategy(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const accelera::ValueError& error) {
      EXPECT_PRED2(contains, error.what(), "'" + bad + "': expected 'row', 'tile' or 'adaptive'");
    }
  }
}

}  // namespace
}  // namespace acc_test
