#pragma once
// Note [Split K]
// SUMMA keeps each rank's part of C in place and moves A's and B's panels to it: a rank receives about
// (m / nprow) k + k (n / npcol) elements. For a skinny C with a long K (256 x 256 x 65536) that is nearly all
// of A and B for a few products' worth of C. Splitting K instead (the third dimension of COSMA's
// communication-optimal schedules) gives each rank one share of K: it gathers op(A)(:, K_r) and
// op(B)(K_r, :) (one MPI_Alltoallv each, Note [Redistribution]), multiplies them into a whole m x n partial
// C on its device, and the partials are summed into C's own distribution by one MPI_Reduce_scatter, where
// alpha and beta are applied. A rank then receives about (m k + k n) / P of the operands plus its m n / P
// share of every other rank's partial (times (P - 1)). K's shares are A's column blocks dealt over all P
// ranks from A's first process column, so that a rank already holds its share's rows of A from its own
// process row; on a grid of one process row A is already dealt so and is used in place (and B on one
// process column). Schedule::automatic takes split K when the grid spans several nodes, the model of these
// volumes says a rank receives at most three quarters of SUMMA's, and the partial C is no larger than the
// rank's share of A and B. Within one node it does not: there a received element costs a copy either way,
// and split K's packing and unpacking passes cost what its smaller traffic saves (256 x 256 x 65536 and
// 512 x 512 x 32768 on 2 and 4 ranks here: split K at 0.97-1.19x ScaLAPACK float64 against SUMMA's
// 1.00-1.17x, and behind it in float32).
#include <cstdint>

#include "accelera/dist.hpp"

namespace accelera::dist {

// Elements one rank receives under each schedule, as the model above counts them.
struct Traffic {
  double summa = 0, split_k = 0;
};
Traffic traffic(const ProcessGrid& g, std::int64_t m, std::int64_t n, std::int64_t k);

// Schedule::automatic's choice: split K for this product on this grid.
bool split_k_pays(const ProcessGrid& g, std::int64_t m, std::int64_t n, std::int64_t k);

// C(ic:, jc:) = alpha op(A)(ia:, ja:) op(B)(ib:, jb:) + beta C(ic:, jc:) by split K, after every global and
// local check has passed, with m, n, k > 0 and alpha != 0. Collective over the grid.
template <class T>
void gemm_split_k(const ProcessGrid& g, bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int ia, int ja,
                  const Descriptor& desca, const T* b, int ib, int jb, const Descriptor& descb, T beta, T* c, int ic,
                  int jc, const Descriptor& descc, const Device& device, GemmStats& stats);

}  // namespace accelera::dist
