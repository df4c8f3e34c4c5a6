#pragma once
// Shared by the fused neural-network op suites: the devices to run on, inputs made on the host and
// copied to a device, output poisoning on any device, and float64 references in plain loops.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace acc_test::nn {

inline void backend_for_sync(const Device& device) { accelera::device_interface(device).synchronize(device.index); }

// Leaves freed blocks full of nan in `device`'s cache for every size an op is about to allocate, so that
// an output element the kernel forgets to write shows up as nan.
inline void poison_outputs(const Device& device, std::initializer_list<std::int64_t> nbytes_list) {
  std::vector<Tensor> blocks;
  for (std::int64_t nbytes : nbytes_list) {
    if (nbytes <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      blocks.push_back(accelera::full(Shape{(nbytes + 3) / 4}, kNaN, DType::f32, device));
    }
  }
  if (!device.is_cpu()) backend_for_sync(device);
}

inline Tensor on(const Tensor& host, const Device& d) { return host.to(d); }
inline Tensor host(const Tensor& t) { return t.to(Device::cpu()); }

// Per-dtype tolerance for results that combine many terms (normalisations, attention).
inline Tol combined_tol(DType dt) { return dt == DType::f32 ? Tol{2e-5, 2e-6} : Tol{1e-11, 1e-12}; }

inline double gelu_ref(double x, bool tanh_form) {
  // 0.5 (1 + tanh(u)) == 1 / (1 + exp(-2u)), free of cancellation for negative x.
  if (tanh_form) return x / (1.0 + std::exp(-2.0 * 0.7978845608028654 * (x + 0.044715 * x * x * x)));
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}

inline double gelu_grad_ref(double x, bool tanh_form) {
  if (tanh_form) {
    const double k = 0.7978845608028654, t = std::tanh(k * (x + 0.044715 * x * x * x));
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * x * x);
  }
  return 0.5 * std::erfc(-x / std::sqrt(2.0)) + x * std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
}

}  // namespace acc_test::nn
