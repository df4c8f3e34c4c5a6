#pragma once
// A whole LSTM or GRU layer (one direction) over a sequence in one kernel each way (accelera/nn_ops.hpp's
// lstm_sequence, gru_sequence and their backward passes). Note [Recurrent sequence kernels]: a step of a recurrent layer
// is a small GEMM and a fused cell; run step by step from Python, each step also pays the calls' overhead,
// and the backward keeps every step's activations as separate tensors. A sequence kernel (oneDNN's RNN
// primitive on the CPU) runs the loop inside the library: the input's GEMM over all steps at once, the
// recurrent GEMMs with the weights kept in the layout it prefers, and its activations in one workspace
// that the backward reads. Kernels get C-contiguous float operands of one dtype, shapes checked, fresh
// outputs; the workspace is the forward kernel's own and only its backward reads it.
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// x (T, B, I), h0 and c0 (B, H), w_ih (4H, I), w_hh (4H, H), bias (4H) or undefined (gate order i, f, g, o):
// hs (T, B, H) the hidden state after each step, h_last and c_last (B, H) the states after the last step
// (step 0 when `reverse`), and the workspace the backward reads.
inline constexpr OpSchema<void(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                               const Tensor& w_hh, const Tensor& bias, bool reverse, const Tensor& hs,
                               const Tensor& h_last, const Tensor& c_last, Tensor& workspace)>
    lstm_sequence{"lstm_sequence"};
// From grad_hs (T, B, H), grad_c_last (B, H), the forward's operands and results: dx (undefined when not
// wanted), dh0, dc0, dw_ih, dw_hh and dbias (undefined without a bias).
inline constexpr OpSchema<void(const Tensor& grad_hs, const Tensor& grad_c_last, const Tensor& x, const Tensor& h0,
                               const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh, const Tensor& bias,
                               bool reverse, const Tensor& hs, const Tensor& h_last, const Tensor& c_last,
                               const Tensor& workspace, const Tensor& dx, const Tensor& dh0, const Tensor& dc0,
                               const Tensor& dw_ih, const Tensor& dw_hh, const Tensor& dbias)>
    lstm_sequence_backward{"lstm_sequence_backward"};

// x (T, B, I), h0 (B, H), w_ih (3H, I), w_hh (3H, H), b_ih and b_hh (3H) or undefined, in PyTorch's gate
// order r, z, n with n = tanh(x W_in^T + b_in + r (h W_hn^T + b_hn)) and h' = (1 - z) n + z h: hs, h_last and
// the workspace, as lstm_sequence's.
inline constexpr OpSchema<void(const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh,
                               const Tensor& b_ih, const Tensor& b_hh, bool reverse, const Tensor& hs,
                               const Tensor& h_last, Tensor& workspace)>
    gru_sequence{"gru_sequence"};
// From grad_hs (T, B, H) and the forward's operands and results: dx (undefined when not wanted), dh0, dw_ih,
// dw_hh, db_ih and db_hh (each undefined without its bias).
inline constexpr OpSchema<void(const Tensor& grad_hs, const Tensor& x, const Tensor& h0, const Tensor& w_ih,
                               const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool reverse,
                               const Tensor& hs, const Tensor& h_last, const Tensor& workspace, const Tensor& dx,
                               const Tensor& dh0, const Tensor& dw_ih, const Tensor& dw_hh, const Tensor& db_ih,
                               const Tensor& db_hh)>
    gru_sequence_backward{"gru_sequence_backward"};

}  // namespace accelera::op
