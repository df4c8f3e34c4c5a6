#pragma once
// The fused optimizer kernel (accelera/nn_ops.hpp's optimizer_step).
// Note [Optimizer update]: the op folds the hyperparameters into OptimizerCoefficients once, so every
// backend runs the same few lines per element (g: gradient, p: parameter, s0..s2: state slots):
//   g += decay_grad * p;  p *= decay_param
//   sgd:     with s0:  s0 = first ? g : momentum s0 + grad_scale g;  g = nesterov ? g + momentum s0 : s0
//            p -= lr g
//   adam:    s0 = beta1 s0 + (1 - beta1) g;  s1 = beta2 s1 + (1 - beta2) g^2;  d = s1
//            with s2:  s2 = max(s2, s1) (nan wins);  d = s2
//            p -= lr s0 / (sqrt(d) + eps)   (lr and eps carry Adam's bias corrections)
//   rmsprop: s0 = beta2 s0 + (1 - beta2) g^2;  d = s0
//            with s2 (centered):  s2 = beta2 s2 + (1 - beta2) g;  d = s0 - s2^2
//            u = g / (sqrt(d) + eps);  with s1:  s1 = momentum s1 + u;  u = s1
//            p -= lr u
// Slots a rule does not use, or that the hyperparameters leave out, are undefined tensors.
#include <cstdint>
#include <vector>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

struct OptimizerCoefficients {
  int rule = 0;  // OptimizerRule as an int: 0 sgd, 1 adam, 2 rmsprop
  double lr = 0, eps = 0;
  double decay_grad = 0, decay_param = 1;
  double momentum = 0, grad_scale = 1;
  double beta1 = 0, beta2 = 0;  // rmsprop's alpha travels as beta2
  bool first = false, nesterov = false;
};

// One parameter: p and its state slots (C-contiguous, same shape), g (C-contiguous).
struct OptimizerSlot {
  Tensor p, g, s0, s1, s2;
};

namespace op {

inline constexpr OpSchema<void(const std::vector<OptimizerSlot>& slots, const OptimizerCoefficients& c)> optimizer_step{
    "optimizer_step"};

}  // namespace op
}  // namespace accelera
