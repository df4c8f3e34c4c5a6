// accelera_pdgemm against ScaLAPACK's pdgemm_ (psgemm_ for float32) on the same ranks, grid and data.
//
//   mpirun -np 4 build/dev/bench/accelera_dist_bench [--transpose-a] [--schedule summa|split_k] [n | MxNxK ...]
//                                                                               (default: 1024 2048 4096)
//
// --transpose-a multiplies A^T B ('T', 'N'): Accelera then copies A^T into a lined-up distribution first
// (Note [Redistribution] in src/dist/redistribute.hpp), and the figures include that copy.
// n x n x n products (or m x n x k: C is m x n, the inner dimension k) on the squarest grid of the job,
// blocks of 64 (ScaLAPACK's usual choice), operands uniform in [-1, 1]. Runs are interleaved (ScaLAPACK,
// Accelera, Accelera with the overlap helper forced on, ScaLAPACK, ...), five of each after a warm-up;
// reported: median seconds, GFLOP/s of the whole job, spread (max - min) / median (and Accelera's fastest
// run), and the ratio ScaLAPACK time / Accelera time (above 1: Accelera is faster), for Accelera as it
// chooses (Overlap::automatic) and with the helper thread broadcasting the next panel during each product
// (Overlap::always). Results are
// compared (max |difference|). --schedule forces Accelera's schedule (default: it chooses, Note [Split K]).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "accelera/dist.hpp"
#include "dist/scalapack.hpp"


namespace {

char g_transa = 'N';  // --transpose-a: 'T'
accelera::dist::Schedule g_schedule = accelera::dist::Schedule::automatic;  // --schedule

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One product's global shape and each operand's local array and descriptor.
template <class T>
struct Problem {
  int m, n, k;
  std::vector<T> a, b;
  int da[9], db[9], dc[9];
};

template <class T>
void scalapack(const Problem<T>& p, T* c) {
  const int one = 1;
  const T alpha = 1, beta = 0;
  if constexpr (std::is_same_v<T, double>) {
    pdgemm_(&g_transa, "N", &p.m, &p.n, &p.k, &alpha, p.a.data(), &one, &one, p.da, p.b.data(), &one, &one, p.db, &beta,
            c, &one, &one, p.dc);
  } else {
    psgemm_(&g_transa, "N", &p.m, &p.n, &p.k, &alpha, p.a.data(), &one, &one, p.da, p.b.data(), &one, &one, p.db, &beta,
            c, &one, &one, p.dc);
  }
}

accelera::dist::GemmStats last_stats;  // rank 0's figures of Accelera's last run

template <class T, accelera::dist::Overlap Overlap>
void ours(const Problem<T>& p, T* c) {
  using accelera::dist::Descriptor;
  accelera::dist::GemmOptions options;
  options.overlap = Overlap;
  options.schedule = g_schedule;
  accelera::dist::GemmStats stats;
  accelera::dist::gemm<T>(g_transa, 'N', p.m, p.n, p.k, T(1), p.a.data(), 1, 1, Descriptor::from_scalapack(p.da),
                          p.b.data(), 1, 1, Descriptor::from_scalapack(p.db), T(0), c, 1, 1,
                          Descriptor::from_scalapack(p.dc), options, &stats);
  if (Overlap == accelera::dist::Overlap::automatic) last_stats = stats;
}

struct Shape {
  int m, n, k;
};

template <class T>
void run(Shape shape, int context, int rank) {
  int nprow, npcol, myrow, mycol;
  Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
  const int nb = 64;
  std::mt19937_64 rng(static_cast<unsigned>(rank + 1));
  std::uniform_real_distribution<double> u(-1, 1);
  // A rows x cols matrix's local array (random when `fill`) and its descriptor.
  auto local = [&](int rows, int cols, int* desc, bool fill) {
    const auto lr = accelera::dist::local_extent(rows, nb, myrow, 0, nprow);
    const auto lc = accelera::dist::local_extent(cols, nb, mycol, 0, npcol);
    const int lld = static_cast<int>(std::max<std::int64_t>(1, lr));
    const int d[9] = {1, context, rows, cols, nb, nb, 0, 0, lld};
    std::copy_n(d, 9, desc);
    std::vector<T> v(static_cast<std::size_t>(lld * std::max<std::int64_t>(1, lc)));
    if (fill)
      for (auto& x : v) x = static_cast<T>(u(rng));
    return v;
  };
  Problem<T> p{shape.m, shape.n, shape.k, {}, {}, {}, {}, {}};
  const bool ta = g_transa == 'T';
  p.a = local(ta ? p.k : p.m, ta ? p.m : p.k, p.da, true);
  p.b = local(p.k, p.n, p.db, true);
  std::vector<T> c1 = local(p.m, p.n, p.dc, false), c2 = c1;
  auto timed = [&](auto f, std::vector<T>& c) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    f(p, c.data());
    MPI_Barrier(MPI_COMM_WORLD);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  timed(scalapack<T>, c1);
  using accelera::dist::Overlap;
  timed(ours<T, Overlap::automatic>, c2);
  std::vector<double> theirs, mine, helper;
  for (int r = 0; r < 5; ++r) {
    theirs.push_back(timed(scalapack<T>, c1));
    mine.push_back(timed(ours<T, Overlap::automatic>, c2));
    helper.push_back(timed(ours<T, Overlap::always>, c2));
  }
  double diff = 0;
  for (std::size_t i = 0; i < c1.size(); ++i) diff = std::max(diff, std::abs(double(c1[i]) - double(c2[i])));
  MPI_Allreduce(MPI_IN_PLACE, &diff, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank != 0) return;
  const double flops = 2.0 * p.m * double(p.n) * p.k;
  auto spread = [](const std::vector<double>& v) {
    return (*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())) / median(v);
  };
  std::printf("%dx%dx%d %s%s grid %dx%d: ScaLAPACK %.3f s (%.1f GFLOP/s, spread %.0f%%), Accelera %.3f s (%.1f GFLOP/s, "
              "spread %.0f%%, fastest %.3f s), ratio %.2f, max |diff| %.1e\n",
              p.m, p.n, p.k, std::is_same_v<T, double> ? "float64" : "float32", g_transa == 'T' ? " A^T B" : "", nprow, npcol, median(theirs),
              flops / median(theirs) / 1e9, 100 * spread(theirs), median(mine), flops / median(mine) / 1e9,
              100 * spread(mine), *std::min_element(mine.begin(), mine.end()), median(theirs) / median(mine), diff);
  std::printf("         overlap forced %.3f s (spread %.0f%%), ratio %.2f; as chosen, rank 0 (%s, %s): broadcasts %.3f s, "
              "local products %.3f s, %d panels, redistribution %.3f s, reduction %.3f s, in all %.3f s\n",
              median(helper), 100 * spread(helper), median(theirs) / median(helper), (last_stats.device + ", " + last_stats.schedule).c_str(),
              last_stats.overlapped ? "overlapped" : "not overlapped", last_stats.broadcast_seconds,
              last_stats.compute_seconds, last_stats.panels, last_stats.redistribute_seconds, last_stats.reduce_seconds, last_stats.seconds);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);  // overlapped broadcasts need it
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int nprow = static_cast<int>(std::sqrt(double(size)));
  while (size % nprow != 0) --nprow;
  int context = -1;
  Cblacs_get(-1, 0, &context);
  Cblacs_gridinit(&context, "Row", nprow, size / nprow);
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    Shape s{};
    if (arg == "--transpose-a") {
      g_transa = 'T';
    } else if (arg == "--schedule" && i + 1 < argc) {
      const std::string name = argv[++i];
      g_schedule = name == "summa" ? accelera::dist::Schedule::summa : accelera::dist::Schedule::split_k;
      if (name != "summa" && name != "split_k") {
        if (rank == 0) std::fprintf(stderr, "--schedule takes summa or split_k, got %s\n", name.c_str());
        MPI_Finalize();
        return 2;
      }
    } else if (std::sscanf(arg.c_str(), "%dx%dx%d", &s.m, &s.n, &s.k) == 3 && s.m > 0 && s.n > 0 && s.k > 0) {
      shapes.push_back(s);
    } else if (const int n = std::atoi(arg.c_str()); n > 0 && arg.find_first_not_of("0123456789") == std::string::npos) {
      shapes.push_back({n, n, n});
    } else {
      if (rank == 0)
        std::fprintf(stderr,
                     "usage: accelera_dist_bench [--transpose-a] [--schedule summa|split_k] [n | MxNxK ...]; "
                     "got '%s'\n",
                     arg.c_str());
      MPI_Finalize();
      return 2;
    }
  }
  if (shapes.empty()) shapes = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}};
  for (const Shape& s : shapes) {
    run<double>(s, context, rank);
    run<float>(s, context, rank);
  }
  Cblacs_gridexit(context);
  Cblacs_exit(1);
  MPI_Finalize();
  return 0;
}
