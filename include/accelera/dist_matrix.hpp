#pragma once
// accelera::dist::DistributedMatrix: a dense matrix dealt block-cyclically over a process grid, as
// ScaLAPACK deals it (block (0, 0) on process (0, 0)), each rank holding its blocks column-major. It
// carries its own descriptor, so the same local arrays go to ScaLAPACK routines unchanged; scatter and
// gather move a whole matrix between one rank and the grid; matmul is dist::gemm (SUMMA) on the
// matrices' grid. Every call is collective over the grid: each rank passes the same global arguments.
#include <cstdint>
#include <vector>

#include "accelera/dist.hpp"

namespace accelera::dist {

template <class T>
class ACC_API DistributedMatrix {
 public:
  // An m x n matrix of zeros in mb x nb blocks over `grid`.
  DistributedMatrix(ProcessGrid grid, std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb);

  // The row-major m x n matrix at `global` on grid rank `root` (read there only; other ranks may pass
  // null), dealt to every rank. An error on any rank (a null matrix on the root, a bad root) is raised on
  // every rank.
  static DistributedMatrix scatter(const ProcessGrid& grid, const T* global, std::int64_t m, std::int64_t n,
                                   std::int64_t mb, std::int64_t nb, int root = 0);
  // The whole matrix, row-major, written to `global` on grid rank `root` (other ranks may pass null).
  void gather(T* global, int root = 0) const;

  const ProcessGrid& grid() const { return m_grid; }
  std::int64_t rows() const { return m_rows; }
  std::int64_t cols() const { return m_cols; }
  std::int64_t row_block() const { return m_row_block; }
  std::int64_t col_block() const { return m_col_block; }
  // This rank's part: local_rows() x local_cols(), column-major with leading dimension leading_dimension().
  std::int64_t local_rows() const { return m_local_rows; }
  std::int64_t local_cols() const { return m_local_cols; }
  std::int64_t leading_dimension() const { return m_local_rows > 0 ? m_local_rows : 1; }
  T* local_data() { return m_local.data(); }
  const T* local_data() const { return m_local.data(); }
  // ScaLAPACK's descriptor of the matrix (context -1: use the grid, or set a BLACS context's number).
  Descriptor descriptor() const;

 private:
  ProcessGrid m_grid;
  std::int64_t m_rows, m_cols, m_row_block, m_col_block, m_local_rows = 0, m_local_cols = 0;
  std::vector<T> m_local;
};

// A @ B as a new matrix with A's row blocks and B's column blocks, on A's grid (B must be on the same
// communicator, with row blocks the size of A's column blocks). Collective.
template <class T>
ACC_API DistributedMatrix<T> matmul(const DistributedMatrix<T>& a, const DistributedMatrix<T>& b,
                                    const GemmOptions& options = {}, GemmStats* stats = nullptr);

}  // namespace accelera::dist
