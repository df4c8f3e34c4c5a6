// Note [Distributed matmul]
// C = alpha A B + beta C over a process grid, by SUMMA (van de Geijn and Watts): for each panel of K, the
// process column holding A's columns of that panel broadcasts them along its process row, the process row
// holding B's rows broadcasts them down its process column, and every process adds the product of the two
// panels to its local C. With C's rows distributed as A's and its columns as B's (which ScaLAPACK's usual
// descriptors give), every process needs exactly the panels its row and column receive, and its local GEMM
// is (local rows of C) x (panel width) x (local columns of C). Consecutive K blocks are gathered into
// panels of at least kPanelWidth columns so that the local GEMMs run near peak whatever the block size, and
// wider when the local C is small (up to kPanelElements of A's and B's panels together, and no wider than a
// quarter of K, to keep a pipeline): a skinny C with a long K (256 x 256 x 65536) otherwise spent its time
// on 256 panels' broadcast latencies and thread hand-offs, not on arithmetic. All ranks choose the same
// width, from the largest local extents.
// A process column (row) of one holds every K block of A (B): its panels are views of the local array, not
// copies. Panel buffers come from the CPU's caching allocator (dist/workspace.hpp).
// Traffic per process: (M/nprow + N/npcol) K elements received; for a skinny C with a long K, splitting K
// moves less (Note [Split K] in split_k.hpp), and Schedule::automatic chooses between the two.
// Overlap: with two sets of panel buffers, a helper thread broadcasts panel p + 1 while the calling thread
// multiplies panel p, so a rank waits for the slower of the two instead of their sum. Only one thread calls
// MPI at a time (the multiply makes no MPI call and the failure agreement waits for the helper), which is
// what MPI_THREAD_SERIALIZED allows; below that level the broadcasts and products alternate.
// Local products run on the rank's device: on the CPU straight into C; elsewhere C stays on the device
// across panels when it fits the device's budget (one download at the end), else each panel's product
// goes through the out-of-core engine and is added on the host.
#include <algorithm>
#include <chrono>
#include <climits>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "accelera/core/allocator.hpp"
#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"
#include "accelera/dist.hpp"
#include "accelera/engine.hpp"
#include "accelera/ops.hpp"
#include "dist/mpi_check.hpp"
#include "dist/local_products.hpp"
#include "dist/redistribute.hpp"
#include "dist/split_k.hpp"
#include "dist/workspace.hpp"
#include "engine/blocks.hpp"

namespace accelera::dist {

namespace {

using Clock = std::chrono::steady_clock;

// The narrowest K panel multiplied at once: below it, local GEMMs run well under peak.
constexpr std::int64_t kPanelWidth = 256;
// Elements of one panel's A and B parts together (16 MiB in float64), for the widest panels.
constexpr std::int64_t kPanelElements = std::int64_t{1} << 21;


double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

bool transposed(char t) { return t != 'N' && t != 'n'; }

// The checks every rank makes alike (global arguments only): they throw before any communication.
void check_global(char transa, char transb, int m, int n, int k, int ia, int ja, const Descriptor& a, int ib, int jb,
                  const Descriptor& b, int ic, int jc, const Descriptor& c) {
  ACC_CHECK(m >= 0 && n >= 0 && k >= 0, ValueError, "gemm: m, n and k must be >= 0, got {}, {}, {}", m, n, k);
  for (const char t : {transa, transb}) {
    ACC_CHECK(t == 'N' || t == 'n' || t == 'T' || t == 't' || t == 'C' || t == 'c', ValueError,
              "gemm: a transpose flag is 'N', 'T' or 'C', got '{}'", t);
  }
  for (const Descriptor* d : {&a, &b, &c}) {
    ACC_CHECK(d->dtype == 1, ValueError, "gemm: descriptor type {} is not a dense matrix (1)", d->dtype);
    ACC_CHECK(d->mb >= 1 && d->nb >= 1 && d->m >= 0 && d->n >= 0, ValueError,
              "gemm: a descriptor has blocks {} x {} for a {} x {} matrix", d->mb, d->nb, d->m, d->n);
  }
  // Each operand's region, as stored (a transposed operand's region is its op's shape swapped).
  struct Region {
    const char* name;
    const Descriptor* d;
    std::int64_t first_row, first_col, rows, cols;
  };
  const Region regions[] = {
      {"A", &a, ia, ja, transposed(transa) ? k : m, transposed(transa) ? m : k},
      {"B", &b, ib, jb, transposed(transb) ? n : k, transposed(transb) ? k : n},
      {"C", &c, ic, jc, m, n}};
  for (const Region& r : regions) {
    ACC_CHECK(r.first_row >= 1 && r.first_col >= 1, ValueError, "gemm: {}'s first row and column are 1-based, got {}, {}",
              r.name, r.first_row, r.first_col);
    ACC_CHECK(r.first_row - 1 + r.rows <= r.d->m && r.first_col - 1 + r.cols <= r.d->n, ValueError,
              "gemm: {} x {} x {} does not fit {}: its {} x {} part from ({}, {}) ends outside its {} x {}", m, n, k,
              r.name, r.rows, r.cols, r.first_row, r.first_col, r.d->m, r.d->n);
  }
}

// Whether SUMMA can run on the operands as they are (Note [Redistribution] in redistribute.hpp).
bool lined_up(char transa, char transb, int ia, int ja, const Descriptor& a, int ib, int jb, const Descriptor& b,
              int ic, int jc, const Descriptor& c) {
  return !transposed(transa) && !transposed(transb) && ia == 1 && ja == 1 && ib == 1 && jb == 1 && ic == 1 &&
         jc == 1 && c.mb == a.mb && c.rsrc == a.rsrc && c.nb == b.nb && c.csrc == b.csrc && a.nb == b.mb;
}

std::string local_problem(const char* name, const void* data, std::int64_t rows, std::int64_t cols, int lld) {
  if (rows > 0 && cols > 0 && data == nullptr) return fmt::format("{} holds {} x {} here but is null", name, rows, cols);
  if (lld < std::max<std::int64_t>(1, rows))
    return fmt::format("{}'s leading dimension {} is below its {} local rows", name, lld, rows);
  return {};
}

// The rank's share of a SUMMA product, after every check has passed.
template <class T>
class Summa {
 public:
  // `overwrite`: C's values are not read (beta = 0), so the first panel's product is written over them.
  Summa(const ProcessGrid& g, int m, int n, int k, T alpha, const T* a, const Descriptor& da, const T* b,
        const Descriptor& db, T* c, const Descriptor& dc, bool overwrite, GemmStats& stats)
      : m_g(g), m_k(k), m_alpha(alpha), m_a(a), m_da(da), m_b(b), m_db(db), m_overwrite(overwrite), m_stats(stats) {
    m_mloc = local_extent(m, dc.mb, g.myrow, dc.rsrc, g.nprow);
    m_nloc = local_extent(n, dc.nb, g.mycol, dc.csrc, g.npcol);
    // The first process row (column) holds the most rows (columns): the same figure on every rank.
    m_most = local_extent(m, dc.mb, dc.rsrc, dc.rsrc, g.nprow) + local_extent(n, dc.nb, dc.csrc, dc.csrc, g.npcol);
    m_c = column_major(c, m_mloc, m_nloc, dc.lld, dtype_of<T>());
  }

  // `panel_width`: K columns per panel (rounded down to whole blocks, at least one); 0 chooses.
  // `overlap`: wanted (and agreed on by every rank); it runs with two panels or more at the thread level it
  // needs.
  void run(const Device& device, bool overlap, std::int64_t panel_width) {
    const std::int64_t kb = m_da.nb;
    const std::int64_t blocks = (m_k + kb - 1) / kb;
    if (panel_width <= 0) {
      panel_width = std::max(kPanelWidth, std::min(kPanelElements / std::max<std::int64_t>(1, m_most), m_k / 4));
    }
    m_group = std::max<std::int64_t>(1, panel_width / kb);
    const std::int64_t groups = (blocks + m_group - 1) / m_group;
    const std::int64_t width_max = std::min<std::int64_t>(m_k, m_group * kb);
    // MPI lets processes run at different thread levels; a rank that overlapped while another did not would
    // call its collectives in another order, so the level is agreed on (the lowest).
    int level = MPI_THREAD_SINGLE;
    check_mpi(MPI_Query_thread(&level), "MPI_Query_thread");
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &level, 1, MPI_INT, MPI_MIN, m_g.comm), "MPI_Allreduce");
    overlap = overlap && groups > 1 && level >= MPI_THREAD_SERIALIZED;
    m_stats.overlapped = overlap;
    // A failure on one rank (memory, its device) must stop every rank, or the others would wait in a
    // broadcast forever: setup, each panel's product and the finish are agreed on (Note [Distributed matmul]).
    // A grid dimension of one process holds every K block of its operand: panels are views of it.
    m_a_in_place = m_g.npcol == 1 && m_alpha == T(1);
    m_b_in_place = m_g.nprow == 1;
    Panel panels[2];
    std::optional<LocalProducts> products;
    agree<Error>(m_g.comm, failure_of([&] {
                   // The second set only for the overlapped broadcasts; buffers are written before they are read.
                   for (int i = 0; i < (overlap ? 2 : 1); ++i) panels[i].allocate(m_mloc, m_nloc, width_max);
                   products.emplace(m_c, device, (m_mloc + m_nloc) * width_max * static_cast<std::int64_t>(sizeof(T)),
                                    /*read_c=*/!m_overwrite, m_stats);
                 }),
                 "gemm");
    MPI_Comm row = split(m_g.myrow, m_g.mycol), col = split(m_g.mycol, m_g.myrow);
    const auto row_owner = owned_comm(row), col_owner = owned_comm(col);
    const DType dt = dtype_of<T>();
    fill(0, panels[0], row, col);
    for (std::int64_t gi = 0; gi < groups; ++gi) {
      Panel& cur = panels[overlap ? gi % 2 : 0];
      const bool next = gi + 1 < groups;
      std::exception_ptr exchange_failure;
      std::thread exchange;
      if (overlap && next) {
        exchange = std::thread([&] {
          exchange_failure = failure_of([&] { fill(gi + 1, panels[(gi + 1) % 2], row, col); });
        });
      }
      const auto start = Clock::now();
      const Tensor at = Tensor::from_blob(const_cast<T*>(cur.at), Shape({cur.width, m_mloc}), {cur.at_stride, 1}, dt,
                                          Device::cpu(), [] {});
      const Tensor bt = Tensor::from_blob(const_cast<T*>(cur.bt), Shape({m_nloc, cur.width}), {cur.bt_stride, 1}, dt,
                                          Device::cpu(), [] {});
      const std::exception_ptr product_failure = failure_of([&] {
        if (m_mloc > 0 && m_nloc > 0) products->add(at, bt, /*accumulate=*/gi > 0 || !m_overwrite);
      });
      m_stats.compute_seconds += since(start);
      if (exchange.joinable()) exchange.join();
      agree<Error>(m_g.comm, product_failure ? product_failure : exchange_failure, "gemm");
      ++m_stats.panels;
      if (!overlap && next) fill(gi + 1, panels[0], row, col);
    }
    const auto start = Clock::now();
    agree<Error>(m_g.comm, failure_of([&] { products->finish(); }), "gemm");
    m_stats.compute_seconds += since(start);
  }

 private:
  // One K panel: A^T (width x mloc row-major, which is A's mloc x width column-major) and B^T (nloc x width
  // row-major), each in the panel's buffer or a view of the local operand (rows `*_stride` apart). A block of
  // B is stored w x nloc column-major, which is B^T's layout when the panel is that one block; otherwise it
  // is broadcast as a strided type straight into its w columns of B^T, so nothing is unpacked afterwards.
  struct Panel {
    Tensor a_storage, bt_storage;  // own the buffers (dist/workspace.hpp)
    T *a_buffer = nullptr, *bt_buffer = nullptr;
    const T *at = nullptr, *bt = nullptr;  // what is multiplied: the buffers or views of the local operands
    std::int64_t width = 0, at_stride = 0, bt_stride = 0;

    void allocate(std::int64_t mloc, std::int64_t nloc, std::int64_t width_max) {
      a_buffer = host_buffer<T>(a_storage, mloc * width_max);
      bt_buffer = host_buffer<T>(bt_storage, width_max * nloc);
    }
  };

  // Panel `gi` (m_group consecutive K blocks) broadcast into p, or viewed where this rank holds it all.
  void fill(std::int64_t gi, Panel& p, MPI_Comm row, MPI_Comm col) {
    const std::int64_t kb = m_da.nb, blocks = (m_k + kb - 1) / kb;
    const std::int64_t first = gi * m_group, last = std::min(blocks, first + m_group);
    p.width = std::min(m_k, last * kb) - first * kb;
    // One process column holds every K block of A with its local column = its global column (and the same
    // for B's rows), so the panel is a slice of the local array.
    if (m_a_in_place) {
      p.at = m_a + first * kb * m_da.lld;
      p.at_stride = m_da.lld;
    } else {
      p.at = p.a_buffer;
      p.at_stride = m_mloc;
    }
    if (m_b_in_place) {
      p.bt = m_b + first * kb;
      p.bt_stride = m_db.lld;
    } else {
      p.bt = p.bt_buffer;
      p.bt_stride = p.width;
    }
    std::int64_t offset = 0;
    for (std::int64_t blk = first; blk < last; ++blk) {
      const std::int64_t w = std::min(kb, m_k - blk * kb);
      if (!m_a_in_place) broadcast_a_block(blk, w, p.a_buffer + m_mloc * offset, row);
      if (!m_b_in_place) broadcast_b_block(blk, w, p.bt_buffer + offset, p.width, col);
      offset += w;
    }
  }

  MPI_Comm split(int color, int key) const {
    MPI_Comm out = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split(m_g.comm, color, key, &out), "MPI_Comm_split");
    return out;
  }

  // Global K block `blk` of A (w columns), scaled by alpha, from its process column to the whole row.
  void broadcast_a_block(std::int64_t blk, std::int64_t w, T* dst, MPI_Comm row) {
    const int owner = static_cast<int>((blk + m_da.csrc) % m_g.npcol);
    if (m_g.mycol == owner) {
      const std::int64_t col0 = (blk / m_g.npcol) * m_da.nb;
      for (std::int64_t j = 0; j < w; ++j) {
        const T* src = m_a + (col0 + j) * m_da.lld;
        if (m_alpha == T(1)) {
          std::copy_n(src, m_mloc, dst + j * m_mloc);
        } else {
          for (std::int64_t i = 0; i < m_mloc; ++i) dst[j * m_mloc + i] = m_alpha * src[i];
        }
      }
    }
    broadcast(dst, m_mloc * w, owner, row);
  }

  // Global K block `blk` of B (w rows) from its process row down the whole column, into B^T's columns
  // [offset, offset + w) of a panel `width` wide (`dst` points at column `offset` of row 0): w x nloc
  // column-major, the block as stored, when it is the whole panel; otherwise one w-run per local column of B,
  // `width` apart, described to MPI as a vector type so that it lands in place.
  void broadcast_b_block(std::int64_t blk, std::int64_t w, T* dst, std::int64_t width, MPI_Comm col) {
    const int owner = static_cast<int>((blk + m_db.rsrc) % m_g.nprow);
    if (m_g.myrow == owner) {
      const std::int64_t row0 = (blk / m_g.nprow) * m_db.mb;
      for (std::int64_t j = 0; j < m_nloc; ++j) std::copy_n(m_b + j * m_db.lld + row0, w, dst + j * width);
    }
    if (w == width || m_nloc <= 1) {
      broadcast(dst, w * m_nloc, owner, col);
      return;
    }
    ACC_ASSERT(m_nloc <= INT_MAX && width <= INT_MAX, "local extents come from int descriptors");
    const auto columns =
        committed_vector<T>(static_cast<int>(m_nloc), static_cast<int>(w), static_cast<int>(width));
    broadcast(dst, w * m_nloc, owner, col, *columns);
  }

  // `count` elements of T: contiguous, or one item of `type` (which holds them) when it is given.
  void broadcast(T* data, std::int64_t count, int root, MPI_Comm comm, MPI_Datatype type = MPI_DATATYPE_NULL) {
    ACC_ASSERT(count <= INT_MAX, "broadcast counts are checked before any data moves");
    const bool whole = type != MPI_DATATYPE_NULL;
    const auto start = Clock::now();
    check_mpi(MPI_Bcast(data, whole ? 1 : static_cast<int>(count), whole ? type : mpi_type<T>(), root, comm),
              "MPI_Bcast");
    m_stats.broadcast_seconds += since(start);
    m_stats.bytes_broadcast += count * static_cast<std::int64_t>(sizeof(T));
  }

  const ProcessGrid& m_g;
  std::int64_t m_k;
  T m_alpha;
  const T* m_a;
  Descriptor m_da;
  const T* m_b;
  Descriptor m_db;
  bool m_overwrite;
  GemmStats& m_stats;
  std::int64_t m_mloc = 0, m_nloc = 0, m_most = 0, m_group = 1;
  bool m_a_in_place = false, m_b_in_place = false;
  Tensor m_c;
};

// C = beta C on this rank's local part (beta = 0 clears it, NaNs included, as BLAS does).
template <class T>
void scale_local(T* c, std::int64_t mloc, std::int64_t nloc, int lld, T beta) {
  if (beta == T(1)) return;
  for (std::int64_t j = 0; j < nloc; ++j)
    for (std::int64_t i = 0; i < mloc; ++i) c[j * lld + i] = beta == T(0) ? T(0) : beta * c[j * lld + i];
}

}  // namespace

// Operands that do not line up for SUMMA are copied into ones that do (Note [Redistribution]): op(A)(ia:, ja:)
// as an m x k matrix whose rows follow C's, op(B)(ib:, jb:) as a k x n matrix whose columns follow C's, with
// one K block; C(ic:, jc:) into a whole m x n matrix of C's blocks when it is a submatrix. An operand that
// already lines up is used as it is.
// Every rank's local arrays against its extents of the whole matrices (copies read and write all of them),
// agreed on by every rank.
void check_local_arrays(const ProcessGrid& g, const void* a, const Descriptor& desca, const void* b,
                        const Descriptor& descb, const void* c, const Descriptor& descc) {
  agree<ValueError>(g.comm, failure_of([&] {
                      const std::pair<const char*, std::pair<const void*, const Descriptor*>> arrays[] = {
                          {"A", {a, &desca}}, {"B", {b, &descb}}, {"C", {c, &descc}}};
                      for (const auto& [name, array] : arrays) {
                        const Descriptor& d = *array.second;
                        const std::string problem =
                            local_problem(name, array.first, local_extent(d.m, d.mb, g.myrow, d.rsrc, g.nprow),
                                          local_extent(d.n, d.nb, g.mycol, d.csrc, g.npcol), d.lld);
                        ACC_CHECK(problem.empty(), ValueError, "gemm on grid rank {}: {}", g.myrow * g.npcol + g.mycol,
                                  problem);
                      }
                    }),
                    "gemm");
}

template <class T>
void gemm_redistributed(const ProcessGrid& g, bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int ia,
                        int ja, const Descriptor& desca, const T* b, int ib, int jb, const Descriptor& descb, T beta,
                        T* c, int ic, int jc, const Descriptor& descc, const GemmOptions& options, GemmStats* stats) {
  const auto start = Clock::now();
  check_local_arrays(g, a, desca, b, descb, c, descc);
  // The working C: C itself when its part starts at (1, 1), else a whole m x n copy with C's blocks.
  const bool c_in_place = ic == 1 && jc == 1;
  const Descriptor dc = c_in_place ? descc : Descriptor{1, descc.context, m, n, descc.mb, descc.nb, descc.rsrc, descc.csrc, 0};
  // An operand already distributed as SUMMA needs it beside that C is used as it is; K's block is chosen to
  // keep one when it can (B's row blocks, else A's column blocks).
  const bool b_as_is = !tb && ib == 1 && jb == 1 && descb.nb == dc.nb && descb.csrc == dc.csrc;
  const bool a_fits = !ta && ia == 1 && ja == 1 && desca.mb == dc.mb && desca.rsrc == dc.rsrc;
  const int kb = b_as_is ? descb.mb : (ta ? desca.mb : desca.nb);
  const bool a_as_is = a_fits && desca.nb == kb;
  // Uninitialised local arrays (every element in the region is written) with their descriptors.
  struct Lined {
    Descriptor d;
    Tensor storage;
    T* data = nullptr;
    T* get() const { return data; }
  };
  auto lined = [&](int rows, int cols, int mb, int nb, int rsrc, int csrc) {
    const std::int64_t local_rows = local_extent(rows, mb, g.myrow, rsrc, g.nprow);
    const std::int64_t local_cols = local_extent(cols, nb, g.mycol, csrc, g.npcol);
    const auto lld = static_cast<int>(std::max<std::int64_t>(1, local_rows));
    Lined out{Descriptor{1, descc.context, rows, cols, mb, nb, rsrc, csrc, lld}, {}, nullptr};
    out.data = host_buffer<T>(out.storage, lld * std::max<std::int64_t>(1, local_cols));
    return out;
  };
  Lined a2, b2, c2;
  // Allocated on every rank before any copy, and agreed on: a rank out of memory must not leave the others
  // waiting in the exchange.
  agree<Error>(g.comm, failure_of([&] {
                 if (!a_as_is) a2 = lined(m, k, dc.mb, kb, dc.rsrc, 0);
                 if (!b_as_is) b2 = lined(k, n, kb, dc.nb, 0, dc.csrc);
                 if (!c_in_place) c2 = lined(m, n, dc.mb, dc.nb, dc.rsrc, dc.csrc);
               }),
               "gemm");
  if (!a_as_is) redistribute(g, m, k, a, ia, ja, desca, ta, a2.get(), 1, 1, a2.d);
  if (!b_as_is) redistribute(g, k, n, b, ib, jb, descb, tb, b2.get(), 1, 1, b2.d);
  if (!c_in_place) redistribute(g, m, n, c, ic, jc, descc, false, c2.get(), 1, 1, c2.d);
  const double copied = since(start);
  GemmStats local;
  gemm(g, 'N', 'N', m, n, k, alpha, a_as_is ? a : a2.get(), 1, 1, a_as_is ? desca : a2.d, b_as_is ? b : b2.get(), 1,
       1, b_as_is ? descb : b2.d, beta, c_in_place ? c : c2.get(), 1, 1, c_in_place ? descc : c2.d, options, &local);
  const auto back = Clock::now();
  if (!c_in_place) redistribute(g, m, n, c2.get(), 1, 1, c2.d, false, c, ic, jc, descc);
  local.redistributed = true;
  local.redistribute_seconds = copied + since(back);
  local.seconds = since(start);
  if (stats != nullptr) *stats = local;
}

template <class T>
void gemm(const ProcessGrid& g, char transa, char transb, int m, int n, int k, T alpha, const T* a, int ia, int ja,
          const Descriptor& desca, const T* b, int ib, int jb, const Descriptor& descb, T beta, T* c, int ic, int jc,
          const Descriptor& descc, const GemmOptions& options, GemmStats* stats) {
  const auto start = Clock::now();
  check_global(transa, transb, m, n, k, ia, ja, desca, ib, jb, descb, ic, jc, descc);
  for (const Descriptor* d : {&desca, &descb, &descc}) {
    ACC_CHECK(d->rsrc >= 0 && d->rsrc < g.nprow && d->csrc >= 0 && d->csrc < g.npcol, ValueError,
              "gemm: a descriptor starts on process ({}, {}), outside the {} x {} grid", d->rsrc, d->csrc, g.nprow,
              g.npcol);
  }
  const bool split = options.schedule == Schedule::split_k ||
                     (options.schedule == Schedule::automatic && split_k_pays(g, m, n, k));
  if (split && m > 0 && n > 0 && k > 0 && alpha != T(0)) {
    check_local_arrays(g, a, desca, b, descb, c, descc);
    GemmStats local;
    gemm_split_k(g, transposed(transa), transposed(transb), m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c,
                 ic, jc, descc, options.device.value_or(rank_device(g)), local);
    local.seconds = since(start);
    if (stats != nullptr) *stats = local;
    return;
  }
  if (!lined_up(transa, transb, ia, ja, desca, ib, jb, descb, ic, jc, descc)) {
    gemm_redistributed(g, transposed(transa), transposed(transb), m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb,
                       beta, c, ic, jc, descc, options, stats);
    return;
  }
  // Broadcast counts are MPI ints; the largest is a block of the process row or column holding the most.
  const std::int64_t most_rows = local_extent(m, descc.mb, descc.rsrc, descc.rsrc, g.nprow);
  const std::int64_t most_cols = local_extent(n, descc.nb, descc.csrc, descc.csrc, g.npcol);
  ACC_CHECK(std::max(most_rows, most_cols) * std::int64_t{desca.nb} <= INT_MAX, NotSupportedError,
            "gemm: a broadcast of {} x {} elements is beyond MPI's int counts; use smaller blocks",
            std::max(most_rows, most_cols), desca.nb);
  const std::int64_t mloc = local_extent(m, descc.mb, g.myrow, descc.rsrc, g.nprow);
  const std::int64_t nloc = local_extent(n, descc.nb, g.mycol, descc.csrc, g.npcol);
  const std::int64_t ka = local_extent(k, desca.nb, g.mycol, desca.csrc, g.npcol);
  const std::int64_t kb = local_extent(k, descb.mb, g.myrow, descb.rsrc, g.nprow);
  // Local checks (leading dimensions against this rank's extents), agreed on by every rank.
  agree<ValueError>(g.comm, failure_of([&] {
                      for (const auto& problem : {local_problem("A", a, mloc, ka, desca.lld),
                                                  local_problem("B", b, kb, nloc, descb.lld),
                                                  local_problem("C", c, mloc, nloc, descc.lld)}) {
                        ACC_CHECK(problem.empty(), ValueError, "gemm on grid rank {}: {}",
                                  g.myrow * g.npcol + g.mycol, problem);
                      }
                    }),
                    "gemm");
  GemmStats local;
  local.schedule = "summa";
  const bool product = m > 0 && n > 0 && k > 0 && alpha != T(0);
  // With beta = 0 the first panel's product overwrites C (NaNs included, as BLAS does) instead of a pass of zeros.
  if (!product || beta != T(0)) scale_local(c, mloc, nloc, descc.lld, beta);
  if (product) {
    const Device device = options.device.value_or(rank_device(g));
    const bool overlap = options.overlap == Overlap::always ||
                         (options.overlap == Overlap::automatic && overlap_pays(g, device));
    Summa<T>(g, m, n, k, alpha, a, desca, b, descb, c, descc, /*overwrite=*/beta == T(0), local)
        .run(device, overlap, options.panel_width);
  }
  local.seconds = since(start);
  if (stats != nullptr) *stats = local;
}

template <class T>
void gemm(char transa, char transb, int m, int n, int k, T alpha, const T* a, int ia, int ja, const Descriptor& desca,
          const T* b, int ib, int jb, const Descriptor& descb, T beta, T* c, int ic, int jc, const Descriptor& descc,
          const GemmOptions& options, GemmStats* stats) {
  ACC_CHECK(desca.context == descb.context && desca.context == descc.context, NotSupportedError,
            "gemm: A, B and C must share one BLACS context, got {}, {} and {}", desca.context, descb.context,
            descc.context);
  const ProcessGrid grid = ProcessGrid::from_blacs(descc.context);
  gemm(grid, transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc, options,
       stats);
}

#define ACC_DIST_GEMM(T)                                                                                             \
  template ACC_API void gemm<T>(const ProcessGrid&, char, char, int, int, int, T, const T*, int, int,             \
                                const Descriptor&, const T*, int, int, const Descriptor&, T, T*, int, int,        \
                                const Descriptor&, const GemmOptions&, GemmStats*);                               \
  template ACC_API void gemm<T>(char, char, int, int, int, T, const T*, int, int, const Descriptor&, const T*, int, \
                                int, const Descriptor&, T, T*, int, int, const Descriptor&, const GemmOptions&,   \
                                GemmStats*);
ACC_DIST_GEMM(float)
ACC_DIST_GEMM(double)
#undef ACC_DIST_GEMM

}  // namespace accelera::dist
