// `mpirun -np N accelera matmul a.npy b.npy -o c.npy`: the product over every rank of the job (Note [Matmul
// under MPI]). Built where MPI is (ACCELERA_MPI); the command runs it when an MPI launcher started it.
//
// Note [Matmul under MPI]
// Every rank maps A and B (a shared file system) and copies out only its own blocks of the block-cyclic
// distribution over the squarest process grid; accelera::dist::gemm multiplies them (SUMMA, each rank on its
// node's GPU or the CPU). Rank 0 creates C as a hidden temporary beside its path (Note [Safe outputs]); every
// rank writes its blocks of C into it at their places (pwrite, then fsync), and only when every rank says it
// succeeded does rank 0 rename it into place. An error on any rank (a bad input, an output path that cannot
// be created, a device that fails during the product: accelera::dist fails on every rank together) is
// shared, so every rank stops with it and nothing is written. Anything else (an error outside these agreed
// steps) stops the job with MPI_Abort, whose signal lets rank 0 remove its temporary (Note [Interrupted
// runs]); C's path is never touched.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "accelera/accelera.hpp"
#include "accelera/dist.hpp"
#include "commands.hpp"
#include "npy.hpp"

namespace accelera::cli {

namespace {

// Block edge of the distribution: large enough for fast local products, small enough to share out.
constexpr std::int64_t kBlock = 256;

struct Job {
  int rank = 0, size = 1;
};

// An error every rank of the job throws together (agree): each stops cleanly, and one says it.
class AgreedError : public Error {
 public:
  using Error::Error;
};

// One rank's message, or "" when it is fine; every rank gets the first bad rank's message.
void agree(const Job& job, const std::string& problem) {
  int first = problem.empty() ? INT_MAX : job.rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT_MAX) return;
  int length = static_cast<int>(problem.size());
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  std::string text = job.rank == first ? problem : std::string(static_cast<std::size_t>(length), ' ');
  MPI_Bcast(text.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  throw AgreedError(job.size > 1 ? fmt::format("rank {}: {}", first, text) : text);
}

template <class F>
std::string problem_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// This rank's blocks of an m x n host matrix (any strides), column-major with leading dimension lld.
std::vector<char> local_part(const Tensor& global, const dist::ProcessGrid& g, std::int64_t nb, int& lld) {
  const std::int64_t m = global.shape()[0], n = global.shape()[1];
  const std::int64_t mloc = dist::local_extent(m, nb, g.myrow, 0, g.nprow);
  const std::int64_t nloc = dist::local_extent(n, nb, g.mycol, 0, g.npcol);
  lld = static_cast<int>(std::max<std::int64_t>(1, mloc));
  const auto e = static_cast<std::int64_t>(dtype_size(global.dtype()));
  std::vector<char> data(static_cast<std::size_t>(lld * std::max<std::int64_t>(1, nloc) * e));
  const Tensor local = Tensor::from_blob(data.data(), Shape({mloc, nloc}), {1, lld}, global.dtype(), Device::cpu(),
                                         [] {});
  for (std::int64_t i0 = 0; i0 < mloc; i0 += nb) {
    const std::int64_t gi = dist::global_index(i0, nb, g.myrow, 0, g.nprow), rows = std::min(nb, mloc - i0);
    for (std::int64_t j0 = 0; j0 < nloc; j0 += nb) {
      const std::int64_t gj = dist::global_index(j0, nb, g.mycol, 0, g.npcol), cols = std::min(nb, nloc - j0);
      copy_into(global.slice(0, gi, gi + rows).slice(1, gj, gj + cols),
                local.slice(0, i0, i0 + rows).slice(1, j0, j0 + cols));
    }
  }
  return data;
}

// Writes this rank's blocks of C (column-major local part) at their places in the C-order file.
void write_blocks(const std::string& path, std::size_t data_offset, const std::vector<char>& local, int lld,
                  std::int64_t m, std::int64_t n, std::size_t e, const dist::ProcessGrid& g, std::int64_t nb) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  ACC_CHECK(fd >= 0, ValueError, "cannot open the output's temporary {}: {}", path, std::strerror(errno));
  const std::int64_t mloc = dist::local_extent(m, nb, g.myrow, 0, g.nprow);
  const std::int64_t nloc = dist::local_extent(n, nb, g.mycol, 0, g.npcol);
  std::vector<char> row(static_cast<std::size_t>(nb) * e);
  std::string failure;
  for (std::int64_t j0 = 0; j0 < nloc && failure.empty(); j0 += nb) {
    const std::int64_t gj = dist::global_index(j0, nb, g.mycol, 0, g.npcol), cols = std::min(nb, nloc - j0);
    for (std::int64_t i = 0; i < mloc && failure.empty(); ++i) {
      const std::int64_t gi = dist::global_index(i, nb, g.myrow, 0, g.nprow);
      for (std::int64_t j = 0; j < cols; ++j)
        std::memcpy(row.data() + j * e, local.data() + ((j0 + j) * lld + i) * e, e);
      const auto bytes = static_cast<std::size_t>(cols) * e;
      const auto at = static_cast<off_t>(data_offset + static_cast<std::size_t>(gi * n + gj) * e);
      if (::pwrite(fd, row.data(), bytes, at) != static_cast<ssize_t>(bytes))
        failure = fmt::format("cannot write to the output's temporary {}: {}", path, std::strerror(errno));
    }
  }
  if (failure.empty() && ::fsync(fd) != 0)
    failure = fmt::format("cannot write the output's temporary {} to disk: {}", path, std::strerror(errno));
  ::close(fd);
  if (!failure.empty()) throw ValueError(failure);
}

template <class T>
void multiply_local(const dist::ProcessGrid& g, std::int64_t m, std::int64_t n, std::int64_t k,
                    const std::vector<char>& a, int lda, const std::vector<char>& b, int ldb, std::vector<char>& c,
                    int ldc, const std::optional<Device>& device, dist::GemmStats& stats) {
  const auto mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  const int nb = static_cast<int>(kBlock);
  const dist::Descriptor da{1, -1, mi, ki, nb, nb, 0, 0, lda}, db{1, -1, ki, ni, nb, nb, 0, 0, ldb},
      dc{1, -1, mi, ni, nb, nb, 0, 0, ldc};
  dist::GemmOptions options;
  options.device = device;
  dist::gemm<T>(g, 'N', 'N', mi, ni, ki, T(1), reinterpret_cast<const T*>(a.data()), 1, 1, da,
                reinterpret_cast<const T*>(b.data()), 1, 1, db, T(0), reinterpret_cast<T*>(c.data()), 1, 1, dc,
                options, &stats);
}

int run(const MatmulOptions& options, const Job& job) {
  std::unique_ptr<MappedNpy> a, b, c;
  std::string temporary;
  std::uint64_t data_offset = 0;
  agree(job, problem_of([&] {
    ACC_CHECK(options.devices.empty() && !options.include_cpu, ValueError,
              "--devices and --include-cpu do not apply under an MPI launcher: every rank uses its node's GPU "
              "or the CPU (or --device)");
    a = MappedNpy::open(options.a);
    b = MappedNpy::open(options.b);
    const Tensor& ta = a->tensor();
    const Tensor& tb = b->tensor();
    ACC_CHECK(ta.shape()[1] == tb.shape()[0], ShapeError, "{} is {} and {} is {}: A's columns must equal B's rows",
              options.a, ta.shape().str(), options.b, tb.shape().str());
    ACC_CHECK(ta.dtype() == tb.dtype(), DTypeError, "{} is {} and {} is {}: convert one so that both match",
              options.a, dtype_name(ta.dtype()), options.b, dtype_name(tb.dtype()));
    ACC_CHECK(std::max({ta.shape()[0], ta.shape()[1], tb.shape()[1]}) <= INT_MAX, ValueError,
              "matrices beyond 2^31 rows or columns are beyond ScaLAPACK's int descriptors");
  }));
  const Tensor& ta = a->tensor();
  const Tensor& tb = b->tensor();
  const std::int64_t m = ta.shape()[0], k = ta.shape()[1], n = tb.shape()[1];
  // Rank 0 creates the temporary; the others learn its name and where its data starts.
  agree(job, problem_of([&] {
    if (job.rank == 0) {
      c = MappedNpy::create(options.out, m, n, ta.dtype(), {a.get(), b.get()});
      // The header went in through rank 0's mapping: on disk now, so that no dirty page of rank 0's can
      // later overwrite blocks that other nodes wrote beside it (a shared file system such as NFS).
      c->sync();
      temporary = c->temporary_path();
      data_offset = c->data_offset();
    }
  }));
  int length = static_cast<int>(temporary.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  temporary.resize(static_cast<std::size_t>(length));
  MPI_Bcast(temporary.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(&data_offset, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);

  int nprow = static_cast<int>(std::sqrt(static_cast<double>(job.size)));
  while (job.size % nprow != 0) --nprow;
  const dist::ProcessGrid g = dist::ProcessGrid::of(MPI_COMM_WORLD, nprow, job.size / nprow);
  const auto start = std::chrono::steady_clock::now();
  int lda = 1, ldb = 1, ldc = 1;
  const std::vector<char> la = local_part(ta, g, kBlock, lda), lb = local_part(tb, g, kBlock, ldb);
  const std::int64_t mloc = dist::local_extent(m, kBlock, g.myrow, 0, g.nprow);
  const std::int64_t nloc = dist::local_extent(n, kBlock, g.mycol, 0, g.npcol);
  ldc = static_cast<int>(std::max<std::int64_t>(1, mloc));
  const std::size_t e = dtype_size(ta.dtype());
  std::vector<char> lc(static_cast<std::size_t>(ldc * std::max<std::int64_t>(1, nloc)) * e);
  const std::optional<Device> device =
      options.device.empty() ? std::nullopt : std::optional<Device>(Device::parse(options.device));
  dist::GemmStats stats;
  // accelera::dist::gemm fails on every rank together (Note [Distributed matmul]).
  agree(job, problem_of([&] {
    if (ta.dtype() == DType::f64) {
      multiply_local<double>(g, m, n, k, la, lda, lb, ldb, lc, ldc, device, stats);
    } else {
      multiply_local<float>(g, m, n, k, la, lda, lb, ldb, lc, ldc, device, stats);
    }
  }));
  // Every rank's blocks land before rank 0 renames; a rank that cannot write stops the rename.
  agree(job, problem_of([&] { write_blocks(temporary, data_offset, lc, ldc, m, n, e, g, kBlock); }));
  if (job.rank == 0) {
    c->commit();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("{} = {} @ {}: ({}, {}) on {} ranks ({} x {} grid, rank 0 on {}) in {:.3f} s ({:.1f} GFLOP/s)\n",
               options.out, options.a, options.b, m, n, job.size, g.nprow, g.npcol, stats.device, seconds,
               2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / seconds / 1e9);
    fmt::print("  rank 0: {} panels, broadcasts {:.3f} s, local products {:.3f} s\n", stats.panels,
               stats.broadcast_seconds, stats.compute_seconds);
  }
  return 0;
}

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

int run_matmul_mpi(const MatmulOptions& options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = 0;  // SERIALIZED: accelera::dist broadcasts the next panel while multiplying this one
  if (!initialized) MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  Job job;
  MPI_Comm_rank(MPI_COMM_WORLD, &job.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &job.size);
  int status = 0;
  try {
    status = run(options, job);
  } catch (const AgreedError& error) {
    // Every rank has it (agree): one says it, all stop; nothing was written.
    if (job.rank == 0) std::cerr << "accelera: error: " << error.what() << "\n";
    status = 1;
  } catch (const std::exception& error) {
    // This rank alone failed during the product; the others may be waiting on it.
    std::cerr << fmt::format("accelera: error on rank {}: {}\n", job.rank, error.what());
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}

}  // namespace accelera::cli
