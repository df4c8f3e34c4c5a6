#pragma once
// The attention kernels (Note [Fused kernel contract] in ops/nn_common.hpp; Note [Attention] in
// ops/attention.cpp for the causal alignment).
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// q: (bh, lq, d), k and v: (bh, lk, d), out: (bh, lq, d), lse: (bh, lq) in the compute precision (float32
// for the half types); lq, lk, d >= 1.
inline constexpr OpSchema<void(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal,
                               const Tensor& out, const Tensor& lse)>
    attention{"attention"};
inline constexpr OpSchema<void(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                               const Tensor& out, const Tensor& lse, double scale, bool causal, const Tensor& dq,
                               const Tensor& dk, const Tensor& dv)>
    attention_backward{"attention_backward"};

}  // namespace accelera::op
