// LSTM and GRU layers (include/accelera/nn/recurrent.hpp): each layer and direction one recorded op with a
// hand-written backward through time, as Python's _LSTMDirection and _GRUDirection.
#include "accelera/nn/recurrent.hpp"

#include <array>
#include <cmath>

#include "accelera/core/error.hpp"
#include "accelera/nn/functional.hpp"
#include "accelera/op_table.hpp"
#include "accelera/ops.hpp"
#include "accelera/random.hpp"

namespace accelera::nn {

namespace F = functional;

namespace {

using Grads = std::vector<Tensor>;
using Dims = std::vector<std::int64_t>;

Tensor scalar(double value, const Tensor& like) { return full(Shape{}, value, like.dtype(), like.device()); }
Tensor one_minus(const Tensor& t) { return subtract(scalar(1.0, t), t); }
Tensor value_or_empty(const Variable& v) { return v.defined() ? v.value() : Tensor(); }
bool wants(const Variable& v) { return v.defined() && v.requires_grad() && grad_enabled(); }

// parts stacked along a new leading axis.
Tensor stack(const std::vector<Tensor>& parts) {
  Dims dims{static_cast<std::int64_t>(parts.size())};
  for (auto d : parts.at(0).shape().dims()) dims.push_back(d);
  Tensor out = Tensor::empty(Shape(dims), parts[0].dtype(), parts[0].device());
  for (std::size_t i = 0; i < parts.size(); ++i) copy_into(parts[i], out.select(0, static_cast<std::int64_t>(i)));
  return out;
}

// parts joined along `axis`.
Tensor join(const std::vector<Tensor>& parts, std::int64_t axis) {
  Dims dims = parts.at(0).shape().dims();
  std::int64_t total = 0;
  for (const auto& p : parts) total += p.dim(axis);
  dims[static_cast<std::size_t>(axis)] = total;
  Tensor out = Tensor::empty(Shape(dims), parts[0].dtype(), parts[0].device());
  std::int64_t at = 0;
  for (const auto& p : parts) {
    copy_into(p, out.slice(axis, at, at + p.dim(axis)));
    at += p.dim(axis);
  }
  return out;
}

std::vector<std::int64_t> steps(std::int64_t length, bool reverse) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < length; ++i) out.push_back(reverse ? length - 1 - i : i);
  return out;
}

// x (T, B, I) @ w_ih^T + biases as one product over all T B rows: (T, B, G).
Tensor input_projection(const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& b_hh) {
  const std::int64_t t = x.dim(0), b = x.dim(1);
  Tensor xw = matmul(x.reshape(Dims{t * b, x.dim(2)}), w_ih.T());
  for (const Tensor* bias : {&b_ih, &b_hh})
    if (bias->defined()) xw = add(xw, *bias);
  return xw.reshape(Dims{t, b, w_ih.dim(0)});
}

// The state each step started from, in step order: h0, then the outputs shifted by one step.
Tensor previous_states(const Tensor& h0, const std::vector<Tensor>& hs, bool reverse) {
  const auto length = static_cast<std::int64_t>(hs.size());
  std::vector<Tensor> prev;
  for (std::int64_t t = 0; t < length; ++t)
    prev.push_back(t == (reverse ? length - 1 : 0) ? h0 : hs[static_cast<std::size_t>(reverse ? t + 1 : t - 1)]);
  return stack(prev);
}

struct Inputs {
  Tensor x, w_ih, w_hh, b_ih, b_hh;
  bool needs_dx;
};

// The products over all steps: gradients of x, w_ih, w_hh and the biases from the gates' gradients on the
// input side and on the hidden side (T, B, G), and the states each step started from.
Grads weight_gradients(const Inputs& in, const Tensor& d_input, const Tensor& d_hidden, const Tensor& h_prev) {
  const std::int64_t t = in.x.dim(0), b = in.x.dim(1);
  const Tensor gx = d_input.reshape(Dims{t * b, d_input.dim(2)}), gh = d_hidden.reshape(Dims{t * b, d_hidden.dim(2)});
  const Dims rows{0};
  return Grads{in.needs_dx ? matmul(gx, in.w_ih).reshape(in.x.shape().dims()) : Tensor(),
               matmul(gx.T(), in.x.reshape(Dims{t * b, in.x.dim(2)})),
               matmul(gh.T(), h_prev.reshape(Dims{t * b, h_prev.dim(2)})),
               in.b_ih.defined() ? sum(gx, rows) : Tensor(), in.b_hh.defined() ? sum(gh, rows) : Tensor()};
}

void check_direction(const char* what, const Variable& x, const Variable& h0, const Variable& w_ih, const Variable& w_hh,
                     std::int64_t gates) {
  if (x.ndim() != 3 || w_ih.ndim() != 2 || w_hh.ndim() != 2 || w_hh.dim(0) != gates * w_hh.dim(1) ||
      w_ih.dim(0) != w_hh.dim(0) || w_ih.dim(1) != x.dim(2) || h0.shape() != Shape{x.dim(1), w_hh.dim(1)})
    throw ShapeError(fmt::format("{}: x {} (T, B, I), h0 {} (B, H), w_ih {} ({}H, I) and w_hh {} ({}H, H) do not fit",
                                 what, x.shape().str(), h0.shape().str(), w_ih.shape().str(), gates,
                                 w_hh.shape().str(), gates));
}

}  // namespace

namespace functional {

Variable slice(const Variable& x, std::int64_t axis, std::int64_t start, std::int64_t stop) {
  const std::int64_t a = normalize_axis(axis, x.ndim());
  return Variable::from_op("slice", x.value().slice(a, start, stop), {x}, [s = x.shape(), a, start, stop](const Tensor& g) {
    Tensor full_grad = zeros(s, g.dtype(), g.device());
    copy_into(g, full_grad.slice(a, start, stop));
    return Grads{full_grad};
  });
}

Variable concat(const std::vector<Variable>& parts, std::int64_t axis) {
  if (parts.empty()) throw ValueError("concat of no tensors");
  const std::int64_t a = normalize_axis(axis, parts[0].ndim());
  std::vector<Tensor> values;
  Dims bounds{0};
  for (const auto& p : parts) {
    values.push_back(p.value());
    bounds.push_back(bounds.back() + p.dim(a));
  }
  return Variable::from_op("concat", join(values, a), parts, [a, bounds](const Tensor& g) {
    Grads out;
    for (std::size_t i = 0; i + 1 < bounds.size(); ++i) out.push_back(g.slice(a, bounds[i], bounds[i + 1]));
    return out;
  });
}

Variable lstm_direction(const Variable& x, const Variable& h0, const Variable& c0, const Variable& w_ih,
                        const Variable& w_hh, const Variable& b_ih, const Variable& b_hh, bool reverse) {
  check_direction("lstm", x, h0, w_ih, w_hh, 4);
  if (c0.shape() != h0.shape()) throw ShapeError(fmt::format("lstm: c0 {} for h0 {}", c0.shape().str(), h0.shape().str()));
  const Inputs in{x.value().contiguous(), w_ih.value(), w_hh.value(), value_or_empty(b_ih), value_or_empty(b_hh), wants(x)};
  const std::int64_t length = x.dim(0), hidden = w_hh.dim(1);
  const std::vector<Variable> recorded{x, h0, c0, w_ih, w_hh, b_ih, b_hh};
  if (supports(x.device(), "lstm_sequence", x.dtype())) {  // the whole loop, both ways, in one kernel each
    const Tensor bias = !in.b_hh.defined() ? in.b_ih : (!in.b_ih.defined() ? in.b_hh : add(in.b_ih, in.b_hh));
    LstmSequenceResult f = lstm_sequence(in.x, h0.value(), c0.value(), in.w_ih, in.w_hh, bias, reverse);
    return Variable::from_op("lstm", f.hs_and_c_last, recorded,
                             [in, h0v = h0.value(), c0v = c0.value(), bias, reverse, f, length](const Tensor& g) {
                               LstmSequenceGrads d = lstm_sequence_backward(
                                   g.slice(0, 0, length).contiguous(), g.select(0, length).contiguous(), in.x, h0v, c0v,
                                   in.w_ih, in.w_hh, bias, reverse, f, in.needs_dx);
                               // The summed bias's gradient is each bias's; the second gets its own copy.
                               Tensor db_ih = in.b_ih.defined() ? d.dbias : Tensor();
                               Tensor db_hh = in.b_hh.defined() ? (in.b_ih.defined() ? d.dbias.clone() : d.dbias) : Tensor();
                               return Grads{d.dx, d.dh0, d.dc0, d.dw_ih, d.dw_hh, db_ih, db_hh};
                             });
  }
  const bool fused = supports(x.device(), "lstm_cell", x.dtype());
  const Tensor xw = input_projection(in.x, in.w_ih, in.b_ih, in.b_hh), w_hh_t = in.w_hh.T();
  Tensor h = h0.value(), c = c0.value();
  std::vector<Tensor> hs(static_cast<std::size_t>(length));
  std::vector<std::array<Tensor, 4>> saved(static_cast<std::size_t>(length));
  for (std::int64_t t : steps(length, reverse)) {
    const Tensor gates = add(xw.select(0, t), matmul(h, w_hh_t));
    auto& keep = saved[static_cast<std::size_t>(t)];
    if (fused) {  // one kernel for the step's element-wise part
      LstmCellResult r = lstm_cell(gates, c);
      keep = {r.act, c, r.c, Tensor()};
      h = r.h;
      c = r.c;
    } else {
      const Tensor s = sigmoid(gates);  // i, f and o; the g quarter is taken through tanh
      const Tensor g = tanh(gates.slice(1, 2 * hidden, 3 * hidden));
      const Tensor c_next = add(multiply(s.slice(1, hidden, 2 * hidden), c), multiply(s.slice(1, 0, hidden), g));
      const Tensor tanh_c = tanh(c_next);
      h = multiply(s.slice(1, 3 * hidden, 4 * hidden), tanh_c);
      keep = {s, g, c, tanh_c};
      c = c_next;
    }
    hs[static_cast<std::size_t>(t)] = h;
  }
  std::vector<Tensor> packed(hs);
  packed.push_back(c);
  return Variable::from_op(
      "lstm", stack(packed), recorded, [in, h0v = h0.value(), hs, saved, fused, reverse, length, hidden](const Tensor& grad) {
        Tensor dh_carry, dc = grad.select(0, length);
        std::vector<Tensor> d_gates(static_cast<std::size_t>(length));
        for (std::int64_t t : steps(length, !reverse)) {
          const auto& k = saved[static_cast<std::size_t>(t)];
          Tensor dh = dh_carry.defined() ? add(grad.select(0, t), dh_carry) : grad.select(0, t).contiguous();
          Tensor& dg_t = d_gates[static_cast<std::size_t>(t)];
          if (fused) {
            LstmCellGrads r = lstm_cell_backward(dh, dc.contiguous(), k[0], k[1], k[2]);
            dg_t = r.d_gates;
            dc = r.dc_prev;
          } else {
            const Tensor &s = k[0], &g = k[1], &c_prev = k[2], &tanh_c = k[3];
            const Tensor i = s.slice(1, 0, hidden), f = s.slice(1, hidden, 2 * hidden), o = s.slice(1, 3 * hidden, 4 * hidden);
            dc = add(dc, multiply(multiply(dh, o), one_minus(square(tanh_c))));
            const Tensor ds = multiply(s, one_minus(s));  // sigmoid' for i, f, o
            dg_t = join({multiply(multiply(dc, g), ds.slice(1, 0, hidden)),
                         multiply(multiply(dc, c_prev), ds.slice(1, hidden, 2 * hidden)),
                         multiply(multiply(dc, i), one_minus(square(g))),
                         multiply(multiply(dh, tanh_c), ds.slice(1, 3 * hidden, 4 * hidden))},
                        1);
            dc = multiply(dc, f);
          }
          dh_carry = matmul(dg_t, in.w_hh);
        }
        const Tensor stacked = stack(d_gates);
        Grads w = weight_gradients(in, stacked, stacked, previous_states(h0v, hs, reverse));
        return Grads{w[0], dh_carry, dc, w[1], w[2], w[3], w[4]};
      });
}

Variable gru_direction(const Variable& x, const Variable& h0, const Variable& w_ih, const Variable& w_hh,
                       const Variable& b_ih, const Variable& b_hh, bool reverse) {
  check_direction("gru", x, h0, w_ih, w_hh, 3);
  const Inputs in{x.value().contiguous(), w_ih.value(), w_hh.value(), value_or_empty(b_ih), value_or_empty(b_hh), wants(x)};
  const std::int64_t length = x.dim(0), hidden = w_hh.dim(1);
  const std::vector<Variable> recorded{x, h0, w_ih, w_hh, b_ih, b_hh};
  if (supports(x.device(), "gru_sequence", x.dtype())) {
    GruSequenceResult f = gru_sequence(in.x, h0.value(), in.w_ih, in.w_hh, in.b_ih, in.b_hh, reverse);
    return Variable::from_op("gru", f.hs, recorded, [in, h0v = h0.value(), reverse, f](const Tensor& g) {
      GruSequenceGrads d = gru_sequence_backward(g.contiguous(), in.x, h0v, in.w_ih, in.w_hh, in.b_ih, in.b_hh, reverse, f,
                                                 in.needs_dx);
      return Grads{d.dx, d.dh0, d.dw_ih, d.dw_hh, d.db_ih, d.db_hh};
    });
  }
  const bool fused = supports(x.device(), "gru_cell", x.dtype());
  const Tensor xw = input_projection(in.x, in.w_ih, in.b_ih, Tensor()), w_hh_t = in.w_hh.T();
  Tensor h = h0.value();
  std::vector<Tensor> hs(static_cast<std::size_t>(length));
  std::vector<std::array<Tensor, 4>> saved(static_cast<std::size_t>(length));
  for (std::int64_t t : steps(length, reverse)) {
    Tensor gh = matmul(h, w_hh_t);
    if (in.b_hh.defined()) gh = add(gh, in.b_hh);
    const Tensor gx = xw.select(0, t);
    if (fused) {  // one kernel for the step's element-wise part
      GruCellResult r = gru_cell(gx, gh, h);
      saved[static_cast<std::size_t>(t)] = {r.act, gh, h, Tensor()};
      hs[static_cast<std::size_t>(t)] = h = r.h;
      continue;
    }
    const Tensor rz = sigmoid(add(gx.slice(1, 0, 2 * hidden), gh.slice(1, 0, 2 * hidden)));
    const Tensor gh_n = gh.slice(1, 2 * hidden, 3 * hidden);
    const Tensor n = tanh(add(gx.slice(1, 2 * hidden, 3 * hidden), multiply(rz.slice(1, 0, hidden), gh_n)));
    const Tensor h_next = add(n, multiply(rz.slice(1, hidden, 2 * hidden), subtract(h, n)));
    saved[static_cast<std::size_t>(t)] = {rz, n, gh_n, h};
    hs[static_cast<std::size_t>(t)] = h = h_next;
  }
  return Variable::from_op("gru", stack(hs), recorded, [in, h0v = h0.value(), hs, saved, fused, reverse, length, hidden](const Tensor& grad) {
    Tensor dh_carry;
    std::vector<Tensor> d_input(static_cast<std::size_t>(length)), d_hidden(static_cast<std::size_t>(length));
    for (std::int64_t t : steps(length, !reverse)) {
      const Tensor dh = dh_carry.defined() ? add(grad.select(0, t), dh_carry) : grad.select(0, t).contiguous();
      if (fused) {
        const auto& k = saved[static_cast<std::size_t>(t)];  // act, hidden gates, h_prev
        GruCellGrads r = gru_cell_backward(dh, k[0], k[1], k[2]);
        d_input[static_cast<std::size_t>(t)] = r.d_input_gates;
        d_hidden[static_cast<std::size_t>(t)] = r.d_hidden_gates;
        dh_carry = add(r.dh_prev, matmul(r.d_hidden_gates, in.w_hh));
        continue;
      }
      const auto& [rz, n, gh_n, h_prev] = saved[static_cast<std::size_t>(t)];
      const Tensor r = rz.slice(1, 0, hidden), z = rz.slice(1, hidden, 2 * hidden);
      const Tensor dn = multiply(multiply(dh, one_minus(z)), one_minus(square(n)));
      const Tensor drz = multiply(rz, one_minus(rz));  // sigmoid' for r and z
      const Tensor dr = multiply(multiply(dn, gh_n), drz.slice(1, 0, hidden));
      const Tensor dz = multiply(multiply(dh, subtract(h_prev, n)), drz.slice(1, hidden, 2 * hidden));
      d_input[static_cast<std::size_t>(t)] = join({dr, dz, dn}, 1);
      d_hidden[static_cast<std::size_t>(t)] = join({dr, dz, multiply(dn, r)}, 1);
      dh_carry = add(multiply(dh, z), matmul(d_hidden[static_cast<std::size_t>(t)], in.w_hh));
    }
    Grads w = weight_gradients(in, stack(d_input), stack(d_hidden), previous_states(h0v, hs, reverse));
    return Grads{w[0], dh_carry, w[1], w[2], w[3], w[4]};
  });
}

}  // namespace functional

// ---- modules ------------------------------------------------------------------------------------------------

Recurrent::Recurrent(bool lstm, std::int64_t input_size, std::int64_t hidden_size, RecurrentOptions options,
                     ParameterOptions parameters)
    : m_lstm(lstm), m_input(input_size), m_hidden(hidden_size), m_options(options),
      m_directions(options.bidirectional ? 2 : 1), m_dropout_seed(parameters.seed) {
  const char* name = lstm ? "LSTM" : "GRU";
  if (input_size < 1 || hidden_size < 1 || options.num_layers < 1)
    throw ValueError(fmt::format("{} input_size, hidden_size and num_layers must be positive, got {}, {} and {}", name,
                                 input_size, hidden_size, options.num_layers));
  if (!(options.dropout >= 0.0 && options.dropout < 1.0))
    throw ValueError(fmt::format("{} dropout must be in [0, 1), got {}", name, options.dropout));
  if (!is_floating(parameters.dtype)) throw DTypeError(fmt::format("parameters are floating, got {}", dtype_name(parameters.dtype)));
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));  // PyTorch's U(-1/sqrt(H), 1/sqrt(H))
  const std::int64_t rows = (lstm ? 4 : 3) * hidden_size;
  std::uint64_t draw = 0;
  auto uniform = [&](const Shape& shape) {
    return Variable(random_uniform(shape, parameters.dtype, parameters.device, parameters.seed, (draw++) << 40, -bound, bound),
                    true);
  };
  for (std::int64_t layer = 0; layer < options.num_layers; ++layer) {
    const std::int64_t features = layer == 0 ? input_size : hidden_size * m_directions;
    for (std::int64_t d = 0; d < m_directions; ++d) {
      const std::string suffix = fmt::format("_l{}{}", layer, d ? "_reverse" : "");
      m_weights.emplace_back("weight_ih" + suffix, uniform(Shape{rows, features}));
      m_weights.emplace_back("weight_hh" + suffix, uniform(Shape{rows, hidden_size}));
      if (options.bias) {
        m_weights.emplace_back("bias_ih" + suffix, uniform(Shape{rows}));
        m_weights.emplace_back("bias_hh" + suffix, uniform(Shape{rows}));
      }
    }
  }
  for (const auto& [n, w] : m_weights) register_parameter(n, w);
}

Variable Recurrent::weight(const std::string& name) const {
  for (const auto& [n, w] : m_weights)
    if (n == name) return w;
  return {};
}

std::string Recurrent::describe() const {
  return fmt::format("{}({}, {}, num_layers={}, bias={}, batch_first={}, dropout={}, bidirectional={})",
                     m_lstm ? "LSTM" : "GRU", m_input, m_hidden, m_options.num_layers, m_options.bias,
                     m_options.batch_first, m_options.dropout, m_options.bidirectional);
}

Variable Recurrent::initial(const Variable& given, const char* what, std::int64_t batch, const Variable& x) const {
  const Shape expected{m_options.num_layers * m_directions, batch, m_hidden};
  if (!given.defined()) return Variable(zeros(expected, x.dtype(), x.device()));
  if (given.shape() != expected)
    throw ShapeError(fmt::format("{}: {} must have shape {}, got {}", describe(), what, expected.str(), given.shape().str()));
  return given;
}

RecurrentOutput Recurrent::run(const Variable& input, const Variable& h0_given, const Variable& c0_given) {
  if (input.ndim() != 3 || input.dim(2) != m_input)
    throw ShapeError(fmt::format("{} expects {} inputs with {} features, got shape {}", describe(),
                                 m_options.batch_first ? "(batch, length, features)" : "(length, batch, features)",
                                 m_input, input.shape().str()));
  Variable x = m_options.batch_first ? F::contiguous(F::permute(input, {1, 0, 2})) : input;
  if (x.dim(0) == 0 || x.dim(1) == 0)
    throw ShapeError(fmt::format("{} needs at least one step and one sequence, got shape {}", describe(), input.shape().str()));
  const std::int64_t length = x.dim(0), batch = x.dim(1);
  const Variable h0 = initial(h0_given, "h0", batch, x);
  const Variable c0 = m_lstm ? initial(c0_given, "c0", batch, x) : Variable();
  std::vector<Variable> h_finals, c_finals;
  for (std::int64_t layer = 0; layer < m_options.num_layers; ++layer) {
    std::vector<Variable> outputs;
    for (std::int64_t d = 0; d < m_directions; ++d) {
      const std::string suffix = fmt::format("_l{}{}", layer, d ? "_reverse" : "");
      const std::int64_t index = layer * m_directions + d;
      const bool reverse = d == 1;
      const Variable h_init = F::reshape(F::slice(h0, 0, index, index + 1), {batch, m_hidden});
      if (m_lstm) {
        const Variable c_init = F::reshape(F::slice(c0, 0, index, index + 1), {batch, m_hidden});
        const Variable packed = F::lstm_direction(x, h_init, c_init, weight("weight_ih" + suffix), weight("weight_hh" + suffix),
                                                  weight("bias_ih" + suffix), weight("bias_hh" + suffix), reverse);
        outputs.push_back(F::slice(packed, 0, 0, length));
        const std::int64_t last = reverse ? 0 : length - 1;
        h_finals.push_back(F::slice(packed, 0, last, last + 1));
        c_finals.push_back(F::slice(packed, 0, length, length + 1));
      } else {
        const Variable hs = F::gru_direction(x, h_init, weight("weight_ih" + suffix), weight("weight_hh" + suffix),
                                             weight("bias_ih" + suffix), weight("bias_hh" + suffix), reverse);
        outputs.push_back(hs);
        const std::int64_t last = reverse ? 0 : length - 1;
        h_finals.push_back(F::slice(hs, 0, last, last + 1));
      }
    }
    x = outputs.size() == 1 ? outputs[0] : F::concat(outputs, 2);
    if (m_options.dropout > 0 && is_training() && layer + 1 < m_options.num_layers) {  // between layers, as PyTorch
      const std::uint64_t offset = m_dropout_offset;
      m_dropout_offset += random_blocks(x.value().numel());
      x = F::dropout(x, m_options.dropout, true, m_dropout_seed ^ 0x5eedULL, offset);
    }
  }
  RecurrentOutput out;
  out.output = m_options.batch_first ? F::contiguous(F::permute(x, {1, 0, 2})) : x;
  out.h_n = F::concat(h_finals, 0);
  if (m_lstm) out.c_n = F::concat(c_finals, 0);
  return out;
}

SequenceLayer::SequenceLayer(bool lstm, std::int64_t features, std::int64_t units, bool return_sequences,
                             ParameterOptions parameters)
    : m_return_sequences(return_sequences) {
  RecurrentOptions options;
  options.batch_first = true;
  if (lstm) m_rnn = std::make_shared<LSTM>(features, units, options, parameters);
  else m_rnn = std::make_shared<GRU>(features, units, options, parameters);
  register_module("rnn", m_rnn);
}

Variable SequenceLayer::forward(const Variable& x) {
  const Variable out = m_rnn->forward(x);
  if (m_return_sequences) return out;
  const std::int64_t length = out.dim(1);
  return F::reshape(F::slice(out, 1, length - 1, length), {out.dim(0), out.dim(2)});
}

std::string SequenceLayer::describe() const {
  return fmt::format("SequenceLayer({}, return_sequences={})", m_rnn->describe(), m_return_sequences);
}

}  // namespace accelera::nn
