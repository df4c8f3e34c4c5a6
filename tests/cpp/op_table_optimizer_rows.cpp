// The op test table's row for optimizer_step (Note [Op test table] in op_table.hpp): groups of parameters
// of sizes 0, 1, primes and beyond one CPU chunk, under every rule and option, against float64 references
// written from PyTorch's algorithms (bias corrections applied to the moments, not folded as the op does).
#include <cmath>

#include "accelera/nn_ops.hpp"
#include "op_table.hpp"

namespace acc_test::op_table {

namespace {

using accelera::OptimizerHyperparameters;
using accelera::OptimizerRule;
using Floats = std::vector<double>;

struct Config {
  std::string what;
  OptimizerHyperparameters h;
};

std::vector<Config> configs() {
  const auto make = [](OptimizerRule rule, double lr, std::int64_t step, auto&& set) {
    OptimizerHyperparameters h;
    h.rule = rule;
    h.lr = lr;
    h.step = step;
    set(h);
    return h;
  };
  using H = OptimizerHyperparameters;
  return {
      {"sgd", make(OptimizerRule::sgd, 0.1, 4, [](H&) {})},
      {"sgd momentum first step", make(OptimizerRule::sgd, 0.1, 1, [](H& h) { h.momentum = 0.9; })},
      {"sgd momentum dampening L2",
       make(OptimizerRule::sgd, 0.05, 3, [](H& h) { h.momentum = 0.8, h.dampening = 0.25, h.weight_decay = 0.01; })},
      {"sgd nesterov decoupled decay", make(OptimizerRule::sgd, 0.1, 2,
                                            [](H& h) {
                                              h.momentum = 0.9, h.nesterov = true, h.weight_decay = 0.2;
                                              h.decoupled_weight_decay = true;
                                            })},
      {"adam first step", make(OptimizerRule::adam, 1e-3, 1, [](H&) {})},
      {"adam step 5 L2", make(OptimizerRule::adam, 2e-3, 5, [](H& h) { h.weight_decay = 0.01, h.eps = 1e-3; })},
      {"adamw amsgrad", make(OptimizerRule::adam, 1e-2, 7,
                             [](H& h) {
                               h.weight_decay = 0.1, h.decoupled_weight_decay = true, h.amsgrad = true;
                               h.beta1 = 0.8, h.beta2 = 0.95;
                             })},
      {"rmsprop", make(OptimizerRule::rmsprop, 1e-2, 3, [](H&) {})},
      {"rmsprop momentum centered L2", make(OptimizerRule::rmsprop, 1e-2, 2,
                                            [](H& h) {
                                              h.momentum = 0.5, h.centered = true, h.weight_decay = 0.05;
                                              h.alpha = 0.9, h.eps = 1e-4;
                                            })},
  };
}

const std::vector<Shape>& parameter_shapes() {
  static const std::vector<Shape> shapes = {Shape{},       Shape{1},      Shape{0, 5}, Shape{7},
                                            Shape{13, 31}, Shape{257, 3}, Shape{40009}};
  return shapes;
}

// The range a state tensor is drawn from: second moments are non-negative, and a centered RMSprop's
// square average exceeds its squared mean gradient.
std::pair<double, double> state_range(const std::string& name, bool centered) {
  if (name == "exp_avg_sq" || name == "max_exp_avg_sq") return {0.0, 1.0};
  if (name == "square_avg") return centered ? std::pair{1.0, 2.0} : std::pair{0.0, 1.0};
  if (name == "grad_avg") return {-0.5, 0.5};
  return {-1.0, 1.0};
}

struct Element {
  double p, mag_p;
  std::vector<double> s, mag_s;  // in optimizer_state_names order
};

// One element's update in float64, step by step as torch.optim writes it.
Element reference(const OptimizerHyperparameters& h, const std::vector<std::string>& names, double p, double g,
                  std::vector<double> s) {
  const auto at = [&](const std::string& n) -> double& {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == n) return s[i];
    }
    throw std::logic_error("no state " + n);
  };
  const auto has = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  std::vector<double> mag(s.size());
  const double mag_g = std::fabs(g) + h.weight_decay * std::fabs(p);
  if (h.decoupled_weight_decay) {
    p *= 1 - h.lr * h.weight_decay;
  } else {
    g += h.weight_decay * p;
  }
  double update = 0;
  if (h.rule == OptimizerRule::sgd) {
    if (has("momentum_buffer")) {
      double& b = at("momentum_buffer");
      b = h.step == 1 ? g : h.momentum * b + (1 - h.dampening) * g;
      g = h.nesterov ? g + h.momentum * b : b;
    }
    update = h.lr * g;
  } else if (h.rule == OptimizerRule::adam) {
    double& m = at("exp_avg");
    double& v = at("exp_avg_sq");
    m = h.beta1 * m + (1 - h.beta1) * g;
    v = h.beta2 * v + (1 - h.beta2) * g * g;
    double d = v;
    if (has("max_exp_avg_sq")) d = at("max_exp_avg_sq") = std::max(at("max_exp_avg_sq"), v);
    const double t = static_cast<double>(h.step);
    const double m_hat = m / (1 - std::pow(h.beta1, t)), v_hat = d / (1 - std::pow(h.beta2, t));
    update = h.lr * m_hat / (std::sqrt(v_hat) + h.eps);
  } else {
    double& sq = at("square_avg");
    sq = h.alpha * sq + (1 - h.alpha) * g * g;
    double d = sq;
    if (has("grad_avg")) {
      double& mean = at("grad_avg");
      mean = h.alpha * mean + (1 - h.alpha) * g;
      d = sq - mean * mean;
    }
    double u = g / (std::sqrt(d) + h.eps);
    if (has("momentum_buffer")) u = at("momentum_buffer") = h.momentum * at("momentum_buffer") + u;
    update = h.lr * u;
  }
  // Each result is a short chain of rounded operations: its tolerance scales with its terms' sizes.
  for (std::size_t i = 0; i < s.size(); ++i) mag[i] = std::fabs(s[i]) + mag_g + 1;
  return {p - update, std::fabs(p) + std::fabs(update) * 4, s, mag};
}

Row optimizer_step_row() {
  return {"optimizer_step", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            std::size_t which = 0;
            for (const Config& config : configs()) {
              const auto names = accelera::optimizer_state_names(config.h);
              const std::size_t per = 2 + names.size();  // p, g, states
              Case c;
              c.label = config.what;
              for (const Shape& shape : parameter_shapes()) {
                const View v = kAllViews[which++ % std::size(kAllViews)];
                c.inputs.push_back(make_input(shape, dt, v == View::broadcast ? View::contiguous : v, rng));
                c.inputs.push_back(make_input(shape, dt, v, rng));  // gradients in any layout
                for (const std::string& n : names) {
                  const auto [lo, hi] = state_range(n, config.h.centered);
                  c.inputs.push_back(make_input(shape, dt, View::contiguous, rng, lo, hi));
                }
                std::vector<Floats> in;
                for (std::size_t k = c.inputs.size() - per; k < c.inputs.size(); ++k) {
                  in.push_back(values_of(c.inputs[k].host()));
                }
                Ref p_ref{shape, {}, {}};
                std::vector<Ref> s_ref(names.size(), Ref{shape, {}, {}});
                for (std::size_t e = 0; e < in[0].size(); ++e) {
                  std::vector<double> s;
                  for (std::size_t j = 0; j < names.size(); ++j) s.push_back(in[2 + j][e]);
                  const Element r = reference(config.h, names, in[0][e], in[1][e], s);
                  p_ref.v.push_back(r.p);
                  p_ref.mag.push_back(r.mag_p);
                  for (std::size_t j = 0; j < names.size(); ++j) {
                    s_ref[j].v.push_back(r.s[j]);
                    s_ref[j].mag.push_back(r.mag_s[j]);
                  }
                }
                c.expected.push_back(p_ref);
                for (const Ref& r : s_ref) c.expected.push_back(r);
              }
              c.run = [h = config.h, per](const std::vector<Tensor>& t, const Device&) {
                std::vector<Tensor> params, grads, results;
                std::vector<std::vector<Tensor>> state;
                for (std::size_t k = 0; k < t.size(); k += per) {
                  params.push_back(t[k].clone());  // updated in place: contiguous copies of the device views
                  grads.push_back(t[k + 1]);
                  state.emplace_back();
                  for (std::size_t j = 2; j < per; ++j) state.back().push_back(t[k + j].clone());
                }
                accelera::optimizer_step(params, grads, state, h);
                for (std::size_t i = 0; i < params.size(); ++i) {
                  results.push_back(params[i]);
                  for (const Tensor& s : state[i]) results.push_back(s);
                }
                return results;
              };
              c.tol = tol_for(dt);
              cases.push_back(std::move(c));
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> optimizer_rows() { return {optimizer_step_row()}; }

}  // namespace acc_test::op_table
