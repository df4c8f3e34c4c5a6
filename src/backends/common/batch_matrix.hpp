#pragma once
// The 2-D matrix of one batch entry of a (..., rows, cols) view, as a view (no copy).
#include <cstdint>
#include <vector>

#include "accelera/core/tensor.hpp"

namespace accelera::backends {

inline Tensor batch_matrix(const Tensor& t, std::int64_t index, const Shape& batch_shape) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(batch_shape.ndim()));
  for (std::int64_t d = batch_shape.ndim() - 1; d >= 0; --d) {
    idx[static_cast<std::size_t>(d)] = index % batch_shape[d];
    index /= batch_shape[d];
  }
  Tensor m = t;
  for (auto i : idx) m = m.select(0, i);
  return m;
}

}  // namespace accelera::backends
