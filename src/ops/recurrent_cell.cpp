// lstm_cell, gru_cell and their backward passes: validation and dispatch (Notes [Fused LSTM cell] and [Fused
// GRU cell] in ops/recurrent_cell.hpp).
#include "ops/recurrent_cell.hpp"

#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

// gates (B, kGates H) against a state (B, H) named `what`: returns H.
template <int kGates = 4>
std::int64_t check_cell(const Tensor& gates, const Tensor& state, std::string_view op, std::string_view what,
                        std::string_view gates_name = "gates") {
  constexpr std::string_view order = kGates == 4 ? "i, f, g, o" : "r, z, n";
  check_nn_operand(gates, op, gates_name);
  check_like(state, gates, op, what, gates_name);
  ACC_CHECK(gates.ndim() == 2 && gates.dim(1) % kGates == 0, ShapeError,
            "{}: {} must be (batch, {} * hidden) in the order {}, got shape {}", op, gates_name, kGates, order,
            gates.shape().str());
  const std::int64_t hidden = gates.dim(1) / kGates;
  ACC_CHECK(state.shape() == Shape({gates.dim(0), hidden}), ShapeError,
            "{}: {} must be (batch, hidden) = ({}, {}) to match {} {}, got {}", op, what, gates.dim(0), hidden,
            gates_name, gates.shape().str(), state.shape().str());
  return hidden;
}

}  // namespace

LstmCellResult lstm_cell(const Tensor& gates, const Tensor& c_prev) {
  constexpr std::string_view op = "lstm_cell";
  check_cell(gates, c_prev, op, "c_prev");
  const DType computed = kernel_dtype(op, gates.device(), gates.dtype());
  const auto kernel = kernel_for(op::lstm_cell, gates.device(), computed);
  const Device& d = gates.device();
  Tensor h = Tensor::empty(c_prev.shape(), computed, d), c = Tensor::empty(c_prev.shape(), computed, d);
  Tensor act = Tensor::empty(gates.shape(), computed, d);
  if (h.numel() > 0) kernel(cast_to(gates, computed).contiguous(), cast_to(c_prev, computed).contiguous(), h, c, act);
  return {cast_to(h, gates.dtype()), cast_to(c, gates.dtype()), cast_to(act, gates.dtype())};
}

LstmCellGrads lstm_cell_backward(const Tensor& grad_h, const Tensor& dc, const Tensor& act, const Tensor& c_prev,
                                 const Tensor& c) {
  constexpr std::string_view op = "lstm_cell_backward";
  check_cell(act, grad_h, op, "grad_h");
  check_cell(act, dc, op, "dc");
  check_cell(act, c_prev, op, "c_prev");
  check_cell(act, c, op, "c");
  const DType computed = kernel_dtype(op, act.device(), act.dtype());
  const auto kernel = kernel_for(op::lstm_cell_backward, act.device(), computed);
  const Device& d = act.device();
  Tensor d_gates = Tensor::empty(act.shape(), computed, d), dc_prev = Tensor::empty(c.shape(), computed, d);
  const auto in = [&](const Tensor& t) { return cast_to(t, computed).contiguous(); };
  if (dc_prev.numel() > 0) kernel(in(grad_h), in(dc), in(act), in(c_prev), in(c), d_gates, dc_prev);
  return {cast_to(d_gates, act.dtype()), cast_to(dc_prev, act.dtype())};
}

GruCellResult gru_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& h_prev) {
  constexpr std::string_view op = "gru_cell";
  check_cell<3>(input_gates, h_prev, op, "h_prev", "input_gates");
  check_cell<3>(hidden_gates, h_prev, op, "h_prev", "hidden_gates");
  const DType computed = kernel_dtype(op, h_prev.device(), h_prev.dtype());
  const auto kernel = kernel_for(op::gru_cell, h_prev.device(), computed);
  const Device& d = h_prev.device();
  Tensor h = Tensor::empty(h_prev.shape(), computed, d), act = Tensor::empty(input_gates.shape(), computed, d);
  const auto in = [&](const Tensor& t) { return cast_to(t, computed).contiguous(); };
  if (h.numel() > 0) kernel(in(input_gates), in(hidden_gates), in(h_prev), h, act);
  return {cast_to(h, h_prev.dtype()), cast_to(act, h_prev.dtype())};
}

GruCellGrads gru_cell_backward(const Tensor& grad_h, const Tensor& act, const Tensor& hidden_gates,
                               const Tensor& h_prev) {
  constexpr std::string_view op = "gru_cell_backward";
  check_cell<3>(act, grad_h, op, "grad_h", "act");
  check_cell<3>(act, h_prev, op, "h_prev", "act");
  check_cell<3>(hidden_gates, h_prev, op, "h_prev", "hidden_gates");
  const DType computed = kernel_dtype(op, act.device(), act.dtype());
  const auto kernel = kernel_for(op::gru_cell_backward, act.device(), computed);
  const Device& d = act.device();
  Tensor d_input = Tensor::empty(act.shape(), computed, d), d_hidden = Tensor::empty(act.shape(), computed, d);
  Tensor dh_prev = Tensor::empty(h_prev.shape(), computed, d);
  const auto in = [&](const Tensor& t) { return cast_to(t, computed).contiguous(); };
  if (dh_prev.numel() > 0) kernel(in(grad_h), in(act), in(hidden_gates), in(h_prev), d_input, d_hidden, dh_prev);
  return {cast_to(d_input, act.dtype()), cast_to(d_hidden, act.dtype()), cast_to(dh_prev, act.dtype())};
}

}  // namespace accelera
