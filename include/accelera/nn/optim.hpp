#pragma once
// Optimizers of accelera::nn: each step is one fused multi-tensor update through the op table's
// optimizer_step (PyTorch's torch.optim semantics), with the state tensors kept on the parameters' device.
// Parameters without a gradient are skipped, as in PyTorch.
#include <cstdint>
#include <vector>

#include "accelera/core/export.hpp"
#include "accelera/nn/autograd.hpp"
#include "accelera/nn_ops.hpp"

namespace accelera::nn::optim {

class ACC_API Optimizer {
 public:
  // Throws ValueError for no parameters, a parameter that requires no gradient, or a bad hyperparameter.
  Optimizer(std::vector<Variable> params, OptimizerHyperparameters hyperparameters);
  virtual ~Optimizer() = default;
  void step();
  void zero_grad();
  double lr() const noexcept { return m_h.lr; }
  void set_lr(double lr);
  const std::vector<Variable>& params() const noexcept { return m_params; }
  std::int64_t steps() const noexcept { return m_steps; }

 private:
  std::vector<Variable> m_params;
  std::vector<std::vector<Tensor>> m_state;  // per parameter, optimizer_state_names' order
  OptimizerHyperparameters m_h;
  std::int64_t m_steps = 0;
};

class ACC_API SGD : public Optimizer {
 public:
  SGD(std::vector<Variable> params, double lr, double momentum = 0.0, double weight_decay = 0.0,
      bool nesterov = false, double dampening = 0.0);
};

class ACC_API Adam : public Optimizer {
 public:
  Adam(std::vector<Variable> params, double lr = 1e-3, double weight_decay = 0.0, double beta1 = 0.9,
       double beta2 = 0.999, double eps = 1e-8, bool amsgrad = false);
};

// Adam with decoupled weight decay (Loshchilov and Hutter).
class ACC_API AdamW : public Optimizer {
 public:
  AdamW(std::vector<Variable> params, double lr = 1e-3, double weight_decay = 1e-2, double beta1 = 0.9,
        double beta2 = 0.999, double eps = 1e-8, bool amsgrad = false);
};

class ACC_API RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<Variable> params, double lr = 1e-2, double alpha = 0.99, double eps = 1e-8,
          double weight_decay = 0.0, double momentum = 0.0, bool centered = false);
};

// Scales every gradient by max_norm / total norm when their global 2-norm exceeds max_norm (PyTorch's
// clip_grad_norm_); returns the norm before clipping. max_norm > 0.
ACC_API double clip_grad_norm(const std::vector<Variable>& params, double max_norm);

}  // namespace accelera::nn::optim
