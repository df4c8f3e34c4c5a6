#pragma once
// Note [Redistribution]
// dist::gemm's SUMMA needs its operands lined up: C's rows distributed as A's, C's columns as B's, A's column
// blocks as B's row blocks, no transposes, whole matrices. ScaLAPACK programs pass anything: transposed
// operands, submatrices starting anywhere (ia, ja), blocks of any size. Those calls first copy op(A)(ia:, ja:)
// and op(B)(ib:, jb:) into matrices distributed as C needs (and C(ic:, jc:) into a whole matrix when it is a
// submatrix), run the aligned product, and copy C's part back: ScaLAPACK's PxGEMR2D in spirit.
// One copy is one MPI_Alltoallv, and nothing travels with the values. Which process an element goes to is
// separable: its row decides the process row, its column the process column. So what one rank sends another
// is a product: the source's local rows that go to one process row (a process column when transposed) times
// its local columns that go to one process column. Each such block is sent in the destination's
// column-major order (a transposed block is written in tiles). The receiver forms the same row and column
// groups from its side and reads each source's block straight into its local array. The copy costs
// O(elements / ranks) memory traffic, against the product's O(m n k / ranks) arithmetic.
#include <utility>
#include <vector>

#include "accelera/dist.hpp"

namespace accelera::dist {

// dst(di:, dj:)[rows x cols] = op(src)(si:, sj:), op transposing when `transpose` (the source region is then
// cols x rows). Indices 1-based as ScaLAPACK's; both matrices on `grid` (their descriptors' contexts are not
// read). Collective: every rank of the grid calls it with the same global arguments. Elements of dst
// outside the region, and the padding of its leading dimension, are left as they were.
// Process `me`'s local rows (or columns) that fall in [first, first + count) of a matrix of `extent` rows
// (columns) dealt in blocks of nb from process src over nprocs: pairs of (local index, offset in the region),
// in increasing order of both.
std::vector<std::pair<std::int64_t, std::int64_t>> local_span(std::int64_t extent, std::int64_t nb, int me, int src,
                                                              int nprocs, std::int64_t first, std::int64_t count);

template <class T>
void redistribute(const ProcessGrid& grid, std::int64_t rows, std::int64_t cols, const T* src, std::int64_t si,
                  std::int64_t sj, const Descriptor& sd, bool transpose, T* dst, std::int64_t di, std::int64_t dj,
                  const Descriptor& dd);

// The same from a matrix on `from` to one on `to`: two grids over the same processes (the same communicator,
// ranks numbered row-major in both), such as 2 x 2 and 1 x 4.
template <class T>
void redistribute(const ProcessGrid& from, const ProcessGrid& to, std::int64_t rows, std::int64_t cols, const T* src,
                  std::int64_t si, std::int64_t sj, const Descriptor& sd, bool transpose, T* dst, std::int64_t di,
                  std::int64_t dj, const Descriptor& dd);

}  // namespace accelera::dist
