// lstm_sequence, gru_sequence and their backward passes: validation and dispatch (Note [Recurrent sequence kernels] in
// ops/recurrent_sequence.hpp).
#include "ops/recurrent_sequence.hpp"

#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

struct SequenceShape {
  std::int64_t length, batch, input, hidden;
};

// Checks x, h0 and the weights of a layer with `gates` gates (4 for an LSTM, 3 for a GRU, named in
// `order`); returns the sizes.
SequenceShape check_sequence(const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh, int gates,
                             std::string_view order, std::string_view op) {
  check_nn_operand(x, op, "x");
  for (const auto& [t, what] : {std::pair{&h0, "h0"}, {&w_ih, "w_ih"}, {&w_hh, "w_hh"}}) check_like(*t, x, op, what, "x");
  ACC_CHECK(x.ndim() == 3, ShapeError, "{}: x must be (length, batch, input), got shape {}", op, x.shape().str());
  ACC_CHECK(w_hh.ndim() == 2 && w_hh.dim(0) == gates * w_hh.dim(1) && w_hh.dim(1) > 0, ShapeError,
            "{}: w_hh must be ({} * hidden, hidden) in the gate order {}, got shape {}", op, gates, order,
            w_hh.shape().str());
  const SequenceShape s{x.dim(0), x.dim(1), x.dim(2), w_hh.dim(1)};
  ACC_CHECK(w_ih.shape() == Shape({gates * s.hidden, s.input}), ShapeError,
            "{}: w_ih must be ({} * hidden, input) = ({}, {}) to match w_hh {} and x {}, got {}", op, gates,
            gates * s.hidden, s.input, w_hh.shape().str(), x.shape().str(), w_ih.shape().str());
  ACC_CHECK(h0.shape() == Shape({s.batch, s.hidden}), ShapeError, "{}: h0 must be (batch, hidden) = ({}, {}), got {}",
            op, s.batch, s.hidden, h0.shape().str());
  ACC_CHECK(s.length > 0 && s.batch > 0 && s.input > 0, ShapeError,
            "{}: x {} is empty; a sequence kernel needs at least one step, one row and one feature", op,
            x.shape().str());
  return s;
}

SequenceShape check_lstm(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh,
                         const Tensor& bias, std::string_view op) {
  const SequenceShape s = check_sequence(x, h0, w_ih, w_hh, 4, "i, f, g, o", op);
  check_like(c0, x, op, "c0", "x");
  ACC_CHECK(c0.shape() == h0.shape(), ShapeError, "{}: c0 must be (batch, hidden) = {}, got {}", op, h0.shape().str(),
            c0.shape().str());
  check_vector(bias, x, 4 * s.hidden, op, "bias", "4 * hidden");
  return s;
}

SequenceShape check_gru(const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                        const Tensor& b_hh, std::string_view op) {
  const SequenceShape s = check_sequence(x, h0, w_ih, w_hh, 3, "r, z, n", op);
  check_vector(b_ih, x, 3 * s.hidden, op, "b_ih", "3 * hidden");
  check_vector(b_hh, x, 3 * s.hidden, op, "b_hh", "3 * hidden");
  return s;
}

void check_grad_hs(const Tensor& grad_hs, const Tensor& x, const SequenceShape& s, const Tensor& forward_hs,
                   std::string_view op) {
  check_like(grad_hs, x, op, "grad_hs", "x");
  ACC_CHECK(grad_hs.shape() == Shape({s.length, s.batch, s.hidden}), ShapeError,
            "{}: grad_hs must be (length, batch, hidden) = ({}, {}, {}), got {}", op, s.length, s.batch, s.hidden,
            grad_hs.shape().str());
  ACC_CHECK(forward_hs.defined() && forward_hs.shape() == grad_hs.shape() && forward_hs.device() == x.device(),
            ValueError, "{}: `forward` must be the forward op's result for these operands", op);
}

Tensor empty_like_if(bool wanted, const Tensor& t) {
  return wanted ? Tensor::empty(t.shape(), t.dtype(), t.device()) : Tensor();
}

}  // namespace

LstmSequenceResult lstm_sequence(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                                 const Tensor& w_hh, const Tensor& bias, bool reverse) {
  constexpr std::string_view op = "lstm_sequence";
  const SequenceShape s = check_lstm(x, h0, c0, w_ih, w_hh, bias, op);
  const auto kernel = kernel_for(op::lstm_sequence, x.device(), x.dtype());
  const Device& d = x.device();
  LstmSequenceResult r;
  r.hs_and_c_last = Tensor::empty(Shape{s.length + 1, s.batch, s.hidden}, x.dtype(), d);
  r.hs = r.hs_and_c_last.slice(0, 0, s.length);
  r.c_last = r.hs_and_c_last.select(0, s.length);
  r.h_last = Tensor::empty(h0.shape(), x.dtype(), d);
  kernel(x.contiguous(), h0.contiguous(), c0.contiguous(), w_ih.contiguous(), w_hh.contiguous(),
         contiguous_or_undefined(bias), reverse, r.hs, r.h_last, r.c_last, r.workspace);
  return r;
}

LstmSequenceGrads lstm_sequence_backward(const Tensor& grad_hs, const Tensor& grad_c_last, const Tensor& x,
                                         const Tensor& h0, const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh,
                                         const Tensor& bias, bool reverse, const LstmSequenceResult& forward,
                                         bool input_grad) {
  constexpr std::string_view op = "lstm_sequence_backward";
  const SequenceShape s = check_lstm(x, h0, c0, w_ih, w_hh, bias, op);
  check_grad_hs(grad_hs, x, s, forward.hs, op);
  check_like(grad_c_last, x, op, "grad_c_last", "x");
  ACC_CHECK(grad_c_last.shape() == h0.shape(), ShapeError, "{}: grad_c_last must be (batch, hidden) = {}, got {}", op,
            h0.shape().str(), grad_c_last.shape().str());
  ACC_CHECK(forward.workspace.defined(), ValueError, "{}: `forward` has no workspace", op);
  const auto kernel = kernel_for(op::lstm_sequence_backward, x.device(), x.dtype());
  const Device& d = x.device();
  LstmSequenceGrads g;
  if (input_grad) g.dx = Tensor::empty(x.shape(), x.dtype(), d);
  g.dh0 = Tensor::empty(h0.shape(), x.dtype(), d);
  g.dc0 = Tensor::empty(c0.shape(), x.dtype(), d);
  g.dw_ih = Tensor::empty(w_ih.shape(), x.dtype(), d);
  g.dw_hh = Tensor::empty(w_hh.shape(), x.dtype(), d);
  if (bias.defined()) g.dbias = Tensor::empty(bias.shape(), x.dtype(), d);
  kernel(grad_hs.contiguous(), grad_c_last.contiguous(), x.contiguous(), h0.contiguous(), c0.contiguous(),
         w_ih.contiguous(), w_hh.contiguous(), contiguous_or_undefined(bias), reverse, forward.hs, forward.h_last,
         forward.c_last, forward.workspace, g.dx, g.dh0, g.dc0, g.dw_ih, g.dw_hh, g.dbias);
  return g;
}

GruSequenceResult gru_sequence(const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh,
                               const Tensor& b_ih, const Tensor& b_hh, bool reverse) {
  constexpr std::string_view op = "gru_sequence";
  const SequenceShape s = check_gru(x, h0, w_ih, w_hh, b_ih, b_hh, op);
  const auto kernel = kernel_for(op::gru_sequence, x.device(), x.dtype());
  GruSequenceResult r;
  r.hs = Tensor::empty(Shape{s.length, s.batch, s.hidden}, x.dtype(), x.device());
  r.h_last = Tensor::empty(h0.shape(), x.dtype(), x.device());
  kernel(x.contiguous(), h0.contiguous(), w_ih.contiguous(), w_hh.contiguous(), contiguous_or_undefined(b_ih),
         contiguous_or_undefined(b_hh), reverse, r.hs, r.h_last, r.workspace);
  return r;
}

GruSequenceGrads gru_sequence_backward(const Tensor& grad_hs, const Tensor& x, const Tensor& h0, const Tensor& w_ih,
                                       const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool reverse,
                                       const GruSequenceResult& forward, bool input_grad) {
  constexpr std::string_view op = "gru_sequence_backward";
  const SequenceShape s = check_gru(x, h0, w_ih, w_hh, b_ih, b_hh, op);
  check_grad_hs(grad_hs, x, s, forward.hs, op);
  ACC_CHECK(forward.workspace.defined(), ValueError, "{}: `forward` has no workspace", op);
  const auto kernel = kernel_for(op::gru_sequence_backward, x.device(), x.dtype());
  GruSequenceGrads g{empty_like_if(input_grad, x), empty_like_if(true, h0),         empty_like_if(true, w_ih),
                     empty_like_if(true, w_hh),    empty_like_if(b_ih.defined(), b_ih), empty_like_if(b_hh.defined(), b_hh)};
  kernel(grad_hs.contiguous(), x.contiguous(), h0.contiguous(), w_ih.contiguous(), w_hh.contiguous(),
         contiguous_or_undefined(b_ih), contiguous_or_undefined(b_hh), reverse, forward.hs, forward.h_last,
         forward.workspace, g.dx, g.dh0, g.dw_ih, g.dw_hh, g.db_ih, g.db_hh);
  return g;
}

}  // namespace accelera
