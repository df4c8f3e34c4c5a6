#pragma once
// accelera::dist: matrices distributed over MPI ranks, and their product (libaccelera_dist, built where MPI
// and ScaLAPACK's BLACS are found; ACCELERA_MPI).
//
// Matrices are distributed block-cyclically as ScaLAPACK distributes them, described by ScaLAPACK's own
// array descriptors, so that a ScaLAPACK program switches by calling accelera_pdgemm for pdgemm_ (same
// arguments). Each rank computes its local products on its best device (Note [Distributed matmul] in
// src/dist/summa.cpp).
// Only MPI's C interface (OpenMPI's and MPICH's C++ bindings would need libmpi_cxx).
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"

namespace accelera::dist {

// A ScaLAPACK array descriptor (DESCA in ScaLAPACK's documentation): an m x n global matrix in mb x nb
// blocks dealt round-robin over the process grid of BLACS context `context`, block (0, 0) on process
// (rsrc, csrc); each process stores its part column-major with leading dimension lld.
struct ACC_API Descriptor {
  int dtype = 1, context = -1, m = 0, n = 0, mb = 1, nb = 1, rsrc = 0, csrc = 0, lld = 1;
  // From ScaLAPACK's nine integers; ValueError for a descriptor type other than 1 (dense).
  static Descriptor from_scalapack(const int* desc);
};

// A two-dimensional process grid over an MPI communicator, ranks in row-major order (BLACS' default).
struct ACC_API ProcessGrid {
  MPI_Comm comm = MPI_COMM_NULL;  // every process of the grid, rank = row * npcol + col
  int nprow = 1, npcol = 1, myrow = 0, mycol = 0;
  std::shared_ptr<void> owner;    // frees `comm` with the last copy, when the grid made it

  // `comm`'s processes as an nprow x npcol grid (ValueError unless nprow * npcol is its size).
  static ProcessGrid of(MPI_Comm comm, int nprow, int npcol);
  // The grid of a BLACS context (made from BLACS' default system context, as ScaLAPACK programs make
  // them), on the calling process, which must belong to it. Collective over the grid.
  static ProcessGrid from_blacs(int context);
};

// How many of n rows (or columns), dealt in blocks of nb starting at process isrc, process iproc of nprocs
// holds: ScaLAPACK's NUMROC.
ACC_API std::int64_t local_extent(std::int64_t n, std::int64_t nb, int iproc, int isrc, int nprocs);
// The global index (0-based) of local index `local` on process iproc: ScaLAPACK's INDXL2G, 0-based.
ACC_API std::int64_t global_index(std::int64_t local, std::int64_t nb, int iproc, int isrc, int nprocs);

// Whether a helper thread broadcasts the next K panel while this one is multiplied.
enum class Overlap {
  // Where it can pay: some rank multiplies on a device other than the CPU (its cores wait for the device)
  // or the grid spans several nodes (the network moves the data). Not over one node's shared memory with
  // the products on the CPU, where a broadcast is a copy made by the same cores: measured 10-30% slower
  // with the helper on long products. Every rank takes the same choice.
  automatic,
  always,
  never,
};

// How the ranks share the product (Note [Split K] in src/dist/split_k.hpp).
enum class Schedule {
  // Split K where the grid spans several nodes and a model of the traffic says it moves at most three
  // quarters of SUMMA's (a skinny C with a long K, above all on large grids), else SUMMA.
  automatic,
  // Each rank multiplies the panels of K its row and column receive into its own part of C.
  summa,
  // Each rank multiplies one share of K into a whole partial C; the partial products are summed into C's
  // distribution (MPI_Reduce_scatter). Needs a partial C (m x n) beside each rank's data.
  split_k,
};

struct GemmOptions {
  // Where this rank multiplies its panels. Default: a GPU of its node (the node's ranks take them
  // round-robin), else the CPU.
  std::optional<Device> device;
  // Overlap needs MPI initialised with MPI_THREAD_SERIALIZED or more (MPI_Init_thread; mpi4py asks for
  // MPI_THREAD_MULTIPLE): with less, the panels alternate. GemmStats::overlapped says which ran.
  Overlap overlap = Overlap::automatic;
  // K columns in each broadcast panel (whole blocks, at least one). 0 chooses from the local extents: at
  // least 256 and wider for a skinny C (Note [Distributed matmul]).
  std::int64_t panel_width = 0;
  Schedule schedule = Schedule::automatic;
};

struct GemmStats {
  std::string device;             // where this rank computed
  int panels = 0;                 // K panels broadcast and multiplied
  std::int64_t bytes_broadcast = 0;  // bytes this rank sent or received in broadcasts
  double seconds = 0, broadcast_seconds = 0, compute_seconds = 0;
  bool c_resident = false;        // the local C stayed on the device across panels
  bool overlapped = false;        // the next panel's broadcast ran while this one was multiplied
  bool redistributed = false;     // the operands were copied into a lined-up distribution first
  double redistribute_seconds = 0;  // spent copying them (and C back)
  std::string schedule;           // "summa" or "split_k"
  double reduce_seconds = 0;      // split K: summing the partial products into C
};

// C(ic:, jc:) = alpha * op(A)(ia:, ja:) @ op(B)(ib:, jb:) + beta * C(ic:, jc:) for m x n x k, with
// ScaLAPACK's conventions (indices 1-based; transa and transb 'N', 'T' or 'C', which is 'T' for real
// matrices; local arrays column-major). Collective over the grid of the descriptors' context. SUMMA runs on
// the operands as they are when they line up (no transposes, whole matrices, C's rows distributed as A's
// (mb, rsrc), C's columns as B's (nb, csrc), A's column blocks as B's row blocks); anything else is first
// copied into operands that do, and C's part back (Note [Redistribution] in src/dist/redistribute.hpp).
// Bad arguments are ValueError; every rank gets the same verdict before any data moves.
template <class T>
ACC_API void gemm(char transa, char transb, int m, int n, int k, T alpha, const T* a, int ia, int ja,
                  const Descriptor& desca, const T* b, int ib, int jb, const Descriptor& descb, T beta, T* c, int ic,
                  int jc, const Descriptor& descc, const GemmOptions& options = {}, GemmStats* stats = nullptr);

// The same over an explicit grid (no BLACS context needed); the descriptors' `context` is ignored.
template <class T>
ACC_API void gemm(const ProcessGrid& grid, char transa, char transb, int m, int n, int k, T alpha, const T* a, int ia,
                  int ja, const Descriptor& desca, const T* b, int ib, int jb, const Descriptor& descb, T beta, T* c,
                  int ic, int jc, const Descriptor& descc, const GemmOptions& options = {},
                  GemmStats* stats = nullptr);

}  // namespace accelera::dist

extern "C" {
// pdgemm_ / psgemm_'s arguments, so that ScaLAPACK programs switch by name. An error is printed with the
// rank and stops the whole job (MPI_Abort), as ScaLAPACK's PXERBLA does.
ACC_API void accelera_pdgemm(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
                             const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
                             double* c, const int* ic, const int* jc, const int* descc);
ACC_API void accelera_psgemm(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
                             const float* b, const int* ib, const int* jb, const int* descb, const float* beta,
                             float* c, const int* ic, const int* jc, const int* descc);
}
