// DistributedMatrix: block-cyclic storage, scatter and gather through one rank, and matmul.
// scatter packs every rank's blocks on the root (in the column-major order each rank stores them) and deals
// them with one MPI_Scatterv; gather is the reverse. The root therefore holds one extra copy of the matrix
// for the duration of the call; counts are MPI ints, so one rank's part is limited to 2^31 - 1 elements.
#include <climits>
#include <numeric>

#include "accelera/core/error.hpp"
#include "accelera/dist_matrix.hpp"
#include "dist/mpi_check.hpp"

namespace accelera::dist {

namespace {

int grid_size(const ProcessGrid& g) { return g.nprow * g.npcol; }
int grid_rank(const ProcessGrid& g) { return g.myrow * g.npcol + g.mycol; }

// The global rows (or columns) that process `iproc` of `nprocs` holds, in its local order.
std::vector<std::int64_t> global_indices(std::int64_t n, std::int64_t nb, int iproc, int nprocs) {
  std::vector<std::int64_t> indices(static_cast<std::size_t>(local_extent(n, nb, iproc, 0, nprocs)));
  for (std::size_t i = 0; i < indices.size(); ++i) {
    indices[i] = global_index(static_cast<std::int64_t>(i), nb, iproc, 0, nprocs);
  }
  return indices;
}

// Counts and displacements of every rank's part, as MPI's v-collectives take them.
struct Layout {
  std::vector<int> counts, displacements;
};

Layout part_layout(const ProcessGrid& g, std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb) {
  Layout layout;
  std::int64_t offset = 0;
  for (int p = 0; p < grid_size(g); ++p) {
    const std::int64_t count = local_extent(m, mb, p / g.npcol, 0, g.nprow) * local_extent(n, nb, p % g.npcol, 0, g.npcol);
    ACC_CHECK(count <= INT_MAX && offset <= INT_MAX, NotSupportedError,
              "a {} x {} matrix in {} x {} blocks gives grid rank {} {} elements; scatter and gather move at most "
              "2^31 - 1 elements per rank (use more ranks or build the parts on each rank)",
              m, n, mb, nb, p, count);
    layout.counts.push_back(static_cast<int>(count));
    layout.displacements.push_back(static_cast<int>(offset));
    offset += count;
  }
  return layout;
}

// Calls f(local offset, global offset) for every element of process p's part, in its column-major order.
template <class F>
void for_each_element(const ProcessGrid& g, int p, std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb,
                      F&& f) {
  const auto rows = global_indices(m, mb, p / g.npcol, g.nprow);
  const auto cols = global_indices(n, nb, p % g.npcol, g.npcol);
  std::int64_t at = 0;
  for (const std::int64_t gj : cols) {
    for (const std::int64_t gi : rows) f(at++, gi * n + gj);
  }
}

void check_root(const ProcessGrid& g, int root, std::string_view what) {
  ACC_CHECK(root >= 0 && root < grid_size(g), ValueError, "{}: root {} is not a rank of the {} x {} grid", what, root,
            g.nprow, g.npcol);
}

}  // namespace

template <class T>
DistributedMatrix<T>::DistributedMatrix(ProcessGrid grid, std::int64_t m, std::int64_t n, std::int64_t mb,
                                        std::int64_t nb)
    : m_grid(std::move(grid)), m_rows(m), m_cols(n), m_row_block(mb), m_col_block(nb) {
  ACC_CHECK(m_grid.comm != MPI_COMM_NULL, ValueError, "a distributed matrix needs a process grid with a communicator");
  ACC_CHECK(m >= 0 && n >= 0 && m <= INT_MAX && n <= INT_MAX, ValueError,
            "a distributed matrix has 0 to 2^31 - 1 rows and columns (ScaLAPACK's int sizes), got {} x {}", m, n);
  ACC_CHECK(mb >= 1 && nb >= 1 && mb <= INT_MAX && nb <= INT_MAX, ValueError,
            "blocks must be at least 1 x 1, got {} x {}", mb, nb);
  m_local_rows = local_extent(m, mb, m_grid.myrow, 0, m_grid.nprow);
  m_local_cols = local_extent(n, nb, m_grid.mycol, 0, m_grid.npcol);
  m_local.assign(static_cast<std::size_t>(m_local_rows * m_local_cols), T{0});
}

template <class T>
Descriptor DistributedMatrix<T>::descriptor() const {
  return Descriptor{1,
                    -1,
                    static_cast<int>(m_rows),
                    static_cast<int>(m_cols),
                    static_cast<int>(m_row_block),
                    static_cast<int>(m_col_block),
                    0,
                    0,
                    static_cast<int>(leading_dimension())};
}

template <class T>
DistributedMatrix<T> DistributedMatrix<T>::scatter(const ProcessGrid& grid, const T* global, std::int64_t m,
                                                   std::int64_t n, std::int64_t mb, std::int64_t nb, int root) {
  DistributedMatrix matrix(grid, m, n, mb, nb);
  const ProcessGrid& g = matrix.m_grid;
  check_root(g, root, "scatter");
  const Layout layout = part_layout(g, m, n, mb, nb);
  std::vector<T> packed;
  agree<Error>(g.comm, failure_of([&] {
                 if (grid_rank(g) != root) return;
                 ACC_CHECK(global != nullptr || m * n == 0, ValueError, "scatter: the root (rank {}) has no matrix",
                           root);
                 packed.resize(static_cast<std::size_t>(std::accumulate(layout.counts.begin(), layout.counts.end(),
                                                                        std::int64_t{0})));
                 for (int p = 0; p < grid_size(g); ++p) {
                   T* part = packed.data() + layout.displacements[static_cast<std::size_t>(p)];
                   for_each_element(g, p, m, n, mb, nb, [&](std::int64_t at, std::int64_t from) { part[at] = global[from]; });
                 }
               }),
               "scatter");
  check_mpi(MPI_Scatterv(packed.data(), layout.counts.data(), layout.displacements.data(), mpi_type<T>(),
                         matrix.m_local.data(), layout.counts[static_cast<std::size_t>(grid_rank(g))], mpi_type<T>(),
                         root, g.comm),
            "MPI_Scatterv");
  return matrix;
}

template <class T>
void DistributedMatrix<T>::gather(T* global, int root) const {
  const ProcessGrid& g = m_grid;
  check_root(g, root, "gather");
  const Layout layout = part_layout(g, m_rows, m_cols, m_row_block, m_col_block);
  agree<Error>(g.comm, failure_of([&] {
                 if (grid_rank(g) == root) {
                   ACC_CHECK(global != nullptr || m_rows * m_cols == 0, ValueError,
                             "gather: the root (rank {}) has nowhere to write the matrix", root);
                 }
               }),
               "gather");
  std::vector<T> packed(grid_rank(g) == root ? static_cast<std::size_t>(m_rows * m_cols) : 0);
  check_mpi(MPI_Gatherv(m_local.data(), layout.counts[static_cast<std::size_t>(grid_rank(g))], mpi_type<T>(),
                        packed.data(), layout.counts.data(), layout.displacements.data(), mpi_type<T>(), root, g.comm),
            "MPI_Gatherv");
  if (grid_rank(g) != root) return;
  for (int p = 0; p < grid_size(g); ++p) {
    const T* part = packed.data() + layout.displacements[static_cast<std::size_t>(p)];
    for_each_element(g, p, m_rows, m_cols, m_row_block, m_col_block,
                     [&](std::int64_t at, std::int64_t to) { global[to] = part[at]; });
  }
}

template <class T>
DistributedMatrix<T> matmul(const DistributedMatrix<T>& a, const DistributedMatrix<T>& b, const GemmOptions& options,
                            GemmStats* stats) {
  int same = MPI_UNEQUAL;
  check_mpi(MPI_Comm_compare(a.grid().comm, b.grid().comm, &same), "MPI_Comm_compare");
  ACC_CHECK((same == MPI_IDENT || same == MPI_CONGRUENT) && a.grid().nprow == b.grid().nprow &&
                a.grid().npcol == b.grid().npcol,
            ValueError, "matmul: A and B must be distributed over the same process grid");
  ACC_CHECK(a.cols() == b.rows(), ShapeError, "matmul: A is {} x {} but B is {} x {}", a.rows(), a.cols(), b.rows(),
            b.cols());
  DistributedMatrix<T> c(a.grid(), a.rows(), b.cols(), a.row_block(), b.col_block());
  gemm<T>(a.grid(), 'N', 'N', static_cast<int>(a.rows()), static_cast<int>(b.cols()), static_cast<int>(a.cols()), T{1},
          a.local_data(), 1, 1, a.descriptor(), b.local_data(), 1, 1, b.descriptor(), T{0}, c.local_data(), 1, 1,
          c.descriptor(), options, stats);
  return c;
}

template class DistributedMatrix<double>;
template class DistributedMatrix<float>;
template ACC_API DistributedMatrix<double> matmul(const DistributedMatrix<double>&, const DistributedMatrix<double>&,
                                                  const GemmOptions&, GemmStats*);
template ACC_API DistributedMatrix<float> matmul(const DistributedMatrix<float>&, const DistributedMatrix<float>&,
                                                 const GemmOptions&, GemmStats*);

}  // namespace accelera::dist
