// Rows of the op test table for the LSTM and GRU sequence kernels (Note [Recurrent sequence kernels] in
// ops/recurrent_sequence.hpp): a plain float64 LSTM (GRU) run step by step, and its backward through time,
// itself checked as the vector-Jacobian product of the forward by central differences.
#include <cmath>

#include "accelera/nn_ops.hpp"
#include "op_table_cells.hpp"

namespace acc_test::op_table {

namespace {

using namespace cells;

struct SeqShape {
  std::int64_t length, batch, input, hidden;
  bool reverse, has_bias;
  std::string str() const {
    return fmt::format("(T={}, B={}, I={}, H={}){}{}", length, batch, input, hidden, reverse ? " reverse" : "",
                       has_bias ? "" : " no bias");
  }
};

// One step, then the next: sizes 1, primes, a hidden size past a vector of every ISA, both directions,
// with and without a bias.
const std::vector<SeqShape>& sequence_shapes() {
  static const std::vector<SeqShape> shapes = {{1, 1, 1, 1, false, true},  {3, 2, 5, 7, false, true},
                                               {7, 3, 13, 4, true, true},  {5, 1, 3, 17, false, false},
                                               {4, 5, 33, 16, true, false}};
  return shapes;
}

// The operands, flattened row-major, in the op's argument order.
struct SeqOperands {
  Floats x, h0, c0, w_ih, w_hh, bias;
};

struct SeqForward {
  Floats hs, h_last, c_last;
  // Per step (in step order): activated gates (B, 4H), the cell state before and after, the hidden state before.
  std::vector<Floats> act, c_prev, c, h_prev;
};

SeqForward lstm_forward(const SeqOperands& o, const SeqShape& s) {
  const std::int64_t T = s.length, B = s.batch, I = s.input, H = s.hidden;
  SeqForward r;
  r.hs.assign(static_cast<std::size_t>(T * B * H), 0.0);
  r.act.resize(static_cast<std::size_t>(T));
  r.c_prev = r.c = r.h_prev = r.act;
  Floats h = o.h0, c = o.c0;
  for (std::int64_t step = 0; step < T; ++step) {
    const std::int64_t t = s.reverse ? T - 1 - step : step;
    const auto ts = static_cast<std::size_t>(t);
    Floats act(static_cast<std::size_t>(B * 4 * H)), c_next(static_cast<std::size_t>(B * H)), h_next = c_next;
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t gate = 0; gate < 4 * H; ++gate) {
        double z = s.has_bias ? o.bias[static_cast<std::size_t>(gate)] : 0.0;
        for (std::int64_t k = 0; k < I; ++k) {
          z += o.w_ih[static_cast<std::size_t>(gate * I + k)] * o.x[static_cast<std::size_t>((t * B + b) * I + k)];
        }
        for (std::int64_t k = 0; k < H; ++k) {
          z += o.w_hh[static_cast<std::size_t>(gate * H + k)] * h[static_cast<std::size_t>(b * H + k)];
        }
        act[static_cast<std::size_t>(b * 4 * H + gate)] = gate / H == 2 ? std::tanh(z) : sigmoid(z);
      }
      for (std::int64_t k = 0; k < H; ++k) {
        const auto at = [&](int gate) { return act[static_cast<std::size_t>(b * 4 * H + gate * H + k)]; };
        const auto sk = static_cast<std::size_t>(b * H + k);
        c_next[sk] = at(1) * c[sk] + at(0) * at(2);
        h_next[sk] = at(3) * std::tanh(c_next[sk]);
        r.hs[static_cast<std::size_t>((t * B + b) * H + k)] = h_next[sk];
      }
    }
    r.act[ts] = act, r.c_prev[ts] = c, r.c[ts] = c_next, r.h_prev[ts] = h;
    h = h_next, c = c_next;
  }
  r.h_last = h, r.c_last = c;
  return r;
}

// The gradients of (hs, c_last) against grad_hs and grad_c_last, through time.
SeqOperands lstm_backward(const SeqOperands& o, const SeqShape& s, const SeqForward& f, const Floats& grad_hs,
                          const Floats& grad_c_last) {
  const std::int64_t T = s.length, B = s.batch, I = s.input, H = s.hidden;
  SeqOperands d{Floats(o.x.size()), {}, {}, Floats(o.w_ih.size()), Floats(o.w_hh.size()), Floats(o.bias.size())};
  Floats dh_next(static_cast<std::size_t>(B * H), 0.0), dc = grad_c_last;
  for (std::int64_t step = T - 1; step >= 0; --step) {
    const std::int64_t t = s.reverse ? T - 1 - step : step;
    const auto ts = static_cast<std::size_t>(t);
    Floats dz(static_cast<std::size_t>(B * 4 * H)), dh_prev(static_cast<std::size_t>(B * H), 0.0);
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t k = 0; k < H; ++k) {
        const auto sk = static_cast<std::size_t>(b * H + k);
        const auto at = [&](int gate) { return static_cast<std::size_t>(b * 4 * H + gate * H + k); };
        const double i = f.act[ts][at(0)], fg = f.act[ts][at(1)], g = f.act[ts][at(2)], og = f.act[ts][at(3)];
        const double tc = std::tanh(f.c[ts][sk]);
        const double dh = grad_hs[static_cast<std::size_t>((t * B + b) * H + k)] + dh_next[sk];
        const double dct = dc[sk] + dh * og * (1 - tc * tc);
        dz[at(0)] = dct * g * i * (1 - i);
        dz[at(1)] = dct * f.c_prev[ts][sk] * fg * (1 - fg);
        dz[at(2)] = dct * i * (1 - g * g);
        dz[at(3)] = dh * tc * og * (1 - og);
        dc[sk] = dct * fg;
      }
      for (std::int64_t gate = 0; gate < 4 * H; ++gate) {
        const double z = dz[static_cast<std::size_t>(b * 4 * H + gate)];
        if (s.has_bias) d.bias[static_cast<std::size_t>(gate)] += z;
        for (std::int64_t k = 0; k < I; ++k) {
          const auto xi = static_cast<std::size_t>((t * B + b) * I + k);
          d.w_ih[static_cast<std::size_t>(gate * I + k)] += z * o.x[xi];
          d.x[xi] += z * o.w_ih[static_cast<std::size_t>(gate * I + k)];
        }
        for (std::int64_t k = 0; k < H; ++k) {
          d.w_hh[static_cast<std::size_t>(gate * H + k)] += z * f.h_prev[ts][static_cast<std::size_t>(b * H + k)];
          dh_prev[static_cast<std::size_t>(b * H + k)] += z * o.w_hh[static_cast<std::size_t>(gate * H + k)];
        }
      }
    }
    dh_next = dh_prev;
  }
  d.h0 = dh_next, d.c0 = dc;
  return d;
}

Floats concat(std::initializer_list<const Floats*> parts) {
  Floats out;
  for (const Floats* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// A reference whose every element is measured against the largest of the whole result (plus 1): errors of
// a recurrence spread across the elements.
Ref normwise(const Shape& shape, const Floats& v) {
  double largest = 1.0;
  for (double e : v) largest = std::max(largest, std::fabs(e));
  return Ref{shape, v, Floats(v.size(), largest)};
}

// Random operands (inputs in [-1, 1], weights in [-0.5, 0.5]) rounded to dt, as inputs and as float64 values.
struct SeqInputs {
  std::vector<Input> inputs;  // x, h0, c0, w_ih, w_hh[, bias]
  SeqOperands values;
};

SeqInputs sequence_inputs(const SeqShape& s, DType dt, std::mt19937_64& rng) {
  const std::int64_t H = s.hidden;
  SeqInputs in;
  in.inputs = {make_input(Shape{s.length, s.batch, s.input}, dt, View::step2, rng),
               make_input(Shape{s.batch, H}, dt, View::contiguous, rng),
               make_input(Shape{s.batch, H}, dt, View::transposed, rng),
               make_input(Shape{4 * H, s.input}, dt, View::contiguous, rng, -0.5, 0.5),
               make_input(Shape{4 * H, H}, dt, View::offset, rng, -0.5, 0.5)};
  if (s.has_bias) in.inputs.push_back(make_input(Shape{4 * H}, dt, View::contiguous, rng, -0.5, 0.5));
  Floats* targets[] = {&in.values.x, &in.values.h0, &in.values.c0, &in.values.w_ih, &in.values.w_hh, &in.values.bias};
  for (std::size_t k = 0; k < in.inputs.size(); ++k) *targets[k] = values_of(in.inputs[k].host());
  return in;
}

Tol sequence_tol(DType dt, const SeqShape& s) {
  Tol tol = accumulated_tol(dt);
  const double steps = static_cast<double>(s.length);
  return {tol.rtol * steps, tol.atol * steps};
}

Tensor bias_of(const std::vector<Tensor>& t) { return t.size() > 5 ? t[5] : Tensor(); }

Row lstm_sequence_row() {
  return {"lstm_sequence", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const SeqShape& s : sequence_shapes()) {
              SeqInputs in = sequence_inputs(s, dt, rng);
              const SeqForward f = lstm_forward(in.values, s);
              const Shape state{s.batch, s.hidden};
              cases.push_back({s.str(), in.inputs,
                               [reverse = s.reverse](const std::vector<Tensor>& t, const Device&) {
                                 const auto r = accelera::lstm_sequence(t[0], t[1], t[2], t[3], t[4], bias_of(t), reverse);
                                 return std::vector<Tensor>{r.hs, r.h_last, r.c_last};
                               },
                               {normwise(Shape{s.length, s.batch, s.hidden}, f.hs), normwise(state, f.h_last),
                                normwise(state, f.c_last)},
                               sequence_tol(dt, s)});
            }
            return cases;
          }};
}

Row lstm_sequence_backward_row() {
  return {"lstm_sequence_backward", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const SeqShape& s : sequence_shapes()) {
              SeqInputs in = sequence_inputs(s, dt, rng);
              const Shape state{s.batch, s.hidden}, steps{s.length, s.batch, s.hidden};
              Input grad_hs = make_input(steps, dt, View::negstep, rng), grad_c = make_input(state, dt, View::step2, rng);
              const Floats ghs = values_of(grad_hs.host()), gc = values_of(grad_c.host());
              const SeqOperands& o = in.values;
              const SeqForward f = lstm_forward(o, s);
              const SeqOperands d = lstm_backward(o, s, f, ghs, gc);
              // The reference's own check: the VJP of (hs, c_last) as functions of every operand.
              const auto forward_of = [&](const Floats& z) {
                SeqOperands p = o;
                std::size_t at = 0;
                for (Floats* part : {&p.x, &p.h0, &p.c0, &p.w_ih, &p.w_hh, &p.bias}) {
                  for (double& e : *part) e = z[at++];
                }
                const SeqForward r = lstm_forward(p, s);
                return concat({&r.hs, &r.c_last});
              };
              const std::string error =
                  check_vjp(forward_of, concat({&o.x, &o.h0, &o.c0, &o.w_ih, &o.w_hh, &o.bias}), concat({&ghs, &gc}),
                            concat({&d.x, &d.h0, &d.c0, &d.w_ih, &d.w_hh, &d.bias}), rng);
              EXPECT_TRUE(error.empty()) << "lstm_sequence_backward reference " << s.str() << ": " << error;
              std::vector<Input> inputs = {grad_hs, grad_c};
              inputs.insert(inputs.end(), in.inputs.begin(), in.inputs.end());
              std::vector<Ref> expected = {normwise(Shape{s.length, s.batch, s.input}, d.x), normwise(state, d.h0),
                                           normwise(state, d.c0), normwise(Shape{4 * s.hidden, s.input}, d.w_ih),
                                           normwise(Shape{4 * s.hidden, s.hidden}, d.w_hh)};
              if (s.has_bias) expected.push_back(normwise(Shape{4 * s.hidden}, d.bias));
              cases.push_back({s.str(), inputs,
                               [reverse = s.reverse](const std::vector<Tensor>& t, const Device&) {
                                 const std::vector<Tensor> operands(t.begin() + 2, t.end());
                                 const Tensor bias = bias_of(operands);
                                 const auto fwd = accelera::lstm_sequence(operands[0], operands[1], operands[2],
                                                                          operands[3], operands[4], bias, reverse);
                                 const auto g = accelera::lstm_sequence_backward(t[0], t[1], operands[0], operands[1],
                                                                                 operands[2], operands[3], operands[4],
                                                                                 bias, reverse, fwd);
                                 std::vector<Tensor> out = {g.dx, g.dh0, g.dc0, g.dw_ih, g.dw_hh};
                                 if (bias.defined()) out.push_back(g.dbias);
                                 return out;
                               },
                               expected, sequence_tol(dt, s)});
            }
            return cases;
          }};
}

// ---- GRU: PyTorch's equations, gate order r, z, n ------------------------------------------------------------

struct GruOperands {
  Floats x, h0, w_ih, w_hh, b_ih, b_hh;  // the biases empty when absent
};

struct GruForward {
  Floats hs, h_last;
  std::vector<Floats> r, z, n, hn, h_prev;  // per step: gates (B, H) and W_hn h + b_hn
};

GruForward gru_forward(const GruOperands& o, const SeqShape& s) {
  const std::int64_t T = s.length, B = s.batch, I = s.input, H = s.hidden;
  GruForward f;
  f.hs.assign(static_cast<std::size_t>(T * B * H), 0.0);
  f.r.resize(static_cast<std::size_t>(T));
  f.z = f.n = f.hn = f.h_prev = f.r;
  Floats h = o.h0;
  const auto bias = [&](const Floats& b, std::int64_t k) { return b.empty() ? 0.0 : b[static_cast<std::size_t>(k)]; };
  for (std::int64_t step = 0; step < T; ++step) {
    const std::int64_t t = s.reverse ? T - 1 - step : step;
    const auto ts = static_cast<std::size_t>(t);
    Floats r(static_cast<std::size_t>(B * H)), z = r, n = r, hn = r, h_next = r;
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t k = 0; k < H; ++k) {
        double xi[3], hh[3];
        for (int g = 0; g < 3; ++g) {
          const std::int64_t row = g * H + k;
          xi[g] = bias(o.b_ih, row), hh[g] = bias(o.b_hh, row);
          for (std::int64_t j = 0; j < I; ++j) {
            xi[g] += o.w_ih[static_cast<std::size_t>(row * I + j)] * o.x[static_cast<std::size_t>((t * B + b) * I + j)];
          }
          for (std::int64_t j = 0; j < H; ++j) {
            hh[g] += o.w_hh[static_cast<std::size_t>(row * H + j)] * h[static_cast<std::size_t>(b * H + j)];
          }
        }
        const auto sk = static_cast<std::size_t>(b * H + k);
        r[sk] = sigmoid(xi[0] + hh[0]), z[sk] = sigmoid(xi[1] + hh[1]), hn[sk] = hh[2];
        n[sk] = std::tanh(xi[2] + r[sk] * hh[2]);
        h_next[sk] = (1 - z[sk]) * n[sk] + z[sk] * h[sk];
        f.hs[static_cast<std::size_t>((t * B + b) * H + k)] = h_next[sk];
      }
    }
    f.r[ts] = r, f.z[ts] = z, f.n[ts] = n, f.hn[ts] = hn, f.h_prev[ts] = h;
    h = h_next;
  }
  f.h_last = h;
  return f;
}

double hp_at(const GruForward& f, std::size_t step, std::int64_t b, std::int64_t j, std::int64_t hidden) {
  return f.h_prev[step][static_cast<std::size_t>(b * hidden + j)];
}

GruOperands gru_backward(const GruOperands& o, const SeqShape& s, const GruForward& f, const Floats& grad_hs) {
  const std::int64_t T = s.length, B = s.batch, I = s.input, H = s.hidden;
  GruOperands d{Floats(o.x.size()), {}, Floats(o.w_ih.size()), Floats(o.w_hh.size()), Floats(o.b_ih.size()),
                Floats(o.b_hh.size())};
  Floats dh_next(static_cast<std::size_t>(B * H), 0.0);
  for (std::int64_t step = T - 1; step >= 0; --step) {
    const std::int64_t t = s.reverse ? T - 1 - step : step;
    const auto ts = static_cast<std::size_t>(t);
    Floats dh_prev(static_cast<std::size_t>(B * H), 0.0);
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t k = 0; k < H; ++k) {
        const auto sk = static_cast<std::size_t>(b * H + k);
        const double r = f.r[ts][sk], z = f.z[ts][sk], n = f.n[ts][sk], hp = f.h_prev[ts][sk];
        const double dh = grad_hs[static_cast<std::size_t>((t * B + b) * H + k)] + dh_next[sk];
        const double dn = dh * (1 - z) * (1 - n * n);
        const double dz = dh * (hp - n) * z * (1 - z);
        const double dr = dn * f.hn[ts][sk] * r * (1 - r);
        const double gx[3] = {dr, dz, dn}, gh[3] = {dr, dz, dn * r};
        dh_prev[sk] += dh * z;
        for (int g = 0; g < 3; ++g) {
          const std::int64_t row = g * H + k;
          if (!d.b_ih.empty()) d.b_ih[static_cast<std::size_t>(row)] += gx[g];
          if (!d.b_hh.empty()) d.b_hh[static_cast<std::size_t>(row)] += gh[g];
          for (std::int64_t j = 0; j < I; ++j) {
            const auto xi = static_cast<std::size_t>((t * B + b) * I + j);
            d.w_ih[static_cast<std::size_t>(row * I + j)] += gx[g] * o.x[xi];
            d.x[xi] += gx[g] * o.w_ih[static_cast<std::size_t>(row * I + j)];
          }
          for (std::int64_t j = 0; j < H; ++j) {
            d.w_hh[static_cast<std::size_t>(row * H + j)] += gh[g] * hp_at(f, ts, b, j, H);
            dh_prev[static_cast<std::size_t>(b * H + j)] += gh[g] * o.w_hh[static_cast<std::size_t>(row * H + j)];
          }
        }
      }
    }
    dh_next = dh_prev;
  }
  d.h0 = dh_next;
  return d;
}

struct GruInputs {
  std::vector<Input> inputs;  // x, h0, w_ih, w_hh[, b_ih, b_hh]
  GruOperands values;
};

GruInputs gru_inputs(const SeqShape& s, DType dt, std::mt19937_64& rng) {
  const std::int64_t H = s.hidden;
  GruInputs in;
  in.inputs = {make_input(Shape{s.length, s.batch, s.input}, dt, View::negstep, rng),
               make_input(Shape{s.batch, H}, dt, View::step2, rng),
               make_input(Shape{3 * H, s.input}, dt, View::transposed, rng, -0.5, 0.5),
               make_input(Shape{3 * H, H}, dt, View::contiguous, rng, -0.5, 0.5)};
  if (s.has_bias) {
    in.inputs.push_back(make_input(Shape{3 * H}, dt, View::contiguous, rng, -0.5, 0.5));
    in.inputs.push_back(make_input(Shape{3 * H}, dt, View::step2, rng, -0.5, 0.5));
  }
  Floats* targets[] = {&in.values.x, &in.values.h0, &in.values.w_ih, &in.values.w_hh, &in.values.b_ih, &in.values.b_hh};
  for (std::size_t k = 0; k < in.inputs.size(); ++k) *targets[k] = values_of(in.inputs[k].host());
  return in;
}

Tensor operand_or_none(const std::vector<Tensor>& t, std::size_t k) { return t.size() > k ? t[k] : Tensor(); }

Row gru_sequence_row() {
  return {"gru_sequence", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const SeqShape& s : sequence_shapes()) {
              GruInputs in = gru_inputs(s, dt, rng);
              const GruForward f = gru_forward(in.values, s);
              cases.push_back({s.str(), in.inputs,
                               [reverse = s.reverse](const std::vector<Tensor>& t, const Device&) {
                                 const auto r = accelera::gru_sequence(t[0], t[1], t[2], t[3], operand_or_none(t, 4),
                                                                       operand_or_none(t, 5), reverse);
                                 return std::vector<Tensor>{r.hs, r.h_last};
                               },
                               {normwise(Shape{s.length, s.batch, s.hidden}, f.hs),
                                normwise(Shape{s.batch, s.hidden}, f.h_last)},
                               sequence_tol(dt, s)});
            }
            return cases;
          }};
}

Row gru_sequence_backward_row() {
  return {"gru_sequence_backward", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const SeqShape& s : sequence_shapes()) {
              GruInputs in = gru_inputs(s, dt, rng);
              const Shape steps{s.length, s.batch, s.hidden};
              Input grad_hs = make_input(steps, dt, View::offset, rng);
              const Floats ghs = values_of(grad_hs.host());
              const GruOperands& o = in.values;
              const GruOperands d = gru_backward(o, s, gru_forward(o, s), ghs);
              const auto forward_of = [&](const Floats& z) {
                GruOperands p = o;
                std::size_t at = 0;
                for (Floats* part : {&p.x, &p.h0, &p.w_ih, &p.w_hh, &p.b_ih, &p.b_hh}) {
                  for (double& e : *part) e = z[at++];
                }
                return gru_forward(p, s).hs;
              };
              const std::string error =
                  check_vjp(forward_of, concat({&o.x, &o.h0, &o.w_ih, &o.w_hh, &o.b_ih, &o.b_hh}), ghs,
                            concat({&d.x, &d.h0, &d.w_ih, &d.w_hh, &d.b_ih, &d.b_hh}), rng);
              EXPECT_TRUE(error.empty()) << "gru_sequence_backward reference " << s.str() << ": " << error;
              std::vector<Input> inputs = {grad_hs};
              inputs.insert(inputs.end(), in.inputs.begin(), in.inputs.end());
              std::vector<Ref> expected = {normwise(Shape{s.length, s.batch, s.input}, d.x),
                                           normwise(Shape{s.batch, s.hidden}, d.h0),
                                           normwise(Shape{3 * s.hidden, s.input}, d.w_ih),
                                           normwise(Shape{3 * s.hidden, s.hidden}, d.w_hh)};
              if (s.has_bias) {
                expected.push_back(normwise(Shape{3 * s.hidden}, d.b_ih));
                expected.push_back(normwise(Shape{3 * s.hidden}, d.b_hh));
              }
              cases.push_back({s.str(), inputs,
                               [reverse = s.reverse](const std::vector<Tensor>& t, const Device&) {
                                 const std::vector<Tensor> op(t.begin() + 1, t.end());
                                 const Tensor b_ih = operand_or_none(op, 4), b_hh = operand_or_none(op, 5);
                                 const auto fwd = accelera::gru_sequence(op[0], op[1], op[2], op[3], b_ih, b_hh, reverse);
                                 const auto g = accelera::gru_sequence_backward(t[0], op[0], op[1], op[2], op[3], b_ih,
                                                                                b_hh, reverse, fwd);
                                 std::vector<Tensor> out = {g.dx, g.dh0, g.dw_ih, g.dw_hh};
                                 if (b_ih.defined()) out.insert(out.end(), {g.db_ih, g.db_hh});
                                 return out;
                               },
                               expected, sequence_tol(dt, s)});
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> lstm_sequence_rows() {
  return {lstm_sequence_row(), lstm_sequence_backward_row(), gru_sequence_row(), gru_sequence_backward_row()};
}

}  // namespace acc_test::op_table
