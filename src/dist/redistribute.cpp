// Copies between block-cyclic distributions: Note [Redistribution] in redistribute.hpp.
#include "dist/redistribute.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "accelera/core/error.hpp"
#include "dist/mpi_check.hpp"
#include "dist/workspace.hpp"

namespace accelera::dist {

namespace {

// The process row (or column) holding global row (column) `global` of blocks of nb dealt from process src.
int owner(std::int64_t global, std::int64_t nb, int src, int nprocs) {
  return static_cast<int>((global / nb + src) % nprocs);
}

// The process part (process row * npcol, or process column) holding `base + offset` for each entry of span,
// in blocks of nb dealt from process src over nprocs, times `scale`.
std::vector<int> parts_of(const std::vector<std::pair<std::int64_t, std::int64_t>>& span, std::int64_t base,
                          std::int64_t nb, int src, int nprocs, int scale) {
  std::vector<int> out(span.size());
  for (std::size_t i = 0; i < span.size(); ++i) out[i] = owner(base + span[i].second, nb, src, nprocs) * scale;
  return out;
}

// The part (as parts_of gives it) holding each entry of `span` in the distribution `d` of the region at
// (i, j), 1-based: along d's rows when `down`, along its columns otherwise.
std::vector<int> parts_in(const std::vector<std::pair<std::int64_t, std::int64_t>>& span, bool down, const Descriptor& d,
                          std::int64_t i, std::int64_t j, int nprow, int npcol) {
  return down ? parts_of(span, i - 1, d.mb, d.rsrc, nprow, npcol) : parts_of(span, j - 1, d.nb, d.csrc, npcol, 1);
}

// Local indices grouped by the process part they go to (or come from): `part[i]` for each entry of `span`.
// Destinations are separable (a row's part plus a column's part), so what one rank sends another is the
// product of one row group and one column group.
std::vector<std::vector<std::int64_t>> groups(const std::vector<std::pair<std::int64_t, std::int64_t>>& span,
                                              const std::vector<int>& part, int parts, int stride) {
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(parts));
  for (std::size_t i = 0; i < span.size(); ++i) out[static_cast<std::size_t>(part[i] / stride)].push_back(span[i].first);
  return out;
}

// Runs of consecutive local indices in an increasing list: (first index, its position in the list, length).
// Block-cyclic groups are runs of whole blocks, so a column's rows are copied a run at a time (memcpy)
// instead of one indexed element at a time.
struct Run {
  std::int64_t first;
  std::size_t at, length;
};
std::vector<Run> runs_of(const std::vector<std::int64_t>& indices) {
  std::vector<Run> out;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (!out.empty() && indices[i] == out.back().first + static_cast<std::int64_t>(out.back().length)) {
      ++out.back().length;
    } else {
      out.push_back({indices[i], i, 1});
    }
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::int64_t, std::int64_t>> local_span(std::int64_t extent, std::int64_t nb, int me, int src,
                                                              int nprocs, std::int64_t first, std::int64_t count) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const std::int64_t local = local_extent(extent, nb, me, src, nprocs);
  for (std::int64_t l = 0; l < local; ++l) {
    const std::int64_t g = global_index(l, nb, me, src, nprocs);
    if (g >= first && g < first + count) out.emplace_back(l, g - first);
  }
  return out;
}

namespace {

// How a row or column of one side's matrix maps to the other side's process parts (Note [Redistribution]):
// a source row lands in a destination process row (a process column when transposed), and so on. `parts`
// and `stride` describe the other grid: a part's rank is its process row * npcol + its process column.
struct Sides {
  int row_parts, col_parts, row_stride, col_stride;
  // Parts of `grid` that rows and columns of the other side go to (or come from).
  static Sides of(const ProcessGrid& grid, bool transpose) {
    return transpose ? Sides{grid.npcol, grid.nprow, 1, grid.npcol} : Sides{grid.nprow, grid.npcol, grid.npcol, 1};
  }
  int rank(int v, int w) const { return v * row_stride + w * col_stride; }
};

}  // namespace

template <class T>
void redistribute(const ProcessGrid& from, const ProcessGrid& to, std::int64_t rows, std::int64_t cols, const T* src,
                  std::int64_t si, std::int64_t sj, const Descriptor& sd, bool transpose, T* dst, std::int64_t di,
                  std::int64_t dj, const Descriptor& dd) {
  const int ranks = from.nprow * from.npcol;
  ACC_ASSERT(to.nprow * to.npcol == ranks, "redistribute: both grids hold the same processes");
  const std::int64_t src_rows = transpose ? cols : rows, src_cols = transpose ? rows : cols;
  const Sides out = Sides::of(to, transpose);   // where this rank's source rows and columns go
  const Sides in = Sides::of(from, transpose);  // where this rank's destination rows and columns come from
  Tensor send_storage;  // dist/workspace.hpp
  T* send = nullptr;
  std::vector<int> send_counts(static_cast<std::size_t>(ranks), 0), send_displs(static_cast<std::size_t>(ranks), 0);
  // Packing is local work: a failure there (memory) is agreed on before the collective calls.
  agree<Error>(from.comm, failure_of([&] {
                 const auto my_rows = local_span(sd.m, sd.mb, from.myrow, sd.rsrc, from.nprow, si - 1, src_rows);
                 const auto my_cols = local_span(sd.n, sd.nb, from.mycol, sd.csrc, from.npcol, sj - 1, src_cols);
                 // A source row lands in a destination row (a column when transposed), and so on.
                 const auto row_to = parts_in(my_rows, !transpose, dd, di, dj, to.nprow, to.npcol);
                 const auto col_to = parts_in(my_cols, transpose, dd, di, dj, to.nprow, to.npcol);
                 const auto row_groups = groups(my_rows, row_to, out.row_parts, out.row_stride);
                 const auto col_groups = groups(my_cols, col_to, out.col_parts, out.col_stride);
                 std::int64_t total = 0;
                 for (int v = 0; v < out.row_parts; ++v)
                   for (int w = 0; w < out.col_parts; ++w) {
                     const int dest = out.rank(v, w);
                     send_displs[static_cast<std::size_t>(dest)] = static_cast<int>(std::min<std::int64_t>(total, INT_MAX));
                     const std::int64_t count = static_cast<std::int64_t>(row_groups[static_cast<std::size_t>(v)].size()) *
                                                static_cast<std::int64_t>(col_groups[static_cast<std::size_t>(w)].size());
                     send_counts[static_cast<std::size_t>(dest)] = static_cast<int>(std::min<std::int64_t>(count, INT_MAX));
                     total += count;
                   }
                 ACC_CHECK(total <= INT_MAX, NotSupportedError,
                           "redistributing {} elements from one rank is beyond MPI's int counts", total);
                 send = host_buffer<T>(send_storage, total);
                 // Each destination's block in the order of its places there (Note [Redistribution]).
                 constexpr std::size_t kTile = 64;  // a transposed block is written in tiles, reads and writes in cache
                 for (int v = 0; v < out.row_parts; ++v)
                   for (int w = 0; w < out.col_parts; ++w) {
                     const auto& rs = row_groups[static_cast<std::size_t>(v)];
                     const auto& cs = col_groups[static_cast<std::size_t>(w)];
                     T* block = send + send_displs[static_cast<std::size_t>(out.rank(v, w))];
                     if (!transpose) {
                       const auto row_runs = runs_of(rs);
                       for (std::size_t l = 0; l < cs.size(); ++l)
                         for (const Run& r : row_runs)
                           std::copy_n(src + cs[l] * sd.lld + r.first, r.length, block + l * rs.size() + r.at);
                       continue;
                     }
                     for (std::size_t l0 = 0; l0 < cs.size(); l0 += kTile)
                       for (std::size_t k0 = 0; k0 < rs.size(); k0 += kTile)
                         for (std::size_t l = l0; l < std::min(cs.size(), l0 + kTile); ++l)
                           for (std::size_t k = k0; k < std::min(rs.size(), k0 + kTile); ++k)
                             block[k * cs.size() + l] = src[cs[l] * sd.lld + rs[k]];
                   }
               }),
               "redistribute");
  std::vector<int> recv_counts(static_cast<std::size_t>(ranks)), recv_displs(static_cast<std::size_t>(ranks), 0);
  check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, from.comm), "MPI_Alltoall");
  // What this rank receives must fit MPI's int displacements too (uneven shares can make it more than any
  // rank sends), and its buffer must be there: both agreed on before the exchange.
  Tensor received_storage;
  T* received = nullptr;
  agree<Error>(from.comm, failure_of([&] {
                 std::int64_t total = 0;
                 for (int r = 0; r < ranks; ++r) total += recv_counts[static_cast<std::size_t>(r)];
                 ACC_CHECK(total <= INT_MAX, NotSupportedError,
                           "redistributing {} elements to one rank is beyond MPI's int counts", total);
                 total = 0;
                 for (int r = 0; r < ranks; ++r) {
                   recv_displs[static_cast<std::size_t>(r)] = static_cast<int>(total);
                   total += recv_counts[static_cast<std::size_t>(r)];
                 }
                 received = host_buffer<T>(received_storage, total);
               }),
               "redistribute");
  check_mpi(MPI_Alltoallv(send, send_counts.data(), send_displs.data(), mpi_type<T>(), received,
                          recv_counts.data(), recv_displs.data(), mpi_type<T>(), from.comm),
            "MPI_Alltoallv");
  // The destination's local elements from each source, in column-major order: the source's block as sent.
  const auto my_rows = local_span(dd.m, dd.mb, to.myrow, dd.rsrc, to.nprow, di - 1, rows);
  const auto my_cols = local_span(dd.n, dd.nb, to.mycol, dd.csrc, to.npcol, dj - 1, cols);
  // A destination row comes from a source column when transposed, so the parts and strides are the
  // sender's, mirrored.
  const auto row_groups =
      groups(my_rows, parts_in(my_rows, !transpose, sd, si, sj, from.nprow, from.npcol), in.row_parts, in.row_stride);
  const auto col_groups =
      groups(my_cols, parts_in(my_cols, transpose, sd, si, sj, from.nprow, from.npcol), in.col_parts, in.col_stride);
  for (int v = 0; v < in.row_parts; ++v)
    for (int w = 0; w < in.col_parts; ++w) {
      const auto& rs = row_groups[static_cast<std::size_t>(v)];
      const auto& cs = col_groups[static_cast<std::size_t>(w)];
      const T* block = received + recv_displs[static_cast<std::size_t>(in.rank(v, w))];
      const auto row_runs = runs_of(rs);
      for (std::size_t l = 0; l < cs.size(); ++l)
        for (const Run& r : row_runs) std::copy_n(block + l * rs.size() + r.at, r.length, dst + cs[l] * dd.lld + r.first);
    }
}

template <class T>
void redistribute(const ProcessGrid& grid, std::int64_t rows, std::int64_t cols, const T* src, std::int64_t si,
                  std::int64_t sj, const Descriptor& sd, bool transpose, T* dst, std::int64_t di, std::int64_t dj,
                  const Descriptor& dd) {
  redistribute(grid, grid, rows, cols, src, si, sj, sd, transpose, dst, di, dj, dd);
}

#define ACC_REDISTRIBUTE(T)                                                                                  \
  template void redistribute<T>(const ProcessGrid&, std::int64_t, std::int64_t, const T*, std::int64_t,            \
                                std::int64_t, const Descriptor&, bool, T*, std::int64_t, std::int64_t,             \
                                const Descriptor&);                                                               \
  template void redistribute<T>(const ProcessGrid&, const ProcessGrid&, std::int64_t, std::int64_t, const T*,      \
                                std::int64_t, std::int64_t, const Descriptor&, bool, T*, std::int64_t,             \
                                std::int64_t, const Descriptor&);
ACC_REDISTRIBUTE(double)
ACC_REDISTRIBUTE(float)
#undef ACC_REDISTRIBUTE

}  // namespace accelera::dist
