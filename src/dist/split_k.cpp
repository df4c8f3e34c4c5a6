// dist::gemm by split K: Note [Split K] in split_k.hpp.
#include "dist/split_k.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <vector>

#include "accelera/core/error.hpp"
#include "dist/local_products.hpp"
#include "dist/mpi_check.hpp"
#include "dist/redistribute.hpp"
#include "dist/workspace.hpp"

namespace accelera::dist {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

Traffic traffic(const ProcessGrid& g, std::int64_t m, std::int64_t n, std::int64_t k) {
  const double p = double(g.nprow) * g.npcol, rows = g.nprow, cols = g.npcol;
  const double md = double(m), nd = double(n), kd = double(k);
  Traffic t;
  t.summa = md / rows * kd * (1 - 1 / cols) + kd * nd / cols * (1 - 1 / rows);
  // A's share: its rows from the other process rows; B's share from anywhere (nothing on one process
  // column, where it is used in place); the partials' sum. Approximate where A is transposed (its K is then
  // dealt over process rows) or B's blocks do not line up with A's (B is then exchanged on one process
  // column too): the choice is a model's, and every rank makes the same one.
  t.split_k = md * kd / p * (1 - 1 / rows) + (g.npcol == 1 ? 0.0 : kd * nd / p * (1 - 1 / p)) + md * nd * (1 - 1 / p);
  return t;
}

bool split_k_pays(const ProcessGrid& g, std::int64_t m, std::int64_t n, std::int64_t k) {
  const std::int64_t p = std::int64_t{g.nprow} * g.npcol;
  if (p < 2 || m * n > INT_MAX || m * n > (m * k + k * n) / p) return false;
  const Traffic t = traffic(g, m, n, k);
  // Within one node a received element costs a copy either way, and split K's packing passes cost what
  // its smaller traffic saves (measured: docs/benchmarks.md); across nodes the network is the bound.
  return t.split_k <= 0.75 * t.summa && spans_nodes(g);
}

template <class T>
void gemm_split_k(const ProcessGrid& g, bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int ia, int ja,
                  const Descriptor& desca, const T* b, int ib, int jb, const Descriptor& descb, T beta, T* c, int ic,
                  int jc, const Descriptor& descc, const Device& device, GemmStats& stats) {
  const int ranks = g.nprow * g.npcol;
  const int rank = g.myrow * g.npcol + g.mycol;
  ACC_CHECK(std::int64_t{m} * n <= INT_MAX, NotSupportedError,
            "gemm: split K sums a {} x {} partial product, beyond MPI's int counts; use Schedule::summa", m, n);
  stats.schedule = "split_k";
  stats.device = device.str();
  auto start = Clock::now();
  // K's shares: A's column blocks (its row blocks when transposed) dealt over all ranks from A's first
  // process column (Note [Split K]); A's share on a 1 x P grid with all rows in one block, B's on P x 1.
  const int kb = ta ? desca.mb : desca.nb;
  const int ksrc = ta ? desca.rsrc : desca.csrc;
  const ProcessGrid along = ProcessGrid::of(g.comm, 1, ranks), down = ProcessGrid::of(g.comm, ranks, 1);
  const std::int64_t share = local_extent(k, kb, rank, ksrc, ranks);
  const Descriptor da{1, -1, m, k, m, kb, 0, ksrc, m};
  const Descriptor db{1, -1, k, n, kb, n, ksrc, 0, static_cast<int>(std::max<std::int64_t>(1, share))};
  // On a grid of one process row A is already dealt so (its local columns, first ones first); on one process
  // column B is, when its row blocks are A's column blocks: those are used where they are.
  const bool a_in_place = !ta && ia == 1 && ja == 1 && g.nprow == 1;
  const bool b_in_place = !tb && ib == 1 && jb == 1 && g.npcol == 1 && descb.mb == kb && descb.rsrc == ksrc;
  Tensor a_storage, b_storage, partial_storage;
  T *a_buffer = nullptr, *b_buffer = nullptr;
  agree<Error>(g.comm, failure_of([&] {
                 if (!a_in_place) a_buffer = host_buffer<T>(a_storage, std::int64_t{m} * share);
                 if (!b_in_place) b_buffer = host_buffer<T>(b_storage, share * n);
               }),
               "gemm");
  if (!a_in_place) redistribute(g, along, m, k, a, ia, ja, desca, ta, a_buffer, 1, 1, da);
  if (!b_in_place) redistribute(g, down, k, n, b, ib, jb, descb, tb, b_buffer, 1, 1, db);
  const T* a_share = a_in_place ? a : a_buffer;
  const T* b_share = b_in_place ? b : b_buffer;
  const std::int64_t lda = a_in_place ? desca.lld : m, ldb = b_in_place ? descb.lld : std::max<std::int64_t>(1, share);
  stats.redistributed = !a_in_place || !b_in_place;
  stats.redistribute_seconds = since(start);
  // The partial product, m x n column-major: C^T = B_share^T A_share^T (LocalProducts' convention).
  start = Clock::now();
  T* partial = nullptr;
  agree<Error>(g.comm, failure_of([&] {
                 partial = host_buffer<T>(partial_storage, std::int64_t{m} * n);
                 const Tensor product = column_major(partial, m, n, m, dtype_of<T>());
                 if (share == 0) {
                   std::fill_n(partial, std::int64_t{m} * n, T(0));
                   return;
                 }
                 const Tensor at = Tensor::from_blob(const_cast<T*>(a_share), Shape({share, m}), {lda, 1}, dtype_of<T>(),
                                                     Device::cpu(), [] {});
                 const Tensor bt = Tensor::from_blob(const_cast<T*>(b_share), Shape({n, share}), {ldb, 1}, dtype_of<T>(),
                                                     Device::cpu(), [] {});
                 LocalProducts products(product, device,
                                        (std::int64_t{m} + n) * share * static_cast<std::int64_t>(sizeof(T)),
                                        /*read_c=*/false, stats);
                 products.add(at, bt, /*accumulate=*/false);
                 products.finish();
               }),
               "gemm");
  stats.panels = 1;
  stats.compute_seconds = since(start);
  // Each rank's part of C(ic:, jc:), in its column-major local order, summed over the partials.
  start = Clock::now();
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> rows_of(static_cast<std::size_t>(g.nprow)),
      cols_of(static_cast<std::size_t>(g.npcol));
  for (int r = 0; r < g.nprow; ++r)
    rows_of[static_cast<std::size_t>(r)] = local_span(descc.m, descc.mb, r, descc.rsrc, g.nprow, ic - 1, m);
  for (int q = 0; q < g.npcol; ++q)
    cols_of[static_cast<std::size_t>(q)] = local_span(descc.n, descc.nb, q, descc.csrc, g.npcol, jc - 1, n);
  const auto& my_rows = rows_of[static_cast<std::size_t>(g.myrow)];
  const auto& my_cols = cols_of[static_cast<std::size_t>(g.mycol)];
  std::vector<int> counts(static_cast<std::size_t>(ranks));
  Tensor send_storage, mine_storage;
  T *send = nullptr, *mine = nullptr;
  agree<Error>(g.comm, failure_of([&] {
                 send = host_buffer<T>(send_storage, std::int64_t{m} * n);
                 mine = host_buffer<T>(mine_storage, static_cast<std::int64_t>(my_rows.size() * my_cols.size()));
               }),
               "gemm");
  T* out = send;
  for (int r = 0; r < g.nprow; ++r)
    for (int q = 0; q < g.npcol; ++q) {
      const auto& rows = rows_of[static_cast<std::size_t>(r)];
      const auto& cols = cols_of[static_cast<std::size_t>(q)];
      counts[static_cast<std::size_t>(r * g.npcol + q)] = static_cast<int>(rows.size() * cols.size());
      for (const auto& col : cols) {
        const T* from = partial + col.second * m;
        for (const auto& row : rows) *out++ = from[row.second];
      }
    }
  check_mpi(MPI_Reduce_scatter(send, mine, counts.data(), mpi_type<T>(), MPI_SUM, g.comm), "MPI_Reduce_scatter");
  const T* in = mine;
  for (const auto& col : my_cols) {
    T* to = c + col.first * descc.lld;
    for (const auto& row : my_rows) {
      const T sum = alpha * *in++;
      to[row.first] = beta == T(0) ? sum : sum + beta * to[row.first];  // beta = 0 does not read C (BLAS)
    }
  }
  stats.reduce_seconds = since(start);
}

#define ACC_SPLIT_K(T)                                                                                              \
  template void gemm_split_k<T>(const ProcessGrid&, bool, bool, int, int, int, T, const T*, int, int,              \
                                const Descriptor&, const T*, int, int, const Descriptor&, T, T*, int, int,          \
                                const Descriptor&, const Device&, GemmStats&);
ACC_SPLIT_K(double)
ACC_SPLIT_K(float)
#undef ACC_SPLIT_K

}  // namespace accelera::dist
