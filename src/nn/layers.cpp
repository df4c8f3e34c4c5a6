// Modules of accelera::nn (include/accelera/nn/layers.hpp).
#include "accelera/nn/layers.hpp"

#include <cmath>

#include <fmt/ranges.h>

#include "accelera/core/error.hpp"
#include "accelera/nn/functional.hpp"
#include "accelera/ops.hpp"
#include "accelera/random.hpp"

namespace accelera::nn {

namespace F = functional;

namespace {

std::int64_t positive(std::int64_t value, const char* what) {
  if (value < 1) throw ValueError(fmt::format("{} must be positive, got {}", what, value));
  return value;
}

// Glorot-uniform in [-bound, bound], bound = sqrt(6 / (fan_in + fan_out)), as Python's layers and Keras.
Variable glorot(const Shape& shape, std::int64_t fan_in, std::int64_t fan_out, const ParameterOptions& o) {
  if (!is_floating(o.dtype)) throw DTypeError(fmt::format("parameters are floating, got {}", dtype_name(o.dtype)));
  const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return Variable(random_uniform(shape, o.dtype, o.device, o.seed, 0, -bound, bound), true);
}

Variable filled(std::int64_t n, double value, const ParameterOptions& o) {
  return Variable(full(Shape{n}, value, o.dtype, o.device), true);
}

int spatial_axes(int axes, const char* layer) {
  if (axes < 1 || axes > 3) throw ValueError(fmt::format("{} takes 1, 2 or 3 spatial axes, got {}", layer, axes));
  return axes;
}

// "Conv2d " + what: the layer's name in messages.
std::string conv_name(int axes, const char* what) { return fmt::format("Conv{}d {}", axes, what); }

// One value for every spatial axis, or one per axis.
std::vector<std::int64_t> per_axis(const std::vector<std::int64_t>& values, int axes, const char* what) {
  const auto n = static_cast<std::size_t>(axes);
  if (values.size() == 1) return std::vector<std::int64_t>(n, values[0]);
  if (values.size() == n) return values;
  throw ValueError(fmt::format("{} takes one value or {} (one per spatial axis), got {}", what, axes, values.size()));
}

// (a, b, ...) as Python prints a tuple.
std::string extents(const std::vector<std::int64_t>& values) {
  return values.size() == 1 ? fmt::format("({},)", values[0]) : fmt::format("({})", fmt::join(values, ", "));
}

// The (C, *spatial) a window layer makes of a (C, *spatial) input.
std::vector<std::int64_t> window_output(const ConvWindow& w, const std::vector<std::int64_t>& input, std::int64_t channels,
                                        const std::string& layer) {
  if (input.size() != w.kernel.size() + 1)
    throw ShapeError(fmt::format("{} needs a (C, *spatial) input of {} spatial axes, got {} axes", layer, w.kernel.size(),
                                 input.size()));
  std::vector<std::int64_t> out{channels};
  for (std::size_t a = 0; a < w.kernel.size(); ++a) {
    const std::int64_t span = input[1 + a] + 2 * w.padding[a] - w.dilation[a] * (w.kernel[a] - 1) - 1;
    out.push_back(span < 0 ? 0 : span / w.stride[a] + 1);  // a window larger than the input leaves nothing
  }
  return out;
}

void check_image(const Variable& x, int axes, const std::string& layer) {
  if (x.ndim() != axes + 2) {
    static constexpr const char* kLayouts[] = {"", "(N, C, L)", "(N, C, H, W)", "(N, C, D, H, W)"};
    throw ShapeError(fmt::format("{} takes {} inputs, got shape {}", layer, kLayouts[axes], x.shape().str()));
  }
}

}  // namespace

// ---- Module -------------------------------------------------------------------------------------------

std::vector<std::pair<std::string, Variable>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Variable>> out(m_parameters);
  for (const auto& [name, child] : m_children)
    for (auto& [inner, parameter] : child->named_parameters()) out.emplace_back(name + "." + inner, parameter);
  return out;
}

std::vector<Variable> Module::parameters() const {
  std::vector<Variable> out;
  for (auto& [name, parameter] : named_parameters()) out.push_back(parameter);
  return out;
}

std::int64_t Module::num_parameters() const {
  std::int64_t n = 0;
  for (const auto& p : parameters()) n += p.value().numel();
  return n;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers() const {
  std::vector<std::pair<std::string, Tensor>> out(m_buffers);
  for (const auto& [name, child] : m_children)
    for (auto& [inner, buffer] : child->named_buffers()) out.emplace_back(name + "." + inner, buffer);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::state() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (auto& [name, p] : named_parameters()) out.emplace_back(name, p.value());
  for (auto& entry : named_buffers()) out.push_back(entry);
  return out;
}

void Module::register_buffer(std::string name, Tensor buffer) { m_buffers.emplace_back(std::move(name), std::move(buffer)); }

void Module::train(bool on) {
  m_training = on;
  for (auto& [name, child] : m_children) child->train(on);
}

void Module::register_parameter(std::string name, Variable parameter) {
  if (parameter.defined()) m_parameters.emplace_back(std::move(name), std::move(parameter));
}

void Module::register_module(std::string name, std::shared_ptr<Module> child) {
  if (!child) throw ValueError(fmt::format("submodule {} is null", name));
  child->train(m_training);
  m_children.emplace_back(std::move(name), std::move(child));
}

// ---- layers -------------------------------------------------------------------------------------------

Linear::Linear(std::int64_t in_features, std::int64_t out_features, bool bias, ParameterOptions options)
    : m_in(positive(in_features, "Linear in_features")), m_out(positive(out_features, "Linear out_features")) {
  m_weight = glorot(Shape{m_out, m_in}, m_in, m_out, options);
  if (bias) m_bias = filled(m_out, 0.0, options);
  register_parameter("weight", m_weight);
  register_parameter("bias", m_bias);
}

Variable Linear::forward(const Variable& x) {
  if (x.ndim() < 1 || x.dim(-1) != m_in)
    throw ShapeError(fmt::format("{} takes inputs with {} features on the last axis, got shape {}", describe(), m_in,
                                 x.shape().str()));
  return F::linear(x, m_weight, m_bias);
}

std::string Linear::describe() const {
  return fmt::format("Linear({}, {}, bias={})", m_in, m_out, m_bias.defined());
}

ConvNd::ConvNd(int axes, std::int64_t in_channels, std::int64_t out_channels, std::vector<std::int64_t> kernel_size,
               std::vector<std::int64_t> stride, std::vector<std::int64_t> padding, bool bias, ParameterOptions options,
               std::vector<std::int64_t> dilation)
    : m_axes(spatial_axes(axes, "ConvNd")),
      m_in(positive(in_channels, conv_name(axes, "in_channels").c_str())),
      m_out(positive(out_channels, conv_name(axes, "out_channels").c_str())) {
  const std::string name = conv_name(axes, "");
  m_window.kernel = per_axis(kernel_size, axes, (name + "kernel_size").c_str());
  m_window.stride = per_axis(stride, axes, (name + "stride").c_str());
  m_window.padding = per_axis(padding, axes, (name + "padding").c_str());
  m_window.dilation = per_axis(dilation, axes, (name + "dilation").c_str());
  for (auto k : m_window.kernel) positive(k, (name + "kernel extent").c_str());
  for (auto s : m_window.stride) positive(s, (name + "stride").c_str());
  for (auto d : m_window.dilation) positive(d, (name + "dilation").c_str());
  for (auto p : m_window.padding)
    if (p < 0) throw ValueError(fmt::format("{}padding must be >= 0, got {}", name, p));
  std::int64_t taps = 1;
  std::vector<std::int64_t> weight_dims{m_out, m_in};
  for (auto k : m_window.kernel) {
    taps *= k;
    weight_dims.push_back(k);
  }
  m_weight = glorot(Shape(weight_dims), m_in * taps, m_out * taps, options);
  if (bias) m_bias = filled(m_out, 0.0, options);
  register_parameter("weight", m_weight);
  register_parameter("bias", m_bias);
}

Variable ConvNd::forward(const Variable& x) {
  check_image(x, m_axes, describe());
  if (x.dim(1) != m_in)
    throw ShapeError(fmt::format("{} takes {} input channels, got shape {}", describe(), m_in, x.shape().str()));
  return F::conv(x, m_weight, m_bias, m_window);
}

std::vector<std::int64_t> ConvNd::output_shape(const std::vector<std::int64_t>& input_shape) const {
  return window_output(m_window, input_shape, m_out, describe());
}

std::string ConvNd::describe() const {
  return fmt::format("Conv{}d({}, {}, kernel_size={}, stride={}, padding={})", m_axes, m_in, m_out,
                     extents(m_window.kernel), extents(m_window.stride), extents(m_window.padding));
}

PoolNd::PoolNd(int axes, Kind kind, std::vector<std::int64_t> pool_size, std::vector<std::int64_t> stride,
               std::vector<std::int64_t> padding)
    : m_axes(spatial_axes(axes, "PoolNd")), m_kind(kind) {
  const std::string name = fmt::format("{}Pool{}d ", kind == Kind::max ? "Max" : "Avg", axes);
  m_window.kernel = per_axis(pool_size, axes, (name + "pool_size").c_str());
  m_window.stride = stride.empty() ? m_window.kernel : per_axis(stride, axes, (name + "stride").c_str());
  m_window.padding = per_axis(padding, axes, (name + "padding").c_str());
  m_window.dilation.assign(static_cast<std::size_t>(axes), 1);
  for (auto k : m_window.kernel) positive(k, (name + "pool size").c_str());
  for (auto s : m_window.stride) positive(s, (name + "stride").c_str());
  for (std::size_t a = 0; a < m_window.padding.size(); ++a) {
    // As PyTorch: a window must hold at least one element of the input, so padding is at most half of it.
    if (m_window.padding[a] < 0 || 2 * m_window.padding[a] > m_window.kernel[a])
      throw ValueError(fmt::format("{}padding must be in [0, pool_size / 2], got {} for a window of {}", name,
                                   m_window.padding[a], m_window.kernel[a]));
  }
}

Variable PoolNd::forward(const Variable& x) {
  check_image(x, m_axes, describe());
  return m_kind == Kind::max ? F::max_pool(x, m_window) : F::avg_pool(x, m_window);
}

std::vector<std::int64_t> PoolNd::output_shape(const std::vector<std::int64_t>& input_shape) const {
  return window_output(m_window, input_shape, input_shape.empty() ? 0 : input_shape[0], describe());
}

std::string PoolNd::describe() const {
  return fmt::format("{}Pool{}d(pool_size={}, stride={}, padding={})", m_kind == Kind::max ? "Max" : "Avg", m_axes,
                     extents(m_window.kernel), extents(m_window.stride), extents(m_window.padding));
}

LayerNorm::LayerNorm(std::int64_t normalized_size, double eps, ParameterOptions options)
    : m_size(positive(normalized_size, "LayerNorm size")), m_eps(eps) {
  if (!(eps > 0)) throw ValueError(fmt::format("LayerNorm eps must be > 0, got {}", eps));
  m_weight = filled(m_size, 1.0, options);
  m_bias = filled(m_size, 0.0, options);
  register_parameter("weight", m_weight);
  register_parameter("bias", m_bias);
}

Variable LayerNorm::forward(const Variable& x) {
  if (x.ndim() < 1 || x.dim(-1) != m_size)
    throw ShapeError(fmt::format("{} normalises a last axis of {}, got shape {}", describe(), m_size, x.shape().str()));
  return F::layer_norm(x, m_weight, m_bias, m_eps);
}

std::string LayerNorm::describe() const { return fmt::format("LayerNorm({}, eps={})", m_size, m_eps); }

BatchNorm::BatchNorm(std::int64_t num_features, bool image, double eps, double momentum, ParameterOptions options)
    : m_features(positive(num_features, "BatchNorm num_features")), m_image(image), m_eps(eps), m_momentum(momentum) {
  if (!(eps > 0)) throw ValueError(fmt::format("BatchNorm eps must be > 0, got {}", eps));
  if (!(momentum >= 0 && momentum <= 1)) throw ValueError(fmt::format("BatchNorm momentum must be in [0, 1], got {}", momentum));
  m_weight = filled(m_features, 1.0, options);
  m_bias = filled(m_features, 0.0, options);
  m_running_mean = full(Shape{m_features}, 0.0, options.dtype, options.device);
  m_running_var = full(Shape{m_features}, 1.0, options.dtype, options.device);
  register_parameter("weight", m_weight);
  register_parameter("bias", m_bias);
  register_buffer("running_mean", m_running_mean);
  register_buffer("running_var", m_running_var);
}

Variable BatchNorm::forward(const Variable& x) {
  const bool rank_ok = m_image ? x.ndim() == 4 : (x.ndim() == 2 || x.ndim() == 3);
  if (!rank_ok || x.dim(1) != m_features)
    throw ShapeError(fmt::format("{} expects inputs of rank {} with {} channels on axis 1, got shape {}", describe(),
                                 m_image ? "4" : "2 or 3", m_features, x.shape().str()));
  return F::batch_norm(x, m_running_mean, m_running_var, m_weight, m_bias, is_training(), m_momentum, m_eps);
}

std::string BatchNorm::describe() const {
  return fmt::format("BatchNorm{}({}, eps={}, momentum={})", m_image ? "2d" : "1d", m_features, m_eps, m_momentum);
}

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim, ParameterOptions options)
    : m_num(positive(num_embeddings, "Embedding num_embeddings")), m_dim(positive(embedding_dim, "Embedding embedding_dim")) {
  if (!is_floating(options.dtype)) throw DTypeError(fmt::format("parameters are floating, got {}", dtype_name(options.dtype)));
  m_weight = Variable(random_normal(Shape{m_num, m_dim}, options.dtype, options.device, options.seed, 0), true);
  register_parameter("weight", m_weight);
}

Variable Embedding::forward(const Variable& indices) {
  try {
    return F::embedding(indices.value(), m_weight);
  } catch (Error& e) {
    e.add_note(describe());
    throw;
  }
}

std::string Embedding::describe() const { return fmt::format("Embedding({}, {})", m_num, m_dim); }

MultiHeadAttention::MultiHeadAttention(std::int64_t embed_dim, std::int64_t num_heads, bool bias, bool causal,
                                       ParameterOptions options)
    : m_embed(positive(embed_dim, "MultiHeadAttention embed_dim")),
      m_heads(positive(num_heads, "MultiHeadAttention num_heads")), m_causal(causal) {
  if (m_embed % m_heads)
    throw ValueError(fmt::format("MultiHeadAttention: embed_dim {} is not a multiple of num_heads {}", m_embed, m_heads));
  auto projection = [&](std::uint64_t i) {
    ParameterOptions o = options;
    o.seed = options.seed * 4 + i;
    return std::make_shared<Linear>(m_embed, m_embed, bias, o);
  };
  m_q = projection(0);
  m_k = projection(1);
  m_v = projection(2);
  m_out = projection(3);
  register_module("q_proj", m_q);
  register_module("k_proj", m_k);
  register_module("v_proj", m_v);
  register_module("out_proj", m_out);
}

Variable MultiHeadAttention::heads(const Variable& x) const {
  // (B, L, E) -> (B, H, L, E / H), made contiguous for the kernel
  const Variable split = F::reshape(x, {x.dim(0), x.dim(1), m_heads, m_embed / m_heads});
  const Variable moved = F::permute(split, {0, 2, 1, 3});
  return F::contiguous(moved);
}

Variable MultiHeadAttention::forward(const Variable& x) { return forward(x, x, x); }

Variable MultiHeadAttention::forward(const Variable& query, const Variable& key, const Variable& value) {
  const std::pair<const char*, const Variable*> inputs[] = {{"query", &query}, {"key", &key}, {"value", &value}};
  for (const auto& [name, t] : inputs)
    if (t->ndim() != 3 || t->dim(2) != m_embed)
      throw ShapeError(fmt::format("{}: {} must be (batch, length, {}), got shape {}", describe(), name, m_embed,
                                   t->shape().str()));
  Variable out = F::attention(heads((*m_q)(query)), heads((*m_k)(key)), heads((*m_v)(value)), m_causal);
  const Variable merged = F::permute(out, {0, 2, 1, 3});
  return (*m_out)(F::reshape(merged, {query.dim(0), query.dim(1), m_embed}));
}

std::string MultiHeadAttention::describe() const {
  return fmt::format("MultiHeadAttention(embed_dim={}, num_heads={}, causal={})", m_embed, m_heads, m_causal);
}

Dropout::Dropout(double p, std::uint64_t seed) : m_p(p), m_seed(seed) {
  if (!(p >= 0.0 && p < 1.0)) throw ValueError(fmt::format("Dropout probability must be in [0, 1), got {}", p));
}

Variable Dropout::forward(const Variable& x) {
  if (!is_training() || m_p == 0.0) return x;
  const std::uint64_t offset = m_offset;
  m_offset += random_blocks(x.value().numel());
  return F::dropout(x, m_p, true, m_seed, offset);
}

std::string Dropout::describe() const { return fmt::format("Dropout(p={})", m_p); }

Variable Flatten::forward(const Variable& x) { return F::flatten(x); }

ActivationLayer::ActivationLayer(Kind kind, double negative_slope) : m_kind(kind), m_slope(negative_slope) {}

Variable ActivationLayer::forward(const Variable& x) {
  switch (m_kind) {
    case Kind::relu: return F::relu(x);
    case Kind::leaky_relu: return F::leaky_relu(x, m_slope);
    case Kind::sigmoid: return F::sigmoid(x);
    case Kind::tanh: return F::tanh(x);
    case Kind::gelu: return F::gelu(x);
    case Kind::silu: return F::silu(x);
    case Kind::softmax: return F::softmax(x, -1);
  }
  throw ValueError("unknown activation");
}

std::string ActivationLayer::describe() const {
  switch (m_kind) {
    case Kind::relu: return "ReLU()";
    case Kind::leaky_relu: return fmt::format("LeakyReLU(negative_slope={})", m_slope);
    case Kind::sigmoid: return "Sigmoid()";
    case Kind::tanh: return "Tanh()";
    case Kind::gelu: return "GELU()";
    case Kind::silu: return "SiLU()";
    case Kind::softmax: return "Softmax()";
  }
  return "Activation()";
}

Sequential::Sequential(std::vector<std::shared_ptr<Module>> modules) {
  for (auto& m : modules) push_back(std::move(m));
}

void Sequential::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(m_modules.size()), module);
  m_modules.push_back(std::move(module));
}

Variable Sequential::forward(const Variable& x) {
  Variable h = x;
  for (std::size_t i = 0; i < m_modules.size(); ++i) {
    try {
      h = m_modules[i]->forward(h);
    } catch (Error& e) {
      e.add_note(fmt::format("in layer {} ({})", i, m_modules[i]->describe()));
      throw;
    }
  }
  return h;
}

std::string Sequential::describe() const {
  std::string out = "Sequential(";
  for (std::size_t i = 0; i < m_modules.size(); ++i)
    out += fmt::format("\n  ({}): {}", i, m_modules[i]->describe());
  return out + (m_modules.empty() ? ")" : "\n)");
}

}  // namespace accelera::nn
