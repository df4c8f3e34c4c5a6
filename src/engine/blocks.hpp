#pragma once
// Views of rectangular blocks of a matrix, and copies of results between devices, for the engine's paths.
#include <cstdint>

#include "accelera/core/registry.hpp"
#include "accelera/engine.hpp"
#include "accelera/ops.hpp"

namespace accelera::engine {

inline Tensor block(const Tensor& m, std::int64_t row0, std::int64_t rows, std::int64_t col0, std::int64_t cols) {
  return m.slice(0, row0, row0 + rows).slice(1, col0, col0 + cols);
}

inline Tensor block(const Tensor& m, const OutputChunk& c) { return block(m, c.row0, c.rows, c.col0, c.cols); }

// C's block `t` = the rows of A and columns of B it needs, multiplied on the CPU (a, b, c: host views).
inline void multiply_block_on_cpu(const Tensor& a, const Tensor& b, const Tensor& c, const OutputChunk& t) {
  matmul_into(a.slice(0, t.row0, t.row0 + t.rows), b.slice(1, t.col0, t.col0 + t.cols), block(c, t));
}

// dst = src where the two may live on different devices; dst may be any view. Returns once dst holds it.
inline void copy_across_devices(const Tensor& src, const Tensor& dst) {
  const Tensor from = src.device() == dst.device() ? src : src.to(dst.device());
  copy_into(from, dst);
  device_interface(dst.device()).synchronize(dst.device().index);
}

}  // namespace accelera::engine
