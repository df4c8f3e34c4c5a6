#pragma once
// Modules of accelera::nn: a Module holds parameters (Variables that require gradients) and submodules under
// dotted names — the names of Python's accelera.nn state_dict, so weights move between the two through
// safetensors files — and computes forward(x). Layers initialise their weights from Philox (Glorot-uniform,
// zero biases), so a seed gives the same network on every device.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"
#include "accelera/nn/autograd.hpp"
#include "accelera/nn_ops.hpp"

namespace accelera::nn {

class ACC_API Module {
 public:
  virtual ~Module() = default;
  virtual Variable forward(const Variable& x) = 0;
  Variable operator()(const Variable& x) { return forward(x); }
  // "Linear(784, 256, bias=true)": what the module is, for messages and printing.
  virtual std::string describe() const = 0;

  // Parameters by dotted name, this module's first, then each child's under "<child>.".
  std::vector<std::pair<std::string, Variable>> named_parameters() const;
  std::vector<Variable> parameters() const;
  std::int64_t num_parameters() const;
  // Tensors a module keeps that are not trained (BatchNorm's running statistics), named as parameters.
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;
  // Every parameter and buffer by name: Python's state_dict, what Network::save writes.
  std::vector<std::pair<std::string, Tensor>> state() const;
  // Training mode (dropout active) or evaluation mode, for this module and its children.
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const noexcept { return m_training; }

 protected:
  void register_parameter(std::string name, Variable parameter);
  void register_module(std::string name, std::shared_ptr<Module> child);
  void register_buffer(std::string name, Tensor buffer);

 private:
  std::vector<std::pair<std::string, Variable>> m_parameters;
  std::vector<std::pair<std::string, Tensor>> m_buffers;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> m_children;
  bool m_training = true;
};

// Where new parameters live and what they hold.
struct ParameterOptions {
  Device device = Device::cpu();
  DType dtype = DType::f32;
  std::uint64_t seed = 0;
};

// y = x @ weight^T + bias; weight (out_features, in_features).
class ACC_API Linear : public Module {
 public:
  Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true, ParameterOptions options = {});
  Variable forward(const Variable& x) override;
  std::string describe() const override;
  const Variable& weight() const { return m_weight; }
  const Variable& bias() const { return m_bias; }

 private:
  std::int64_t m_in, m_out;
  Variable m_weight, m_bias;
};
using Dense = Linear;

// A convolution over 1, 2 or 3 spatial axes of (N, C_in, *spatial) inputs (PyTorch's and cuDNN's layout);
// weight (C_out, C_in, *kernel). Each window argument takes one value for every axis or one per axis.
class ACC_API ConvNd : public Module {
 public:
  ConvNd(int axes, std::int64_t in_channels, std::int64_t out_channels, std::vector<std::int64_t> kernel_size,
         std::vector<std::int64_t> stride = {1}, std::vector<std::int64_t> padding = {0}, bool bias = true,
         ParameterOptions options = {}, std::vector<std::int64_t> dilation = {1});
  Variable forward(const Variable& x) override;
  std::string describe() const override;
  // (C_out, *spatial_out) for a (C_in, *spatial) input.
  std::vector<std::int64_t> output_shape(const std::vector<std::int64_t>& input_shape) const;
  int axes() const { return m_axes; }
  const ConvWindow& window() const { return m_window; }
  const Variable& weight() const { return m_weight; }
  const Variable& bias() const { return m_bias; }

 private:
  int m_axes;
  std::int64_t m_in, m_out;
  ConvWindow m_window;
  Variable m_weight, m_bias;
};

// Conv1d (N, C, L), Conv2d (N, C, H, W) and Conv3d (N, C, D, H, W), with Python's names.
#define ACC_NN_CONV(Name, Axes)                                                                                      \
  class ACC_API Name : public ConvNd {                                                                               \
   public:                                                                                                           \
    Name(std::int64_t in_channels, std::int64_t out_channels, std::vector<std::int64_t> kernel_size,                 \
         std::vector<std::int64_t> stride = {1}, std::vector<std::int64_t> padding = {0}, bool bias = true,          \
         ParameterOptions options = {}, std::vector<std::int64_t> dilation = {1})                                    \
        : ConvNd(Axes, in_channels, out_channels, std::move(kernel_size), std::move(stride), std::move(padding), bias, \
                 options, std::move(dilation)) {}                                                                    \
  };
ACC_NN_CONV(Conv1d, 1)
ACC_NN_CONV(Conv2d, 2)
ACC_NN_CONV(Conv3d, 3)
#undef ACC_NN_CONV
using Conv2D = Conv2d;
using Conv3D = Conv3d;

// Max or mean over windows of 1, 2 or 3 spatial axes of (N, C, *spatial) inputs; the stride defaults to the
// window. Average pooling counts the zeros of the padding (PyTorch's count_include_pad=True).
class ACC_API PoolNd : public Module {
 public:
  enum class Kind { max, average };
  PoolNd(int axes, Kind kind, std::vector<std::int64_t> pool_size, std::vector<std::int64_t> stride = {},
         std::vector<std::int64_t> padding = {0});
  Variable forward(const Variable& x) override;
  std::string describe() const override;
  std::vector<std::int64_t> output_shape(const std::vector<std::int64_t>& input_shape) const;

 private:
  int m_axes;
  Kind m_kind;
  ConvWindow m_window;
};

// The 2-D pool of either kind (the builder's), and MaxPool1d ... AvgPool3d with Python's names.
class ACC_API Pool2d : public PoolNd {
 public:
  Pool2d(Kind kind, std::vector<std::int64_t> pool_size, std::vector<std::int64_t> stride = {},
         std::vector<std::int64_t> padding = {0})
      : PoolNd(2, kind, std::move(pool_size), std::move(stride), std::move(padding)) {}
};
#define ACC_NN_POOL(Name, Axes, PoolKind)                                                                  \
  class ACC_API Name : public PoolNd {                                                                     \
   public:                                                                                                 \
    explicit Name(std::vector<std::int64_t> pool_size, std::vector<std::int64_t> stride = {},              \
                  std::vector<std::int64_t> padding = {0})                                                 \
        : PoolNd(Axes, Kind::PoolKind, std::move(pool_size), std::move(stride), std::move(padding)) {}     \
  };
ACC_NN_POOL(MaxPool1d, 1, max)
ACC_NN_POOL(MaxPool2d, 2, max)
ACC_NN_POOL(MaxPool3d, 3, max)
ACC_NN_POOL(AvgPool1d, 1, average)
ACC_NN_POOL(AvgPool2d, 2, average)
ACC_NN_POOL(AvgPool3d, 3, average)
#undef ACC_NN_POOL
using MaxPool2D = MaxPool2d;
using AvgPool2D = AvgPool2d;

class ACC_API LayerNorm : public Module {
 public:
  explicit LayerNorm(std::int64_t normalized_size, double eps = 1e-5, ParameterOptions options = {});
  Variable forward(const Variable& x) override;
  std::string describe() const override;

 private:
  std::int64_t m_size;
  double m_eps;
  Variable m_weight, m_bias;
};

// Batch normalisation of axis 1 (Python's BatchNorm1d: (N, C) or (N, C, L) inputs; BatchNorm2d: (N, C, H, W)):
// weight and bias parameters, running_mean and running_var buffers.
class ACC_API BatchNorm : public Module {
 public:
  BatchNorm(std::int64_t num_features, bool image, double eps = 1e-5, double momentum = 0.1, ParameterOptions options = {});
  Variable forward(const Variable& x) override;
  std::string describe() const override;
  const Tensor& running_mean() const { return m_running_mean; }
  const Tensor& running_var() const { return m_running_var; }

 private:
  std::int64_t m_features;
  bool m_image;
  double m_eps, m_momentum;
  Variable m_weight, m_bias;
  Tensor m_running_mean, m_running_var;
};

// A (num_embeddings, dim) table of rows picked by integer index (weights from a standard normal).
class ACC_API Embedding : public Module {
 public:
  Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim, ParameterOptions options = {});
  // Integer indices as a Variable holding an int32/int64 tensor: indices.shape + (dim).
  Variable forward(const Variable& indices) override;
  std::string describe() const override;

 private:
  std::int64_t m_num, m_dim;
  Variable m_weight;
};

// Multi-head self- or cross-attention over (batch, length, embed_dim) inputs by the flash-attention kernel:
// q_proj, k_proj, v_proj and out_proj Linear layers (Python's names).
class ACC_API MultiHeadAttention : public Module {
 public:
  MultiHeadAttention(std::int64_t embed_dim, std::int64_t num_heads, bool bias = true, bool causal = false,
                     ParameterOptions options = {});
  Variable forward(const Variable& x) override;  // self-attention
  Variable forward(const Variable& query, const Variable& key, const Variable& value);
  std::string describe() const override;

 private:
  Variable heads(const Variable& x) const;
  std::int64_t m_embed, m_heads;
  bool m_causal;
  std::shared_ptr<Linear> m_q, m_k, m_v, m_out;
};

// Inverted dropout in training mode, the identity in evaluation mode; each call draws fresh Philox counters.
class ACC_API Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5, std::uint64_t seed = 0);
  Variable forward(const Variable& x) override;
  std::string describe() const override;

 private:
  double m_p;
  std::uint64_t m_seed, m_offset = 0;
};

// (N, ...) -> (N, prod(...)).
class ACC_API Flatten : public Module {
 public:
  Variable forward(const Variable& x) override;
  std::string describe() const override { return "Flatten()"; }
};

// Element-wise activations (and softmax over the last axis) as modules.
class ACC_API ActivationLayer : public Module {
 public:
  enum class Kind { relu, leaky_relu, sigmoid, tanh, gelu, silu, softmax };
  explicit ActivationLayer(Kind kind, double negative_slope = 0.01);
  Variable forward(const Variable& x) override;
  std::string describe() const override;

 private:
  Kind m_kind;
  double m_slope;
};

// Children "0", "1", ... run in order.
class ACC_API Sequential : public Module {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<std::shared_ptr<Module>> modules);
  void push_back(std::shared_ptr<Module> module);
  Variable forward(const Variable& x) override;
  std::string describe() const override;
  std::size_t size() const noexcept { return m_modules.size(); }
  const std::shared_ptr<Module>& operator[](std::size_t i) const { return m_modules.at(i); }

 private:
  std::vector<std::shared_ptr<Module>> m_modules;
};

}  // namespace accelera::nn
