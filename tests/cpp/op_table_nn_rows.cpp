// Rows of the op test table for the fused neural-network ops and their backward passes (Note [Op test
// table] in op_table.hpp). References are plain float64 loops; every backward reference is checked
// against finite differences of its forward.
#include <cmath>

#include "accelera/nn_ops.hpp"
#include "attention_ref.hpp"
#include "nn_helpers.hpp"
#include "op_table.hpp"

namespace acc_test::op_table {

namespace {

using accelera::GeluApproximation;
using Floats = std::vector<double>;

constexpr View kNnViews[] = {View::contiguous, View::step2, View::negstep, View::offset};

std::string label(const Shape& s, View v, const std::string& extra = "") {
  return s.str() + " " + view_name(v) + (extra.empty() ? "" : " " + extra);
}

std::int64_t last_extent(const Shape& s) { return s.ndim() == 0 ? 1 : s[s.ndim() - 1]; }

// Records a failed gradient check of a reference as a test failure (the reference itself is wrong).
void expect_vjp(const std::function<Floats(const Floats&)>& f, const Floats& x, const Floats& grad, const Floats& dx,
                std::mt19937_64& rng, const std::string& what) {
  if (x.empty()) return;
  const std::string error = check_vjp(f, x, grad, dx, rng);
  EXPECT_TRUE(error.empty()) << what << ": " << error;
}

// ---- gelu -------------------------------------------------------------------------------------------

Row gelu_row() {
  return {"gelu", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (bool tanh_form : {false, true}) {
              for (bool with_bias : {false, true}) {
                for (const Shape& shape : row_shapes()) {
                  for (View v : kNnViews) {
                    Input x = make_input(shape, dt, v, rng, -8.0, 8.0);
                    Input b = contiguous_input(Shape{last_extent(shape)}, dt, rng);
                    const Tensor hx = x.host(), hb = b.host();
                    Ref ref{shape, {}, {}};
                    for_each_index(shape, [&](const Index& i, std::int64_t) {
                      const double z = get(hx, i) + (with_bias ? get(hb, {i.back()}) : 0.0);
                      const double y = nn::gelu_ref(z, tanh_form);
                      const double u = 0.7978845608028654 * (z + 0.044715 * z * z * z);
                      ref.v.push_back(y);
                      // The tanh form's exp(-2u) amplifies the rounding of u by |2u|.
                      ref.mag.push_back((std::fabs(y) + (with_bias ? std::fabs(z) : 0.0)) *
                                        (1.0 + (tanh_form ? 2.0 * std::fabs(u) : 0.0)));
                    });
                    const auto approx = tanh_form ? GeluApproximation::tanh : GeluApproximation::none;
                    cases.push_back({label(shape, v, std::string(tanh_form ? "tanh" : "exact") + (with_bias ? " bias" : "")),
                                     {x, b},
                                     [approx, with_bias](const std::vector<Tensor>& t, const Device&) {
                                       return std::vector<Tensor>{with_bias ? accelera::bias_gelu(t[0], t[1], approx)
                                                                            : accelera::gelu(t[0], approx)};
                                     },
                                     {ref}, rounded_tol(dt)});
                  }
                }
              }
            }
            return cases;
          }};
}

Row gelu_backward_row() {
  return {"gelu_backward", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (bool tanh_form : {false, true}) {
              for (const Shape& shape : row_shapes()) {
                for (View v : kNnViews) {
                  Input g = contiguous_input(shape, dt, rng);
                  Input x = make_input(shape, dt, v, rng, -8.0, 8.0);
                  const Floats xv = values_of(x.host()), gv = values_of(g.host());
                  Ref ref{shape, {}, {}};
                  for (std::size_t i = 0; i < xv.size(); ++i) {
                    ref.v.push_back(gv[i] * nn::gelu_grad_ref(xv[i], tanh_form));
                    ref.mag.push_back(std::fabs(gv[i]) * 1.2);  // |GELU'| < 1.13
                  }
                  expect_vjp(
                      [&](const Floats& in) {
                        Floats out;
                        for (double z : in) out.push_back(nn::gelu_ref(z, tanh_form));
                        return out;
                      },
                      xv, gv, ref.v, rng, "gelu_backward reference");
                  const auto approx = tanh_form ? GeluApproximation::tanh : GeluApproximation::none;
                  cases.push_back({label(shape, v, tanh_form ? "tanh" : "exact"), {g, x},
                                   [approx](const std::vector<Tensor>& t, const Device&) {
                                     return std::vector<Tensor>{accelera::gelu_backward(t[0], t[1], approx)};
                                   },
                                   {ref}, rounded_tol(dt)});
                }
              }
            }
            return cases;
          }};
}

Row linear_gelu_row() {
  return {"linear_gelu", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            struct Dims {
              Shape x;
              std::int64_t out;
            };
            for (const Dims& d : {Dims{Shape{1, 1}, 1}, Dims{Shape{7, 13}, 5}, Dims{Shape{2, 3, 33}, 17},
                                  Dims{Shape{0, 4}, 3}, Dims{Shape{65, 16}, 129}}) {
              for (bool tanh_form : {false, true}) {
                for (bool with_bias : {false, true}) {
                  const std::int64_t in = last_extent(d.x);
                  Input x = make_input(d.x, dt, View::step2, rng);
                  Input w = make_input(Shape{d.out, in}, dt, View::contiguous, rng);
                  Input b = contiguous_input(Shape{d.out}, dt, rng);
                  const Tensor hx = x.host(), hw = w.host(), hb = b.host();
                  std::vector<std::int64_t> out_dims = d.x.dims();
                  out_dims.back() = d.out;
                  Ref ref{Shape(out_dims), {}, {}};
                  const std::int64_t rows = in == 0 ? 0 : hx.numel() / in;
                  const Floats xv = values_of(hx);
                  for (std::int64_t r = 0; r < rows; ++r) {
                    for (std::int64_t o = 0; o < d.out; ++o) {
                      double z = with_bias ? get(hb, {o}) : 0.0, mag = std::fabs(z);
                      for (std::int64_t k = 0; k < in; ++k) {
                        z += xv[static_cast<std::size_t>(r * in + k)] * get(hw, {o, k});
                        mag += std::fabs(xv[static_cast<std::size_t>(r * in + k)] * get(hw, {o, k}));
                      }
                      const double u = 0.7978845608028654 * (z + 0.044715 * z * z * z);
                      ref.v.push_back(nn::gelu_ref(z, tanh_form));
                      ref.mag.push_back(1.2 * mag * (1.0 + (tanh_form ? 2.0 * std::fabs(u) : 0.0)));
                    }
                  }
                  const auto approx = tanh_form ? GeluApproximation::tanh : GeluApproximation::none;
                  cases.push_back({label(d.x, View::step2, std::to_string(d.out) + " out" + (tanh_form ? " tanh" : "") +
                                                               (with_bias ? " bias" : "")),
                                   {x, w, b},
                                   [approx, with_bias](const std::vector<Tensor>& t, const Device&) {
                                     return std::vector<Tensor>{
                                         accelera::linear_gelu(t[0], t[1], with_bias ? t[2] : Tensor(), approx)};
                                   },
                                   {ref}, accumulated_tol(dt)});
                }
              }
            }
            return cases;
          }};
}

// ---- layer_norm ---------------------------------------------------------------------------------------

struct LayerNormRef {
  Floats out, mean, rstd, out_mag;
};

LayerNormRef layer_norm_ref(const Floats& x, std::int64_t n, const Floats* w, const Floats* b, double eps) {
  LayerNormRef r;
  const std::int64_t rows = static_cast<std::int64_t>(x.size()) / n;
  for (std::int64_t row = 0; row < rows; ++row) {
    double mu = 0, var = 0;
    for (std::int64_t k = 0; k < n; ++k) mu += x[static_cast<std::size_t>(row * n + k)];
    mu /= static_cast<double>(n);
    for (std::int64_t k = 0; k < n; ++k) {
      const double c = x[static_cast<std::size_t>(row * n + k)] - mu;
      var += c * c;
    }
    const double rs = 1.0 / std::sqrt(var / static_cast<double>(n) + eps);
    r.mean.push_back(mu);
    r.rstd.push_back(rs);
    for (std::int64_t k = 0; k < n; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      const double wk = w ? (*w)[kk] : 1.0, bk = b ? (*b)[kk] : 0.0;
      r.out.push_back((x[static_cast<std::size_t>(row * n + k)] - mu) * rs * wk + bk);
      r.out_mag.push_back(std::fabs(wk) * 4.0 + std::fabs(bk));
    }
  }
  return r;
}

Row layer_norm_row() {
  return {"layer_norm", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : row_shapes()) {
              for (int params = 0; params < 4; ++params) {
                const View v = kNnViews[static_cast<std::size_t>(params) % std::size(kNnViews)];
                const std::int64_t n = last_extent(shape);
                Input x = make_input(shape, dt, v, rng, -3.0, 5.0);
                Input w = contiguous_input(Shape{n}, dt, rng, 0.5, 2.0);
                Input b = contiguous_input(Shape{n}, dt, rng);
                const Floats wv = values_of(w.host()), bv = values_of(b.host());
                const bool use_w = params & 1, use_b = params & 2;
                const LayerNormRef r = layer_norm_ref(values_of(x.host()), n, use_w ? &wv : nullptr, use_b ? &bv : nullptr, 1e-5);
                std::vector<std::int64_t> lead(shape.dims().begin(), shape.dims().end() - 1);
                Ref mean{Shape(lead), r.mean, Floats(r.mean.size(), 4.0)};
                Ref rstd{Shape(lead), r.rstd, {}};
                cases.push_back({label(shape, v, std::string(use_w ? "weight " : "") + (use_b ? "bias" : "")),
                                 {x, w, b},
                                 [use_w, use_b](const std::vector<Tensor>& t, const Device&) {
                                   const auto res = accelera::layer_norm(t[0], use_w ? t[1] : Tensor(),
                                                                         use_b ? t[2] : Tensor(), 1e-5);
                                   return std::vector<Tensor>{res.out, res.mean, res.rstd};
                                 },
                                 {Ref{shape, r.out, r.out_mag}, mean, rstd},
                                 accumulated_tol(dt)});
              }
            }
            return cases;
          }};
}

Row layer_norm_backward_row() {
  return {"layer_norm_backward", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : row_shapes()) {
              for (bool params : {false, true}) {
                const std::int64_t n = last_extent(shape);
                Input g = contiguous_input(shape, dt, rng);
                Input x = make_input(shape, dt, View::step2, rng, -2.0, 3.0);
                Input w = contiguous_input(Shape{n}, dt, rng, 0.5, 2.0);
                Input b = contiguous_input(Shape{n}, dt, rng);
                const Floats xv = values_of(x.host()), gv = values_of(g.host()), wv = values_of(w.host());
                const LayerNormRef xhat = layer_norm_ref(xv, n, nullptr, nullptr, 1e-5);
                const std::int64_t rows = static_cast<std::int64_t>(xv.size()) / n;
                Ref dx{shape, {}, {}}, dw{Shape{n}, Floats(n, 0.0), Floats(n, 1.0)}, db = dw;
                for (std::int64_t r = 0; r < rows; ++r) {
                  double a = 0, c = 0, scale = 0;
                  const double rs = xhat.rstd[static_cast<std::size_t>(r)];
                  for (std::int64_t k = 0; k < n; ++k) {
                    const auto i = static_cast<std::size_t>(r * n + k);
                    const double gw = gv[i] * (params ? wv[static_cast<std::size_t>(k)] : 1.0);
                    a += gw / static_cast<double>(n);
                    c += gw * xhat.out[i] / static_cast<double>(n);
                    scale += std::fabs(gw) / static_cast<double>(n);
                  }
                  for (std::int64_t k = 0; k < n; ++k) {
                    const auto i = static_cast<std::size_t>(r * n + k);
                    const auto kk = static_cast<std::size_t>(k);
                    const double gw = gv[i] * (params ? wv[kk] : 1.0);
                    dx.v.push_back(rs * (gw - a - xhat.out[i] * c));
                    dx.mag.push_back(rs * (std::fabs(gw) + 5 * scale));
                    dw.v[kk] += gv[i] * xhat.out[i];
                    dw.mag[kk] += std::fabs(gv[i] * xhat.out[i]);
                    db.v[kk] += gv[i];
                    db.mag[kk] += std::fabs(gv[i]);
                  }
                }
                expect_vjp(
                    [&](const Floats& in) {
                      return layer_norm_ref(in, n, params ? &wv : nullptr, nullptr, 1e-5).out;
                    },
                    xv, gv, dx.v, rng, "layer_norm_backward reference (dx)");
                std::vector<Ref> expected = {dx};
                if (params) expected.insert(expected.end(), {dw, db});
                cases.push_back({label(shape, View::step2, params ? "weight bias" : ""), {g, x, w, b},
                                 [params](const std::vector<Tensor>& t, const Device&) {
                                   const Tensor w_or_none = params ? t[2] : Tensor(), b_or_none = params ? t[3] : Tensor();
                                   const auto fwd = accelera::layer_norm(t[1], w_or_none, b_or_none, 1e-5);
                                   const auto res = accelera::layer_norm_backward(t[0], t[1], w_or_none, b_or_none,
                                                                                  fwd.mean, fwd.rstd);
                                   std::vector<Tensor> out = {res.dx};
                                   if (params) out.insert(out.end(), {res.dweight, res.dbias});
                                   return out;
                                 },
                                 expected, accumulated_tol(dt)});
              }
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> softmax_rows();
std::vector<Row> attention_rows();
std::vector<Row> lstm_rows();
std::vector<Row> gru_rows();  // op_table_gru_rows.cpp

std::vector<Row> nn_rows() {
  std::vector<Row> out = {gelu_row(), gelu_backward_row(), linear_gelu_row(), layer_norm_row(),
                          layer_norm_backward_row()};
  for (auto& row : softmax_rows()) out.push_back(std::move(row));
  for (auto& row : attention_rows()) out.push_back(std::move(row));
  for (auto& row : lstm_rows()) out.push_back(std::move(row));
  for (auto& row : gru_rows()) out.push_back(std::move(row));
  return out;
}

}  // namespace acc_test::op_table
