// Network: built from a spec, trained, evaluated, saved (include/accelera/nn/network.hpp).
//
// Note [C++ training loop]
// As Python's (Note [Training loop] in python/accelera/nn/_network.py): the training set goes to the device
// once; each epoch draws a Philox permutation on the device and gathers each batch with take(), so no
// batch crosses the bus; the loss and hit sums stay on the device and are read back once per epoch, so
// the device queue never drains mid-epoch for bookkeeping.
#include <chrono>
#include <cmath>
#include <limits>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <ostream>

#include "accelera/core/error.hpp"
#include "accelera/nn/amp.hpp"
#include "accelera/nn/functional.hpp"
#include "accelera/nn/network.hpp"
#include "accelera/nn/optim.hpp"
#include "accelera/nn/safetensors.hpp"
#include "accelera/ops.hpp"
#include "accelera/random.hpp"

namespace accelera::nn {

namespace F = functional;

namespace {

constexpr const char* kFormat = "accelera.nn.Network";

std::int64_t product(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

ActivationLayer::Kind activation_kind(Activation a) {
  switch (a) {
    case Activation::ReLU: return ActivationLayer::Kind::relu;
    case Activation::LeakyReLU: return ActivationLayer::Kind::leaky_relu;
    case Activation::Sigmoid: return ActivationLayer::Kind::sigmoid;
    case Activation::Tanh: return ActivationLayer::Kind::tanh;
    case Activation::GELU: return ActivationLayer::Kind::gelu;
    case Activation::Swish: return ActivationLayer::Kind::silu;
    case Activation::Softmax: return ActivationLayer::Kind::softmax;
    case Activation::Linear: break;
  }
  throw ValueError("the linear activation has no layer");
}

bool is_classification(Loss l) { return l == Loss::CategoricalCrossEntropy || l == Loss::BinaryCrossEntropy; }

Tensor scalar_like(double value, const Tensor& like) { return full(Shape{}, value, like.dtype(), like.device()); }

double read_scalar(const Tensor& t) { return *t.astype(DType::f64).to(Device::cpu()).data<double>(); }

// lr at epoch `count` (from 0) under the config's schedule, as Python's StepLR, CosineAnnealingLR, WarmupLR.
double scheduled_lr(const TrainingConfig& c, std::int64_t count) {
  const double base = c.learning_rate;
  if (count < c.warmup_epochs) return base * static_cast<double>(count + 1) / static_cast<double>(c.warmup_epochs);
  count -= c.warmup_epochs;
  if (c.lr_schedule == "cosine") {
    const std::int64_t t_max = std::max<std::int64_t>(1, c.max_epochs - c.warmup_epochs);
    const double done = static_cast<double>(std::min(count, t_max)) / static_cast<double>(t_max);
    return base * (1.0 + std::cos(M_PI * done)) / 2.0;
  }
  if (c.lr_schedule == "step") return base * std::pow(0.1, static_cast<double>(count / std::max<std::int64_t>(1, c.max_epochs / 3)));
  return base;
}

std::unique_ptr<optim::Optimizer> make_optimizer(const TrainingConfig& c, std::vector<Variable> params) {
  if (c.optimizer == "adam") return std::make_unique<optim::Adam>(std::move(params), c.learning_rate, c.weight_decay);
  if (c.optimizer == "adamw") return std::make_unique<optim::AdamW>(std::move(params), c.learning_rate, c.weight_decay);
  if (c.optimizer == "rmsprop")
    return std::make_unique<optim::RMSprop>(std::move(params), c.learning_rate, 0.99, 1e-8, c.weight_decay);
  if (c.optimizer == "sgd")
    return std::make_unique<optim::SGD>(std::move(params), c.learning_rate, c.momentum, c.weight_decay);
  throw ValueError(fmt::format("unknown optimizer {}; one of adam, adamw, sgd, rmsprop", c.optimizer));
}

}  // namespace

void TrainingConfig::validate() const {
  if (batch_size < 1) throw ValueError(fmt::format("TrainingConfig.batch_size must be positive, got {}", batch_size));
  if (max_epochs < 1) throw ValueError(fmt::format("TrainingConfig.max_epochs must be positive, got {}", max_epochs));
  if (!(validation_split >= 0.0 && validation_split < 1.0))
    throw ValueError(fmt::format("TrainingConfig.validation_split must be in [0, 1), got {}", validation_split));
  if (!(learning_rate > 0.0)) throw ValueError(fmt::format("TrainingConfig.learning_rate must be > 0, got {}", learning_rate));
  if (!lr_schedule.empty() && lr_schedule != "cosine" && lr_schedule != "step")
    throw ValueError(fmt::format("TrainingConfig.lr_schedule must be empty, \"cosine\" or \"step\", got \"{}\"", lr_schedule));
  if (early_stopping_patience < 0 || warmup_epochs < 0)
    throw ValueError("TrainingConfig.early_stopping_patience and warmup_epochs must be >= 0");
  if (gradient_clip_norm && !(*gradient_clip_norm > 0.0))
    throw ValueError(fmt::format("TrainingConfig.gradient_clip_norm must be > 0, got {}", *gradient_clip_norm));
  if (!mixed_precision.empty() && mixed_precision != "bfloat16" && mixed_precision != "float16")
    throw ValueError(fmt::format("TrainingConfig.mixed_precision must be empty, \"bfloat16\" or \"float16\", got \"{}\"",
                                 mixed_precision));
}

// ---- construction: Python's build_layers, module for module ----------------------------------------------

Network::Network(const std::string& spec_json, Device device)
    : m_spec(spec_json), m_device(std::move(device)), m_model(std::make_shared<Sequential>()) {
  const nlohmann::json spec = nlohmann::json::parse(spec_json);
  m_input_shape = spec.contains("input_shape") ? spec.at("input_shape").get<std::vector<std::int64_t>>()
                                               : std::vector<std::int64_t>{spec.at("input_size").get<std::int64_t>()};
  m_loss = loss_from_name(spec.at("loss").get<std::string>());
  m_dtype = dtype_from_name(spec.value("dtype", std::string("float32")));
  const std::uint64_t seed = spec.value("seed", std::uint64_t{0});
  const auto& layers = spec.at("layers");
  if (layers.empty()) throw ValueError("a network needs at least one layer");
  std::vector<std::int64_t> shape = m_input_shape;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerBuilder layer = LayerBuilder::from_spec_json(layers[i].dump());
    const ParameterOptions options{m_device, m_dtype, seed * 1000 + i};
    const std::string& kind = layer.kind();
    if ((kind == "dense" || kind == "flatten") && shape.size() > 1) {
      m_model->push_back(std::make_shared<Flatten>());
      shape = {product(shape)};
    }
    if (kind == "dense") {
      const std::int64_t units = layer.m_ints.at("units")[0];
      m_model->push_back(std::make_shared<Linear>(shape[0], units, true, options));
      shape = {units};
    } else if (kind == "conv2d" || kind == "max_pool2d" || kind == "avg_pool2d") {
      if (shape.size() != 3)
        throw ShapeError(fmt::format("layer {} ({}) needs a (C, H, W) input, got {} axes: start the network with "
                                     "with_input_shape({{C, H, W}})", i, kind, shape.size()));
      if (kind == "conv2d") {
        auto conv = std::make_shared<Conv2d>(shape[0], layer.m_ints.at("filters")[0], layer.m_ints.at("kernel_size"),
                                             layer.m_ints.at("stride"), layer.m_ints.at("padding"), true, options);
        shape = conv->output_shape(shape);
        m_model->push_back(conv);
      } else {
        auto pool = std::make_shared<Pool2d>(kind == "max_pool2d" ? Pool2d::Kind::max : Pool2d::Kind::average,
                                             layer.m_ints.at("pool_size"), layer.m_ints.at("stride"));
        shape = pool->output_shape(shape);
        m_model->push_back(pool);
      }
      for (auto n : shape)
        if (n < 1) throw ShapeError(fmt::format("layer {} ({}) leaves no output: its input is smaller than its window", i, kind));
    } else if (kind == "lstm" || kind == "gru") {
      if (shape.size() != 2)
        throw ShapeError(fmt::format("layer {} ({}) needs a (length, features) input, got {} axes: start the network "
                                     "with with_input_shape({{length, features}})", i, kind, shape.size()));
      const std::int64_t units = layer.m_ints.at("units")[0];
      const bool sequences = layer.m_flags.at("return_sequences");
      m_model->push_back(std::make_shared<SequenceLayer>(kind == "lstm", shape[1], units, sequences, options));
      shape = sequences ? std::vector<std::int64_t>{shape[0], units} : std::vector<std::int64_t>{units};
    } else if (kind == "dropout") {
      m_model->push_back(std::make_shared<Dropout>(layer.m_reals.at("rate"), seed * 1000 + i));
    } else if (kind == "layer_norm") {
      m_model->push_back(std::make_shared<LayerNorm>(shape.back(), 1e-5, options));
    } else if (kind == "batch_norm") {
      m_model->push_back(std::make_shared<BatchNorm>(shape[0], shape.size() == 3, 1e-5, 0.1, options));
    }
    const bool last = i + 1 == layers.size();
    if (last) m_output_activation = layer.activation_function();
    else if (layer.activation_function() != Activation::Linear)
      m_model->push_back(std::make_shared<ActivationLayer>(activation_kind(layer.activation_function())));
  }
  if (shape.size() != 1) throw ShapeError("the network's output is not flat: end it with a dense layer");
  m_output_size = shape[0];
  if (m_output_activation == Activation::Softmax && m_loss == Loss::BinaryCrossEntropy)
    throw ValueError("a Softmax output with BinaryCrossEntropy: use Sigmoid for binary outputs or "
                     "CategoricalCrossEntropy for classes");
}

std::string Network::describe() const {
  return fmt::format("Network(input_shape=({}), loss={}, device={}, parameters={})\n{}", fmt::join(m_input_shape, ", "),
                     loss_name(m_loss), m_device.str(), num_parameters(), m_model->describe());
}

// ---- forward passes and losses ------------------------------------------------------------------------------

bool Network::fused_loss() const {
  return (m_output_activation == Activation::Softmax && m_loss == Loss::CategoricalCrossEntropy) ||
         (m_output_activation == Activation::Sigmoid && m_loss == Loss::BinaryCrossEntropy);
}

Variable Network::activate(const Variable& z) const {
  if (m_output_activation == Activation::Linear) return z;
  return ActivationLayer(activation_kind(m_output_activation)).forward(z);
}

Variable Network::forward(const Variable& x) { return activate(m_model->forward(x)); }

Variable Network::loss_of(const Variable& z, const Tensor& y) const {
  switch (m_loss) {
    case Loss::CategoricalCrossEntropy: {
      if (m_output_activation == Activation::Softmax) return F::cross_entropy(z, y);
      // Another output activation: cross-entropy of its outputs as probabilities, clamped away from 0.
      Variable p = activate(z);
      Tensor t = (y.dtype() == DType::i64 || y.dtype() == DType::i32) ? F::one_hot(y, m_output_size, p.dtype()) : y;
      Variable clamped = Variable::from_op("clamp", maximum(p.value(), scalar_like(1e-12, p.value())), {p},
                                           [pv = p.value()](const Tensor& g) {
                                             return std::vector<Tensor>{where(greater(pv, scalar_like(1e-12, pv)), g, scalar_like(0.0, g))};
                                           });
      Variable log_p = Variable::from_op("log", log(clamped.value()), {clamped}, [cv = clamped.value()](const Tensor& g) {
        return std::vector<Tensor>{divide(g, cv)};
      });
      return F::scale(F::sum(F::multiply(Variable(t), log_p)), -1.0 / static_cast<double>(std::max<std::int64_t>(z.dim(0), 1)));
    }
    case Loss::BinaryCrossEntropy:
      if (m_output_activation == Activation::Sigmoid) return F::binary_cross_entropy_with_logits(z, y);
      return F::binary_cross_entropy(activate(z), y);
    case Loss::MeanSquaredError: return F::mse_loss(activate(z), y);
    case Loss::Huber: return F::huber_loss(activate(z), y);
  }
  throw ValueError("unknown loss");
}

Tensor Network::hits_of(const Tensor& z, const Tensor& y) const {
  if (m_loss == Loss::BinaryCrossEntropy) {
    const bool logits = m_output_activation == Activation::Sigmoid;
    Tensor scores = logits ? z : activate(Variable(z)).value();
    Tensor predicted = greater(scores, scalar_like(logits ? 0.0 : 0.5, scores));
    return sum(equal(predicted, greater(y, scalar_like(0.5, y))).astype(DType::f64));
  }
  Tensor predicted = argmax(z, -1);
  Tensor labels = y.ndim() == 1 ? y : argmax(y, -1);
  return sum(equal(predicted, labels.astype(predicted.dtype())).astype(DType::f64));
}

// ---- data ------------------------------------------------------------------------------------------------------

Tensor Network::inputs(const Tensor& x) const {
  const std::int64_t features = product(m_input_shape);
  if (!x.defined() || x.ndim() < 2 || x.numel() / std::max<std::int64_t>(x.dim(0), 1) != features ||
      (x.dim(0) == 0 && x.ndim() < 2))
    throw ShapeError(fmt::format("the network takes inputs of shape (N, {}), got {}", fmt::join(m_input_shape, ", "),
                                 x.defined() ? x.shape().str() : "an undefined tensor"));
  std::vector<std::int64_t> dims{x.dim(0)};
  dims.insert(dims.end(), m_input_shape.begin(), m_input_shape.end());
  Tensor out = x.reshape(dims);
  if (out.dtype() != m_dtype) out = out.astype(m_dtype);
  return out.to(m_device);
}

Tensor Network::targets(const Tensor& y, std::int64_t rows) const {
  if (!y.defined() || y.ndim() < 1) throw ShapeError("y must have a batch axis");
  if (y.dim(0) != rows) throw ShapeError(fmt::format("x has {} rows but y has {}", rows, y.dim(0)));
  if (m_loss == Loss::CategoricalCrossEntropy && y.ndim() == 1) {
    if (!is_integral(y.dtype()) || y.dtype() == DType::boolean)
      throw DTypeError(fmt::format("class labels must be integers, got {}", dtype_name(y.dtype())));
    Tensor labels = y.astype(DType::i64);
    if (rows) {
      const auto lo = static_cast<std::int64_t>(read_scalar(min(labels))), hi = static_cast<std::int64_t>(read_scalar(max(labels)));
      if (lo < 0 || hi >= m_output_size)
        throw ValueError(fmt::format("label {} is outside [0, {}) for the network's {} outputs", lo < 0 ? lo : hi,
                                     m_output_size, m_output_size));
    }
    // One-hot rows, made once on the device: batches then gather them, and the loss reads no labels back.
    return F::one_hot(labels.to(m_device), m_output_size, m_dtype, false);
  }
  Tensor t = (y.ndim() == 1 && m_output_size == 1) ? y.reshape(std::vector<std::int64_t>{rows, 1}) : y;
  if (t.ndim() != 2 || t.dim(1) != m_output_size)
    throw ShapeError(fmt::format("the network has {} outputs, got targets of shape {}", m_output_size, y.shape().str()));
  return (t.dtype() == m_dtype ? t : t.astype(m_dtype)).to(m_device);
}

// ---- training --------------------------------------------------------------------------------------------------

History Network::train(const Tensor& x_in, const Tensor& y_in, const TrainingConfig& config, std::ostream* progress) {
  config.validate();
  const Tensor x = inputs(x_in);
  const Tensor y = targets(y_in, x.dim(0));
  const std::int64_t rows = x.dim(0);
  const auto held_out = static_cast<std::int64_t>(static_cast<double>(rows) * config.validation_split);
  const std::int64_t n = rows - held_out;
  if (n < 1) throw ValueError(fmt::format("validation_split {} leaves no training rows of {}", config.validation_split, rows));
  const Tensor x_train = x.slice(0, 0, n), y_train = y.slice(0, 0, n);

  auto optimizer = make_optimizer(config, parameters());
  const std::optional<DType> precision = config.mixed_precision == "bfloat16" ? std::optional<DType>(DType::bf16)
                                         : config.mixed_precision == "float16" ? std::optional<DType>(DType::f16)
                                                                               : std::nullopt;
  amp::GradScaler scaler({.enabled = precision == DType::f16});
  const bool classification = is_classification(m_loss);
  const std::int64_t batches = (n + config.batch_size - 1) / config.batch_size;
  History history;
  if (classification) {
    history.train_metrics["accuracy"];
    if (held_out) history.val_metrics["accuracy"];
  }
  double best = std::numeric_limits<double>::infinity();
  std::map<std::string, Tensor> best_state;
  std::int64_t waited = 0;
  std::uint64_t shuffle_offset = 0;
  m_model->train(true);
  for (std::int64_t epoch = 1; epoch <= config.max_epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    optimizer->set_lr(scheduled_lr(config, epoch - 1));
    Tensor order;
    if (config.shuffle) {
      order = random_permutation(n, m_device, config.seed, shuffle_offset);
      shuffle_offset += random_blocks(n);
    }
    Tensor loss_sum = zeros(Shape{}, DType::f64, m_device), hits = zeros(Shape{}, DType::f64, m_device);
    for (std::int64_t b = 0; b < batches; ++b) {
      const std::int64_t lo = b * config.batch_size, hi = std::min(n, lo + config.batch_size);
      Tensor xb = config.shuffle ? take(x_train, order.slice(0, lo, hi), 0) : x_train.slice(0, lo, hi);
      Tensor yb = config.shuffle ? take(y_train, order.slice(0, lo, hi), 0) : y_train.slice(0, lo, hi);
      optimizer->zero_grad();
      Variable z, loss;
      {
        amp::Autocast autocast(precision.value_or(DType::bf16), precision.has_value());
        z = m_model->forward(Variable(xb));
        loss = loss_of(z, yb);
      }
      scaler.scale(loss).backward();
      if (config.gradient_clip_norm) {
        scaler.unscale_(*optimizer);  // clip the true gradients, not the scaled ones
        optim::clip_grad_norm(optimizer->params(), *config.gradient_clip_norm);
      }
      scaler.step(*optimizer);
      scaler.update();
      loss_sum = add(loss_sum, multiply(loss.value().astype(DType::f64), full(Shape{}, double(hi - lo), DType::f64, m_device)));
      if (classification) hits = add(hits, hits_of(z.value(), yb));
    }
    history.train_loss.push_back(read_scalar(loss_sum) / static_cast<double>(n));
    std::string figures = fmt::format("loss: {:.4f}", history.train_loss.back());
    if (classification) {
      history.train_metrics["accuracy"].push_back(read_scalar(hits) / static_cast<double>(n));
      figures += fmt::format(" - accuracy: {:.4f}", history.train_metrics["accuracy"].back());
    }
    if (held_out) {
      const Evaluation e = evaluate(x.slice(0, n, rows), y.slice(0, n, rows), std::max<std::int64_t>(config.batch_size, 256));
      m_model->train(true);
      history.val_loss.push_back(e.loss);
      figures += fmt::format(" - val_loss: {:.4f}", e.loss);
      if (e.accuracy) {
        history.val_metrics["accuracy"].push_back(*e.accuracy);
        figures += fmt::format(" - val_accuracy: {:.4f}", *e.accuracy);
      }
    }
    history.learning_rates.push_back(optimizer->lr());
    history.epoch_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (config.verbose && progress)
      *progress << fmt::format("Epoch {}/{} - {:.2f}s - {}\n", epoch, config.max_epochs, history.epoch_seconds.back(), figures)
                << std::flush;

    const double monitored = held_out ? history.val_loss.back() : history.train_loss.back();
    if (monitored < best - config.early_stopping_min_delta) {
      best = monitored;
      waited = 0;
      history.best_epoch = epoch;
      if (config.early_stopping_patience && config.restore_best_weights) {
        best_state.clear();
        for (const auto& [name, t] : m_model->state()) best_state[name] = t.clone();
      }
    } else if (config.early_stopping_patience && ++waited >= config.early_stopping_patience) {
      history.stopped_early = true;
      break;
    }
  }
  history.skipped_steps = scaler.skipped_steps();
  if (history.stopped_early && !best_state.empty())
    for (const auto& [name, t] : m_model->state()) copy_into(best_state.at(name), t);
  m_model->eval();
  return history;
}

Evaluation Network::evaluate(const Tensor& x_in, const Tensor& y_in, std::int64_t batch_size) {
  if (batch_size < 1) throw ValueError(fmt::format("batch_size must be positive, got {}", batch_size));
  const Tensor x = inputs(x_in);
  const Tensor y = targets(y_in, x.dim(0));
  if (x.dim(0) == 0) throw ValueError("evaluate() of an empty data set");
  m_model->eval();
  NoGradGuard no_grad;
  Tensor loss_sum = zeros(Shape{}, DType::f64, m_device), hits = zeros(Shape{}, DType::f64, m_device);
  for (std::int64_t lo = 0; lo < x.dim(0); lo += batch_size) {
    const std::int64_t hi = std::min(x.dim(0), lo + batch_size);
    const Tensor yb = y.slice(0, lo, hi);
    const Variable z = m_model->forward(Variable(x.slice(0, lo, hi)));
    loss_sum = add(loss_sum, multiply(loss_of(z, yb).value().astype(DType::f64), full(Shape{}, double(hi - lo), DType::f64, m_device)));
    if (is_classification(m_loss)) hits = add(hits, hits_of(z.value(), yb));
  }
  Evaluation e;
  const auto rows = static_cast<double>(x.dim(0));
  e.loss = read_scalar(loss_sum) / rows;
  if (is_classification(m_loss)) e.accuracy = read_scalar(hits) / rows;
  return e;
}

Tensor Network::predict(const Tensor& x_in, std::int64_t batch_size) {
  if (batch_size < 1) throw ValueError(fmt::format("batch_size must be positive, got {}", batch_size));
  const Tensor x = inputs(x_in);
  m_model->eval();
  NoGradGuard no_grad;
  Tensor out = Tensor::empty(Shape{x.dim(0), m_output_size}, m_dtype);
  for (std::int64_t lo = 0; lo < x.dim(0); lo += batch_size) {
    const std::int64_t hi = std::min(x.dim(0), lo + batch_size);
    copy_into(forward(Variable(x.slice(0, lo, hi))).value().to(Device::cpu()), out.slice(0, lo, hi));
  }
  return out;
}

// ---- files ---------------------------------------------------------------------------------------------------

void Network::save(const std::string& path) const {
  std::map<std::string, Tensor> tensors;
  for (const auto& [name, t] : m_model->state()) tensors[name] = t;
  safetensors::save_file(tensors, path, {{"format", kFormat}, {"architecture", m_spec}});
}

Network Network::load(const std::string& path, std::optional<Device> device) {
  safetensors::File file = safetensors::load_file(path);
  auto format = file.metadata.find("format");
  if (format == file.metadata.end() || format->second != kFormat)
    throw ValueError(fmt::format("{} holds no {}", path, kFormat));
  Network network(file.metadata.at("architecture"), device.value_or(Device::cpu()));
  const auto own = network.m_model->state();
  std::vector<std::string> missing;
  for (const auto& [name, p] : own)
    if (!file.tensors.count(name)) missing.push_back(name);
  if (!missing.empty() || own.size() != file.tensors.size())
    throw ValueError(fmt::format("{}: its tensors do not match the architecture (missing: {}; {} tensors for {} "
                                 "parameters and buffers)", path, fmt::join(missing, ", "), file.tensors.size(), own.size()));
  for (const auto& [name, target] : own) {
    const Tensor& t = file.tensors.at(name);
    if (t.shape() != target.shape())
      throw ShapeError(fmt::format("{}: {} has shape {}, the architecture {}", path, name, t.shape().str(),
                                   target.shape().str()));
  }
  for (const auto& [name, target] : own) copy_into(file.tensors.at(name).to(network.m_device), target);
  return network;
}

}  // namespace accelera::nn
