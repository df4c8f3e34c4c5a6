#pragma once
// The LSTM and GRU cells' element-wise parts, fused (accelera/nn_ops.hpp's lstm_cell and lstm_cell_backward). Note
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

// Note [Fused GRU cell]: a GRU step (PyTorch's: r = s(xr + hr), z = s(xz + hz), n = tanh(xn + r hn),
// h = (1 - z) n + z h_prev, where x* = x W_i*^T + b_i* and h* = h_prev W_h*^T + b_h*) is a GEMM for the
// hidden side's gates and then about eight element-wise passes forward and a dozen backward; one kernel
// each way. Gate order r, z, n. From input_gates and hidden_gates (B, 3H) and h_prev (B, H): h (B, H) and
// act (B, 3H) holding r, z, n.
inline constexpr OpSchema<void(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& h_prev,
                               const Tensor& h, const Tensor& act)>
    gru_cell{"gru_cell"};
// From grad_h (B, H) and the forward's act, hidden_gates (its n third, hn, is read) and h_prev: the input
// gates' gradient d_input (B, 3H) = (dr, dz, dn), the hidden gates' d_hidden (B, 3H) = (dr, dz, dn r) and
// dh_prev (B, H) = grad_h z, h_prev's gradient except through the hidden gates' GEMM.
inline constexpr OpSchema<void(const Tensor& grad_h, const Tensor& act, const Tensor& hidden_gates,
                               const Tensor& h_prev, const Tensor& d_input, const Tensor& d_hidden,
                               const Tensor& dh_prev)>
    gru_cell_backward{"gru_cell_backward"};

}  // namespace accelera::op
