#pragma once
// Recurrent layers of accelera::nn: LSTM and GRU with PyTorch's parameter names, shapes and gate orders (as
// Python's accelera.nn.LSTM and GRU), stacked and bidirectional. Each layer and direction is one recorded op
// over the whole sequence (Note [A recurrent layer as one recorded op] in python/accelera/nn/_recurrent.py):
// the input's share of every gate is one product before the loop, backward through time runs the loop in
// reverse and makes the weights' gradients as products over all steps. Where the device runs a whole layer
// in one kernel (lstm_sequence, gru_sequence: oneDNN on the CPU, float32) it runs there; else each LSTM step
// uses the fused lstm_cell where the device has it, else composed element-wise ops.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accelera/core/export.hpp"
#include "accelera/nn/layers.hpp"

namespace accelera::nn {

namespace functional {
// One LSTM layer in one direction: x (T, B, I), h0 and c0 (B, H), w_ih (4H, I), w_hh (4H, H), biases (4H)
// or undefined. Returns (T + 1, B, H): the hidden state after every step, then the last cell state.
ACC_API Variable lstm_direction(const Variable& x, const Variable& h0, const Variable& c0, const Variable& w_ih,
                                const Variable& w_hh, const Variable& b_ih, const Variable& b_hh, bool reverse);
// One GRU layer in one direction (gates r, z, n): (T, B, H), the hidden state after every step.
ACC_API Variable gru_direction(const Variable& x, const Variable& h0, const Variable& w_ih, const Variable& w_hh,
                               const Variable& b_ih, const Variable& b_hh, bool reverse);
// Differentiable slices and joins the recurrent layers need.
ACC_API Variable slice(const Variable& x, std::int64_t axis, std::int64_t start, std::int64_t stop);
ACC_API Variable concat(const std::vector<Variable>& parts, std::int64_t axis);
}  // namespace functional

struct RecurrentOptions {
  std::int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0.0;  // between stacked layers, in training
  bool bidirectional = false;
};

// What a recurrent layer returns: the output (T, B, D H), or (B, T, D H) batch-first, and the final hidden
// (and for an LSTM cell) states (num_layers D, B, H); D = 2 when bidirectional.
struct RecurrentOutput {
  Variable output, h_n, c_n;
};

class ACC_API Recurrent : public Module {
 public:
  // The output only (Module's interface); run() gives the final states too.
  Variable forward(const Variable& x) override { return run(x).output; }
  // Initial states (num_layers D, B, H) may be left undefined (zeros).
  RecurrentOutput run(const Variable& x, const Variable& h0 = {}, const Variable& c0 = {});
  std::string describe() const override;

 protected:
  Recurrent(bool lstm, std::int64_t input_size, std::int64_t hidden_size, RecurrentOptions options,
            ParameterOptions parameters);

 private:
  Variable weight(const std::string& name) const;
  Variable initial(const Variable& given, const char* what, std::int64_t batch, const Variable& x) const;
  bool m_lstm;
  std::int64_t m_input, m_hidden;
  RecurrentOptions m_options;
  std::int64_t m_directions;
  std::uint64_t m_dropout_seed, m_dropout_offset = 0;
  std::vector<std::pair<std::string, Variable>> m_weights;
};

// Long short-term memory, gates i, f, g, o in weight_ih_l{k} (4H, features) and weight_hh_l{k} (4H, H).
class ACC_API LSTM : public Recurrent {
 public:
  LSTM(std::int64_t input_size, std::int64_t hidden_size, RecurrentOptions options = {}, ParameterOptions parameters = {})
      : Recurrent(true, input_size, hidden_size, options, parameters) {}
};

// Gated recurrent unit, gates r, z, n in weight_ih_l{k} (3H, features) and weight_hh_l{k} (3H, H).
class ACC_API GRU : public Recurrent {
 public:
  GRU(std::int64_t input_size, std::int64_t hidden_size, RecurrentOptions options = {}, ParameterOptions parameters = {})
      : Recurrent(false, input_size, hidden_size, options, parameters) {}
};

// The builder's recurrent layer (LayerBuilder::lstm / gru): (batch, length, features) in; the last step's
// hidden state (batch, units) out, or every step's (batch, length, units) with return_sequences. Its
// recurrent layer is the child "rnn", as in Python.
class ACC_API SequenceLayer : public Module {
 public:
  SequenceLayer(bool lstm, std::int64_t features, std::int64_t units, bool return_sequences, ParameterOptions parameters = {});
  Variable forward(const Variable& x) override;
  std::string describe() const override;

 private:
  std::shared_ptr<Recurrent> m_rnn;
  bool m_return_sequences;
};

}  // namespace accelera::nn
