// Rows of the op test table for the fused LSTM cell (Note [Fused LSTM cell] in ops/recurrent_cell.hpp):
// plain float64 references, the backward's checked as the vector-Jacobian product of the forward's.
#include <algorithm>
#include <cmath>

#include "accelera/nn_ops.hpp"
#include "accelera/op_table.hpp"
#include "op_table_cells.hpp"

namespace acc_test::op_table {

namespace {

using namespace cells;

struct CellRef {
  Floats h, c, act, h_mag, c_mag;
};

CellRef cell_forward(const Floats& gates, const Floats& c_prev, std::int64_t batch, std::int64_t hidden) {
  CellRef r;
  r.act.resize(gates.size());
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t k = 0; k < hidden; ++k) {
      const auto at = [&](int gate) { return static_cast<std::size_t>(b * 4 * hidden + gate * hidden + k); };
      const double i = sigmoid(gates[at(0)]), f = sigmoid(gates[at(1)]), g = std::tanh(gates[at(2)]),
                   o = sigmoid(gates[at(3)]);
      r.act[at(0)] = i, r.act[at(1)] = f, r.act[at(2)] = g, r.act[at(3)] = o;
      const double cp = c_prev[static_cast<std::size_t>(b * hidden + k)];
      const double c = f * cp + i * g;
      r.c.push_back(c);
      r.c_mag.push_back(std::fabs(f * cp) + std::fabs(i * g) + 1.0);
      r.h.push_back(o * std::tanh(c));
      r.h_mag.push_back(1.0);
    }
  }
  return r;
}

// The forward as one function of (gates, c_prev) flattened, returning (h, c) flattened: what the backward
// differentiates.
Floats cell_outputs(const Floats& in, std::int64_t batch, std::int64_t hidden) {
  const auto split = static_cast<std::ptrdiff_t>(batch * 4 * hidden);
  const CellRef r = cell_forward(Floats(in.begin(), in.begin() + split), Floats(in.begin() + split, in.end()), batch,
                                 hidden);
  Floats out = r.h;
  out.insert(out.end(), r.c.begin(), r.c.end());
  return out;
}

Row lstm_cell_row() {
  return {"lstm_cell", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const auto& [batch, hidden] : cell_shapes()) {
              Input gates = make_input(Shape{batch, 4 * hidden}, dt, View::contiguous, rng, -4.0, 4.0);
              Input c_prev = make_input(Shape{batch, hidden}, dt, View::step2, rng, -2.0, 2.0);
              const CellRef r = cell_forward(values_of(gates.host()), values_of(c_prev.host()), batch, hidden);
              cases.push_back({Shape{batch, hidden}.str(), {gates, c_prev},
                               [](const std::vector<Tensor>& t, const Device&) {
                                 const auto out = accelera::lstm_cell(t[0], t[1]);
                                 return std::vector<Tensor>{out.h, out.c, out.act};
                               },
                               {Ref{Shape{batch, hidden}, r.h, r.h_mag}, Ref{Shape{batch, hidden}, r.c, r.c_mag},
                                Ref{Shape{batch, 4 * hidden}, r.act, Floats(r.act.size(), 1.0)}},
                               accumulated_tol(dt)});
            }
            return cases;
          }};
}

Row lstm_cell_backward_row() {
  return {"lstm_cell_backward", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const auto& [batch, hidden] : cell_shapes()) {
              const Shape state{batch, hidden};
              // The forward runs in float64 here; its act and c go in rounded to dt, as the op would get them.
              Floats gates(static_cast<std::size_t>(batch * 4 * hidden)), c_prev(static_cast<std::size_t>(batch * hidden));
              for (auto& v : gates) v = std::uniform_real_distribution<double>(-4.0, 4.0)(rng);
              for (auto& v : c_prev) v = std::uniform_real_distribution<double>(-2.0, 2.0)(rng);
              const CellRef fwd = cell_forward(gates, c_prev, batch, hidden);
              const auto host = [&](const Floats& v, const Shape& s) { return Input{from_values(v, s, dt)}; };
              Input act = host(fwd.act, Shape{batch, 4 * hidden}), cp = host(c_prev, state), c = host(fwd.c, state);
              Input grad_h = make_input(state, dt, View::negstep, rng), dc = make_input(state, dt, View::offset, rng);
              // The reference from the inputs as rounded to dt.
              const Floats a = values_of(act.host()), cpv = values_of(cp.host()), cv = values_of(c.host()),
                           gh = values_of(grad_h.host()), gc = values_of(dc.host());
              Ref d_gates{Shape{batch, 4 * hidden}, {}, {}}, dc_prev{state, {}, {}};
              d_gates.v.assign(a.size(), 0.0);
              d_gates.mag.assign(a.size(), 0.0);
              for (std::int64_t b = 0; b < batch; ++b) {
                for (std::int64_t k = 0; k < hidden; ++k) {
                  const auto s = static_cast<std::size_t>(b * hidden + k);
                  const auto at = [&](int gate) { return static_cast<std::size_t>(b * 4 * hidden + gate * hidden + k); };
                  const double i = a[at(0)], f = a[at(1)], g = a[at(2)], o = a[at(3)], tc = std::tanh(cv[s]);
                  const double dct = gc[s] + gh[s] * o * (1 - tc * tc);
                  const double mag = std::fabs(gc[s]) + std::fabs(gh[s]) + 1e-300;
                  d_gates.v[at(0)] = dct * g * i * (1 - i);
                  d_gates.v[at(1)] = dct * cpv[s] * f * (1 - f);
                  d_gates.v[at(2)] = dct * i * (1 - g * g);
                  d_gates.v[at(3)] = gh[s] * tc * o * (1 - o);
                  for (int gate = 0; gate < 4; ++gate) d_gates.mag[at(gate)] = mag * (1 + std::fabs(cpv[s]));
                  dc_prev.v.push_back(dct * f);
                  dc_prev.mag.push_back(mag);
                }
              }
              // The float64 reference is the VJP of the forward at the unrounded point.
              if (batch > 0) {
                Floats in = gates, grad = values_of(grad_h.host()), dx;
                in.insert(in.end(), c_prev.begin(), c_prev.end());
                grad.insert(grad.end(), gc.begin(), gc.end());
                const CellRef exact = cell_forward(gates, c_prev, batch, hidden);
                Floats dg(gates.size()), dcp(c_prev.size());
                for (std::int64_t b = 0; b < batch; ++b) {
                  for (std::int64_t k = 0; k < hidden; ++k) {
                    const auto s = static_cast<std::size_t>(b * hidden + k);
                    const auto at = [&](int gate) { return static_cast<std::size_t>(b * 4 * hidden + gate * hidden + k); };
                    const double i = exact.act[at(0)], f = exact.act[at(1)], g = exact.act[at(2)], o = exact.act[at(3)];
                    const double tc = std::tanh(exact.c[s]), dct = gc[s] + gh[s] * o * (1 - tc * tc);
                    dg[at(0)] = dct * g * i * (1 - i);
                    dg[at(1)] = dct * c_prev[s] * f * (1 - f);
                    dg[at(2)] = dct * i * (1 - g * g);
                    dg[at(3)] = gh[s] * tc * o * (1 - o);
                    dcp[s] = dct * f;
                  }
                }
                dx = dg;
                dx.insert(dx.end(), dcp.begin(), dcp.end());
                const std::string error =
                    check_vjp([&](const Floats& z) { return cell_outputs(z, batch, hidden); }, in, grad, dx, rng);
                EXPECT_TRUE(error.empty()) << "lstm_cell_backward reference " << state.str() << ": " << error;
              }
              cases.push_back({state.str(), {grad_h, dc, act, cp, c},
                               [](const std::vector<Tensor>& t, const Device&) {
                                 const auto r = accelera::lstm_cell_backward(t[0], t[1], t[2], t[3], t[4]);
                                 return std::vector<Tensor>{r.d_gates, r.dc_prev};
                               },
                               {d_gates, dc_prev}, accumulated_tol(dt)});
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> lstm_sequence_rows();  // op_table_lstm_sequence_rows.cpp

std::vector<Row> lstm_rows() {
  std::vector<Row> out = {lstm_cell_row(), lstm_cell_backward_row()};
  // The sequence kernels exist in builds with oneDNN only.
  const auto table = accelera::op_table();
  if (std::ranges::any_of(table, [](const auto& entry) { return entry.op == "lstm_sequence"; })) {
    for (auto& row : lstm_sequence_rows()) out.push_back(std::move(row));
  }
  return out;
}

}  // namespace acc_test::op_table
