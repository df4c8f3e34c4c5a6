// Rows of the op test table for the fused GRU cell (Note [Fused GRU cell] in ops/recurrent_cell.hpp): plain
// float64 references, the backward's checked as the vector-Jacobian product of the forward's.
#include <cmath>

#include "accelera/nn_ops.hpp"
#include "op_table_cells.hpp"

namespace acc_test::op_table {

namespace {

using namespace cells;

struct GruRef {
  Floats h, act, h_mag;
};

// Position of gate `gate` (0: r, 1: z, 2: n) of unit k in row b of a (batch, 3 hidden) matrix.
std::size_t gate_at(std::int64_t b, std::int64_t k, int gate, std::int64_t hidden) {
  return static_cast<std::size_t>(b * 3 * hidden + gate * hidden + k);
}

GruRef gru_forward(const Floats& xg, const Floats& hg, const Floats& h_prev, std::int64_t batch, std::int64_t hidden) {
  GruRef r;
  r.act.resize(xg.size());
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t k = 0; k < hidden; ++k) {
      const auto at = [&](int gate) { return gate_at(b, k, gate, hidden); };
      const double rr = sigmoid(xg[at(0)] + hg[at(0)]), z = sigmoid(xg[at(1)] + hg[at(1)]);
      const double n = std::tanh(xg[at(2)] + rr * hg[at(2)]);
      r.act[at(0)] = rr, r.act[at(1)] = z, r.act[at(2)] = n;
      const double hp = h_prev[static_cast<std::size_t>(b * hidden + k)];
      r.h.push_back(n + z * (hp - n));
      r.h_mag.push_back(1.0 + std::fabs(hp));
    }
  }
  return r;
}

Row gru_cell_row() {
  return {"gru_cell", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const auto& [batch, hidden] : cell_shapes()) {
              Input xg = make_input(Shape{batch, 3 * hidden}, dt, View::contiguous, rng, -3.0, 3.0);
              Input hg = make_input(Shape{batch, 3 * hidden}, dt, View::transposed, rng, -3.0, 3.0);
              Input hp = make_input(Shape{batch, hidden}, dt, View::step2, rng, -1.0, 1.0);
              const GruRef r = gru_forward(values_of(xg.host()), values_of(hg.host()), values_of(hp.host()), batch, hidden);
              cases.push_back({Shape{batch, hidden}.str(), {xg, hg, hp},
                               [](const std::vector<Tensor>& t, const Device&) {
                                 const auto out = accelera::gru_cell(t[0], t[1], t[2]);
                                 return std::vector<Tensor>{out.h, out.act};
                               },
                               {Ref{Shape{batch, hidden}, r.h, r.h_mag},
                                Ref{Shape{batch, 3 * hidden}, r.act, Floats(r.act.size(), 1.0)}},
                               accumulated_tol(dt)});
            }
            return cases;
          }};
}

// The gradients (d_input, d_hidden, dh_prev) from act, the hidden gates' n third and h_prev.
struct GruGrads {
  Floats d_input, d_hidden, dh_prev;
};

GruGrads gru_backward(const Floats& grad_h, const Floats& act, const Floats& hg, const Floats& h_prev, std::int64_t batch,
                      std::int64_t hidden) {
  GruGrads g{Floats(act.size()), Floats(act.size()), Floats(h_prev.size())};
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t k = 0; k < hidden; ++k) {
      const auto s = static_cast<std::size_t>(b * hidden + k);
      const auto at = [&](int gate) { return gate_at(b, k, gate, hidden); };
      const double r = act[at(0)], z = act[at(1)], n = act[at(2)], dh = grad_h[s];
      const double dn = dh * (1 - z) * (1 - n * n);
      const double dr = dn * hg[at(2)] * r * (1 - r);
      const double dz = dh * (h_prev[s] - n) * z * (1 - z);
      g.d_input[at(0)] = g.d_hidden[at(0)] = dr;
      g.d_input[at(1)] = g.d_hidden[at(1)] = dz;
      g.d_input[at(2)] = dn;
      g.d_hidden[at(2)] = dn * r;
      g.dh_prev[s] = dh * z;
    }
  }
  return g;
}

Row gru_cell_backward_row() {
  return {"gru_cell_backward", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const auto& [batch, hidden] : cell_shapes()) {
              const Shape state{batch, hidden}, gates{batch, 3 * hidden};
              // The forward runs in float64 here; act goes in rounded to dt, as the op would get it.
              Floats xg(static_cast<std::size_t>(batch * 3 * hidden)), hg(xg.size()), hp(static_cast<std::size_t>(batch * hidden));
              for (auto& v : xg) v = std::uniform_real_distribution<double>(-3.0, 3.0)(rng);
              for (auto& v : hg) v = std::uniform_real_distribution<double>(-3.0, 3.0)(rng);
              for (auto& v : hp) v = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
              const GruRef fwd = gru_forward(xg, hg, hp, batch, hidden);
              Input act{from_values(fwd.act, gates, dt)}, hidden_gates{from_values(hg, gates, dt)};
              Input h_prev{from_values(hp, state, dt)};
              Input grad_h = make_input(state, dt, View::negstep, rng);
              const Floats gh = values_of(grad_h.host());
              // The reference from the inputs as rounded to dt.
              const GruGrads want = gru_backward(gh, values_of(act.host()), values_of(hidden_gates.host()),
                                                 values_of(h_prev.host()), batch, hidden);
              Floats gate_mag(want.d_input.size()), state_mag(want.dh_prev.size());
              for (std::int64_t b = 0; b < batch; ++b) {
                for (std::int64_t k = 0; k < hidden; ++k) {
                  const auto s = static_cast<std::size_t>(b * hidden + k);
                  state_mag[s] = std::fabs(gh[s]) + 1e-300;
                  for (int gate = 0; gate < 3; ++gate) {
                    gate_mag[gate_at(b, k, gate, hidden)] = state_mag[s] * (2 + std::fabs(hp[s]) + std::fabs(hg[gate_at(b, k, 2, hidden)]));
                  }
                }
              }
              // The float64 formulas are the VJP of the forward, as a function of (xg, hg, h_prev) to h, at the
              // unrounded point.
              if (batch > 0) {
                const GruGrads exact = gru_backward(gh, fwd.act, hg, hp, batch, hidden);
                Floats in = xg, dx = exact.d_input;
                in.insert(in.end(), hg.begin(), hg.end());
                in.insert(in.end(), hp.begin(), hp.end());
                dx.insert(dx.end(), exact.d_hidden.begin(), exact.d_hidden.end());
                dx.insert(dx.end(), exact.dh_prev.begin(), exact.dh_prev.end());
                const auto outputs = [&](const Floats& z) {
                  const auto g = static_cast<std::ptrdiff_t>(xg.size());
                  return gru_forward(Floats(z.begin(), z.begin() + g), Floats(z.begin() + g, z.begin() + 2 * g),
                                     Floats(z.begin() + 2 * g, z.end()), batch, hidden)
                      .h;
                };
                const std::string error = check_vjp(outputs, in, gh, dx, rng);
                EXPECT_TRUE(error.empty()) << "gru_cell_backward reference " << state.str() << ": " << error;
              }
              cases.push_back({state.str(), {grad_h, act, hidden_gates, h_prev},
                               [](const std::vector<Tensor>& t, const Device&) {
                                 const auto r = accelera::gru_cell_backward(t[0], t[1], t[2], t[3]);
                                 return std::vector<Tensor>{r.d_input_gates, r.d_hidden_gates, r.dh_prev};
                               },
                               {Ref{gates, want.d_input, gate_mag}, Ref{gates, want.d_hidden, gate_mag},
                                Ref{state, want.dh_prev, state_mag}},
                               accumulated_tol(dt)});
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> gru_rows() { return {gru_cell_row(), gru_cell_backward_row()}; }

}  // namespace acc_test::op_table
