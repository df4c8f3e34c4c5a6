#pragma once
// The LSTM cell's element-wise part, fused (accelera/nn_ops.hpp's lstm_cell and lstm_cell_backward). Note
// [Fused LSTM cell]: a step of an LSTM is a GEMM (h @ W_hh^T, added to the input's precomputed share) and
// then about ten element-wise passes over (batch, 4 hidden) forward and twenty backward; one kernel each way
// reads the gates once and writes the states once. Gate order i, f, g, o (PyTorch's). Kernels get
// C-contiguous operands of one floating dtype with shapes checked, and fresh outputs.
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// From the pre-activation gates (B, 4H) and c_prev (B, H): act (B, 4H) holds sigmoid(i), sigmoid(f),
// tanh(g), sigmoid(o); c = f c_prev + i g; h = o tanh(c).
inline constexpr OpSchema<void(const Tensor& gates, const Tensor& c_prev, const Tensor& h, const Tensor& c,
                               const Tensor& act)>
    lstm_cell{"lstm_cell"};
// From grad_h (B, H), the cell state's gradient dc (B, H) arriving from the next step, and the forward's act,
// c_prev and c: d_gates (B, 4H), the pre-activation gates' gradient, and dc_prev (B, H).
inline constexpr OpSchema<void(const Tensor& grad_h, const Tensor& dc, const Tensor& act, const Tensor& c_prev,
                               const Tensor& c, const Tensor& d_gates, const Tensor& dc_prev)>
    lstm_cell_backward{"lstm_cell_backward"};

}  // namespace accelera::op
