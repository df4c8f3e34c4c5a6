#pragma once
// Iteration over N tensors of one shape with arbitrary strides, split across OpenMP threads.
// Note [Strided loops]: dims are coalesced first (adjacent axes merge when every operand is contiguous
// across them, size-1 axes vanish), so contiguous and simply broadcast cases become one long inner run
// that the kernel's fast path vectorises. The index space is cut into element ranges across threads
// (Note [Balanced element-wise loops] below), so a single long row is split too.
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "accelera/core/shape.hpp"

namespace accelera::backends {

// Below this many elements a reduction or scan runs on the calling thread. Fixed, so that the order of
// their sums does not depend on the machine.
inline constexpr std::int64_t kParallelGrain = 1 << 15;
// The smallest chunk of an element-wise loop's shared half (Note [Balanced element-wise loops]).
inline constexpr std::int64_t kBalancedChunk = 1 << 13;
// Below this many elements an element-wise loop runs on the calling thread: measured once per process
// (Note [Parallel grain] in accelera/cpu_features.hpp). Call it outside parallel regions.
std::int64_t elementwise_parallel_grain();

template <std::size_t N>
struct LoopLayout {
  std::vector<std::int64_t> dims;                  // innermost last
  std::array<std::vector<std::int64_t>, N> strides;  // per operand, in elements
  std::int64_t numel = 0;
};

template <std::size_t N>
LoopLayout<N> make_layout(const Shape& shape, const std::array<const Strides*, N>& strides) {
  LoopLayout<N> layout;
  layout.numel = shape.numel();
  for (std::int64_t i = 0; i < shape.ndim(); ++i) {
    const std::int64_t d = shape[i];
    if (d == 1) continue;
    bool merge = !layout.dims.empty();
    for (std::size_t k = 0; k < N && merge; ++k) {
      merge = layout.strides[k].back() == (*strides[k])[static_cast<std::size_t>(i)] * d;
    }
    if (merge) {
      layout.dims.back() *= d;
      for (std::size_t k = 0; k < N; ++k) layout.strides[k].back() = (*strides[k])[static_cast<std::size_t>(i)];
    } else {
      layout.dims.push_back(d);
      for (std::size_t k = 0; k < N; ++k) layout.strides[k].push_back((*strides[k])[static_cast<std::size_t>(i)]);
    }
  }
  if (layout.dims.empty()) {  // a single element
    layout.dims.push_back(1);
    for (std::size_t k = 0; k < N; ++k) layout.strides[k].push_back(0);
  }
  return layout;
}

// Calls row(offsets, length, inner_strides) for runs along the innermost axis covering elements
// [begin, end) of the layout's row-major index space. Offsets are in elements from each operand's base.
template <std::size_t N, typename Row>
void for_each_run(const LoopLayout<N>& layout, std::int64_t begin, std::int64_t end, Row&& row) {
  const std::size_t nd = layout.dims.size();
  const std::int64_t inner = layout.dims[nd - 1];
  std::array<std::int64_t, N> inner_strides{};
  for (std::size_t k = 0; k < N; ++k) inner_strides[k] = layout.strides[k][nd - 1];
  // Multi-index of `begin` over the outer axes, and the offsets it implies.
  std::vector<std::int64_t> index(nd, 0);
  std::int64_t rest = begin / inner;
  std::int64_t col = begin % inner;
  for (std::size_t d = nd - 1; d-- > 0;) {
    index[d] = rest % layout.dims[d];
    rest /= layout.dims[d];
  }
  std::array<std::int64_t, N> offsets{};
  for (std::size_t k = 0; k < N; ++k) {
    for (std::size_t d = 0; d + 1 < nd; ++d) offsets[k] += index[d] * layout.strides[k][d];
  }
  std::int64_t pos = begin;
  while (pos < end) {
    const std::int64_t len = std::min(inner - col, end - pos);
    std::array<std::int64_t, N> run = offsets;
    for (std::size_t k = 0; k < N; ++k) run[k] += col * inner_strides[k];
    row(run, len, inner_strides);
    pos += len;
    col = 0;
    // Advance the outer multi-index by one row.
    for (std::size_t d = nd - 1; d-- > 0;) {
      ++index[d];
      for (std::size_t k = 0; k < N; ++k) offsets[k] += layout.strides[k][d];
      if (index[d] < layout.dims[d]) break;
      for (std::size_t k = 0; k < N; ++k) offsets[k] -= index[d] * layout.strides[k][d];
      index[d] = 0;
    }
  }
}

// Note [Tiled strided loops]
// Runs along the innermost axis suit the output (operand 0, contiguous there) but not an input that steps
// by a long stride along it while being contiguous along another axis (a transposed view: exp(x.T),
// x.T + y, x.T.contiguous()): each element of such a row is read from another cache line, ten times slower
// than NumPy (2048 x 2048 float32: 13.6 ms). Such layouts go in tiles of kLoopTile x kLoopTile over the
// inner axis and that other axis: the rows of a tile are short runs, and the input's cache lines stay in
// L1 across them. Rows of tiles are shared among threads.
inline constexpr std::int64_t kLoopTile = 32;

// The outer axis to tile with the innermost one, or dims.size() when plain runs are best.
template <std::size_t N>
std::size_t tiled_axis(const LoopLayout<N>& layout) {
  const std::size_t nd = layout.dims.size(), none = nd;
  if (nd < 2 || layout.strides[0][nd - 1] != 1 || layout.dims[nd - 1] < kLoopTile / 2) return none;
  for (std::size_t k = 1; k < N; ++k) {
    const std::int64_t inner = layout.strides[k][nd - 1];
    if (inner == 0 || inner == 1 || inner == -1) continue;
    for (std::size_t d = 0; d + 1 < nd; ++d) {
      if ((layout.strides[k][d] == 1 || layout.strides[k][d] == -1) && layout.dims[d] >= kLoopTile / 2) return d;
    }
  }
  return none;
}

// Calls row() for every run of the layout in tiles over (axis, innermost axis).
template <std::size_t N, typename Row>
void for_each_tiled_run(const LoopLayout<N>& layout, std::size_t axis, bool parallel, Row&& row) {
  const std::size_t nd = layout.dims.size(), inner = nd - 1;
  std::vector<std::size_t> batch_axes;
  std::int64_t batches = 1;
  for (std::size_t d = 0; d < inner; ++d) {
    if (d == axis) continue;
    batch_axes.push_back(d);
    batches *= layout.dims[d];
  }
  const std::int64_t rows = layout.dims[axis], cols = layout.dims[inner];
  const std::int64_t row_tiles = (rows + kLoopTile - 1) / kLoopTile;
  std::array<std::int64_t, N> inner_strides{};
  for (std::size_t k = 0; k < N; ++k) inner_strides[k] = layout.strides[k][inner];
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int64_t task = 0; task < batches * row_tiles; ++task) {
    std::array<std::int64_t, N> base{};
    std::int64_t batch = task / row_tiles;
    for (std::size_t b = batch_axes.size(); b-- > 0;) {
      const std::size_t d = batch_axes[b];
      const std::int64_t index = batch % layout.dims[d];
      batch /= layout.dims[d];
      for (std::size_t k = 0; k < N; ++k) base[k] += index * layout.strides[k][d];
    }
    const std::int64_t r0 = task % row_tiles * kLoopTile, r1 = std::min(rows, r0 + kLoopTile);
    for (std::int64_t c0 = 0; c0 < cols; c0 += kLoopTile) {
      const std::int64_t len = std::min(cols - c0, kLoopTile);
      for (std::int64_t r = r0; r < r1; ++r) {
        std::array<std::int64_t, N> run{};
        for (std::size_t k = 0; k < N; ++k) run[k] = base[k] + r * layout.strides[k][axis] + c0 * inner_strides[k];
        row(run, len, inner_strides);
      }
    }
  }
}

template <std::size_t N, typename Row>
void parallel_for_each_run(const LoopLayout<N>& layout, Row&& row) {
  const std::int64_t n = layout.numel;
  if (n == 0) return;
  const bool serial = omp_in_parallel() || n < elementwise_parallel_grain();
  if (const std::size_t axis = tiled_axis(layout); axis < layout.dims.size()) {
    for_each_tiled_run(layout, axis, !serial, row);
    return;
  }
  if (serial) {
    for_each_run(layout, 0, n, row);
    return;
  }
  // Note [Balanced element-wise loops]: equal shares per thread finish when the slowest thread does. A
  // core shared with another pool's spinning workers (OpenBLAS's spin for about 0.1 s after each product,
  // NumPy's included) or with a noisy neighbour runs its share at half speed, and the whole loop took twice
  // as long. So half the elements go in equal static shares (each thread keeps the pages it touched first)
  // and the rest in chunks handed out in order, which the faster threads take more of: with one of two
  // threads at half speed a loop takes 1.33x its time, not 2x. Measured: softplus over 8 Mi float64 through
  // @gpu right after NumPy's X @ X.T, median of 9, 83 ms before and 66 ms after (35-42 ms alone). Results do
  // not depend on which thread computes an element.
  const std::int64_t half = (n / 2) & ~std::int64_t{15};
  std::atomic<std::int64_t> next{half};
#pragma omp parallel
  {
    const std::int64_t threads = omp_get_num_threads();
    const std::int64_t t = omp_get_thread_num();
    // Ranges aligned to 16 elements keep each thread's vector loop on whole cache lines.
    const auto cut = [&](std::int64_t i) { return i == threads ? half : (half * i / threads) & ~std::int64_t{15}; };
    const std::int64_t b = cut(t), e = cut(t + 1);
    if (b < e) for_each_run(layout, b, e, row);
    const std::int64_t chunk = std::max<std::int64_t>(kBalancedChunk, ((n - half) / (8 * threads)) & ~std::int64_t{15});
    for (std::int64_t c = next.fetch_add(chunk, std::memory_order_relaxed); c < n;
         c = next.fetch_add(chunk, std::memory_order_relaxed)) {
      for_each_run(layout, c, std::min(n, c + chunk), row);
    }
  }
}

}  // namespace accelera::backends
