// Optimizers over the fused optimizer_step op (include/accelera/nn/optim.hpp).
#include "accelera/nn/optim.hpp"

#include <cmath>

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"

namespace accelera::nn::optim {

namespace {

double nonnegative(double value, const char* what) {
  if (!(value >= 0.0) || !std::isfinite(value)) throw ValueError(fmt::format("{} must be finite and >= 0, got {}", what, value));
  return value;
}

OptimizerHyperparameters sgd(double lr, double momentum, double weight_decay, bool nesterov, double dampening) {
  OptimizerHyperparameters h;
  h.rule = OptimizerRule::sgd;
  h.lr = lr;
  h.momentum = nonnegative(momentum, "SGD momentum");
  h.weight_decay = nonnegative(weight_decay, "SGD weight_decay");
  h.nesterov = nesterov;
  h.dampening = dampening;
  if (nesterov && (momentum <= 0.0 || dampening != 0.0))
    throw ValueError("Nesterov momentum needs momentum > 0 and dampening 0");
  return h;
}

OptimizerHyperparameters adam(double lr, double weight_decay, double beta1, double beta2, double eps, bool amsgrad,
                              bool decoupled) {
  OptimizerHyperparameters h;
  h.rule = OptimizerRule::adam;
  h.lr = lr;
  h.weight_decay = nonnegative(weight_decay, "Adam weight_decay");
  h.decoupled_weight_decay = decoupled;
  for (double beta : {beta1, beta2})
    if (!(beta >= 0.0 && beta < 1.0)) throw ValueError(fmt::format("Adam betas must be in [0, 1), got {}", beta));
  h.beta1 = beta1;
  h.beta2 = beta2;
  h.eps = nonnegative(eps, "Adam eps");
  h.amsgrad = amsgrad;
  return h;
}

}  // namespace

Optimizer::Optimizer(std::vector<Variable> params, OptimizerHyperparameters hyperparameters)
    : m_params(std::move(params)), m_h(hyperparameters) {
  if (m_params.empty()) throw ValueError("an optimizer needs at least one parameter");
  for (std::size_t i = 0; i < m_params.size(); ++i)
    if (!m_params[i].defined() || !m_params[i].is_leaf() || !m_params[i].requires_grad())
      throw ValueError(fmt::format("parameter {} is not a leaf Variable that requires a gradient", i));
  set_lr(m_h.lr);
  const auto names = optimizer_state_names(m_h);
  for (const auto& p : m_params) {
    std::vector<Tensor> state;
    for (std::size_t s = 0; s < names.size(); ++s) state.push_back(zeros(p.shape(), p.dtype(), p.device()));
    m_state.push_back(std::move(state));
  }
}

void Optimizer::set_lr(double lr) { m_h.lr = nonnegative(lr, "the learning rate"); }

void Optimizer::zero_grad() {
  for (auto& p : m_params) p.zero_grad();
}

void Optimizer::step() {
  std::vector<Tensor> params, grads;
  std::vector<std::vector<Tensor>> state;
  for (std::size_t i = 0; i < m_params.size(); ++i) {
    if (!m_params[i].grad().defined()) continue;
    params.push_back(m_params[i].value());
    grads.push_back(m_params[i].grad());
    state.push_back(m_state[i]);
  }
  if (params.empty()) return;
  OptimizerHyperparameters h = m_h;
  h.step = m_steps + 1;
  optimizer_step(params, grads, state, h);
  ++m_steps;
}

SGD::SGD(std::vector<Variable> params, double lr, double momentum, double weight_decay, bool nesterov, double dampening)
    : Optimizer(std::move(params), sgd(lr, momentum, weight_decay, nesterov, dampening)) {}

Adam::Adam(std::vector<Variable> params, double lr, double weight_decay, double beta1, double beta2, double eps,
           bool amsgrad)
    : Optimizer(std::move(params), adam(lr, weight_decay, beta1, beta2, eps, amsgrad, false)) {}

AdamW::AdamW(std::vector<Variable> params, double lr, double weight_decay, double beta1, double beta2, double eps,
             bool amsgrad)
    : Optimizer(std::move(params), adam(lr, weight_decay, beta1, beta2, eps, amsgrad, true)) {}

namespace {
OptimizerHyperparameters rmsprop(double lr, double alpha, double eps, double weight_decay, double momentum, bool centered) {
  OptimizerHyperparameters h;
  h.rule = OptimizerRule::rmsprop;
  h.lr = lr;
  if (!(alpha >= 0.0 && alpha < 1.0)) throw ValueError(fmt::format("RMSprop alpha must be in [0, 1), got {}", alpha));
  h.alpha = alpha;
  h.eps = nonnegative(eps, "RMSprop eps");
  h.weight_decay = nonnegative(weight_decay, "RMSprop weight_decay");
  h.momentum = nonnegative(momentum, "RMSprop momentum");
  h.centered = centered;
  return h;
}
}  // namespace

RMSprop::RMSprop(std::vector<Variable> params, double lr, double alpha, double eps, double weight_decay, double momentum,
                 bool centered)
    : Optimizer(std::move(params), rmsprop(lr, alpha, eps, weight_decay, momentum, centered)) {}

double clip_grad_norm(const std::vector<Variable>& params, double max_norm) {
  if (!(max_norm > 0.0)) throw ValueError(fmt::format("max_norm must be > 0, got {}", max_norm));
  Tensor squares;
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    Tensor s = sum(square(p.grad())).astype(DType::f64);
    squares = squares.defined() ? add(squares, s) : s;
  }
  if (!squares.defined()) return 0.0;
  const double total = std::sqrt(*squares.to(Device::cpu()).data<double>());  // the one read-back
  if (total > max_norm) {
    const double factor = max_norm / (total + 1e-6);
    for (auto p : params)
      if (p.grad().defined()) p.set_grad(multiply(p.grad(), full(Shape{}, factor, p.grad().dtype(), p.grad().device())));
  }
  return total;
}

}  // namespace accelera::nn::optim
