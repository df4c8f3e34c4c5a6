#pragma once
// The CPU backend's fused neural-network kernels (see Note [Fused kernel contract] in backend.hpp).
#include "accelera/backend.hpp"

namespace accelera::cpu {

void gelu_kernel(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out);
void gelu_backward_kernel(const Tensor& grad, const Tensor& x, GeluApproximation approximation, const Tensor& dx);
void linear_gelu_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, GeluApproximation approximation,
                        const Tensor& out);
void layer_norm_kernel(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                       const Tensor& mean, const Tensor& rstd);
void layer_norm_backward_kernel(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                const Tensor& rstd, const Tensor& dx, const Tensor& dweight, const Tensor& dbias);
void softmax_kernel(const Tensor& x, bool log, const Tensor& out);
void softmax_backward_kernel(const Tensor& grad, const Tensor& y, bool log, const Tensor& dx);
void attention_kernel(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal, const Tensor& out,
                      const Tensor& lse);
void attention_backward_kernel(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                               const Tensor& out, const Tensor& lse, double scale, bool causal, const Tensor& dq,
                               const Tensor& dk, const Tensor& dv);

}  // namespace accelera::cpu
