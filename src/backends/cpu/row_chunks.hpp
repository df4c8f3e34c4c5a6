#pragma once
// Parallel iteration over the elements of a contiguous (rows, n) matrix in equal chunks, handed to the
// body as runs that stay within one row: fn(flat_begin, column, length). Used by element-wise kernels
// that also index a per-column vector (a bias), so that one long row is split across threads too.
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "backends/common/strided_loop.hpp"

namespace accelera::cpu {

template <typename Fn>
void for_each_row_run(std::int64_t rows, std::int64_t n, Fn&& fn) {
  const std::int64_t total = rows * n;
  const auto run_range = [&](std::int64_t begin, std::int64_t end) {
    std::int64_t pos = begin;
    while (pos < end) {
      const std::int64_t col = pos % n;
      const std::int64_t len = std::min(n - col, end - pos);
      fn(pos, col, len);
      pos += len;
    }
  };
  if (omp_in_parallel() || total < backends::elementwise_parallel_grain()) {
    run_range(0, total);
    return;
  }
  constexpr std::int64_t chunk = 1 << 14;
  const std::int64_t chunks = (total + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) run_range(c * chunk, std::min(total, (c + 1) * chunk));
}

// Parallel loop over rows, on the calling thread when the whole matrix is small.
template <typename Fn>
void for_each_row(std::int64_t rows, std::int64_t n, Fn&& fn) {
  const bool parallel = rows > 1 && !omp_in_parallel() && rows * n >= backends::elementwise_parallel_grain() / 4;
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int64_t r = 0; r < rows; ++r) fn(r);
}

}  // namespace accelera::cpu
