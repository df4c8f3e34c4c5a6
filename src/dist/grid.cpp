// Descriptors, process grids and block-cyclic index arithmetic.
#include <vector>

#include "accelera/core/error.hpp"
#include "accelera/dist.hpp"
#include "dist/scalapack.hpp"
#include "dist/mpi_check.hpp"

namespace accelera::dist {

Descriptor Descriptor::from_scalapack(const int* desc) {
  ACC_CHECK(desc != nullptr, ValueError, "a descriptor is a null pointer");
  ACC_CHECK(desc[0] == 1, ValueError, "descriptor type {} is not a dense block-cyclic matrix (type 1)", desc[0]);
  return Descriptor{desc[0], desc[1], desc[2], desc[3], desc[4], desc[5], desc[6], desc[7], desc[8]};
}

ProcessGrid ProcessGrid::of(MPI_Comm comm, int nprow, int npcol) {
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  ACC_CHECK(nprow >= 1 && npcol >= 1 && nprow * npcol == size, ValueError,
            "a {} x {} process grid needs {} processes; the communicator has {}", nprow, npcol, nprow * npcol, size);
  ProcessGrid g;
  g.comm = comm;
  g.nprow = nprow;
  g.npcol = npcol;
  g.myrow = rank / npcol;
  g.mycol = rank % npcol;
  return g;
}

ProcessGrid ProcessGrid::from_blacs(int context) {
  ProcessGrid g;
  Cblacs_gridinfo(context, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
  ACC_CHECK(g.nprow >= 1 && g.myrow >= 0 && g.myrow < g.nprow && g.mycol >= 0 && g.mycol < g.npcol, ValueError,
            "this process is not in the grid of BLACS context {}", context);
  std::vector<int> ranks;
  for (int r = 0; r < g.nprow; ++r)
    for (int c = 0; c < g.npcol; ++c) ranks.push_back(Cblacs_pnum(context, r, c));
  MPI_Group world = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
  check_mpi(MPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group");
  check_mpi(MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &members), "MPI_Group_incl");
  MPI_Comm comm = MPI_COMM_NULL;
  const int status = MPI_Comm_create_group(MPI_COMM_WORLD, members, /*tag=*/7331, &comm);
  MPI_Group_free(&members);
  MPI_Group_free(&world);
  check_mpi(status, "MPI_Comm_create_group");
  g.comm = comm;
  g.owner = owned_comm(comm);
  return g;
}

std::int64_t local_extent(std::int64_t n, std::int64_t nb, int iproc, int isrc, int nprocs) {
  ACC_CHECK(n >= 0 && nb >= 1 && nprocs >= 1, ValueError, "local_extent: n {} nb {} over {} processes", n, nb, nprocs);
  const std::int64_t mydist = (nprocs + iproc - isrc) % nprocs;  // this process's distance from the first
  const std::int64_t blocks = n / nb;
  std::int64_t extent = (blocks / nprocs) * nb;
  const std::int64_t extra = blocks % nprocs;
  if (mydist < extra) {
    extent += nb;
  } else if (mydist == extra) {
    extent += n % nb;
  }
  return extent;
}

std::int64_t global_index(std::int64_t local, std::int64_t nb, int iproc, int isrc, int nprocs) {
  const std::int64_t mydist = (nprocs + iproc - isrc) % nprocs;
  return nprocs * nb * (local / nb) + mydist * nb + local % nb;
}

}  // namespace accelera::dist
