// The fused optimizer update on the CPU (Note [Optimizer update] in ops/optimizer_step.hpp): every
// parameter of the group is cut into chunks and one parallel loop runs them all, so a network's small
// bias vectors ride along with its weight matrices instead of each paying for a parallel region. The
// rule is a template parameter, so each loop body is branch-free and vectorised.
#include <algorithm>
#include <cmath>

#include "backends/common/strided_loop.hpp"
#include "backends/cpu/dispatch.hpp"
#include "ops/optimizer_step.hpp"

namespace accelera::cpu {

namespace {

template <typename T>
struct Pointers {
  T* __restrict p;
  T* __restrict s0;
  T* __restrict s1;
  T* __restrict s2;
  const T* __restrict g;
};

// The coefficients in the element type, so float32 parameters compute in float32 as PyTorch's do.
template <typename T>
struct Coefficients {
  T lr, eps, decay_grad, decay_param, momentum, grad_scale, beta1, beta2;
  bool first, nesterov;
  explicit Coefficients(const OptimizerCoefficients& c)
      : lr(static_cast<T>(c.lr)),
        eps(static_cast<T>(c.eps)),
        decay_grad(static_cast<T>(c.decay_grad)),
        decay_param(static_cast<T>(c.decay_param)),
        momentum(static_cast<T>(c.momentum)),
        grad_scale(static_cast<T>(c.grad_scale)),
        beta1(static_cast<T>(c.beta1)),
        beta2(static_cast<T>(c.beta2)),
        first(c.first),
        nesterov(c.nesterov) {}
};

// Which state slots are present is a template parameter: a store under a run-time condition would keep
// the loop from vectorising.
template <typename T, bool Momentum>
void sgd(const Pointers<T>& x, std::int64_t n, const Coefficients<T>& c) {
  for (std::int64_t i = 0; i < n; ++i) {
    T g = x.g[i] + c.decay_grad * x.p[i];
    if constexpr (Momentum) {
      const T b = c.first ? g : c.momentum * x.s0[i] + c.grad_scale * g;
      x.s0[i] = b;
      g = c.nesterov ? g + c.momentum * b : b;
    }
    x.p[i] = x.p[i] * c.decay_param - c.lr * g;
  }
}

template <typename T, bool AmsGrad>
void adam(const Pointers<T>& x, std::int64_t n, const Coefficients<T>& c) {
  const T one = 1;
  for (std::int64_t i = 0; i < n; ++i) {
    const T g = x.g[i] + c.decay_grad * x.p[i];
    const T m = c.beta1 * x.s0[i] + (one - c.beta1) * g;
    const T v = c.beta2 * x.s1[i] + (one - c.beta2) * g * g;
    x.s0[i] = m;
    x.s1[i] = v;
    T d = v;
    if constexpr (AmsGrad) {
      const T old = x.s2[i];
      d = (old > v || old != old) ? old : v;  // the running maximum; a nan stays
      x.s2[i] = d;
    }
    x.p[i] = x.p[i] * c.decay_param - c.lr * m / (std::sqrt(d) + c.eps);
  }
}

template <typename T, bool Momentum, bool Centered>
void rmsprop(const Pointers<T>& x, std::int64_t n, const Coefficients<T>& c) {
  const T one = 1;
  for (std::int64_t i = 0; i < n; ++i) {
    const T g = x.g[i] + c.decay_grad * x.p[i];
    const T sq = c.beta2 * x.s0[i] + (one - c.beta2) * g * g;
    x.s0[i] = sq;
    T d = sq;
    if constexpr (Centered) {
      const T mean = c.beta2 * x.s2[i] + (one - c.beta2) * g;
      x.s2[i] = mean;
      d = sq - mean * mean;
    }
    T u = g / (std::sqrt(d) + c.eps);
    if constexpr (Momentum) {
      u = c.momentum * x.s1[i] + u;
      x.s1[i] = u;
    }
    x.p[i] = x.p[i] * c.decay_param - c.lr * u;
  }
}

// The loop for this rule and these slots.
template <typename T>
void update_run(const Pointers<T>& x, std::int64_t n, int rule, const Coefficients<T>& c) {
  const bool s1 = x.s1 != nullptr, s2 = x.s2 != nullptr;
  if (rule == 0) {
    x.s0 != nullptr ? sgd<T, true>(x, n, c) : sgd<T, false>(x, n, c);
  } else if (rule == 1) {
    s2 ? adam<T, true>(x, n, c) : adam<T, false>(x, n, c);
  } else if (s1) {
    s2 ? rmsprop<T, true, true>(x, n, c) : rmsprop<T, true, false>(x, n, c);
  } else {
    s2 ? rmsprop<T, false, true>(x, n, c) : rmsprop<T, false, false>(x, n, c);
  }
}

// A piece of one parameter: elements [begin, begin + count) of slot `slot`.
struct Chunk {
  std::size_t slot;
  std::int64_t begin, count;
};

template <typename T>
void update(const std::vector<OptimizerSlot>& slots, const OptimizerCoefficients& oc) {
  constexpr std::int64_t kChunk = 1 << 14;
  std::vector<Chunk> chunks;
  std::int64_t total = 0;
  for (std::size_t s = 0; s < slots.size(); ++s) {
    const std::int64_t n = slots[s].p.numel();
    total += n;
    for (std::int64_t b = 0; b < n; b += kChunk) chunks.push_back({s, b, std::min(kChunk, n - b)});
  }
  const Coefficients<T> c(oc);
  const auto run = [&](const Chunk& k) {
    const OptimizerSlot& s = slots[k.slot];
    const auto from = [&](const Tensor& t) { return t.defined() ? t.data<T>() + k.begin : nullptr; };
    const Pointers<T> at{from(s.p), from(s.s0), from(s.s1), from(s.s2), s.g.data<T>() + k.begin};
    update_run(at, k.count, oc.rule, c);
  };
  const auto count = static_cast<std::int64_t>(chunks.size());
#pragma omp parallel for schedule(static) if (total >= backends::elementwise_parallel_grain())
  for (std::int64_t k = 0; k < count; ++k) run(chunks[static_cast<std::size_t>(k)]);
}

void optimizer_step_kernel(const std::vector<OptimizerSlot>& slots, const OptimizerCoefficients& c) {
  dispatch_float(slots.front().p.dtype(), "optimizer_step", [&](auto t) { update<decltype(t)>(slots, c); });
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::optimizer_step, DeviceKind::cpu, dtypes::floating, &optimizer_step_kernel); }

}  // namespace accelera::cpu
