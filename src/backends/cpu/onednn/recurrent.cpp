// lstm_sequence, gru_sequence and their backward passes on the CPU through oneDNN's RNN primitives, float32
// (Note [Recurrent sequence kernels] in ops/recurrent_sequence.hpp). Compiled only in builds with oneDNN.
// Each call cuts the batch into one slice per OpenMP thread and runs one primitive per slice, each on its
// thread alone (Note [Batch slices] in batch_slices.hpp).
// Layouts: our x (T, B, I) and states are oneDNN's tnc and ldnc with one layer and one direction; PyTorch's
// weights (4H, I) are oneDNN's ldgoi with the same gate order (i, f, g, o: oneDNN's i, f, c~, o), and the
// bias (4H) is ldgo (zeros for a layer without one: oneDNN's CPU LSTM has no bias-free variant). The primitive picks its own weight layouts (format_tag::any); each call reorders the
// weights into them and the weights' gradients back. oneDNN accumulates the weights' and the bias's
// gradients, so they start from zero. The gradient of the last hidden state arrives through grad_hs (the
// last step's row), so the primitive's diff_dst_iter is zero.
// The GRU is oneDNN's "linear before reset" GRU, PyTorch's: oneDNN orders the gates u (PyTorch's z), r, o
// (n), so each call copies the weights with the first two gate blocks swapped, and swaps the gradients back;
// its bias has a fourth block, the b_hn inside r (...): [b_iz + b_hz, b_ir + b_hr, b_in, b_hn].
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "backends/cpu/onednn/batch_slices.hpp"
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

LstmDims dims_of(const Tensor& x, const Tensor& w_hh, bool reverse) {
  return {x.dim(0), x.dim(1), x.dim(2), w_hh.dim(1), reverse};
}

// Dims of one slice of the batch (Note [Batch slices]).
template <typename PlanDims>
PlanDims slice_dims(const PlanDims& d, const BatchSlice& s) {
  PlanDims out = d;
  out.batch = s.size;
  return out;
}

// Each slice's plan and its workspace's place in the one buffer.
template <typename Plan, typename PlanDims>
struct SequenceSlices {
  std::vector<BatchSlice> slices;
  std::vector<std::shared_ptr<const Plan>> plans;
  std::vector<std::int64_t> workspace_at;
  std::int64_t workspace_bytes = 0;

  // `parts`: the forward pass's slice count (slice_count), which its backward reads from the workspace.
  SequenceSlices(const PlanDims& d, std::int64_t parts, const char* what) : slices(batch_slices(d.batch, parts)) {
    std::vector<std::int64_t> sizes;
    for (const BatchSlice& s : slices) {
      const PlanDims part = slice_dims(d, s);
      plans.push_back(cached_plan<Plan>(part.key(), part, what));
      sizes.push_back(static_cast<std::int64_t>(plans.back()->forward_pd.workspace_desc().get_size()));
    }
    workspace_at = workspace_offsets(sizes, workspace_bytes);
  }
};

// The slice count the forward pass wrote at the start of its workspace (Note [Batch slices]).
std::int64_t workspace_slice_count(const Tensor& workspace, std::int64_t batch, const char* op) {
  ACC_CHECK(static_cast<std::int64_t>(workspace.nbytes()) >= kWorkspaceHeader, ValueError,
            "{}: the workspace ({} bytes) is not the forward pass's", op, workspace.nbytes());
  std::int64_t parts = 0;
  std::memcpy(&parts, workspace.data_ptr(), sizeof(parts));
  ACC_CHECK(parts >= 1 && parts <= std::max<std::int64_t>(batch, 1), ValueError,
            "{}: the workspace is not the forward pass's for a batch of {}", op, batch);
  return parts;
}

void write_slice_count(Tensor& workspace, std::int64_t parts) {
  std::memcpy(workspace.data_ptr(), &parts, sizeof(parts));
}

// parts[0] += parts[1] + parts[2] + ..., element by element in that order (Note [Batch slices]).
void sum_into_first(const std::vector<Tensor>& parts) {
  float* out = parts[0].data<float>();
  const std::int64_t n = parts[0].numel();
  for (std::size_t k = 1; k < parts.size(); ++k) {
    const float* add = parts[k].data<float>();
    for (std::int64_t i = 0; i < n; ++i) out[i] += add[i];
  }
}

// One slice's operands and results of the forward pass (c0 and c_last only for the LSTM): both passes give
// them to the primitive.
struct SliceTensors {
  Tensor x, h0, c0, hs, h_last, c_last;
  void* workspace = nullptr;
};

// The arguments the forward and backward primitives share: the forward's operands (weights reordered into
// the layouts `pd` chose), its results and its workspace.
template <typename Pd, typename PlanDims>
std::unordered_map<int, memory> forward_args(CallMemory& mem, const Pd& pd, const PlanDims& d, const SliceTensors& t,
                                             const Tensor& w_layer, const Tensor& w_iter, const Tensor& bias) {
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC_LAYER, mem.wrap(t.x, d.src_layer(), tag::tnc)},
      {DNNL_ARG_SRC_ITER, mem.wrap(t.h0, d.state(), tag::ldnc)},
      {DNNL_ARG_WEIGHTS_LAYER, mem.input(mem.wrap(w_layer, d.weights_layer(), tag::ldgoi), pd.weights_layer_desc())},
      {DNNL_ARG_WEIGHTS_ITER, mem.input(mem.wrap(w_iter, d.weights_iter(), tag::ldgoi), pd.weights_iter_desc())},
      {DNNL_ARG_BIAS, mem.wrap(bias, d.bias(), tag::ldgo)},
      {DNNL_ARG_DST_LAYER, mem.wrap(t.hs, d.dst_layer(), tag::tnc)},
      {DNNL_ARG_DST_ITER, mem.wrap(t.h_last, d.state(), tag::ldnc)},
      {DNNL_ARG_WORKSPACE, mem.wrap_at(t.workspace, pd.workspace_desc())}};
  if (t.c0.defined()) args.emplace(DNNL_ARG_SRC_ITER_C, mem.wrap(t.c0, d.state(), tag::ldnc));
  if (t.c_last.defined()) args.emplace(DNNL_ARG_DST_ITER_C, mem.wrap(t.c_last, d.state(), tag::ldnc));
  return args;
}

void lstm_sequence_kernel(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                          const Tensor& w_hh, const Tensor& bias, bool reverse, const Tensor& hs,
                          const Tensor& h_last, const Tensor& c_last, Tensor& workspace) {
  const LstmDims dims = dims_of(x, w_hh, reverse);
  const SequenceSlices<LstmPlan, LstmDims> sliced(dims, slice_count(dims.batch), "LSTM setup");
  workspace = Tensor::empty(Shape{sliced.workspace_bytes}, DType::u8, Device::cpu());
  write_slice_count(workspace, static_cast<std::int64_t>(sliced.slices.size()));
  const Tensor full_bias = bias_or_zeros(bias, dims.hidden);
  auto* workspace_base = static_cast<std::uint8_t*>(workspace.data_ptr());
  for_each_slice(sliced.slices.size(), [&](std::size_t k) {
    const BatchSlice& s = sliced.slices[k];
    const LstmDims d = slice_dims(dims, s);
    const auto& pd = sliced.plans[k]->forward_pd;
    const Tensor x_part = batch_part(x, s, /*copy_in=*/true), hs_part = batch_part(hs, s, /*copy_in=*/false);
    const SliceTensors t{x_part, state_rows(h0, s), state_rows(c0, s), hs_part, state_rows(h_last, s),
                         state_rows(c_last, s), workspace_base + sliced.workspace_at[k]};
    onednn("LSTM", [&] {
      CallMemory mem;
      auto args = forward_args(mem, pd, d, t, w_ih, w_hh, full_bias);
      args.emplace(DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc()));
      mem.run(sliced.plans[k]->forward, args);
      mem.wait();
    });
    if (hs_part.data_ptr() != hs.data_ptr()) scatter_batch(hs_part, s, hs);
  });
}

void lstm_sequence_backward_kernel(const Tensor& grad_hs, const Tensor& grad_c_last, const Tensor& x,
                                   const Tensor& h0, const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh,
                                   const Tensor& bias, bool reverse, const Tensor& hs, const Tensor& h_last,
                                   const Tensor& c_last, const Tensor& workspace, const Tensor& dx,
                                   const Tensor& dh0, const Tensor& dc0, const Tensor& dw_ih, const Tensor& dw_hh,
                                   const Tensor& dbias) {
  const LstmDims dims = dims_of(x, w_hh, reverse);
  const std::int64_t parts_of_forward = workspace_slice_count(workspace, dims.batch, "lstm_sequence_backward");
  const SequenceSlices<LstmPlan, LstmDims> sliced(dims, parts_of_forward, "LSTM setup");
  ACC_CHECK(static_cast<std::int64_t>(workspace.nbytes()) >= sliced.workspace_bytes, ValueError,
            "lstm_sequence_backward: the workspace ({} bytes) is not lstm_sequence's for this shape ({} bytes)",
            workspace.nbytes(), sliced.workspace_bytes);
  const Tensor full_bias = bias_or_zeros(bias, dims.hidden);
  auto* workspace_base = static_cast<std::uint8_t*>(workspace.data_ptr());
  // Each slice's gradients of the weights and the bias, summed in slice order below.
  const std::size_t parts = sliced.slices.size();
  std::vector<Tensor> dw_ih_parts(parts), dw_hh_parts(parts), dbias_parts(parts);
  for (std::size_t k = 0; k < parts; ++k) {
    dw_ih_parts[k] = k == 0 ? dw_ih : Tensor::empty(w_ih.shape(), DType::f32, Device::cpu());
    dw_hh_parts[k] = k == 0 ? dw_hh : Tensor::empty(w_hh.shape(), DType::f32, Device::cpu());
    dbias_parts[k] = k == 0 && dbias.defined() ? dbias : Tensor::empty(Shape{4 * dims.hidden}, DType::f32, Device::cpu());
  }
  for_each_slice(parts, [&](std::size_t k) {
    const BatchSlice& s = sliced.slices[k];
    const LstmDims d = slice_dims(dims, s);
    const auto& pd = sliced.plans[k]->backward_pd;
    const Tensor x_part = batch_part(x, s, true), hs_part = batch_part(hs, s, true);
    const Tensor grad_hs_part = batch_part(grad_hs, s, true);
    // dx is not always wanted; the primitive writes it regardless.
    const Tensor dx_part = dx.defined() ? batch_part(dx, s, false)
                                        : Tensor::empty(x_part.shape(), DType::f32, Device::cpu());
    onednn("LSTM backward", [&] {
      CallMemory mem;
      const Tensor zero_state = Tensor::empty(Shape{s.size, d.hidden}, DType::f32, Device::cpu());
      const memory zero_state_memory = mem.wrap(zero_state, d.state(), tag::ldnc);
      std::memset(zero_state_memory.get_data_handle(), 0, zero_state_memory.get_desc().get_size());
      const memory user_dw_ih = mem.wrap(dw_ih_parts[k], d.weights_layer(), tag::ldgoi);
      const memory user_dw_hh = mem.wrap(dw_hh_parts[k], d.weights_iter(), tag::ldgoi);
      const memory diff_w_ih = mem.zeroed_output(user_dw_ih, pd.diff_weights_layer_desc());
      const memory diff_w_hh = mem.zeroed_output(user_dw_hh, pd.diff_weights_iter_desc());
      const memory diff_bias = mem.wrap(dbias_parts[k], d.bias(), tag::ldgo);
      const SliceTensors t{x_part, state_rows(h0, s), state_rows(c0, s), hs_part, state_rows(h_last, s),
                           state_rows(c_last, s), workspace_base + sliced.workspace_at[k]};
      auto args = forward_args(mem, pd, d, t, w_ih, w_hh, full_bias);
      args.insert({{DNNL_ARG_DIFF_DST_LAYER, mem.wrap(grad_hs_part, d.dst_layer(), tag::tnc)},
                   {DNNL_ARG_DIFF_DST_ITER, zero_state_memory},
                   {DNNL_ARG_DIFF_DST_ITER_C, mem.wrap(state_rows(grad_c_last, s), d.state(), tag::ldnc)},
                   {DNNL_ARG_DIFF_SRC_LAYER, mem.wrap(dx_part, d.src_layer(), tag::tnc)},
                   {DNNL_ARG_DIFF_SRC_ITER, mem.wrap(state_rows(dh0, s), d.state(), tag::ldnc)},
                   {DNNL_ARG_DIFF_SRC_ITER_C, mem.wrap(state_rows(dc0, s), d.state(), tag::ldnc)},
                   {DNNL_ARG_DIFF_WEIGHTS_LAYER, diff_w_ih},
                   {DNNL_ARG_DIFF_WEIGHTS_ITER, diff_w_hh},
                   {DNNL_ARG_DIFF_BIAS, mem.zeroed_output(diff_bias, diff_bias.get_desc())},
                   {DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc())}});
      mem.run(sliced.plans[k]->backward, args);
      mem.finish_output(diff_w_ih, user_dw_ih);
      mem.finish_output(diff_w_hh, user_dw_hh);
      mem.wait();
    });
    if (dx.defined() && dx_part.data_ptr() != dx.data_ptr()) scatter_batch(dx_part, s, dx);
  });
  sum_into_first(dw_ih_parts);
  sum_into_first(dw_hh_parts);
  if (dbias.defined()) sum_into_first(dbias_parts);
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
  const GruDims dims = gru_dims_of(x, w_hh, reverse);
  const SequenceSlices<GruPlan, GruDims> sliced(dims, slice_count(dims.batch), "GRU setup");
  workspace = Tensor::empty(Shape{sliced.workspace_bytes}, DType::u8, Device::cpu());
  write_slice_count(workspace, static_cast<std::int64_t>(sliced.slices.size()));
  const Tensor w_layer = oneDNN_gate_order(w_ih, dims.hidden), w_iter = oneDNN_gate_order(w_hh, dims.hidden);
  const Tensor bias = gru_bias(b_ih, b_hh, dims.hidden);
  auto* workspace_base = static_cast<std::uint8_t*>(workspace.data_ptr());
  for_each_slice(sliced.slices.size(), [&](std::size_t k) {
    const BatchSlice& s = sliced.slices[k];
    const GruDims d = slice_dims(dims, s);
    const auto& pd = sliced.plans[k]->forward_pd;
    const Tensor x_part = batch_part(x, s, /*copy_in=*/true), hs_part = batch_part(hs, s, /*copy_in=*/false);
    const SliceTensors t{x_part, state_rows(h0, s), Tensor(), hs_part, state_rows(h_last, s), Tensor(),
                         workspace_base + sliced.workspace_at[k]};
    onednn("GRU", [&] {
      CallMemory mem;
      auto args = forward_args(mem, pd, d, t, w_layer, w_iter, bias);
      args.emplace(DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc()));
      mem.run(sliced.plans[k]->forward, args);
      mem.wait();
    });
    if (hs_part.data_ptr() != hs.data_ptr()) scatter_batch(hs_part, s, hs);
  });
}

void gru_sequence_backward_kernel(const Tensor& grad_hs, const Tensor& x, const Tensor& h0, const Tensor& w_ih,
                                  const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool reverse,
                                  const Tensor& hs, const Tensor& h_last, const Tensor& workspace, const Tensor& dx,
                                  const Tensor& dh0, const Tensor& dw_ih, const Tensor& dw_hh, const Tensor& db_ih,
                                  const Tensor& db_hh) {
  const GruDims dims = gru_dims_of(x, w_hh, reverse);
  const std::int64_t parts_of_forward = workspace_slice_count(workspace, dims.batch, "gru_sequence_backward");
  const SequenceSlices<GruPlan, GruDims> sliced(dims, parts_of_forward, "GRU setup");
  ACC_CHECK(static_cast<std::int64_t>(workspace.nbytes()) >= sliced.workspace_bytes, ValueError,
            "gru_sequence_backward: the workspace ({} bytes) is not gru_sequence's for this shape ({} bytes)",
            workspace.nbytes(), sliced.workspace_bytes);
  const Tensor w_layer = oneDNN_gate_order(w_ih, dims.hidden), w_iter = oneDNN_gate_order(w_hh, dims.hidden);
  const Tensor bias = gru_bias(b_ih, b_hh, dims.hidden);
  auto* workspace_base = static_cast<std::uint8_t*>(workspace.data_ptr());
  // Each slice's gradients in oneDNN's gate order, summed in slice order and swapped back at the end.
  const std::size_t parts = sliced.slices.size();
  std::vector<Tensor> dw_layer(parts), dw_iter(parts), dbias(parts);
  for (std::size_t k = 0; k < parts; ++k) {
    dw_layer[k] = Tensor::empty(w_ih.shape(), DType::f32, Device::cpu());
    dw_iter[k] = Tensor::empty(w_hh.shape(), DType::f32, Device::cpu());
    dbias[k] = Tensor::empty(Shape{4 * dims.hidden}, DType::f32, Device::cpu());
  }
  for_each_slice(parts, [&](std::size_t k) {
    const BatchSlice& s = sliced.slices[k];
    const GruDims d = slice_dims(dims, s);
    const auto& pd = sliced.plans[k]->backward_pd;
    const Tensor x_part = batch_part(x, s, true), hs_part = batch_part(hs, s, true);
    const Tensor grad_hs_part = batch_part(grad_hs, s, true);
    const Tensor dx_part = dx.defined() ? batch_part(dx, s, false)
                                        : Tensor::empty(x_part.shape(), DType::f32, Device::cpu());
    onednn("GRU backward", [&] {
      CallMemory mem;
      const Tensor zero_state = Tensor::empty(Shape{s.size, d.hidden}, DType::f32, Device::cpu());
      std::fill_n(zero_state.data<float>(), zero_state.numel(), 0.0f);
      const memory user_dw_layer = mem.wrap(dw_layer[k], d.weights_layer(), tag::ldgoi);
      const memory user_dw_iter = mem.wrap(dw_iter[k], d.weights_iter(), tag::ldgoi);
      const memory diff_w_layer = mem.zeroed_output(user_dw_layer, pd.diff_weights_layer_desc());
      const memory diff_w_iter = mem.zeroed_output(user_dw_iter, pd.diff_weights_iter_desc());
      const memory diff_bias = mem.wrap(dbias[k], d.bias(), tag::ldgo);
      const SliceTensors t{x_part, state_rows(h0, s), Tensor(), hs_part, state_rows(h_last, s), Tensor(),
                           workspace_base + sliced.workspace_at[k]};
      auto args = forward_args(mem, pd, d, t, w_layer, w_iter, bias);
      args.insert({{DNNL_ARG_DIFF_DST_LAYER, mem.wrap(grad_hs_part, d.dst_layer(), tag::tnc)},
                   {DNNL_ARG_DIFF_DST_ITER, mem.wrap(zero_state, d.state(), tag::ldnc)},
                   {DNNL_ARG_DIFF_SRC_LAYER, mem.wrap(dx_part, d.src_layer(), tag::tnc)},
                   {DNNL_ARG_DIFF_SRC_ITER, mem.wrap(state_rows(dh0, s), d.state(), tag::ldnc)},
                   {DNNL_ARG_DIFF_WEIGHTS_LAYER, diff_w_layer},
                   {DNNL_ARG_DIFF_WEIGHTS_ITER, diff_w_iter},
                   {DNNL_ARG_DIFF_BIAS, mem.zeroed_output(diff_bias, diff_bias.get_desc())},
                   {DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc())}});
      mem.run(sliced.plans[k]->backward, args);
      mem.finish_output(diff_w_layer, user_dw_layer);
      mem.finish_output(diff_w_iter, user_dw_iter);
      mem.wait();
    });
    if (dx.defined() && dx_part.data_ptr() != dx.data_ptr()) scatter_batch(dx_part, s, dx);
  });
  sum_into_first(dw_layer);
  sum_into_first(dw_iter);
  sum_into_first(dbias);
  swap_first_gates(dw_layer[0].data<float>(), dw_ih.data<float>(), dims.hidden, dims.input);
  swap_first_gates(dw_iter[0].data<float>(), dw_hh.data<float>(), dims.hidden, dims.hidden);
  const float* db = dbias[0].data<float>();
  const std::int64_t h = dims.hidden;
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
