// accelera::dist under mpirun (ctest runs this with 1, 2, 3 and 4 ranks, on every grid shape of that many):
// accelera_pdgemm / accelera_psgemm against float64 references and against ScaLAPACK's own pdgemm_ /
// psgemm_ on the same grids and data, with odd sizes, blocks that do not divide them, grids that start
// off process (0, 0), padded leading dimensions (whose padding must stay untouched), alpha and beta,
// transposed operands, submatrices and distributions that do not line up; bad
// arguments give every rank the same error; the block-cyclic index arithmetic against ScaLAPACK's NUMROC.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "accelera/accelera.hpp"
#include "accelera/dist.hpp"
#include "accelera/dist_matrix.hpp"
#include "dist/scalapack.hpp"


namespace {

using accelera::dist::Descriptor;
using accelera::dist::global_index;
using accelera::dist::local_extent;

int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Every nprow x npcol grid of the job's processes.
std::vector<std::pair<int, int>> grid_shapes() {
  std::vector<std::pair<int, int>> shapes;
  const int p = world_size();
  for (int r = 1; r <= p; ++r)
    if (p % r == 0) shapes.emplace_back(r, p / r);
  return shapes;
}

struct BlacsGrid {
  int context = -1, nprow = 0, npcol = 0, myrow = -1, mycol = -1;
  BlacsGrid(int rows, int cols) {
    Cblacs_get(-1, 0, &context);
    Cblacs_gridinit(&context, "Row", rows, cols);
    accelera::dist::ProcessGrid g = accelera::dist::ProcessGrid::from_blacs(context);
    nprow = g.nprow;
    npcol = g.npcol;
    myrow = g.myrow;
    mycol = g.mycol;
  }
  ~BlacsGrid() { Cblacs_gridexit(context); }
};

constexpr double kPad = 12345.0;  // what the padding rows of a local array hold, before and after

// This process's part of a column-major global matrix, with `pad` extra rows in its leading dimension.
template <class T>
struct LocalPart {
  std::vector<T> data;
  std::int64_t rows = 0, cols = 0;
  int desc[9] = {};
};

template <class T>
LocalPart<T> distribute(const std::vector<double>& global, int m, int n, int mb, int nb, int rsrc, int csrc,
                        const BlacsGrid& g, int pad) {
  LocalPart<T> part;
  part.rows = local_extent(m, mb, g.myrow, rsrc, g.nprow);
  part.cols = local_extent(n, nb, g.mycol, csrc, g.npcol);
  const int lld = static_cast<int>(std::max<std::int64_t>(1, part.rows) + pad);
  part.data.assign(static_cast<std::size_t>(lld * std::max<std::int64_t>(1, part.cols)), static_cast<T>(kPad));
  for (std::int64_t j = 0; j < part.cols; ++j) {
    const std::int64_t gj = global_index(j, nb, g.mycol, csrc, g.npcol);
    for (std::int64_t i = 0; i < part.rows; ++i) {
      const std::int64_t gi = global_index(i, mb, g.myrow, rsrc, g.nprow);
      part.data[static_cast<std::size_t>(j * lld + i)] = static_cast<T>(global[static_cast<std::size_t>(gj * m + gi)]);
    }
  }
  const int d[9] = {1, g.context, m, n, mb, nb, rsrc, csrc, lld};
  std::copy(d, d + 9, part.desc);
  return part;
}

std::vector<double> random_matrix(int rows, int cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (auto& x : v) x = u(rng);
  return v;
}

struct Case {
  int m, n, k, mb, nb, kb, rsrc, csrc, a_csrc, b_rsrc;
  double alpha, beta;
};

template <class T>
void pgemm_scalapack(const char* t, const int* m, const int* n, const int* k, const T* alpha, const T* a,
                     const int* one, const int* da, const T* b, const int* db, const T* beta, T* c, const int* dc);
template <>
void pgemm_scalapack<double>(const char* t, const int* m, const int* n, const int* k, const double* alpha,
                             const double* a, const int* one, const int* da, const double* b, const int* db,
                             const double* beta, double* c, const int* dc) {
  pdgemm_(t, t, m, n, k, alpha, a, one, one, da, b, one, one, db, beta, c, one, one, dc);
}
template <>
void pgemm_scalapack<float>(const char* t, const int* m, const int* n, const int* k, const float* alpha,
                            const float* a, const int* one, const int* da, const float* b, const int* db,
                            const float* beta, float* c, const int* dc) {
  psgemm_(t, t, m, n, k, alpha, a, one, one, da, b, one, one, db, beta, c, one, one, dc);
}

using accelera::dist::Schedule;

// Accelera's product with ScaLAPACK's arguments: through the C entry (accelera_pdgemm / accelera_psgemm)
// for Schedule::automatic, through dist::gemm with the schedule forced otherwise.
template <class T>
void accelera_pgemm(Schedule schedule, const char* ta, const char* tb, const int* m, const int* n, const int* k,
                    const T* alpha, const T* a, const int* ia, const int* ja, const int* da, const T* b, const int* ib,
                    const int* jb, const int* db, const T* beta, T* c, const int* ic, const int* jc, const int* dc) {
  if (schedule != Schedule::automatic) {
    accelera::dist::GemmOptions options;
    options.schedule = schedule;
    accelera::dist::GemmStats stats;
    accelera::dist::gemm<T>(*ta, *tb, *m, *n, *k, *alpha, a, *ia, *ja, Descriptor::from_scalapack(da), b, *ib, *jb,
                            Descriptor::from_scalapack(db), *beta, c, *ic, *jc, Descriptor::from_scalapack(dc), options,
                            &stats);
    const bool empty = *m == 0 || *n == 0 || *k == 0 || *alpha == T(0);
    EXPECT_EQ(stats.schedule, empty || schedule == Schedule::summa ? "summa" : "split_k");
  } else if constexpr (std::is_same_v<T, double>) {
    accelera_pdgemm(ta, tb, m, n, k, alpha, a, ia, ja, da, b, ib, jb, db, beta, c, ic, jc, dc);
  } else {
    accelera_psgemm(ta, tb, m, n, k, alpha, a, ia, ja, da, b, ib, jb, db, beta, c, ic, jc, dc);
  }
}

template <class T>
void check_case(const Case& cs, const BlacsGrid& g, std::mt19937_64& rng, Schedule schedule) {
  const auto a = random_matrix(cs.m, cs.k, rng), b = random_matrix(cs.k, cs.n, rng);
  auto c0 = random_matrix(cs.m, cs.n, rng);
  // beta = 0 does not read C: NaNs there must not reach the result (BLAS's rule).
  if (cs.beta == 0) std::fill(c0.begin(), c0.end(), std::nan(""));
  const auto la = distribute<T>(a, cs.m, cs.k, cs.mb, cs.kb, cs.rsrc, cs.a_csrc, g, 1);
  const auto lb = distribute<T>(b, cs.k, cs.n, cs.kb, cs.nb, cs.b_rsrc, cs.csrc, g, 0);
  auto mine = distribute<T>(c0, cs.m, cs.n, cs.mb, cs.nb, cs.rsrc, cs.csrc, g, 2);
  auto theirs = mine;
  const T alpha = static_cast<T>(cs.alpha), beta = static_cast<T>(cs.beta);
  const int one = 1;
  accelera_pgemm<T>(schedule, "N", "N", &cs.m, &cs.n, &cs.k, &alpha, la.data.data(), &one, &one, la.desc,
                    lb.data.data(), &one, &one, lb.desc, &beta, mine.data.data(), &one, &one, mine.desc);
  pgemm_scalapack<T>("N", &cs.m, &cs.n, &cs.k, &alpha, la.data.data(), &one, la.desc, lb.data.data(), lb.desc, &beta,
                     theirs.data.data(), theirs.desc);
  const double eps = std::is_same_v<T, float> ? 6e-8 : 1.2e-16;
  const int lld = mine.desc[8];
  std::int64_t bad = 0;
  for (std::int64_t j = 0; j < std::max<std::int64_t>(1, mine.cols); ++j) {
    for (std::int64_t i = 0; i < lld; ++i) {
      const auto at = static_cast<std::size_t>(j * lld + i);
      if (i >= mine.rows || j >= mine.cols) {
        if (mine.data[at] != static_cast<T>(kPad)) ++bad;  // padding untouched
        continue;
      }
      const std::int64_t gi = global_index(i, cs.mb, g.myrow, cs.rsrc, g.nprow);
      const std::int64_t gj = global_index(j, cs.nb, g.mycol, cs.csrc, g.npcol);
      double want =
          cs.beta == 0 ? 0.0 : cs.beta * static_cast<double>(static_cast<T>(c0[static_cast<std::size_t>(gj * cs.m + gi)]));
      double scale = std::abs(want);
      for (int p = 0; p < cs.k; ++p) {
        const double x = static_cast<double>(static_cast<T>(a[static_cast<std::size_t>(p * cs.m + gi)])) *
                         static_cast<double>(static_cast<T>(b[static_cast<std::size_t>(gj * cs.k + p)]));
        want += cs.alpha * x;
        scale += std::abs(cs.alpha * x);
      }
      const double tol = 8 * eps * (cs.k + 2) * std::max(scale, 1e-30);
      const double got = mine.data[at], ref = theirs.data[at];
      if (!(std::abs(got - want) <= tol) || !(std::abs(got - ref) <= 2 * tol)) {
        if (bad++ < 3)
          ADD_FAILURE() << "C(" << gi << "," << gj << ") = " << got << ", float64 " << want << ", ScaLAPACK " << ref;
      }
    }
  }
  EXPECT_EQ(bad, 0) << "grid " << g.nprow << "x" << g.npcol << " m n k " << cs.m << " " << cs.n << " " << cs.k
                    << " blocks " << cs.mb << "/" << cs.nb << "/" << cs.kb << " schedule " << static_cast<int>(schedule);
}

TEST(Dist, PgemmMatchesFloat64AndScaLAPACKOnEveryGrid) {
  std::mt19937_64 rng(2026);
  const Case cases[] = {
      {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1.0, 0.0},        {37, 53, 29, 4, 5, 3, 0, 0, 0, 0, 1.0, 0.0},
      {37, 53, 29, 8, 8, 8, 1, 1, 1, 1, -0.5, 2.0},    {64, 48, 300, 16, 16, 7, 0, 1, 1, 0, 1.5, 1.0},
      {3, 70, 513, 2, 9, 64, 1, 0, 1, 1, 1.0, -1.0},   {100, 1, 40, 7, 1, 11, 0, 0, 0, 1, 2.0, 0.5},
      {5, 7, 0, 2, 2, 2, 0, 0, 0, 0, 1.0, 3.0},        {20, 20, 20, 32, 32, 32, 0, 0, 0, 0, 0.0, 0.5},
  };
  for (const auto& [rows, cols] : grid_shapes()) {
    BlacsGrid g(rows, cols);
    for (Case cs : cases) {
      // Process offsets must name processes of this grid.
      cs.rsrc %= rows;
      cs.b_rsrc %= rows;
      cs.csrc %= cols;
      cs.a_csrc %= cols;
      for (const Schedule schedule : {Schedule::automatic, Schedule::summa, Schedule::split_k}) {
        check_case<double>(cs, g, rng, schedule);
        check_case<float>(cs, g, rng, schedule);
      }
    }
  }
}

// Transposed operands, submatrices starting anywhere and independent distributions of A, B and C: what a
// ScaLAPACK program passes. accelera_pdgemm against float64 and against ScaLAPACK's pdgemm_ with the same
// arguments; C outside its submatrix (and the padding) stays as it was.
struct GeneralCase {
  char ta, tb;
  int m, n, k;
  int ia, ja, ib, jb, ic, jc;
  int a_mb, a_nb, b_mb, b_nb, c_mb, c_nb;
  int a_src, b_src, c_src;  // the process row and column (modulo the grid) holding each matrix's block (0, 0)
  double alpha, beta;
};

template <class T>
void check_general(const GeneralCase& cs, const BlacsGrid& g, std::mt19937_64& rng, Schedule schedule) {
  const bool ta = cs.ta != 'N', tb = cs.tb != 'N';
  // Whole matrices, a little larger than the regions so that the offsets matter.
  const int am = cs.ia - 1 + (ta ? cs.k : cs.m) + 2, an = cs.ja - 1 + (ta ? cs.m : cs.k) + 1;
  const int bm = cs.ib - 1 + (tb ? cs.n : cs.k) + 1, bn = cs.jb - 1 + (tb ? cs.k : cs.n) + 2;
  const int cm = cs.ic - 1 + cs.m + 3, cn = cs.jc - 1 + cs.n + 1;
  const auto a = random_matrix(am, an, rng), b = random_matrix(bm, bn, rng), c0 = random_matrix(cm, cn, rng);
  const auto la = distribute<T>(a, am, an, cs.a_mb, cs.a_nb, cs.a_src % g.nprow, (cs.a_src + 1) % g.npcol, g, 1);
  const auto lb = distribute<T>(b, bm, bn, cs.b_mb, cs.b_nb, (cs.b_src + 1) % g.nprow, cs.b_src % g.npcol, g, 0);
  auto mine = distribute<T>(c0, cm, cn, cs.c_mb, cs.c_nb, cs.c_src % g.nprow, cs.c_src % g.npcol, g, 2);
  auto theirs = mine;
  const T alpha = static_cast<T>(cs.alpha), beta = static_cast<T>(cs.beta);
  const char ta_s[2] = {cs.ta, 0}, tb_s[2] = {cs.tb, 0};
  accelera_pgemm<T>(schedule, ta_s, tb_s, &cs.m, &cs.n, &cs.k, &alpha, la.data.data(), &cs.ia, &cs.ja, la.desc,
                    lb.data.data(), &cs.ib, &cs.jb, lb.desc, &beta, mine.data.data(), &cs.ic, &cs.jc, mine.desc);
  if constexpr (std::is_same_v<T, double>) {
    pdgemm_(ta_s, tb_s, &cs.m, &cs.n, &cs.k, &alpha, la.data.data(), &cs.ia, &cs.ja, la.desc, lb.data.data(), &cs.ib,
            &cs.jb, lb.desc, &beta, theirs.data.data(), &cs.ic, &cs.jc, theirs.desc);
  } else {
    psgemm_(ta_s, tb_s, &cs.m, &cs.n, &cs.k, &alpha, la.data.data(), &cs.ia, &cs.ja, la.desc, lb.data.data(), &cs.ib,
            &cs.jb, lb.desc, &beta, theirs.data.data(), &cs.ic, &cs.jc, theirs.desc);
  }
  const double eps = std::is_same_v<T, float> ? 6e-8 : 1.2e-16;
  const int lld = mine.desc[8], c_rsrc = mine.desc[6], c_csrc = mine.desc[7];
  auto at = [](const std::vector<double>& v, int rows, int i, int j) { return static_cast<double>(static_cast<T>(v[static_cast<std::size_t>(j) * rows + i])); };
  std::int64_t bad = 0;
  for (std::int64_t j = 0; j < std::max<std::int64_t>(1, mine.cols); ++j) {
    for (std::int64_t i = 0; i < lld; ++i) {
      const auto idx = static_cast<std::size_t>(j * lld + i);
      if (i >= mine.rows || j >= mine.cols) {
        if (mine.data[idx] != static_cast<T>(kPad)) ++bad;  // padding untouched
        continue;
      }
      const auto gi = static_cast<int>(global_index(i, cs.c_mb, g.myrow, c_rsrc, g.nprow));
      const auto gj = static_cast<int>(global_index(j, cs.c_nb, g.mycol, c_csrc, g.npcol));
      const int ri = gi - (cs.ic - 1), rj = gj - (cs.jc - 1);
      double want = at(c0, cm, gi, gj), scale = std::abs(want);
      if (ri >= 0 && ri < cs.m && rj >= 0 && rj < cs.n) {
        want *= cs.beta;
        scale = std::abs(want);
        for (int p = 0; p < cs.k; ++p) {
          const double x = (ta ? at(a, am, cs.ia - 1 + p, cs.ja - 1 + ri) : at(a, am, cs.ia - 1 + ri, cs.ja - 1 + p)) *
                           (tb ? at(b, bm, cs.ib - 1 + rj, cs.jb - 1 + p) : at(b, bm, cs.ib - 1 + p, cs.jb - 1 + rj));
          want += cs.alpha * x;
          scale += std::abs(cs.alpha * x);
        }
      }
      const double tol = 8 * eps * (cs.k + 2) * std::max(scale, 1e-30);
      const double got = mine.data[idx], ref = theirs.data[idx];
      if (!(std::abs(got - want) <= tol) || !(std::abs(got - ref) <= 2 * tol)) {
        if (bad++ < 3)
          ADD_FAILURE() << "C(" << gi << "," << gj << ") = " << got << ", float64 " << want << ", ScaLAPACK " << ref;
      }
    }
  }
  EXPECT_EQ(bad, 0) << "grid " << g.nprow << "x" << g.npcol << " " << cs.ta << cs.tb << " m n k " << cs.m << " "
                    << cs.n << " " << cs.k << " at A(" << cs.ia << "," << cs.ja << ") B(" << cs.ib << "," << cs.jb
                    << ") C(" << cs.ic << "," << cs.jc << ") schedule " << static_cast<int>(schedule);
}

TEST(Dist, TransposesSubmatricesAndAnyDistributionMatchScaLAPACK) {
  std::mt19937_64 rng(1124);
  const GeneralCase cases[] = {
      {'T', 'N', 13, 11, 17, 1, 1, 1, 1, 1, 1, 4, 3, 3, 4, 4, 4, 0, 0, 0, 1.0, 0.0},
      {'N', 'T', 13, 11, 17, 1, 1, 1, 1, 1, 1, 4, 3, 4, 3, 4, 3, 1, 1, 0, 1.0, 1.0},
      {'T', 'T', 9, 14, 6, 2, 3, 3, 2, 4, 2, 2, 5, 3, 2, 3, 4, 1, 0, 1, -0.5, 2.0},
      {'N', 'N', 20, 15, 12, 3, 5, 2, 4, 6, 3, 5, 5, 5, 5, 5, 5, 0, 1, 1, 1.5, -1.0},  // submatrices only
      {'N', 'N', 21, 19, 23, 1, 1, 1, 1, 1, 1, 2, 7, 3, 5, 6, 1, 1, 0, 1, 1.0, 0.5},   // blocks that do not line up
      {'C', 'N', 1, 1, 1, 4, 2, 1, 1, 2, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 2.0, 0.0},
      {'T', 'N', 30, 1, 64, 5, 2, 7, 1, 1, 1, 8, 8, 16, 1, 8, 1, 1, 1, 0, 1.0, 1.0},
      {'N', 'T', 6, 5, 0, 2, 1, 1, 1, 2, 2, 3, 3, 3, 3, 2, 2, 0, 0, 0, 1.0, 3.0},     // k = 0: C = beta C
  };
  for (const auto& [rows, cols] : grid_shapes()) {
    BlacsGrid g(rows, cols);
    for (const GeneralCase& cs : cases) {
      for (const Schedule schedule : {Schedule::automatic, Schedule::split_k}) {
        check_general<double>(cs, g, rng, schedule);
        check_general<float>(cs, g, rng, schedule);
      }
    }
  }
}

TEST(Dist, BadArgumentsGiveEveryRankTheSameError) {
  BlacsGrid g(1, world_size());
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<double> a(64, 1.0), b(64, 1.0), c(64, 0.0);
  const Descriptor d{1, g.context, 8, 8, 8, 8, 0, 0, 8};
  // Global: every rank sees it alike, before any data moves.
  EXPECT_THROW(accelera::dist::gemm<double>('X', 'N', 8, 8, 8, 1.0, a.data(), 1, 1, d, b.data(), 1, 1, d, 0.0,
                                            c.data(), 1, 1, d),
               accelera::ValueError);
  EXPECT_THROW(accelera::dist::gemm<double>('N', 'N', 8, 8, 8, 1.0, a.data(), 2, 1, d, b.data(), 1, 1, d, 0.0,
                                            c.data(), 1, 1, d),
               accelera::ValueError);  // A's 8 rows from row 2 end outside it
  EXPECT_THROW(accelera::dist::gemm<double>('N', 'T', 8, 7, 8, 1.0, a.data(), 1, 1, d, b.data(), 1, 2, d, 0.0,
                                            c.data(), 1, 1, d),
               accelera::ValueError);  // B^T's 8 columns of B from column 2
  EXPECT_THROW(accelera::dist::gemm<double>('N', 'N', 8, 8, 8, 1.0, a.data(), 0, 1, d, b.data(), 1, 1, d, 0.0,
                                            c.data(), 1, 1, d),
               accelera::ValueError);  // indices are 1-based
  EXPECT_THROW(accelera::dist::gemm<double>('N', 'N', 9, 8, 8, 1.0, a.data(), 1, 1, d, b.data(), 1, 1, d, 0.0,
                                            c.data(), 1, 1, d),
               accelera::ValueError);
  // Local: only the last rank's leading dimension is short, yet every rank throws and none hangs.
  Descriptor short_lld = d;
  if (rank == world_size() - 1) short_lld.lld = 0;
  try {
    accelera::dist::gemm<double>('N', 'N', 8, 8, 8, 1.0, a.data(), 1, 1, short_lld, b.data(), 1, 1, d, 0.0, c.data(),
                                 1, 1, d);
    ADD_FAILURE() << "no error";
  } catch (const accelera::ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("leading dimension 0"), std::string::npos) << what;
    if (rank != world_size() - 1) EXPECT_NE(what.find("failed, so every rank stops"), std::string::npos) << what;
  }
  // A descriptor starting off the grid is every rank's error.
  Descriptor off_grid = d;
  off_grid.csrc = world_size();
  EXPECT_THROW(accelera::dist::gemm<double>('N', 'N', 8, 8, 8, 1.0, a.data(), 1, 1, off_grid, b.data(), 1, 1, d, 0.0,
                                            c.data(), 1, 1, d),
               accelera::ValueError);
}

TEST(Dist, AFailureOnOneRankDuringTheProductStopsEveryRank) {
  // The last rank's device runs out of memory as the product starts (its C cannot go up); the others must
  // not wait for it in a broadcast.
  const auto others = accelera::devices();
  auto device = accelera::Device::cpu();
  for (const auto& info : others) {
    if (!info.device.is_cpu()) device = info.device;
  }
  if (device.is_cpu()) GTEST_SKIP() << "needs a GPU or OpenCL device: the CPU's allocator serves every host tensor";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool failing = rank == world_size() - 1;
  BlacsGrid g(1, world_size());
  std::vector<double> a(64 * 64, 1.0), b(64 * 64, 1.0), c(64 * 64, 0.0);
  const Descriptor d{1, g.context, 64, 64, 8, 8, 0, 0, 64};
  accelera::dist::GemmOptions options;
  options.device = device;
  if (failing) accelera::allocator_for(device).fail_nth_allocation(1);
  try {
    accelera::dist::gemm<double>('N', 'N', 64, 64 / world_size() * world_size(), 64, 1.0, a.data(), 1, 1, d,
                                 b.data(), 1, 1, d, 0.0, c.data(), 1, 1, d, options);
    ADD_FAILURE() << "no error on rank " << rank;
  } catch (const accelera::OutOfMemoryError& e) {
    EXPECT_TRUE(failing) << e.what();
  } catch (const accelera::Error& e) {
    EXPECT_FALSE(failing) << e.what();
    EXPECT_NE(std::string(e.what()).find("failed, so every rank stops"), std::string::npos) << e.what();
  }
  accelera::allocator_for(device).fail_nth_allocation(0);
}

TEST(Dist, EachRankComputesOnTheDeviceAsked) {
  std::vector<std::string> devices = {"cpu"};
  for (const auto& info : accelera::devices()) {
    if (!info.device.is_cpu()) devices.push_back(info.device.str());
  }
  std::mt19937_64 rng(7);
  const int m = 45, n = 38, k = 67;
  const auto a = random_matrix(m, k, rng), b = random_matrix(k, n, rng);
  std::vector<double> want(static_cast<std::size_t>(m * n), 0.0);
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < k; ++p)
      for (int i = 0; i < m; ++i) want[static_cast<std::size_t>(j * m + i)] += a[p * m + i] * b[j * k + p];
  const auto shapes = grid_shapes();
  BlacsGrid g(shapes.back().first, shapes.back().second);
  // Every device, each schedule.
  std::vector<std::pair<std::string, Schedule>> runs;
  for (const std::string& name : devices)
    for (const Schedule schedule : {Schedule::summa, Schedule::split_k}) runs.emplace_back(name, schedule);
  for (const auto& [name, schedule] : runs) {
    for (const bool resident : {true, false}) {
      const accelera::Device device = accelera::Device::parse(name);
      if (!resident && device.is_cpu()) continue;
      // A budget below C's size sends each panel through the out-of-core engine instead.
      if (!resident) accelera::set_memory_budget(device, 4096);
      const auto la = distribute<double>(a, m, k, 5, 6, 0, 0, g, 0);
      const auto lb = distribute<double>(b, k, n, 6, 7, 0, 0, g, 0);
      // NaNs that beta = 0 must not read; then beta = 1 must read C as the host has it (the first product plus
      // one: a device that kept the first product would miss the one).
      auto lc = distribute<double>(std::vector<double>(static_cast<std::size_t>(m * n), std::nan("")), m, n, 5, 7, 0, 0,
                                   g, 0);
      accelera::dist::GemmStats stats;
      accelera::dist::GemmOptions options;
      options.device = device;
      options.schedule = schedule;
      for (const double beta : {0.0, 1.0}) {
        accelera::dist::gemm<double>('N', 'N', m, n, k, 0.5, la.data.data(), 1, 1, Descriptor::from_scalapack(la.desc),
                                     lb.data.data(), 1, 1, Descriptor::from_scalapack(lb.desc), beta, lc.data.data(),
                                     1, 1, Descriptor::from_scalapack(lc.desc), options, &stats);
        if (beta == 0.0)
          for (double& x : lc.data) x += 1.0;
      }
      if (!resident) accelera::set_memory_budget(device, accelera::device_interface(device).device_info(0).total_memory);
      EXPECT_EQ(stats.device, name);
      EXPECT_EQ(stats.c_resident, resident && !device.is_cpu()) << name;
      EXPECT_EQ(stats.panels, 1) << "67 columns of K in blocks of 6: one panel";
      const int lld = lc.desc[8];
      for (std::int64_t j = 0; j < lc.cols; ++j)
        for (std::int64_t i = 0; i < lc.rows; ++i) {
          const auto gi = global_index(i, 5, g.myrow, 0, g.nprow), gj = global_index(j, 7, g.mycol, 0, g.npcol);
          ASSERT_NEAR(lc.data[static_cast<std::size_t>(j * lld + i)], want[static_cast<std::size_t>(gj * m + gi)] + 1.0,
                      1e-12)
              << name << (resident ? " resident" : " streamed") << " schedule " << static_cast<int>(schedule);
        }
    }
  }
}

// DistributedMatrix: scatter then gather gives the matrix back on every grid, block size and root; each
// rank holds exactly its blocks (checked against the global matrix); matmul matches a float64 product.
template <class T>
void check_distributed_matrix(const accelera::dist::ProcessGrid& grid, std::int64_t m, std::int64_t k,
                              std::int64_t n, std::int64_t mb, std::int64_t kb, std::int64_t nb, int root,
                              std::mt19937_64& rng) {
  using accelera::dist::DistributedMatrix;
  SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n << " blocks " << mb << "," << kb << "," << nb
                                    << " root " << root << " grid " << grid.nprow << "x" << grid.npcol);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<T> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
  for (auto& v : a) v = static_cast<T>(uniform(rng));  // every rank draws the same (same seed, same calls)
  for (auto& v : b) v = static_cast<T>(uniform(rng));
  const int rank = grid.myrow * grid.npcol + grid.mycol;
  const auto da = DistributedMatrix<T>::scatter(grid, rank == root ? a.data() : nullptr, m, k, mb, kb, root);
  const auto db = DistributedMatrix<T>::scatter(grid, rank == root ? b.data() : nullptr, k, n, kb, nb, root);
  for (std::int64_t j = 0; j < da.local_cols(); ++j) {
    for (std::int64_t i = 0; i < da.local_rows(); ++i) {
      const std::int64_t gi = global_index(i, mb, grid.myrow, 0, grid.nprow);
      const std::int64_t gj = global_index(j, kb, grid.mycol, 0, grid.npcol);
      ASSERT_EQ(da.local_data()[j * da.leading_dimension() + i], a[static_cast<std::size_t>(gi * k + gj)]);
    }
  }
  std::vector<T> back(a.size(), T(-7));
  da.gather(rank == root ? back.data() : nullptr, root);
  if (rank == root) EXPECT_EQ(back, a);
  const auto dc = matmul(da, db);
  EXPECT_EQ(dc.rows(), m);
  EXPECT_EQ(dc.cols(), n);
  std::vector<T> c(static_cast<std::size_t>(m * n), T(-7));
  dc.gather(rank == root ? c.data() : nullptr, root);
  if (rank != root) return;
  const double eps = std::is_same_v<T, float> ? 1.2e-7 : 2.3e-16;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        const double t = static_cast<double>(a[static_cast<std::size_t>(i * k + p)]) * b[static_cast<std::size_t>(p * n + j)];
        ref += t;
        mag += std::fabs(t);
      }
      ASSERT_NEAR(c[static_cast<std::size_t>(i * n + j)], ref, 2 * (k + 2) * eps * mag + 1e-300) << i << "," << j;
    }
  }
}

TEST(Dist, DistributedMatricesScatterGatherAndMultiply) {
  std::mt19937_64 rng(2024);
  for (const auto& [rows, cols] : grid_shapes()) {
    const auto grid = accelera::dist::ProcessGrid::of(MPI_COMM_WORLD, rows, cols);
    const int last = world_size() - 1;
    check_distributed_matrix<double>(grid, 37, 29, 23, 5, 7, 3, 0, rng);
    check_distributed_matrix<float>(grid, 37, 29, 23, 5, 7, 3, last, rng);
    check_distributed_matrix<double>(grid, 1, 1, 1, 1, 1, 1, last, rng);
    check_distributed_matrix<double>(grid, 0, 5, 3, 2, 2, 2, 0, rng);        // no rows at all
    check_distributed_matrix<double>(grid, 300, 280, 2, 64, 64, 64, 0, rng);  // panels of more than one block
  }
}

TEST(Dist, DistributedMatrixErrorsReachEveryRank) {
  using accelera::dist::DistributedMatrix;
  const auto grid = accelera::dist::ProcessGrid::of(MPI_COMM_WORLD, 1, world_size());
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // The root has no matrix: every rank throws, none waits in the scatter.
  const int root = world_size() - 1;
  try {
    DistributedMatrix<double>::scatter(grid, nullptr, 4, 4, 2, 2, root);
    ADD_FAILURE() << "no error";
  } catch (const accelera::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("has no matrix"), std::string::npos) << e.what();
  } catch (const accelera::Error& e) {
    EXPECT_NE(rank, root) << e.what();
    EXPECT_NE(std::string(e.what()).find("failed, so every rank stops"), std::string::npos) << e.what();
  }
  std::vector<double> x(16, 1.0);
  EXPECT_THROW(DistributedMatrix<double>::scatter(grid, x.data(), 4, 4, 2, 2, world_size()), accelera::ValueError);
  EXPECT_THROW(DistributedMatrix<double>(grid, 4, 4, 0, 2), accelera::ValueError);
  const auto a = DistributedMatrix<double>::scatter(grid, x.data(), 4, 4, 2, 2);
  const auto wrong_shape = DistributedMatrix<double>(grid, 3, 4, 2, 2);
  EXPECT_THROW(matmul(a, wrong_shape), accelera::ShapeError);
  // Row blocks of 1 against A's column blocks of 2: B is redistributed first, and the product is right.
  std::vector<double> y(16);
  for (int i = 0; i < 16; ++i) y[static_cast<std::size_t>(i)] = i - 3.0;
  const auto other_blocks = DistributedMatrix<double>::scatter(grid, y.data(), 4, 4, 1, 2);
  accelera::dist::GemmStats stats;
  const auto product = matmul(a, other_blocks, {}, &stats);
  EXPECT_TRUE(stats.redistributed);
  std::vector<double> got(16, -1.0);
  product.gather(got.data(), 0);
  if (rank == 0) {
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        double want = 0;
        for (int p = 0; p < 4; ++p) want += 1.0 * y[static_cast<std::size_t>(p * 4 + j)];  // row-major, as scatter
        EXPECT_EQ(got[static_cast<std::size_t>(i * 4 + j)], want) << i << "," << j;
      }
  }
}

// C = A B (alpha 1, beta 0) by SUMMA on the CPU with `options`, returning the stats.
accelera::dist::GemmStats plain_product(int m, int n, int k, const LocalPart<double>& a, const LocalPart<double>& b,
                                        LocalPart<double>& c, accelera::dist::GemmOptions options) {
  options.device = accelera::Device::cpu();
  options.schedule = Schedule::summa;
  accelera::dist::GemmStats stats;
  accelera::dist::gemm<double>('N', 'N', m, n, k, 1.0, a.data.data(), 1, 1, Descriptor::from_scalapack(a.desc),
                               b.data.data(), 1, 1, Descriptor::from_scalapack(b.desc), 0.0, c.data.data(), 1, 1,
                               Descriptor::from_scalapack(c.desc), options, &stats);
  return stats;
}

// Broadcasting the next panel while multiplying this one changes when data moves, not the result: the same
// bits as without overlap, on every grid, and the stats say which ran. Left to choose, the ranks of one node
// multiplying on the CPU do without the helper (Overlap::automatic).
TEST(Dist, OverlappedBroadcastsGiveTheSameProduct) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  ASSERT_GE(provided, MPI_THREAD_SERIALIZED) << "the test's main() asks for MPI_THREAD_SERIALIZED";
  std::mt19937_64 rng(99);
  const int m = 70, n = 50, k = 700;  // blocks of 32: 22 K blocks in 3 panels of 8
  const auto a = random_matrix(m, k, rng), b = random_matrix(k, n, rng);
  for (const auto& [rows, cols] : grid_shapes()) {
    BlacsGrid g(rows, cols);
    using accelera::dist::Overlap;
    std::vector<double> results[3];
    for (const Overlap overlap : {Overlap::never, Overlap::always, Overlap::automatic}) {
      const auto la = distribute<double>(a, m, k, 32, 32, 0, 0, g, 0);
      const auto lb = distribute<double>(b, k, n, 32, 32, 0, 0, g, 0);
      auto lc = distribute<double>(std::vector<double>(static_cast<std::size_t>(m * n), 0.0), m, n, 32, 32, 0, 0, g, 0);
      accelera::dist::GemmOptions options;
      options.overlap = overlap;
      const auto stats = plain_product(m, n, k, la, lb, lc, options);
      EXPECT_EQ(stats.overlapped, overlap == Overlap::always);  // mpirun here starts every rank on this node
      EXPECT_EQ(stats.panels, 3);
      results[static_cast<int>(overlap)] = lc.data;
    }
    EXPECT_EQ(results[0], results[1]) << rows << "x" << cols;
    EXPECT_EQ(results[0], results[2]) << rows << "x" << cols;
  }
}

// Left to choose, ranks on one node run SUMMA even for a skinny C with a long K, which split K would take
// across nodes (Note [Split K]); forced, split K gives the same product.
TEST(Dist, OneNodeChoosesSummaAndSplitKAgrees) {
  std::mt19937_64 rng(11);
  const int m = 24, n = 16, k = 3000;
  const auto a = random_matrix(m, k, rng), b = random_matrix(k, n, rng);
  for (const auto& [rows, cols] : grid_shapes()) {
    BlacsGrid g(rows, cols);
    std::vector<double> results[2];
    for (const Schedule schedule : {Schedule::automatic, Schedule::split_k}) {
      const auto la = distribute<double>(a, m, k, 8, 32, 0, 0, g, 0);
      const auto lb = distribute<double>(b, k, n, 32, 8, 0, 0, g, 0);
      auto lc = distribute<double>(std::vector<double>(static_cast<std::size_t>(m * n), 0.0), m, n, 8, 8, 0, 0, g, 0);
      accelera::dist::GemmOptions options;
      options.device = accelera::Device::cpu();
      options.schedule = schedule;
      accelera::dist::GemmStats stats;
      accelera::dist::gemm<double>('N', 'N', m, n, k, 1.0, la.data.data(), 1, 1, Descriptor::from_scalapack(la.desc),
                                   lb.data.data(), 1, 1, Descriptor::from_scalapack(lb.desc), 0.0, lc.data.data(), 1,
                                   1, Descriptor::from_scalapack(lc.desc), options, &stats);
      EXPECT_EQ(stats.schedule, schedule == Schedule::automatic ? "summa" : "split_k");
      results[schedule == Schedule::split_k] = lc.data;
    }
    for (std::size_t i = 0; i < results[0].size(); ++i)
      ASSERT_NEAR(results[0][i], results[1][i], 1e-12 * k) << i << " on " << rows << "x" << cols;
  }
}

// Panels: a skinny C with a long K gets panels wider than 256 columns (fewer broadcasts), an explicit width
// is rounded down to whole blocks, and every width gives the product (float64 reference), on every grid.
TEST(Dist, PanelWidthsFollowTheShapeAndKeepTheProduct) {
  std::mt19937_64 rng(7);
  const int m = 40, n = 24, k = 4000, kb = 32;  // 125 K blocks
  const auto a = random_matrix(m, k, rng), b = random_matrix(k, n, rng);
  std::vector<double> want(static_cast<std::size_t>(m * n), 0.0);
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < k; ++p)
      for (int i = 0; i < m; ++i) want[static_cast<std::size_t>(j * m + i)] += a[static_cast<std::size_t>(p * m + i)] * b[static_cast<std::size_t>(j * k + p)];
  // (asked width, panels): automatic is a quarter of K here (1000 columns: 31 blocks a panel), 100 rounds
  // down to 3 blocks, below one block is one block.
  const std::pair<std::int64_t, int> widths[] = {{0, 5}, {100, 42}, {1, 125}};
  for (const auto& [rows, cols] : grid_shapes()) {
    BlacsGrid g(rows, cols);
    for (const auto& [width, panels] : widths) {
      const auto la = distribute<double>(a, m, k, 8, kb, 0, 0, g, 0);
      const auto lb = distribute<double>(b, k, n, kb, 8, 0, 0, g, 0);
      auto lc = distribute<double>(std::vector<double>(static_cast<std::size_t>(m * n), std::nan("")), m, n, 8, 8, 0, 0, g, 0);
      accelera::dist::GemmOptions options;
      options.panel_width = width;
      const auto stats = plain_product(m, n, k, la, lb, lc, options);
      EXPECT_EQ(stats.panels, panels) << "width " << width << " on " << rows << "x" << cols;
      for (std::int64_t j = 0; j < lc.cols; ++j)
        for (std::int64_t i = 0; i < lc.rows; ++i) {
          const std::int64_t gi = global_index(i, 8, g.myrow, 0, g.nprow), gj = global_index(j, 8, g.mycol, 0, g.npcol);
          ASSERT_NEAR(lc.data[static_cast<std::size_t>(j * lc.desc[8] + i)], want[static_cast<std::size_t>(gj * m + gi)],
                      1e-12 * k)
              << "C(" << gi << "," << gj << ") width " << width << " on " << rows << "x" << cols;
        }
    }
  }
}

TEST(Dist, BlockCyclicExtentsMatchNumroc) {
  for (int n = 0; n <= 40; ++n)
    for (int nb = 1; nb <= 9; ++nb)
      for (int procs = 1; procs <= 5; ++procs)
        for (int src = 0; src < procs; ++src) {
          std::int64_t total = 0;
          for (int p = 0; p < procs; ++p) {
            const std::int64_t mine = local_extent(n, nb, p, src, procs);
            ASSERT_EQ(mine, numroc_(&n, &nb, &p, &src, &procs)) << n << " " << nb << " " << p << " " << src;
            for (std::int64_t l = 0; l < mine; ++l) {
              const std::int64_t gl = global_index(l, nb, p, src, procs);
              ASSERT_TRUE(gl >= 0 && gl < n);
              ASSERT_EQ((gl / nb + src) % procs, p) << "global " << gl << " is not process " << p << "'s";
            }
            total += mine;
          }
          ASSERT_EQ(total, n);
        }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);  // the overlapped broadcasts need it
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    // One report per job: the other ranks print only their failures.
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int result = RUN_ALL_TESTS();
  MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  Cblacs_exit(1);
  MPI_Finalize();
  return result;
}
