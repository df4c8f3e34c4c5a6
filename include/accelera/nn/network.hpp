#pragma once
// The builder API of accelera::nn, with the names of Python's accelera.nn and of the seed guide:
//
//   auto network = Network::with_input_size(784)
//                      .add_layer(LayerBuilder::dense(256).activation(Activation::ReLU))
//                      .add_layer(LayerBuilder::dense(10).activation(Activation::Softmax))
//                      .loss(Loss::CategoricalCrossEntropy)
//                      .build();
//   History history = network.train(x, y, TrainingConfig{.batch_size = 64, .max_epochs = 10});
//
// A network is a Sequential of the layers the builder names, on one device, built exactly as Python's
// build_layers builds it (the same module order and parameter names): a network saved by either language
// loads in the other. When the last activation and the loss belong together (Softmax with categorical
// cross-entropy, Sigmoid with binary cross-entropy) training computes the loss from the logits through the
// fused log-softmax (or the stable log-sigmoid form); predict() still returns probabilities.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"
#include "accelera/nn/layers.hpp"
#include "accelera/nn/recurrent.hpp"

namespace accelera::nn {

enum class Activation { Linear, ReLU, LeakyReLU, Sigmoid, Tanh, GELU, Swish, SiLU = Swish, Softmax };
enum class Loss { MeanSquaredError, MSE = MeanSquaredError, CategoricalCrossEntropy,
                  CrossEntropy = CategoricalCrossEntropy, BinaryCrossEntropy, Huber };
using ActivationFunction = Activation;  // the seed's names
using LossFunction = Loss;

ACC_API std::string activation_name(Activation a);  // "ReLU", as Python's enum names (the saved spec)
ACC_API Activation activation_from_name(const std::string& name);  // ValueError listing the names
ACC_API std::string loss_name(Loss l);
ACC_API Loss loss_from_name(const std::string& name);

// One layer of a builder network: LayerBuilder::dense(512).activation(Activation::ReLU).
class ACC_API LayerBuilder {
 public:
  static LayerBuilder dense(std::int64_t units);
  static LayerBuilder dropout(double rate);
  // A 2-D convolution of (C, H, W) inputs; padding_same keeps H and W at stride 1 (odd kernels).
  static LayerBuilder conv2d(std::int64_t filters, std::vector<std::int64_t> kernel_size = {3},
                             std::vector<std::int64_t> stride = {1}, std::vector<std::int64_t> padding = {0});
  static LayerBuilder conv2d_same(std::int64_t filters, std::int64_t kernel_size = 3);
  static LayerBuilder max_pool2d(std::vector<std::int64_t> pool_size = {2}, std::vector<std::int64_t> stride = {});
  static LayerBuilder avg_pool2d(std::vector<std::int64_t> pool_size = {2}, std::vector<std::int64_t> stride = {});
  static LayerBuilder flatten();
  static LayerBuilder layer_norm();
  static LayerBuilder batch_norm();  // BatchNorm2d after image layers, BatchNorm1d otherwise
  // An LSTM (GRU) over a (length, features) input: its last hidden state (units), or every step's
  // ((length, units)) with return_sequences.
  static LayerBuilder lstm(std::int64_t units, bool return_sequences = false);
  static LayerBuilder gru(std::int64_t units, bool return_sequences = false);
  LayerBuilder& activation(Activation a) & {
    m_activation = a;
    return *this;
  }
  LayerBuilder&& activation(Activation a) && {
    m_activation = a;
    return std::move(*this);
  }

  const std::string& kind() const noexcept { return m_kind; }
  Activation activation_function() const noexcept { return m_activation; }
  // The options as the saved spec holds them (JSON text of the layer's object, keys sorted).
  std::string spec_json() const;
  static LayerBuilder from_spec_json(const std::string& json);

 private:
  friend class NetworkBuilder;
  friend class Network;
  LayerBuilder() = default;
  explicit LayerBuilder(std::string kind) : m_kind(std::move(kind)) {}
  std::string m_kind;
  std::map<std::string, std::vector<std::int64_t>> m_ints;  // sizes; a one-element list is saved as an int
  std::map<std::string, double> m_reals;
  std::map<std::string, bool> m_flags;
  Activation m_activation = Activation::Linear;
};

class Network;

// Collects layers, the loss, the device, the seed and the dtype; build() makes the Network.
class ACC_API NetworkBuilder {
 public:
  explicit NetworkBuilder(std::vector<std::int64_t> input_shape, Device device = Device::cpu());
  NetworkBuilder& add_layer(LayerBuilder layer);
  NetworkBuilder& loss(Loss loss);
  NetworkBuilder& device(const Device& device);
  NetworkBuilder& seed(std::uint64_t seed);  // of the initial weights (0: a network built twice starts the same)
  NetworkBuilder& dtype(DType dtype);        // float32 (default) or float64
  Network build() const;
  std::string spec_json() const;  // the architecture as saved with the weights

 private:
  std::vector<std::int64_t> m_input_shape;
  std::vector<LayerBuilder> m_layers;
  Loss m_loss = Loss::MeanSquaredError;
  Device m_device;
  std::uint64_t m_seed = 0;
  DType m_dtype = DType::f32;
};

// How Network::train trains (Python's TrainingConfig). optimizer: "adam", "adamw", "sgd" or "rmsprop";
// lr_schedule: "" (none), "cosine" or "step"; early_stopping_patience: epochs without improvement of the
// monitored loss (validation loss when there is a validation set) before stopping, 0 for never.
// validation_split follows Keras: the last fraction of the rows, before shuffling, is held out.
// mixed_precision: "" (float32), "bfloat16" or "float16": the forward pass under amp::Autocast of that dtype
// with float32 weights, and for float16 dynamic loss scaling (amp::GradScaler; History::skipped_steps).
struct TrainingConfig {
  std::int64_t batch_size = 32;
  std::int64_t max_epochs = 10;
  double learning_rate = 1e-3;
  std::string optimizer = "adam";
  double momentum = 0.9;
  double weight_decay = 0.0;
  double validation_split = 0.0;
  bool shuffle = true;
  std::uint64_t seed = 0;
  bool verbose = true;
  std::int64_t early_stopping_patience = 0;
  double early_stopping_min_delta = 0.0;
  bool restore_best_weights = true;
  std::string lr_schedule;
  std::int64_t warmup_epochs = 0;
  std::optional<double> gradient_clip_norm;
  std::string mixed_precision;
  void validate() const;  // ValueError naming the field
};

struct History {
  std::vector<double> train_loss, val_loss, epoch_seconds, learning_rates;
  std::map<std::string, std::vector<double>> train_metrics, val_metrics;  // "accuracy" for classification
  std::optional<std::int64_t> best_epoch;
  bool stopped_early = false;
  std::int64_t skipped_steps = 0;  // optimizer steps a float16 loss scaler skipped for an inf or nan gradient
  std::size_t epochs() const noexcept { return train_loss.size(); }
};

struct Evaluation {
  double loss = 0.0;
  std::optional<double> accuracy;  // classification losses only
};

class ACC_API Network {
 public:
  // Builders for inputs of `input_size` features, or of shape (C, H, W).
  static NetworkBuilder with_input_size(std::int64_t input_size, Device device = Device::cpu());
  static NetworkBuilder with_input_shape(std::vector<std::int64_t> input_shape, Device device = Device::cpu());

  // y: int32/int64 labels or one-hot rows for categorical cross-entropy, 0/1 values for binary
  // cross-entropy, targets of the output's shape for MSE and Huber. x and y may be on any device; the
  // training set is copied to the network's device once.
  History train(const Tensor& x, const Tensor& y, const TrainingConfig& config = {}, std::ostream* progress = nullptr);
  Evaluation evaluate(const Tensor& x, const Tensor& y, std::int64_t batch_size = 1024);
  // The outputs after the final activation (probabilities for Softmax), on the host.
  Tensor predict(const Tensor& x, std::int64_t batch_size = 1024);
  // A batch on the network's device through the layers and the final activation (records gradients).
  Variable forward(const Variable& x);

  void save(const std::string& path) const;  // safetensors with the architecture in its metadata
  static Network load(const std::string& path, std::optional<Device> device = std::nullopt);

  const Device& device() const noexcept { return m_device; }
  Sequential& model() noexcept { return *m_model; }
  std::vector<Variable> parameters() const { return m_model->parameters(); }
  std::int64_t num_parameters() const { return m_model->num_parameters(); }
  std::int64_t output_size() const noexcept { return m_output_size; }
  Loss loss_function() const noexcept { return m_loss; }
  std::string describe() const;

 private:
  friend class NetworkBuilder;
  Network(const std::string& spec_json, Device device);
  bool fused_loss() const;
  Variable activate(const Variable& z) const;
  Variable loss_of(const Variable& z, const Tensor& y) const;
  Tensor hits_of(const Tensor& z, const Tensor& y) const;
  Tensor inputs(const Tensor& x) const;
  Tensor targets(const Tensor& y, std::int64_t rows) const;

  std::string m_spec;
  std::vector<std::int64_t> m_input_shape;
  Loss m_loss;
  Activation m_output_activation;
  DType m_dtype;
  Device m_device;
  std::shared_ptr<Sequential> m_model;
  std::int64_t m_output_size = 0;
};

}  // namespace accelera::nn
