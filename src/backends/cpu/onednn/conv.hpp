#pragma once
// oneDNN's direct convolutions on the CPU, float32 (Note [oneDNN layouts] in conv.cpp); the CPU's conv
// kernels (backends/cpu/conv.cpp) call them for float32.
#include "ops/conv.hpp"

namespace accelera::cpu::onednn {

void conv(const Tensor& x, const Tensor& weight, const Tensor& bias, const WindowGeometry& g, const Tensor& y);
void conv_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const WindowGeometry& g, const Tensor& dx,
                   const Tensor& dw, const Tensor& db);

}  // namespace accelera::cpu::onednn
