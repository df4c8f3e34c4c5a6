#pragma once
// What every schedule of dist::gemm shares: where a rank computes, and how it adds products into its local
// C on that device (Note [Distributed matmul] in summa.cpp).
#include <cstdint>

#include "accelera/core/tensor.hpp"
#include "accelera/dist.hpp"

namespace accelera::dist {

// A column-major (rows x cols, leading dimension ld) matrix in host memory, as a tensor view.
Tensor column_major(void* data, std::int64_t rows, std::int64_t cols, std::int64_t ld, DType dtype);

// This rank's GPU: the ranks of one node take the node's GPUs round-robin (by node-local rank); the CPU
// where there is none. An OpenCL device that is the host's own cores (PoCL) is no faster than the CPU's BLAS.
// Collective over the grid.
Device rank_device(const ProcessGrid& g);

// Whether the grid's processes are on more than one node (shared-memory domain). Collective over the grid.
bool spans_nodes(const ProcessGrid& g);

// Whether the ranks overlap broadcasts with products (Overlap::automatic's rule), the same on every rank.
// Collective over the grid.
bool overlap_pays(const ProcessGrid& g, const Device& device);

// Adds products into the local C on the rank's device. It works on C^T (nloc x mloc, row-major), which is
// the column-major local C itself when its leading dimension is its row count: C^T += B_panel^T A_panel^T is
// then one BLAS call with no copy of C. Otherwise C^T is copied in once and out once. Elsewhere than the CPU,
// C stays on the device across panels when it fits the device's budget beside two panels of `panel_bytes`
// (one download at the end), else each panel's product goes through the out-of-core engine and is added on
// the host. `read_c` false: the first add overwrites C, so C's values are not uploaded.
class LocalProducts {
 public:
  LocalProducts(Tensor c, const Device& device, std::int64_t panel_bytes, bool read_c, GemmStats& stats);
  // C += A_panel B_panel (C = A_panel B_panel when `accumulate` is false), as C^T += B_panel^T A_panel^T,
  // given the transposes (row-major).
  void add(const Tensor& at, const Tensor& bt, bool accumulate);
  // C's final values written back where the caller's C is.
  void finish();

 private:
  Tensor m_c;
  Device m_device;
  Tensor m_work;      // C^T on the host: a view of C, or a contiguous copy
  Tensor m_resident;  // C^T on the device across panels, when it fits
};

}  // namespace accelera::dist
