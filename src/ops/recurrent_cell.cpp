// lstm_cell and lstm_cell_backward: validation and dispatch (Note [Fused LSTM cell] in ops/recurrent_cell.hpp).
#include "ops/recurrent_cell.hpp"

#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

// gates (B, 4H) against a state (B, H) named `what`: returns H.
std::int64_t check_cell(const Tensor& gates, const Tensor& state, std::string_view op, std::string_view what) {
  check_nn_operand(gates, op, "gates");
  check_like(state, gates, op, what, "gates");
  ACC_CHECK(gates.ndim() == 2 && gates.dim(1) % 4 == 0, ShapeError,
            "{}: the gates must be (batch, 4 * hidden) in the order i, f, g, o, got shape {}", op,
            gates.shape().str());
  const std::int64_t hidden = gates.dim(1) / 4;
  ACC_CHECK(state.shape() == Shape({gates.dim(0), hidden}), ShapeError,
            "{}: {} must be (batch, hidden) = ({}, {}) to match the gates {}, got {}", op, what, gates.dim(0), hidden,
            gates.shape().str(), state.shape().str());
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

}  // namespace accelera
