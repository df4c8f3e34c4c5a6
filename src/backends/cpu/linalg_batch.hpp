#pragma once
// The batch loop of the CPU factorisations (Note [Factorisation kernels] in ops/linalg_kernels.hpp). LAPACK
// works one matrix at a time; small matrices run one per OpenMP thread (OpenBLAS would run each on one
// thread anyway), large ones one after another with OpenBLAS's own threads inside each call.
#include <cstdint>
#include <vector>

#include "accelera/core/tensor.hpp"

namespace accelera::cpu {

// Rows and columns of the column-major matrices of `work` (shape (batch..., cols, rows)), and their count.
struct MatrixBatch {
  std::int64_t rows = 0, cols = 0, count = 0;
  explicit MatrixBatch(const Tensor& work)
      : rows(work.dim(work.ndim() - 1)), cols(work.dim(work.ndim() - 2)),
        count(rows * cols == 0 ? 0 : work.numel() / (rows * cols)) {}
};

// Runs body(i) for every batch entry i, in parallel when the matrices are small.
template <typename Body>
void for_each_matrix(std::int64_t count, std::int64_t largest_extent, Body&& body) {
  const bool parallel = count > 1 && largest_extent <= 128;
#pragma omp parallel for schedule(dynamic, 16) if (parallel)
  for (std::int64_t i = 0; i < count; ++i) body(i);
}

// A workspace that grows to the largest size a thread asks for and keeps it (one per thread and type).
template <typename T>
T* scratch(std::size_t n) {
  thread_local std::vector<T> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

}  // namespace accelera::cpu
