// C = A B over every rank of MPI_COMM_WORLD with an installed libaccelera_dist; rank 0 checks the result.
#include <accelera/dist_matrix.hpp>
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool ok = true;
  {
    const auto grid = accelera::dist::ProcessGrid::of(MPI_COMM_WORLD, size, 1);
    const std::int64_t n = 6;
    std::vector<double> a(n * n), b(n * n, 1.0), c(n * n, -1.0);
    for (std::int64_t i = 0; i < n * n; ++i) a[i] = static_cast<double>(i);
    using M = accelera::dist::DistributedMatrix<double>;
    const M da = M::scatter(grid, a.data(), n, n, 2, 2);
    const M db = M::scatter(grid, b.data(), n, n, 2, 2);
    accelera::dist::matmul(da, db).gather(c.data());
    if (rank == 0) {
      for (std::int64_t i = 0; i < n; ++i) {
        // Row i of A summed: n * (n * i) + n (n - 1) / 2.
        const double want = static_cast<double>(n * n * i + n * (n - 1) / 2);
        for (std::int64_t j = 0; j < n; ++j) ok = ok && c[i * n + j] == want;
      }
      std::printf("accelera dist consumer on %d ranks: %s\n", size, ok ? "ok" : "wrong result");
    }
  }
  int all_ok = ok ? 1 : 0;
  MPI_Bcast(&all_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
