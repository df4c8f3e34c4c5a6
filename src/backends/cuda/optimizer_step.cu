// The fused optimizer update on CUDA (Note [Optimizer update] in ops/optimizer_step.hpp): blockIdx.y picks
// a parameter of the batch, the blocks along x stride over its elements, so one launch serves up to 16
// parameters of any sizes. Arithmetic in compute_t (float for the half formats).
#include "backends/cuda/common.cuh"
#include "backends/cuda/optimizer_step_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

template <typename T, int Rule>
__global__ void optimizer_update(OptimizerBatch batch, OptimizerScalars sc) {
  using C = compute_t<T>;
  const int t = blockIdx.y;
  T* p = static_cast<T*>(batch.p[t]);
  const T* g = static_cast<const T*>(batch.g[t]);
  T* s0 = static_cast<T*>(batch.s0[t]);
  T* s1 = static_cast<T*>(batch.s1[t]);
  T* s2 = static_cast<T*>(batch.s2[t]);
  const C lr = sc.lr, eps = sc.eps, decay_grad = sc.decay_grad, decay_param = sc.decay_param;
  const C momentum = sc.momentum, grad_scale = sc.grad_scale, beta1 = sc.beta1, beta2 = sc.beta2, one = 1;
  for (std::int64_t i = first_index(); i < batch.numel[t]; i += grid_stride()) {
    const C pv = load(p[i]);
    C gv = load(g[i]) + decay_grad * pv;
    C u;
    if constexpr (Rule == 0) {
      if (s0 != nullptr) {
        const C b = sc.first ? gv : momentum * load(s0[i]) + grad_scale * gv;
        s0[i] = store<T>(b);
        gv = sc.nesterov ? gv + momentum * b : b;
      }
      u = gv;
    } else if constexpr (Rule == 1) {
      const C m = beta1 * load(s0[i]) + (one - beta1) * gv;
      const C v = beta2 * load(s1[i]) + (one - beta2) * gv * gv;
      s0[i] = store<T>(m);
      s1[i] = store<T>(v);
      C d = v;
      if (s2 != nullptr) {
        const C old = load(s2[i]);
        d = (old > v || old != old) ? old : v;  // the running maximum; a nan stays
        s2[i] = store<T>(d);
      }
      u = m / (sqrt_of(d) + eps);
    } else {
      const C sq = beta2 * load(s0[i]) + (one - beta2) * gv * gv;
      s0[i] = store<T>(sq);
      C d = sq;
      if (s2 != nullptr) {
        const C mean = beta2 * load(s2[i]) + (one - beta2) * gv;
        s2[i] = store<T>(mean);
        d = sq - mean * mean;
      }
      u = gv / (sqrt_of(d) + eps);
      if (s1 != nullptr) {
        u = momentum * load(s1[i]) + u;
        s1[i] = store<T>(u);
      }
    }
    p[i] = store<T>(pv * decay_param - lr * u);
  }
}

}  // namespace

bool optimizer_step(DType dtype, const OptimizerBatch& batch, const OptimizerScalars& c, Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    std::int64_t largest = 0;
    for (int k = 0; k < batch.count; ++k) largest = batch.numel[k] > largest ? batch.numel[k] : largest;
    // Blocks along x share the device among the batch's parameters: each gets at most its share.
    Launch share = launch;
    share.max_blocks = launch.max_blocks / batch.count > 1 ? launch.max_blocks / batch.count : 1;
    const dim3 grid(blocks_for(largest, share), static_cast<unsigned>(batch.count));
    switch (c.rule) {
      case 0:
        optimizer_update<T, 0><<<grid, kThreads, 0, launch.stream>>>(batch, c);
        break;
      case 1:
        optimizer_update<T, 1><<<grid, kThreads, 0, launch.stream>>>(batch, c);
        break;
      default:
        optimizer_update<T, 2><<<grid, kThreads, 0, launch.stream>>>(batch, c);
        break;
    }
    check_launch("optimizer_step");
  });
}

}  // namespace accelera::cuda::kernels
