#pragma once
// The host entry point of the CUDA optimizer kernel (optimizer_step.cu; Note [Optimizer update] in
// ops/optimizer_step.hpp).
#include <cstdint>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

// Up to kOptimizerTensors parameters per launch, passed by value in the kernel's parameter block (the
// multi-tensor scheme of apex and PyTorch's fused optimizers): one launch updates them all.
inline constexpr int kOptimizerTensors = 16;

struct OptimizerBatch {
  int count = 0;
  std::int64_t numel[kOptimizerTensors] = {};
  void* p[kOptimizerTensors] = {};
  const void* g[kOptimizerTensors] = {};
  void* s0[kOptimizerTensors] = {};  // null where the slot is absent (the same slots for every parameter)
  void* s1[kOptimizerTensors] = {};
  void* s2[kOptimizerTensors] = {};
};

// The coefficients of ops/optimizer_step.hpp's OptimizerCoefficients, free of the library's headers.
struct OptimizerScalars {
  int rule = 0;
  double lr = 0, eps = 0, decay_grad = 0, decay_param = 1, momentum = 0, grad_scale = 1, beta1 = 0, beta2 = 0;
  bool first = false, nesterov = false;
};

// false, launching nothing, for a dtype it does not compute.
bool optimizer_step(DType dtype, const OptimizerBatch& batch, const OptimizerScalars& c, Launch launch);

}  // namespace accelera::cuda::kernels
