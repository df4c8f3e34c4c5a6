// Rows of the op test table for softmax, log-softmax and attention, forward and backward (Note [Op test
// table] in op_table.hpp).
#include <cmath>

#include "accelera/nn_ops.hpp"
#include "attention_ref.hpp"
#include "op_table.hpp"

namespace acc_test::op_table {

namespace {

using Floats = std::vector<double>;

// Softmax (or log-softmax) of every line of x along the last axis; x holds rows of n.
Floats softmax_ref(const Floats& x, std::int64_t n, bool log) {
  Floats y(x.size());
  for (std::size_t r = 0; r < x.size() / static_cast<std::size_t>(n); ++r) {
    const double* xr = &x[r * static_cast<std::size_t>(n)];
    double m = -kInf, s = 0;
    for (std::int64_t k = 0; k < n; ++k) m = std::max(m, xr[k]);
    for (std::int64_t k = 0; k < n; ++k) s += std::exp(xr[k] - m);
    for (std::int64_t k = 0; k < n; ++k) {
      y[r * static_cast<std::size_t>(n) + static_cast<std::size_t>(k)] =
          log ? xr[k] - m - std::log(s) : std::exp(xr[k] - m) / s;
    }
  }
  return y;
}

// Shapes with the reduced axis last (the ops move any other axis last with one copy, tested by the
// NnOps suite).
const std::vector<Shape>& softmax_shapes() {
  static const std::vector<Shape> shapes = {Shape{1}, Shape{7, 13}, Shape{3, 1, 127}, Shape{0, 4}, Shape{2, 4097}};
  return shapes;
}

std::int64_t last_extent(const Shape& s) { return s.ndim() == 0 ? 1 : s[s.ndim() - 1]; }

Row softmax_row(bool log) {
  return {log ? "log_softmax" : "softmax", [log](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : softmax_shapes()) {
              for (View v : {View::contiguous, View::step2, View::offset}) {
                Input x = make_input(shape, dt, v, rng, -30.0, 30.0);
                const std::int64_t n = last_extent(shape);
                const Floats y = softmax_ref(values_of(x.host()), n, log);
                Ref ref{shape, y, {}};
                for (double e : y) ref.mag.push_back(log ? std::fabs(e) + 30.0 : std::fabs(e) + 1e-3);
                cases.push_back({shape.str() + " " + view_name(v), {x},
                                 [log](const std::vector<Tensor>& t, const Device&) {
                                   return std::vector<Tensor>{log ? accelera::log_softmax(t[0]) : accelera::softmax(t[0])};
                                 },
                                 {ref}, accumulated_tol(dt)});
              }
            }
            return cases;
          }};
}

Row softmax_backward_row(bool log) {
  return {log ? "log_softmax_backward" : "softmax_backward", [log](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : softmax_shapes()) {
              const std::int64_t n = last_extent(shape);
              Input g = contiguous_input(shape, dt, rng);
              const Floats xv = values_of(random_tensor(shape, DType::f64, rng, -5.0, 5.0));
              // y is the forward's result, rounded to dt as a device would hold it.
              Input y = contiguous_input(shape, dt, rng);
              {
                const Floats yv = softmax_ref(xv, n, log);
                std::int64_t i = 0;
                for_each_index(shape, [&](const Index& idx, std::int64_t) { set(y.base, idx, yv[static_cast<std::size_t>(i++)]); });
              }
              const Floats gv = values_of(g.host()), yv = values_of(y.host());
              Ref ref{shape, Floats(gv.size()), Floats(gv.size())};
              for (std::size_t r = 0; r < gv.size() / static_cast<std::size_t>(n); ++r) {
                double acc = 0, scale = 0;
                for (std::int64_t k = 0; k < n; ++k) {
                  const std::size_t i = r * static_cast<std::size_t>(n) + static_cast<std::size_t>(k);
                  acc += log ? gv[i] : gv[i] * yv[i];
                  scale += std::fabs(gv[i]);
                }
                for (std::int64_t k = 0; k < n; ++k) {
                  const std::size_t i = r * static_cast<std::size_t>(n) + static_cast<std::size_t>(k);
                  ref.v[i] = log ? gv[i] - std::exp(yv[i]) * acc : yv[i] * (gv[i] - acc);
                  ref.mag[i] = std::fabs(gv[i]) + scale * (log ? std::exp(yv[i]) : std::fabs(yv[i])) + 1e-3;
                }
              }
              // The formula in y is the gradient of the forward in x: checked at the float64 x behind y.
              Floats dx_at_x(gv.size());
              {
                const Floats y64 = softmax_ref(xv, n, log);
                for (std::size_t r = 0; r < gv.size() / static_cast<std::size_t>(n); ++r) {
                  double acc = 0;
                  for (std::int64_t k = 0; k < n; ++k) {
                    const std::size_t i = r * static_cast<std::size_t>(n) + static_cast<std::size_t>(k);
                    acc += log ? gv[i] : gv[i] * y64[i];
                  }
                  for (std::int64_t k = 0; k < n; ++k) {
                    const std::size_t i = r * static_cast<std::size_t>(n) + static_cast<std::size_t>(k);
                    dx_at_x[i] = log ? gv[i] - std::exp(y64[i]) * acc : y64[i] * (gv[i] - acc);
                  }
                }
              }
              if (!xv.empty()) {
                const std::string error =
                    check_vjp([&](const Floats& in) { return softmax_ref(in, n, log); }, xv, gv, dx_at_x, rng);
                EXPECT_TRUE(error.empty()) << (log ? "log_softmax" : "softmax") << "_backward reference: " << error;
              }
              cases.push_back({shape.str(), {g, y},
                               [log](const std::vector<Tensor>& t, const Device&) {
                                 return std::vector<Tensor>{log ? accelera::log_softmax_backward(t[0], t[1])
                                                                : accelera::softmax_backward(t[0], t[1])};
                               },
                               {ref}, accumulated_tol(dt)});
            }
            return cases;
          }};
}

// ---- attention --------------------------------------------------------------------------------------

struct AttentionDims {
  std::int64_t batch, heads, lq, lk, d;
};
// Small problems that still reach the tiles' edges: a single query, more queries than keys (causal ones
// see nothing), head dims of 1, 13 and the tensor-core sizes 16 and 64.
constexpr AttentionDims kAttentionDims[] = {
    {1, 1, 1, 1, 1}, {1, 2, 7, 5, 13}, {2, 1, 33, 65, 16}, {1, 1, 9, 4, 8}, {1, 2, 20, 20, 64}};

Shape qshape(const AttentionDims& d) { return Shape{d.batch, d.heads, d.lq, d.d}; }
Shape kshape(const AttentionDims& d) { return Shape{d.batch, d.heads, d.lk, d.d}; }

Row attention_row() {
  return {"attention", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const AttentionDims& d : kAttentionDims) {
              for (bool causal : {false, true}) {
                Input q = make_input(qshape(d), dt, View::step2, rng);
                Input k = contiguous_input(kshape(d), dt, rng);
                Input v = contiguous_input(kshape(d), dt, rng);
                const double scale = 1.0 / std::sqrt(static_cast<double>(d.d));
                const AttentionRef r = attention_ref(values_of(q.host()), values_of(k.host()), values_of(v.host()), {},
                                                     d.batch * d.heads, d.lq, d.lk, d.d, scale, causal);
                Ref out{qshape(d), r.out, Floats(r.out.size(), 1.0)};
                Ref lse{Shape{d.batch, d.heads, d.lq}, r.lse, {}};
                for (double l : r.lse) lse.mag.push_back(std::isinf(l) ? 0.0 : std::fabs(l) + 1.0);
                cases.push_back({qshape(d).str() + " keys " + std::to_string(d.lk) + (causal ? " causal" : ""),
                                 {q, k, v},
                                 [causal](const std::vector<Tensor>& t, const Device&) {
                                   const auto res = accelera::attention(t[0], t[1], t[2], std::nullopt, causal);
                                   return std::vector<Tensor>{res.out, res.lse};
                                 },
                                 {out, lse}, accumulated_tol(dt)});
              }
            }
            return cases;
          }};
}

Row attention_backward_row() {
  return {"attention_backward", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const AttentionDims& d : kAttentionDims) {
              for (bool causal : {false, true}) {
                Input g = contiguous_input(qshape(d), dt, rng);
                Input q = contiguous_input(qshape(d), dt, rng);
                Input k = make_input(kshape(d), dt, View::offset, rng);
                Input v = contiguous_input(kshape(d), dt, rng);
                const double scale = 1.0 / std::sqrt(static_cast<double>(d.d));
                const Floats qv = values_of(q.host()), kv = values_of(k.host()), vv = values_of(v.host()),
                             gv = values_of(g.host());
                const std::int64_t bh = d.batch * d.heads;
                const AttentionRef r = attention_ref(qv, kv, vv, gv, bh, d.lq, d.lk, d.d, scale, causal);
                std::string error = check_vjp(
                    [&](const Floats& in) { return attention_ref(in, kv, vv, {}, bh, d.lq, d.lk, d.d, scale, causal).out; },
                    qv, gv, r.dq, rng);
                if (error.empty()) {
                  error = check_vjp(
                      [&](const Floats& in) { return attention_ref(qv, kv, in, {}, bh, d.lq, d.lk, d.d, scale, causal).out; },
                      vv, gv, r.dv, rng);
                }
                EXPECT_TRUE(error.empty()) << "attention_backward reference: " << error;
                const auto magnitude = [](const Floats& x) { return Floats(x.size(), 1.0); };
                cases.push_back({qshape(d).str() + " keys " + std::to_string(d.lk) + (causal ? " causal" : ""),
                                 {g, q, k, v},
                                 [causal](const std::vector<Tensor>& t, const Device&) {
                                   const auto fwd = accelera::attention(t[1], t[2], t[3], std::nullopt, causal);
                                   const auto res = accelera::attention_backward(t[0], t[1], t[2], t[3], fwd.out, fwd.lse,
                                                                                 std::nullopt, causal);
                                   return std::vector<Tensor>{res.dq, res.dk, res.dv};
                                 },
                                 {Ref{qshape(d), r.dq, magnitude(r.dq)}, Ref{kshape(d), r.dk, magnitude(r.dk)},
                                  Ref{kshape(d), r.dv, magnitude(r.dv)}},
                                 accumulated_tol(dt)});
              }
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> softmax_rows() {
  return {softmax_row(false), softmax_row(true), softmax_backward_row(false), softmax_backward_row(true)};
}

std::vector<Row> attention_rows() { return {attention_row(), attention_backward_row()}; }

}  // namespace acc_test::op_table
