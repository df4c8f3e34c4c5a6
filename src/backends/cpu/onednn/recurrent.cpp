// lstm_sequence, gru_sequence and their backward passes on the CPU through oneDNN's RNN primitives, float32
// (Note
// [Recurrent sequence kernels] in ops/recurrent_sequence.hpp). Compiled only in builds with oneDNN.
// Layouts: our x (T, B, I) and states are oneDNN's tnc and ldnc with one layer and one direction; PyTorch's
// weights (4H, I) are oneDNN's ldgoi with the same gate order (i, f, g, o: oneDNN's i, f, c~, o), and the
// bias (4H) is ldgo (zeros for a layer without one: oneDNN's CPU LSTM has no bias-free variant). The primitive picks its own weight layouts (format_tag::any); each call reorders the
// weights into them and the weights' gradients back. oneDNN accumulates the weights' and the bias's
// gradients, so they start from zero. The gradient of the last hidden state arrives through grad_hs (the
// last step's row), so the primitive's diff_dst_iter is zero.
// The GRU is oneDNN's "linear before reset" GRU, PyTorch's: oneDNN orders the gates u (PyTorch's z), r, o
// (n), so each call copies the weights with the first two gate blocks swapped, and swaps the gradients back;
// its bias has a fourth block, the b_hn inside r (...): [b_iz + b_hz, b_ir + b_hr, b_in, b_hn].
#include <memory>
#include <tuple>

#include "backends/cpu/onednn/common.hpp"
#include "ops/recurrent_sequence.hpp"

namespace accelera::cpu::onednn {

namespace {

struct LstmDims {
  std::int64_t length, batch, input, hidden;
  bool reverse;

  Dims src_layer() const { return {length, batch, input}; }
  Dims dst_layer() const { return {length, batch, hidden}; }
  Dims state() const { return {1, 1, batch, hidden}; }
  Dims weights_layer() const { return {1, 1, input, 4, hidden}; }
  Dims weights_iter() const { return {1, 1, hidden, 4, hidden}; }
  Dims bias() const { return {1, 1, 4, hidden}; }
  auto key() const { return std::tuple(length, batch, input, hidden, reverse); }
};

using tag = memory::format_tag;

// The primitives of one sequence shape, built once.
struct LstmPlan {
  dnnl::lstm_forward::primitive_desc forward_pd;
  dnnl::lstm_forward forward;
  dnnl::lstm_backward::primitive_desc backward_pd;
  dnnl::lstm_backward backward;

  explicit LstmPlan(const LstmDims& d) {
    dnnl::engine& engine = cpu_engine();
    const auto attr = user_scratchpad();
    const auto direction = d.reverse ? dnnl::rnn_direction::unidirectional_right2left
                                     : dnnl::rnn_direction::unidirectional_left2right;
    const memory::desc src = plain(d.src_layer(), tag::tnc), dst = plain(d.dst_layer(), tag::tnc);
    const memory::desc state = plain(d.state(), tag::ldnc);
    const memory::desc bias = plain(d.bias(), tag::ldgo);  // oneDNN's CPU LSTM requires one
    forward_pd = {{dnnl::prop_kind::forward_training, direction, src, state, state, any(d.weights_layer()),
                   any(d.weights_iter()), bias, dst, state, state},
                  attr, engine};
    forward = dnnl::lstm_forward(forward_pd);
    backward_pd = {{dnnl::prop_kind::backward, direction, src, state, state, any(d.weights_layer()),
                    any(d.weights_iter()), bias, dst, state, state, src, state, state, any(d.weights_layer()),
                    any(d.weights_iter()), bias, dst, state, state},
                   attr, engine, forward_pd};
    backward = dnnl::lstm_backward(backward_pd);
  }
};

// The bias, or zeros where the layer has none.
Tensor bias_or_zeros(const Tensor& bias, std::int64_t hidden) {
  if (bias.defined()) return bias;
  Tensor zeros = Tensor::empty(Shape{4 * hidden}, DType::f32, Device::cpu());
  std::fill_n(zeros.data<float>(), 4 * hidden, 0.0f);
  return zeros;
}

LstmDims dims_of(const Tensor& x, const Tensor& w_hh, const Tensor& bias, bool reverse) {
  return {x.dim(0), x.dim(1), x.dim(2), w_hh.dim(1), reverse};
}

void lstm_sequence_kernel(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                          const Tensor& w_hh, const Tensor& bias, bool reverse, const Tensor& hs,
                          const Tensor& h_last, const Tensor& c_last, Tensor& workspace) {
  const LstmDims d = dims_of(x, w_hh, bias, reverse);
  const auto plan = cached_plan<LstmPlan>(d.key(), d, "LSTM setup");
  const auto& pd = plan->forward_pd;
  const auto workspace_bytes = static_cast<std::int64_t>(pd.workspace_desc().get_size());
  workspace = Tensor::empty(Shape{std::max<std::int64_t>(workspace_bytes, 1)}, DType::u8, Device::cpu());
  onednn("LSTM", [&] {
    CallMemory mem;
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC_LAYER, mem.wrap(x, d.src_layer(), tag::tnc)},
        {DNNL_ARG_SRC_ITER, mem.wrap(h0, d.state(), tag::ldnc)},
        {DNNL_ARG_SRC_ITER_C, mem.wrap(c0, d.state(), tag::ldnc)},
        {DNNL_ARG_WEIGHTS_LAYER, mem.input(mem.wrap(w_ih, d.weights_layer(), tag::ldgoi), pd.weights_layer_desc())},
        {DNNL_ARG_WEIGHTS_ITER, mem.input(mem.wrap(w_hh, d.weights_iter(), tag::ldgoi), pd.weights_iter_desc())},
        {DNNL_ARG_DST_LAYER, mem.wrap(hs, d.dst_layer(), tag::tnc)},
        {DNNL_ARG_DST_ITER, mem.wrap(h_last, d.state(), tag::ldnc)},
        {DNNL_ARG_DST_ITER_C, mem.wrap(c_last, d.state(), tag::ldnc)},
        {DNNL_ARG_BIAS, mem.wrap(bias_or_zeros(bias, d.hidden), d.bias(), tag::ldgo)},
        {DNNL_ARG_WORKSPACE, mem.wrap_bytes(workspace, pd.workspace_desc())},
        {DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc())}};
    mem.run(plan->forward, args);
    mem.wait();
  });
}

void lstm_sequence_backward_kernel(const Tensor& grad_hs, const Tensor& grad_c_last, const Tensor& x,
                                   const Tensor& h0, const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh,
                                   const Tensor& bias, bool reverse, const Tensor& hs, const Tensor& h_last,
                                   const Tensor& c_last, const Tensor& workspace, const Tensor& dx,
                                   const Tensor& dh0, const Tensor& dc0, const Tensor& dw_ih, const Tensor& dw_hh,
                                   const Tensor& dbias) {
  const LstmDims d = dims_of(x, w_hh, bias, reverse);
  const auto plan = cached_plan<LstmPlan>(d.key(), d, "LSTM setup");
  const auto& pd = plan->backward_pd;
  ACC_CHECK(static_cast<std::size_t>(workspace.nbytes()) >= pd.workspace_desc().get_size(), ValueError,
            "lstm_sequence_backward: the workspace ({} bytes) is not lstm_sequence's for this shape ({} bytes)",
            workspace.nbytes(), pd.workspace_desc().get_size());
  onednn("LSTM backward", [&] {
    CallMemory mem;
    // dx is not always wanted; the primitive writes it regardless.
    const Tensor dx_out = dx.defined() ? dx : Tensor::empty(x.shape(), DType::f32, Device::cpu());
    const Tensor zero_state = Tensor::empty(h0.shape(), DType::f32, Device::cpu());
    const memory zero_state_memory = mem.wrap(zero_state, d.state(), tag::ldnc);
    std::memset(zero_state_memory.get_data_handle(), 0, zero_state_memory.get_desc().get_size());
    const memory user_dw_ih = mem.wrap(dw_ih, d.weights_layer(), tag::ldgoi);
    const memory user_dw_hh = mem.wrap(dw_hh, d.weights_iter(), tag::ldgoi);
    const memory diff_w_ih = mem.zeroed_output(user_dw_ih, pd.diff_weights_layer_desc());
    const memory diff_w_hh = mem.zeroed_output(user_dw_hh, pd.diff_weights_iter_desc());
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC_LAYER, mem.wrap(x, d.src_layer(), tag::tnc)},
        {DNNL_ARG_SRC_ITER, mem.wrap(h0, d.state(), tag::ldnc)},
        {DNNL_ARG_SRC_ITER_C, mem.wrap(c0, d.state(), tag::ldnc)},
        {DNNL_ARG_WEIGHTS_LAYER, mem.input(mem.wrap(w_ih, d.weights_layer(), tag::ldgoi), pd.weights_layer_desc())},
        {DNNL_ARG_WEIGHTS_ITER, mem.input(mem.wrap(w_hh, d.weights_iter(), tag::ldgoi), pd.weights_iter_desc())},
        {DNNL_ARG_DST_LAYER, mem.wrap(hs, d.dst_layer(), tag::tnc)},
        {DNNL_ARG_DST_ITER, mem.wrap(h_last, d.state(), tag::ldnc)},
        {DNNL_ARG_DST_ITER_C, mem.wrap(c_last, d.state(), tag::ldnc)},
        {DNNL_ARG_WORKSPACE, mem.wrap_bytes(workspace, pd.workspace_desc())},
        {DNNL_ARG_DIFF_DST_LAYER, mem.wrap(grad_hs, d.dst_layer(), tag::tnc)},
        {DNNL_ARG_DIFF_DST_ITER, zero_state_memory},
        {DNNL_ARG_DIFF_DST_ITER_C, mem.wrap(grad_c_last, d.state(), tag::ldnc)},
        {DNNL_ARG_DIFF_SRC_LAYER, mem.wrap(dx_out, d.src_layer(), tag::tnc)},
        {DNNL_ARG_DIFF_SRC_ITER, mem.wrap(dh0, d.state(), tag::ldnc)},
        {DNNL_ARG_DIFF_SRC_ITER_C, mem.wrap(dc0, d.state(), tag::ldnc)},
        {DNNL_ARG_DIFF_WEIGHTS_LAYER, diff_w_ih},
        {DNNL_ARG_DIFF_WEIGHTS_ITER, diff_w_hh},
        {DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc())}};
    args.emplace(DNNL_ARG_BIAS, mem.wrap(bias_or_zeros(bias, d.hidden), d.bias(), tag::ldgo));
    // Without a bias its gradient lands in scratch.
    const memory diff_bias = dbias.defined() ? mem.wrap(dbias, d.bias(), tag::ldgo) : mem.scratch(plain(d.bias(), tag::ldgo));
    args.emplace(DNNL_ARG_DIFF_BIAS, mem.zeroed_output(diff_bias, diff_bias.get_desc()));
    mem.run(plan->backward, args);
    mem.finish_output(diff_w_ih, user_dw_ih);
    mem.finish_output(diff_w_hh, user_dw_hh);
    mem.wait();
  });
}

// ---- GRU -------------------------------------------------------------------------------------------------

struct GruDims {
  std::int64_t length, batch, input, hidden;
  bool reverse;

  Dims src_layer() const { return {length, batch, input}; }
  Dims dst_layer() const { return {length, batch, hidden}; }
  Dims state() const { return {1, 1, batch, hidden}; }
  Dims weights_layer() const { return {1, 1, input, 3, hidden}; }
  Dims weights_iter() const { return {1, 1, hidden, 3, hidden}; }
  Dims bias() const { return {1, 1, 4, hidden}; }
  auto key() const { return std::tuple(length, batch, input, hidden, reverse); }
};

struct GruPlan {
  dnnl::lbr_gru_forward::primitive_desc forward_pd;
  dnnl::lbr_gru_forward forward;
  dnnl::lbr_gru_backward::primitive_desc backward_pd;
  dnnl::lbr_gru_backward backward;

  explicit GruPlan(const GruDims& d) {
    dnnl::engine& engine = cpu_engine();
    const auto attr = user_scratchpad();
    const auto direction = d.reverse ? dnnl::rnn_direction::unidirectional_right2left
                                     : dnnl::rnn_direction::unidirectional_left2right;
    const memory::desc src = plain(d.src_layer(), tag::tnc), dst = plain(d.dst_layer(), tag::tnc);
    const memory::desc state = plain(d.state(), tag::ldnc), bias = plain(d.bias(), tag::ldgo);
    forward_pd = {{dnnl::prop_kind::forward_training, direction, src, state, any(d.weights_layer()),
                   any(d.weights_iter()), bias, dst, state},
                  attr, engine};
    forward = dnnl::lbr_gru_forward(forward_pd);
    backward_pd = {{dnnl::prop_kind::backward, direction, src, state, any(d.weights_layer()), any(d.weights_iter()),
                    bias, dst, state, src, state, any(d.weights_layer()), any(d.weights_iter()), bias, dst, state},
                   attr, engine, forward_pd};
    backward = dnnl::lbr_gru_backward(backward_pd);
  }
};

// Copies `rows` rows of `width` floats from each of the three gate blocks of `from` into `to`, the first two
// blocks swapped (PyTorch's r, z, n <-> oneDNN's u, r, o: the swap is its own inverse).
void swap_first_gates(const float* from, float* to, std::int64_t hidden, std::int64_t width) {
  const std::int64_t block = hidden * width;
  std::copy_n(from + block, block, to);
  std::copy_n(from, block, to + block);
  std::copy_n(from + 2 * block, block, to + 2 * block);
}

Tensor oneDNN_gate_order(const Tensor& w, std::int64_t hidden) {
  Tensor out = Tensor::empty(w.shape(), DType::f32, Device::cpu());
  swap_first_gates(w.data<float>(), out.data<float>(), hidden, w.dim(1));
  return out;
}

// oneDNN's (4H) bias from PyTorch's two (3H) ones, either of which may be absent.
Tensor gru_bias(const Tensor& b_ih, const Tensor& b_hh, std::int64_t hidden) {
  Tensor out = Tensor::empty(Shape{4 * hidden}, DType::f32, Device::cpu());
  float* o = out.data<float>();
  const float* bi = b_ih.defined() ? b_ih.data<float>() : nullptr;
  const float* bh = b_hh.defined() ? b_hh.data<float>() : nullptr;
  const auto at = [](const float* b, std::int64_t k) { return b ? b[k] : 0.0f; };
  for (std::int64_t k = 0; k < hidden; ++k) {
    o[k] = at(bi, hidden + k) + at(bh, hidden + k);  // u = z
    o[hidden + k] = at(bi, k) + at(bh, k);           // r
    o[2 * hidden + k] = at(bi, 2 * hidden + k);      // o = n, its input part
    o[3 * hidden + k] = at(bh, 2 * hidden + k);      // n's hidden part, inside r (...)
  }
  return out;
}

GruDims gru_dims_of(const Tensor& x, const Tensor& w_hh, bool reverse) {
  return {x.dim(0), x.dim(1), x.dim(2), w_hh.dim(1), reverse};
}

void gru_sequence_kernel(const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                         const Tensor& b_hh, bool reverse, const Tensor& hs, const Tensor& h_last, Tensor& workspace) {
  const GruDims d = gru_dims_of(x, w_hh, reverse);
  const auto plan = cached_plan<GruPlan>(d.key(), d, "GRU setup");
  const auto& pd = plan->forward_pd;
  const auto workspace_bytes = static_cast<std::int64_t>(pd.workspace_desc().get_size());
  workspace = Tensor::empty(Shape{std::max<std::int64_t>(workspace_bytes, 1)}, DType::u8, Device::cpu());
  const Tensor w_layer = oneDNN_gate_order(w_ih, d.hidden), w_iter = oneDNN_gate_order(w_hh, d.hidden);
  onednn("GRU", [&] {
    CallMemory mem;
    mem.run(plan->forward,
            {{DNNL_ARG_SRC_LAYER, mem.wrap(x, d.src_layer(), tag::tnc)},
             {DNNL_ARG_SRC_ITER, mem.wrap(h0, d.state(), tag::ldnc)},
             {DNNL_ARG_WEIGHTS_LAYER, mem.input(mem.wrap(w_layer, d.weights_layer(), tag::ldgoi), pd.weights_layer_desc())},
             {DNNL_ARG_WEIGHTS_ITER, mem.input(mem.wrap(w_iter, d.weights_iter(), tag::ldgoi), pd.weights_iter_desc())},
             {DNNL_ARG_BIAS, mem.wrap(gru_bias(b_ih, b_hh, d.hidden), d.bias(), tag::ldgo)},
             {DNNL_ARG_DST_LAYER, mem.wrap(hs, d.dst_layer(), tag::tnc)},
             {DNNL_ARG_DST_ITER, mem.wrap(h_last, d.state(), tag::ldnc)},
             {DNNL_ARG_WORKSPACE, mem.wrap_bytes(workspace, pd.workspace_desc())},
             {DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc())}});
    mem.wait();
  });
}

void gru_sequence_backward_kernel(const Tensor& grad_hs, const Tensor& x, const Tensor& h0, const Tensor& w_ih,
                                  const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool reverse,
                                  const Tensor& hs, const Tensor& h_last, const Tensor& workspace, const Tensor& dx,
                                  const Tensor& dh0, const Tensor& dw_ih, const Tensor& dw_hh, const Tensor& db_ih,
                                  const Tensor& db_hh) {
  const GruDims d = gru_dims_of(x, w_hh, reverse);
  const auto plan = cached_plan<GruPlan>(d.key(), d, "GRU setup");
  const auto& pd = plan->backward_pd;
  ACC_CHECK(static_cast<std::size_t>(workspace.nbytes()) >= pd.workspace_desc().get_size(), ValueError,
            "gru_sequence_backward: the workspace ({} bytes) is not gru_sequence's for this shape ({} bytes)",
            workspace.nbytes(), pd.workspace_desc().get_size());
  const Tensor w_layer = oneDNN_gate_order(w_ih, d.hidden), w_iter = oneDNN_gate_order(w_hh, d.hidden);
  // The gradients in oneDNN's gate order, swapped back at the end.
  const Tensor dw_layer = Tensor::empty(w_ih.shape(), DType::f32, Device::cpu());
  const Tensor dw_iter = Tensor::empty(w_hh.shape(), DType::f32, Device::cpu());
  const Tensor dbias = Tensor::empty(Shape{4 * d.hidden}, DType::f32, Device::cpu());
  onednn("GRU backward", [&] {
    CallMemory mem;
    const Tensor dx_out = dx.defined() ? dx : Tensor::empty(x.shape(), DType::f32, Device::cpu());
    const Tensor zero_state = Tensor::empty(h0.shape(), DType::f32, Device::cpu());
    std::fill_n(zero_state.data<float>(), zero_state.numel(), 0.0f);
    const memory user_dw_layer = mem.wrap(dw_layer, d.weights_layer(), tag::ldgoi);
    const memory user_dw_iter = mem.wrap(dw_iter, d.weights_iter(), tag::ldgoi);
    const memory diff_w_layer = mem.zeroed_output(user_dw_layer, pd.diff_weights_layer_desc());
    const memory diff_w_iter = mem.zeroed_output(user_dw_iter, pd.diff_weights_iter_desc());
    const memory diff_bias = mem.wrap(dbias, d.bias(), tag::ldgo);
    mem.run(plan->backward,
            {{DNNL_ARG_SRC_LAYER, mem.wrap(x, d.src_layer(), tag::tnc)},
             {DNNL_ARG_SRC_ITER, mem.wrap(h0, d.state(), tag::ldnc)},
             {DNNL_ARG_WEIGHTS_LAYER, mem.input(mem.wrap(w_layer, d.weights_layer(), tag::ldgoi), pd.weights_layer_desc())},
             {DNNL_ARG_WEIGHTS_ITER, mem.input(mem.wrap(w_iter, d.weights_iter(), tag::ldgoi), pd.weights_iter_desc())},
             {DNNL_ARG_BIAS, mem.wrap(gru_bias(b_ih, b_hh, d.hidden), d.bias(), tag::ldgo)},
             {DNNL_ARG_DST_LAYER, mem.wrap(hs, d.dst_layer(), tag::tnc)},
             {DNNL_ARG_DST_ITER, mem.wrap(h_last, d.state(), tag::ldnc)},
             {DNNL_ARG_WORKSPACE, mem.wrap_bytes(workspace, pd.workspace_desc())},
             {DNNL_ARG_DIFF_DST_LAYER, mem.wrap(grad_hs, d.dst_layer(), tag::tnc)},
             {DNNL_ARG_DIFF_DST_ITER, mem.wrap(zero_state, d.state(), tag::ldnc)},
             {DNNL_ARG_DIFF_SRC_LAYER, mem.wrap(dx_out, d.src_layer(), tag::tnc)},
             {DNNL_ARG_DIFF_SRC_ITER, mem.wrap(dh0, d.state(), tag::ldnc)},
             {DNNL_ARG_DIFF_WEIGHTS_LAYER, diff_w_layer},
             {DNNL_ARG_DIFF_WEIGHTS_ITER, diff_w_iter},
             {DNNL_ARG_DIFF_BIAS, mem.zeroed_output(diff_bias, diff_bias.get_desc())},
             {DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc())}});
    mem.finish_output(diff_w_layer, user_dw_layer);
    mem.finish_output(diff_w_iter, user_dw_iter);
    mem.wait();
  });
  swap_first_gates(dw_layer.data<float>(), dw_ih.data<float>(), d.hidden, d.input);
  swap_first_gates(dw_iter.data<float>(), dw_hh.data<float>(), d.hidden, d.hidden);
  const float* db = dbias.data<float>();
  const std::int64_t h = d.hidden;
  for (std::int64_t k = 0; k < h; ++k) {  // back to r, z, n; the summed biases' gradient goes to both
    if (db_ih.defined()) {
      float* o = db_ih.data<float>();
      o[k] = db[h + k], o[h + k] = db[k], o[2 * h + k] = db[2 * h + k];
    }
    if (db_hh.defined()) {
      float* o = db_hh.data<float>();
      o[k] = db[h + k], o[h + k] = db[k], o[2 * h + k] = db[3 * h + k];
    }
  }
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::lstm_sequence, DeviceKind::cpu, DTypeSet{DType::f32}, &lstm_sequence_kernel);
  register_kernel(op::lstm_sequence_backward, DeviceKind::cpu, DTypeSet{DType::f32}, &lstm_sequence_backward_kernel);
  register_kernel(op::gru_sequence, DeviceKind::cpu, DTypeSet{DType::f32}, &gru_sequence_kernel);
  register_kernel(op::gru_sequence_backward, DeviceKind::cpu, DTypeSet{DType::f32}, &gru_sequence_backward_kernel);
}

}  // namespace accelera::cpu::onednn
