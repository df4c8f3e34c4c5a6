#pragma once
// Differentiable functions of Variables for accelera::nn: each runs the op table's kernels on the operands'
// device (the fused ones where they exist: GELU, log-softmax, LayerNorm, convolution, pooling) and records
// its vector-Jacobian product (Note [The C++ autograd graph]). Names and semantics follow Python's
// accelera.nn.functional; every gradient is checked against float64 central differences in
// tests/cpp/test_nn_autograd.cpp.
#include <cstdint>
#include <optional>
#include <vector>

#include "accelera/core/export.hpp"
#include "accelera/nn/autograd.hpp"
#include "accelera/nn_ops.hpp"

namespace accelera::nn::functional {

// ---- arithmetic (NumPy broadcasting; gradients summed back to each operand's shape) ----------------------
ACC_API Variable add(const Variable& a, const Variable& b);
ACC_API Variable subtract(const Variable& a, const Variable& b);
ACC_API Variable multiply(const Variable& a, const Variable& b);
ACC_API Variable scale(const Variable& x, double factor);
// a @ b for operands of at least two axes (batch axes broadcast).
ACC_API Variable matmul(const Variable& a, const Variable& b);
// x @ weight^T + bias: x (..., in), weight (out, in), bias (out) or undefined.
ACC_API Variable linear(const Variable& x, const Variable& weight, const Variable& bias);

// ---- shape ---------------------------------------------------------------------------------------------------
// x in another floating dtype; the gradient comes back in x's dtype (how autocast keeps float32 master
// weights: amp.hpp).
ACC_API Variable astype(const Variable& x, DType dtype);
ACC_API Variable reshape(const Variable& x, const std::vector<std::int64_t>& dims);
// (N, ...) -> (N, prod(...)).
ACC_API Variable flatten(const Variable& x);
// The axes of x in the order `axes` names them (a view; its gradient is permuted back).
ACC_API Variable permute(const Variable& x, const std::vector<std::int64_t>& axes);
// x itself when C-contiguous, else a C-contiguous copy (kernels that need one: attention).
ACC_API Variable contiguous(const Variable& x);
ACC_API Variable sum(const Variable& x);   // of every element: a 0-d result
ACC_API Variable mean(const Variable& x);  // of every element: a 0-d result

// ---- activations ----------------------------------------------------------------------------------------------
ACC_API Variable relu(const Variable& x);
ACC_API Variable leaky_relu(const Variable& x, double negative_slope = 0.01);
ACC_API Variable sigmoid(const Variable& x);
ACC_API Variable tanh(const Variable& x);
ACC_API Variable gelu(const Variable& x);
ACC_API Variable silu(const Variable& x);  // x sigmoid(x), also called Swish
ACC_API Variable softmax(const Variable& x, std::int64_t axis = -1);
ACC_API Variable log_softmax(const Variable& x, std::int64_t axis = -1);
// Inverted dropout: zeroes each element with probability p (uniforms from Philox at (seed, offset)) and
// scales the rest by 1 / (1 - p); the identity when not training or p == 0. p in [0, 1).
ACC_API Variable dropout(const Variable& x, double p, bool training, std::uint64_t seed, std::uint64_t offset);

// ---- normalisation, convolution, pooling ----------------------------------------------------------------------
ACC_API Variable layer_norm(const Variable& x, const Variable& weight, const Variable& bias, double eps = 1e-5);
// Normalises each channel (axis 1) of x (N, C, *) over the batch and spatial axes. Training uses the batch
// statistics (biased variance; ShapeError with one value per channel) and blends them into the running ones
// in place, the variance unbiased (PyTorch's rule, running = (1 - momentum) running + momentum batch);
// evaluation uses the running statistics. weight and bias (C) may be undefined.
ACC_API Variable batch_norm(const Variable& x, const Tensor& running_mean, const Tensor& running_var,
                            const Variable& weight, const Variable& bias, bool training, double momentum = 0.1,
                            double eps = 1e-5);
// Rows of weight (num, dim) picked by int32/int64 indices of any shape: indices.shape + (dim). Indices
// outside [0, num) are a ValueError; the gradient adds the rows of repeated indices up.
ACC_API Variable embedding(const Tensor& indices, const Variable& weight);
// softmax(q k^T scale [+ causal mask]) v by the flash-attention kernel, q (B, H, Lq, D), k and v
// (B, H, Lk, D); scale defaults to 1 / sqrt(D). The score matrix is never stored, forward or backward.
ACC_API Variable attention(const Variable& q, const Variable& k, const Variable& v, bool causal = false,
                           std::optional<double> scale = std::nullopt);
// The cross-correlation of x (N, C_in, *spatial) with weight (C_out, C_in, *kernel), plus bias (C_out) when
// defined; the window's kernel may be left empty.
ACC_API Variable conv(const Variable& x, const Variable& weight, const Variable& bias, const ConvWindow& window);
ACC_API Variable max_pool(const Variable& x, const ConvWindow& window);
// The mean of each window; zeros of the padding count (PyTorch's count_include_pad=True).
ACC_API Variable avg_pool(const Variable& x, const ConvWindow& window);

// ---- losses (mean over every element, or over the rows for cross-entropy) --------------------------------
// Softmax cross-entropy from logits (N, C) fused with log-softmax: target is int32/int64 labels (N) in
// [0, C) (ValueError naming the label otherwise) or class probabilities (N, C).
ACC_API Variable cross_entropy(const Variable& logits, const Tensor& target);
// From logits, in the stable form max(z, 0) - z t + log1p(exp(-|z|)); target of logits' shape.
ACC_API Variable binary_cross_entropy_with_logits(const Variable& logits, const Tensor& target);
// From probabilities clamped to [eps, 1 - eps].
ACC_API Variable binary_cross_entropy(const Variable& probabilities, const Tensor& target, double eps = 1e-7);
ACC_API Variable mse_loss(const Variable& prediction, const Tensor& target);
// 0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta), d = prediction - target; delta > 0.
ACC_API Variable huber_loss(const Variable& prediction, const Tensor& target, double delta = 1.0);

// One-hot rows (N, classes) of `dtype` for int32/int64 labels (N) on their device; ValueError for a
// label outside [0, classes) (`check` false: the caller has checked them, and no label is read back).
ACC_API Tensor one_hot(const Tensor& labels, std::int64_t classes, DType dtype, bool check = true);

}  // namespace accelera::nn::functional
