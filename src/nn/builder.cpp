// The builder API's names and specs (include/accelera/nn/network.hpp). A spec is the JSON object Python's
// NetworkBuilder.spec() makes, so that the architecture saved with the weights reads the same in both.
#include <nlohmann/json.hpp>

#include "accelera/core/error.hpp"
#include "accelera/nn/network.hpp"

namespace accelera::nn {

namespace {

const std::vector<std::pair<Activation, std::string>>& activation_names() {
  static const std::vector<std::pair<Activation, std::string>> names{
      {Activation::Linear, "Linear"}, {Activation::ReLU, "ReLU"}, {Activation::LeakyReLU, "LeakyReLU"},
      {Activation::Sigmoid, "Sigmoid"}, {Activation::Tanh, "Tanh"}, {Activation::GELU, "GELU"},
      {Activation::Swish, "Swish"},     {Activation::Softmax, "Softmax"}};
  return names;
}

const std::vector<std::pair<Loss, std::string>>& loss_names() {
  static const std::vector<std::pair<Loss, std::string>> names{
      {Loss::MeanSquaredError, "MeanSquaredError"}, {Loss::CategoricalCrossEntropy, "CategoricalCrossEntropy"},
      {Loss::BinaryCrossEntropy, "BinaryCrossEntropy"}, {Loss::Huber, "Huber"}};
  return names;
}

template <class E>
E from_name(const std::vector<std::pair<E, std::string>>& names, const std::string& name, const char* what) {
  for (const auto& [value, n] : names)
    if (n == name) return value;
  if (name == "SiLU") return from_name(names, "Swish", what);
  if (name == "MSE") return from_name(names, "MeanSquaredError", what);
  if (name == "CrossEntropy") return from_name(names, "CategoricalCrossEntropy", what);
  std::string known;
  for (const auto& [value, n] : names) {
    if (!known.empty()) known += ", ";
    known += n;
  }
  throw ValueError(fmt::format("unknown {} {}; one of {}", what, name, known));
}

std::int64_t positive(std::int64_t value, const char* what) {
  if (value < 1) throw ValueError(fmt::format("{} must be positive, got {}", what, value));
  return value;
}

std::vector<std::int64_t> positive_all(std::vector<std::int64_t> values, const char* what) {
  if (values.empty() || values.size() > 2)
    throw ValueError(fmt::format("{} takes one value or two, got {}", what, values.size()));
  for (auto v : values) positive(v, what);
  return values;
}

nlohmann::json ints_json(const std::vector<std::int64_t>& values) {
  if (values.size() == 1) return values[0];
  return values;
}

std::vector<std::int64_t> ints_from_json(const nlohmann::json& value) {
  if (value.is_null()) return {};
  if (value.is_number_integer()) return {value.get<std::int64_t>()};
  return value.get<std::vector<std::int64_t>>();
}

}  // namespace

std::string activation_name(Activation a) {
  for (const auto& [value, name] : activation_names())
    if (value == a) return name;
  throw ValueError("unknown activation");
}
Activation activation_from_name(const std::string& name) { return from_name(activation_names(), name, "activation"); }

std::string loss_name(Loss l) {
  for (const auto& [value, name] : loss_names())
    if (value == l) return name;
  throw ValueError("unknown loss");
}
Loss loss_from_name(const std::string& name) { return from_name(loss_names(), name, "loss"); }

// ---- LayerBuilder -----------------------------------------------------------------------------------------

LayerBuilder LayerBuilder::dense(std::int64_t units) {
  LayerBuilder b("dense");
  b.m_ints["units"] = {positive(units, "dense units")};
  return b;
}

LayerBuilder LayerBuilder::dropout(double rate) {
  if (!(rate >= 0.0 && rate < 1.0)) throw ValueError(fmt::format("dropout rate must be in [0, 1), got {}", rate));
  LayerBuilder b("dropout");
  b.m_reals["rate"] = rate;
  return b;
}

LayerBuilder LayerBuilder::conv2d(std::int64_t filters, std::vector<std::int64_t> kernel_size,
                                  std::vector<std::int64_t> stride, std::vector<std::int64_t> padding) {
  LayerBuilder b("conv2d");
  b.m_ints["filters"] = {positive(filters, "conv2d filters")};
  b.m_ints["kernel_size"] = positive_all(std::move(kernel_size), "conv2d kernel_size");
  b.m_ints["stride"] = positive_all(std::move(stride), "conv2d stride");
  if (padding.empty() || padding.size() > 2)
    throw ValueError(fmt::format("conv2d padding takes one value or two, got {}", padding.size()));
  for (auto p : padding)
    if (p < 0) throw ValueError(fmt::format("conv2d padding must be >= 0, got {}", p));
  b.m_ints["padding"] = std::move(padding);
  return b;
}

LayerBuilder LayerBuilder::conv2d_same(std::int64_t filters, std::int64_t kernel_size) {
  if (kernel_size % 2 == 0)
    throw ValueError(fmt::format("\"same\" padding needs an odd kernel, got {}", kernel_size));
  return conv2d(filters, {kernel_size}, {1}, {kernel_size / 2});
}

LayerBuilder LayerBuilder::max_pool2d(std::vector<std::int64_t> pool_size, std::vector<std::int64_t> stride) {
  LayerBuilder b("max_pool2d");
  b.m_ints["pool_size"] = positive_all(std::move(pool_size), "pool_size");
  b.m_ints["stride"] = stride.empty() ? stride : positive_all(std::move(stride), "pool stride");
  return b;
}

LayerBuilder LayerBuilder::avg_pool2d(std::vector<std::int64_t> pool_size, std::vector<std::int64_t> stride) {
  LayerBuilder b = max_pool2d(std::move(pool_size), std::move(stride));
  b.m_kind = "avg_pool2d";
  return b;
}

LayerBuilder LayerBuilder::flatten() { return LayerBuilder("flatten"); }

LayerBuilder LayerBuilder::layer_norm() { return LayerBuilder("layer_norm"); }

LayerBuilder LayerBuilder::batch_norm() { return LayerBuilder("batch_norm"); }

LayerBuilder LayerBuilder::lstm(std::int64_t units, bool return_sequences) {
  LayerBuilder b("lstm");
  b.m_ints["units"] = {positive(units, "lstm units")};
  b.m_flags["return_sequences"] = return_sequences;
  return b;
}

LayerBuilder LayerBuilder::gru(std::int64_t units, bool return_sequences) {
  LayerBuilder b = lstm(units, return_sequences);
  b.m_kind = "gru";
  return b;
}

std::string LayerBuilder::spec_json() const {
  nlohmann::json j = {{"kind", m_kind}, {"activation", activation_name(m_activation)}};
  for (const auto& [key, values] : m_ints)
    j[key] = (key == "stride" && values.empty()) ? nlohmann::json(nullptr) : ints_json(values);
  for (const auto& [key, value] : m_reals) j[key] = value;
  for (const auto& [key, value] : m_flags) j[key] = value;
  return j.dump();
}

LayerBuilder LayerBuilder::from_spec_json(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  const std::string kind = j.at("kind").get<std::string>();
  LayerBuilder b;
  if (kind == "dense") {
    b = dense(j.at("units").get<std::int64_t>());
  } else if (kind == "dropout") {
    b = dropout(j.at("rate").get<double>());
  } else if (kind == "conv2d") {
    b = conv2d(j.at("filters").get<std::int64_t>(), ints_from_json(j.at("kernel_size")), ints_from_json(j.at("stride")),
               ints_from_json(j.at("padding")));
  } else if (kind == "max_pool2d" || kind == "avg_pool2d") {
    const auto stride = j.contains("stride") ? ints_from_json(j.at("stride")) : std::vector<std::int64_t>{};
    b = kind == "max_pool2d" ? max_pool2d(ints_from_json(j.at("pool_size")), stride)
                             : avg_pool2d(ints_from_json(j.at("pool_size")), stride);
  } else if (kind == "flatten") {
    b = flatten();
  } else if (kind == "layer_norm") {
    b = layer_norm();
  } else if (kind == "batch_norm") {
    b = batch_norm();
  } else if (kind == "lstm" || kind == "gru") {
    const std::int64_t units = j.at("units").get<std::int64_t>();
    const bool sequences = j.value("return_sequences", false);
    b = kind == "lstm" ? lstm(units, sequences) : gru(units, sequences);
  } else {
    throw ValueError(fmt::format("unknown layer kind {}", kind));
  }
  b.activation(activation_from_name(j.at("activation").get<std::string>()));
  return b;
}

// ---- NetworkBuilder -----------------------------------------------------------------------------------------

NetworkBuilder::NetworkBuilder(std::vector<std::int64_t> input_shape, Device device)
    : m_input_shape(std::move(input_shape)), m_device(std::move(device)) {
  if (m_input_shape.empty() || m_input_shape.size() > 3)
    throw ValueError(fmt::format("the input is a number of features or a (C, H, W) shape, got {} extents",
                                 m_input_shape.size()));
  for (auto n : m_input_shape) positive(n, "input size");
}

NetworkBuilder& NetworkBuilder::add_layer(LayerBuilder layer) {
  m_layers.push_back(std::move(layer));
  return *this;
}

NetworkBuilder& NetworkBuilder::loss(Loss loss) {
  m_loss = loss;
  return *this;
}

NetworkBuilder& NetworkBuilder::device(const Device& device) {
  m_device = device;
  return *this;
}

NetworkBuilder& NetworkBuilder::seed(std::uint64_t seed) {
  m_seed = seed;
  return *this;
}

NetworkBuilder& NetworkBuilder::dtype(DType dtype) {
  if (dtype != DType::f32 && dtype != DType::f64)
    throw DTypeError(fmt::format("a network computes in float32 or float64, got {}", dtype_name(dtype)));
  m_dtype = dtype;
  return *this;
}

std::string NetworkBuilder::spec_json() const {
  std::int64_t input_size = 1;
  for (auto n : m_input_shape) input_size *= n;
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& layer : m_layers) layers.push_back(nlohmann::json::parse(layer.spec_json()));
  nlohmann::json spec = {{"input_size", input_size},   {"input_shape", m_input_shape},
                         {"loss", loss_name(m_loss)},  {"seed", m_seed},
                         {"dtype", std::string(dtype_name(m_dtype))}, {"layers", layers}};
  return spec.dump();
}

Network NetworkBuilder::build() const {
  if (m_layers.empty()) throw ValueError("a network needs at least one layer");
  return Network(spec_json(), m_device);
}

NetworkBuilder Network::with_input_size(std::int64_t input_size, Device device) {
  return NetworkBuilder({input_size}, std::move(device));
}

NetworkBuilder Network::with_input_shape(std::vector<std::int64_t> input_shape, Device device) {
  return NetworkBuilder(std::move(input_shape), std::move(device));
}

}  // namespace accelera::nn
