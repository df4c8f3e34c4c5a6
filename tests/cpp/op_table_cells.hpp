#pragma once
// What the op table's rows of the recurrent cells and sequences share (op_table_lstm_rows.cpp,
// op_table_gru_rows.cpp, op_table_lstm_sequence_rows.cpp).
#include <cmath>
#include <utility>
#include <vector>

#include "op_table.hpp"

namespace acc_test::op_table::cells {

using Floats = std::vector<double>;

inline double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

// A host tensor of dt holding `values` (row-major), each rounded to dt.
inline Tensor from_values(const Floats& values, const Shape& shape, DType dt) {
  const Tensor t = Tensor::empty(shape, dt, Device::cpu());
  for_each_index(shape, [&](const Index& i, std::int64_t lin) { set(t, i, values[static_cast<std::size_t>(lin)]); });
  return t;
}

// (batch, hidden): one row, primes, a batch of 0, and a width past a vector of every ISA.
inline const std::vector<std::pair<std::int64_t, std::int64_t>>& cell_shapes() {
  static const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{1, 1}, {3, 7}, {0, 5}, {13, 17}, {5, 33}};
  return shapes;
}

}  // namespace acc_test::op_table::cells
