// Differentiable functions of Variables: each forward is one or a few op-table calls, each backward the
// closed-form vector-Jacobian product (Note [The C++ autograd graph]).
#include "accelera/nn/functional.hpp"

#include <cmath>
#include <numeric>

#include "accelera/core/error.hpp"
#include "accelera/nn/amp.hpp"
#include "accelera/ops.hpp"
#include "accelera/random.hpp"

namespace accelera::nn::functional {

namespace {

using Grads = std::vector<Tensor>;

// A 0-d tensor of x's dtype and device: a float64 scalar would promote a float32 operand.
Tensor scalar(double value, const Tensor& like) { return full(Shape{}, value, like.dtype(), like.device()); }

bool wants(const Variable& v) { return v.defined() && v.requires_grad() && grad_enabled(); }

Tensor swap_last_axes(const Tensor& t) { return t.transpose(t.ndim() - 2, t.ndim() - 1); }

void check_floating(const char* op, const Variable& x) {
  if (!is_floating(x.dtype()))
    throw DTypeError(fmt::format("{} takes floating tensors, got {}", op, dtype_name(x.dtype())));
}

void check_same_shape(const char* op, const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape())
    throw ShapeError(fmt::format("{}: prediction of shape {} but target of shape {}", op, a.shape().str(),
                                 b.shape().str()));
}

Tensor target_like(const Tensor& target, const Tensor& reference) {
  Tensor t = target.device() == reference.device() ? target : target.to(reference.device());
  return t.dtype() == reference.dtype() ? t : t.astype(reference.dtype());
}

// The mean of `per_element` as a Variable whose gradient is d_per_element * g / n.
Variable mean_loss(const char* op, const Variable& input, const Tensor& per_element, Tensor d_per_element) {
  const double n = static_cast<double>(std::max<std::int64_t>(per_element.numel(), 1));
  return Variable::from_op(op, mean(per_element), {input}, [d = std::move(d_per_element), n](const Tensor& g) {
    return Grads{multiply(d, multiply(g, scalar(1.0 / n, g)))};
  });
}

std::int64_t out_extent(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                        std::int64_t dilation) {
  const std::int64_t span = in + 2 * padding - dilation * (kernel - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

std::int64_t window_value(const std::vector<std::int64_t>& values, std::size_t axis, std::int64_t fallback) {
  if (values.empty()) return fallback;
  return values.size() == 1 ? values[0] : values.at(axis);
}

}  // namespace

Variable add(const Variable& a, const Variable& b) {
  return Variable::from_op("add", accelera::add(a.value(), b.value()), {a, b},
                           [sa = a.shape(), sb = b.shape()](const Tensor& g) {
                             return Grads{sum_to_shape(g, sa), sum_to_shape(g, sb)};
                           });
}

Variable subtract(const Variable& a, const Variable& b) {
  const bool gb = wants(b);
  return Variable::from_op("subtract", accelera::subtract(a.value(), b.value()), {a, b},
                           [sa = a.shape(), sb = b.shape(), gb](const Tensor& g) {
                             return Grads{sum_to_shape(g, sa), gb ? sum_to_shape(negative(g), sb) : Tensor()};
                           });
}

Variable multiply(const Variable& a, const Variable& b) {
  const bool ga = wants(a), gb = wants(b);
  return Variable::from_op("multiply", accelera::multiply(a.value(), b.value()), {a, b},
                           [av = a.value(), bv = b.value(), ga, gb](const Tensor& g) {
                             return Grads{ga ? sum_to_shape(accelera::multiply(g, bv), av.shape()) : Tensor(),
                                          gb ? sum_to_shape(accelera::multiply(g, av), bv.shape()) : Tensor()};
                           });
}

Variable scale(const Variable& x, double factor) {
  return Variable::from_op("scale", accelera::multiply(x.value(), scalar(factor, x.value())), {x},
                           [factor](const Tensor& g) { return Grads{accelera::multiply(g, scalar(factor, g))}; });
}

Variable matmul(const Variable& a_in, const Variable& b_in) {
  const Variable a = amp::lower(a_in);
  const Variable b = amp::lower(b_in);
  if (a.ndim() < 2 || b.ndim() < 2)
    throw ShapeError(fmt::format("nn matmul takes operands of at least two axes, got shapes {} and {}",
                                 a.shape().str(), b.shape().str()));
  const bool ga = wants(a), gb = wants(b);
  return Variable::from_op("matmul", accelera::matmul(a.value(), b.value()), {a, b},
                           [av = a.value(), bv = b.value(), ga, gb](const Tensor& g) {
                             return Grads{ga ? sum_to_shape(accelera::matmul(g, swap_last_axes(bv)), av.shape()) : Tensor(),
                                          gb ? sum_to_shape(accelera::matmul(swap_last_axes(av), g), bv.shape()) : Tensor()};
                           });
}

Variable linear(const Variable& x_in, const Variable& weight_in, const Variable& bias_in) {
  const Variable x = amp::lower(x_in);
  const Variable weight = amp::lower(weight_in);
  const Variable bias = amp::lower(bias_in);
  if (weight.ndim() != 2 || x.ndim() < 1 || x.dim(-1) != weight.dim(1))
    throw ShapeError(fmt::format("linear: input of shape {} for a weight of shape {} (out, in): the input's last "
                                 "axis must be `in`", x.shape().str(), weight.shape().str()));
  if (bias.defined() && (bias.ndim() != 1 || bias.dim(0) != weight.dim(0)))
    throw ShapeError(fmt::format("linear: bias of shape {} for {} outputs", bias.shape().str(), weight.dim(0)));
  const std::int64_t in = weight.dim(1), out_features = weight.dim(0);
  Tensor x2 = x.value().reshape(std::vector<std::int64_t>{x.value().numel() / std::max<std::int64_t>(in, 1), in});
  Tensor y = accelera::matmul(x2, weight.value().T());
  if (bias.defined()) y = accelera::add(y, bias.value());
  std::vector<std::int64_t> out_dims = x.shape().dims();
  out_dims.back() = out_features;
  const bool gx = wants(x), gw = wants(weight), gbias = wants(bias);
  return Variable::from_op(
      "linear", y.reshape(out_dims), {x, weight, bias},
      [x2, w = weight.value(), xs = x.shape(), gx, gw, gbias, out_features](const Tensor& g) {
        Tensor g2 = g.reshape(std::vector<std::int64_t>{x2.dim(0), out_features});
        return Grads{gx ? accelera::matmul(g2, w).reshape(xs.dims()) : Tensor(),
                     gw ? accelera::matmul(g2.T(), x2) : Tensor(),
                     gbias ? accelera::sum(g2, std::vector<std::int64_t>{0}) : Tensor()};
      });
}

Variable astype(const Variable& x, DType dtype) {
  check_floating("astype", x);
  if (!is_floating(dtype)) throw DTypeError(fmt::format("nn astype casts to a floating dtype, not {}", dtype_name(dtype)));
  if (x.dtype() == dtype) return x;
  return Variable::from_op("astype", x.value().astype(dtype), {x},
                           [from = x.dtype()](const Tensor& g) { return Grads{g.astype(from)}; });
}

Variable reshape(const Variable& x, const std::vector<std::int64_t>& dims) {
  return Variable::from_op("reshape", x.value().reshape(dims), {x},
                           [s = x.shape()](const Tensor& g) { return Grads{g.reshape(s.dims())}; });
}

Variable flatten(const Variable& x) {
  if (x.ndim() < 1) throw ShapeError("flatten needs a batch axis, got a 0-d tensor");
  const std::int64_t rows = x.dim(0);
  const std::int64_t per_row = rows ? x.value().numel() / rows : std::accumulate(x.shape().dims().begin() + 1,
                                                                                    x.shape().dims().end(), std::int64_t{1},
                                                                                    std::multiplies<>());
  return reshape(x, {rows, per_row});
}

Variable permute(const Variable& x, const std::vector<std::int64_t>& axes) {
  if (static_cast<std::int64_t>(axes.size()) != x.ndim())
    throw ShapeError(fmt::format("permute of a {}-axis tensor by {} axes", x.ndim(), axes.size()));
  std::vector<std::int64_t> inverse(axes.size(), -1);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t a = normalize_axis(axes[i], x.ndim());
    if (inverse[static_cast<std::size_t>(a)] != -1) throw ValueError(fmt::format("permute: axis {} repeats", a));
    inverse[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(i);
  }
  return Variable::from_op("permute", x.value().permute(axes), {x},
                           [inverse](const Tensor& g) { return Grads{g.permute(inverse)}; });
}

Variable contiguous(const Variable& x) {
  if (x.value().is_contiguous()) return x;
  return Variable::from_op("contiguous", x.value().contiguous(), {x}, [](const Tensor& g) { return Grads{g}; });
}

Variable sum(const Variable& x) {
  return Variable::from_op("sum", accelera::sum(x.value()), {x}, [s = x.shape()](const Tensor& g) {
    return Grads{g.reshape(std::vector<std::int64_t>(s.ndim(), 1)).broadcast_to(s)};
  });
}

Variable mean(const Variable& x) {
  const double n = static_cast<double>(std::max<std::int64_t>(x.value().numel(), 1));
  return Variable::from_op("mean", accelera::mean(x.value()), {x}, [s = x.shape(), n](const Tensor& g) {
    Tensor scaled = accelera::multiply(g, scalar(1.0 / n, g));
    return Grads{scaled.reshape(std::vector<std::int64_t>(s.ndim(), 1)).broadcast_to(s)};
  });
}

Variable relu(const Variable& x) {
  return Variable::from_op("relu", accelera::relu(x.value()), {x}, [xv = x.value()](const Tensor& g) {
    Tensor zero = scalar(0.0, g);
    return Grads{where(greater(xv, zero), g, zero)};
  });
}

Variable leaky_relu(const Variable& x, double negative_slope) {
  Tensor xv = x.value();
  Tensor positive_part = greater(xv, scalar(0.0, xv));
  Tensor y = where(positive_part, xv, accelera::multiply(xv, scalar(negative_slope, xv)));
  return Variable::from_op("leaky_relu", y, {x}, [positive_part, negative_slope](const Tensor& g) {
    return Grads{where(positive_part, g, accelera::multiply(g, scalar(negative_slope, g)))};
  });
}

Variable sigmoid(const Variable& x) {
  Tensor y = accelera::sigmoid(x.value());
  return Variable::from_op("sigmoid", y, {x}, [y](const Tensor& g) {
    return Grads{accelera::multiply(g, accelera::multiply(y, accelera::subtract(scalar(1.0, y), y)))};
  });
}

Variable tanh(const Variable& x) {
  Tensor y = accelera::tanh(x.value());
  return Variable::from_op("tanh", y, {x}, [y](const Tensor& g) {
    return Grads{accelera::multiply(g, accelera::subtract(scalar(1.0, y), square(y)))};
  });
}

Variable gelu(const Variable& x) {
  return Variable::from_op("gelu", accelera::gelu(x.value()), {x},
                           [xv = x.value()](const Tensor& g) { return Grads{gelu_backward(g, xv)}; });
}

Variable silu(const Variable& x) {
  Tensor s = accelera::sigmoid(x.value());
  return Variable::from_op("silu", accelera::multiply(x.value(), s), {x}, [xv = x.value(), s](const Tensor& g) {
    // d/dx x s(x) = s (1 + x (1 - s))
    Tensor one = scalar(1.0, s);
    Tensor slope = accelera::multiply(s, accelera::add(one, accelera::multiply(xv, accelera::subtract(one, s))));
    return Grads{accelera::multiply(g, slope)};
  });
}

Variable softmax(const Variable& x_in, std::int64_t axis) {
  const Variable x = amp::full(x_in);
  Tensor y = accelera::softmax(x.value(), axis);
  return Variable::from_op("softmax", y, {x},
                           [y, axis](const Tensor& g) { return Grads{softmax_backward(g, y, axis)}; });
}

Variable log_softmax(const Variable& x_in, std::int64_t axis) {
  const Variable x = amp::full(x_in);
  Tensor y = accelera::log_softmax(x.value(), axis);
  return Variable::from_op("log_softmax", y, {x},
                           [y, axis](const Tensor& g) { return Grads{log_softmax_backward(g, y, axis)}; });
}

Variable dropout(const Variable& x, double p, bool training, std::uint64_t seed, std::uint64_t offset) {
  if (!(p >= 0.0 && p < 1.0)) throw ValueError(fmt::format("dropout probability must be in [0, 1), got {}", p));
  if (!training || p == 0.0) return x;
  check_floating("dropout", x);
  Tensor u = random_uniform(x.shape(), x.dtype(), x.device(), seed, offset);
  Tensor mask = accelera::multiply(greater_equal(u, scalar(p, u)).astype(x.dtype()), scalar(1.0 / (1.0 - p), u));
  return Variable::from_op("dropout", accelera::multiply(x.value(), mask), {x},
                           [mask](const Tensor& g) { return Grads{accelera::multiply(g, mask)}; });
}

Variable layer_norm(const Variable& x_in, const Variable& weight_in, const Variable& bias_in, double eps) {
  const Variable x = amp::full(x_in);
  const Variable weight = amp::full(weight_in);
  const Variable bias = amp::full(bias_in);
  const Tensor w = weight.defined() ? weight.value() : Tensor(), b = bias.defined() ? bias.value() : Tensor();
  LayerNormResult r = accelera::layer_norm(x.value(), w, b, eps);
  return Variable::from_op("layer_norm", r.out, {x, weight, bias},
                           [xv = x.value(), w, b, mean = r.mean, rstd = r.rstd](const Tensor& g) {
                             LayerNormGrads d = layer_norm_backward(g, xv, w, b, mean, rstd);
                             return Grads{d.dx, d.dweight, d.dbias};
                           });
}

Variable batch_norm(const Variable& x_in, const Tensor& running_mean, const Tensor& running_var, const Variable& weight_in,
                    const Variable& bias_in, bool training, double momentum, double eps) {
  const Variable x = amp::full(x_in);
  const Variable weight = amp::full(weight_in);
  const Variable bias = amp::full(bias_in);
  check_floating("batch_norm", x);
  if (x.ndim() < 2) throw ShapeError(fmt::format("batch_norm takes (N, C, *) inputs, got shape {}", x.shape().str()));
  const std::int64_t channels = x.dim(1);
  for (const Tensor* t : {&running_mean, &running_var})
    if (t->ndim() != 1 || t->dim(0) != channels)
      throw ShapeError(fmt::format("batch_norm: running statistics of shape {} for {} channels", t->shape().str(), channels));
  std::vector<std::int64_t> axes{0}, per_channel(static_cast<std::size_t>(x.ndim()), 1);
  for (std::int64_t a = 2; a < x.ndim(); ++a) axes.push_back(a);
  per_channel[1] = channels;
  const Tensor xv = x.value();
  const std::int64_t count = channels ? xv.numel() / channels : 0;
  Tensor mu, var;
  if (training) {
    if (count < 2)
      throw ShapeError(fmt::format("batch_norm in training needs more than one value per channel, got input shape {}",
                                   x.shape().str()));
    mu = accelera::mean(xv, axes, true);
    var = accelera::mean(square(accelera::subtract(xv, mu)), axes, true);
    const Tensor keep = scalar(1.0 - momentum, running_mean), take = scalar(momentum, running_mean);
    const Tensor unbiased = accelera::multiply(var.reshape(std::vector<std::int64_t>{channels}),
                                               scalar(static_cast<double>(count) / static_cast<double>(count - 1), var));
    copy_into(accelera::add(accelera::multiply(running_mean, keep), accelera::multiply(mu.reshape(std::vector<std::int64_t>{channels}).astype(running_mean.dtype()), take)), running_mean);
    copy_into(accelera::add(accelera::multiply(running_var, keep), accelera::multiply(unbiased.astype(running_var.dtype()), take)), running_var);
  } else {
    mu = running_mean.reshape(per_channel);
    var = running_var.reshape(per_channel);
  }
  const Tensor rstd = divide(scalar(1.0, xv), accelera::sqrt(accelera::add(var, scalar(eps, xv))));
  const Tensor xhat = accelera::multiply(accelera::subtract(xv, mu), rstd);
  Tensor y = xhat;
  if (weight.defined()) y = accelera::multiply(y, weight.value().reshape(per_channel));
  if (bias.defined()) y = accelera::add(y, bias.value().reshape(per_channel));
  const bool gx = wants(x), gw = wants(weight), gb = wants(bias);
  return Variable::from_op(
      "batch_norm", y, {x, weight, bias},
      [xhat, rstd, w = weight.defined() ? weight.value().reshape(per_channel) : Tensor(), axes, training, channels,
       gx, gw, gb](const Tensor& g) {
        const std::vector<std::int64_t> flat{channels};
        Tensor dxhat = w.defined() ? accelera::multiply(g, w) : g;
        Tensor dx;
        if (gx) {
          if (training) {
            // dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), the statistics' own gradients included
            Tensor mean_d = accelera::mean(dxhat, axes, true);
            Tensor mean_dx = accelera::mean(accelera::multiply(dxhat, xhat), axes, true);
            dx = accelera::multiply(rstd, accelera::subtract(accelera::subtract(dxhat, mean_d), accelera::multiply(xhat, mean_dx)));
          } else {
            dx = accelera::multiply(dxhat, rstd);
          }
        }
        return Grads{dx, gw ? accelera::sum(accelera::multiply(g, xhat), axes).reshape(flat) : Tensor(),
                     gb ? accelera::sum(g, axes).reshape(flat) : Tensor()};
      });
}

Variable embedding(const Tensor& indices, const Variable& weight) {
  if (weight.ndim() != 2) throw ShapeError(fmt::format("embedding: a (num, dim) table, got shape {}", weight.shape().str()));
  if (indices.dtype() != DType::i64 && indices.dtype() != DType::i32)
    throw DTypeError(fmt::format("embedding indices must be int32 or int64, got {}", dtype_name(indices.dtype())));
  const std::int64_t rows = weight.dim(0);
  Tensor flat = indices.reshape(std::vector<std::int64_t>{indices.numel()});
  if (flat.device() != weight.device()) flat = flat.to(weight.device());
  if (flat.numel()) {
    const auto lo = static_cast<std::int64_t>(*min(flat).astype(DType::i64).to(Device::cpu()).data<std::int64_t>());
    const auto hi = static_cast<std::int64_t>(*max(flat).astype(DType::i64).to(Device::cpu()).data<std::int64_t>());
    if (lo < 0 || hi >= rows)
      throw ValueError(fmt::format("embedding index {} is outside [0, {})", lo < 0 ? lo : hi, rows));
  }
  std::vector<std::int64_t> out_dims = indices.shape().dims();
  out_dims.push_back(weight.dim(1));
  return Variable::from_op("embedding", take(weight.value(), flat, 0).reshape(out_dims), {weight},
                           [flat, rows, dim = weight.dim(1), dtype = weight.dtype()](const Tensor& g) {
                             // A gather's gradient scatter-adds: one-hot^T @ g adds repeated rows up, one GEMM.
                             Tensor hot = one_hot(flat, rows, dtype, false);
                             return Grads{accelera::matmul(hot.T(), g.reshape(std::vector<std::int64_t>{flat.numel(), dim}))};
                           });
}

Variable attention(const Variable& q_in, const Variable& k_in, const Variable& v_in, bool causal, std::optional<double> scale) {
  const Variable q = amp::lower(q_in);
  const Variable k = amp::lower(k_in);
  const Variable v = amp::lower(v_in);
  AttentionResult r = accelera::attention(q.value(), k.value(), v.value(), scale, causal);
  return Variable::from_op("attention", r.out, {q, k, v},
                           [qv = q.value(), kv = k.value(), vv = v.value(), out = r.out, lse = r.lse, scale,
                            causal](const Tensor& g) {
                             AttentionGrads d = attention_backward(g.contiguous(), qv, kv, vv, out, lse, scale, causal);
                             return Grads{d.dq, d.dk, d.dv};
                           });
}

Variable conv(const Variable& x_in, const Variable& weight_in, const Variable& bias_in, const ConvWindow& window) {
  const Variable x = amp::lower(x_in);
  const Variable weight = amp::lower(weight_in);
  const Variable bias = amp::lower(bias_in);
  Tensor y = accelera::conv(x.value(), weight.value(), bias.defined() ? bias.value() : Tensor(), window);
  const bool gx = wants(x), gb = wants(bias);
  return Variable::from_op("conv", y, {x, weight, bias},
                           [xv = x.value(), w = weight.value(), window, gx, gb](const Tensor& g) {
                             ConvGrads d = conv_backward(g, xv, w, window, gx, gb);
                             return Grads{d.input, d.weight, d.bias};
                           });
}

Variable max_pool(const Variable& x, const ConvWindow& window) {
  MaxPoolResult r = accelera::max_pool(x.value(), window);
  return Variable::from_op("max_pool", r.values, {x},
                           [indices = r.indices, s = x.shape(), window](const Tensor& g) {
                             return Grads{max_pool_backward(g, indices, s, window)};
                           });
}

Variable avg_pool(const Variable& x, const ConvWindow& window) {
  check_floating("avg_pool", x);
  const std::int64_t axes = x.ndim() - 2;
  if (axes < 1 || axes > 3 || static_cast<std::int64_t>(window.kernel.size()) != axes)
    throw ShapeError(fmt::format("avg_pool: an input (N, C, *spatial) of 1 to 3 spatial axes with one kernel extent "
                                 "each, got shape {} and {} kernel extents", x.shape().str(), window.kernel.size()));
  // Every channel as its own one-channel image: each patch row is then one window of one channel.
  std::vector<std::int64_t> planes{x.dim(0) * x.dim(1), 1};
  std::vector<std::int64_t> out_dims{x.dim(0), x.dim(1)};
  std::int64_t window_size = 1;
  for (std::int64_t a = 0; a < axes; ++a) {
    const auto i = static_cast<std::size_t>(a);
    planes.push_back(x.dim(2 + a));
    const std::int64_t k = window.kernel[i];
    out_dims.push_back(out_extent(x.dim(2 + a), k, window_value(window.stride, i, k),
                                  window_value(window.padding, i, 0), window_value(window.dilation, i, 1)));
    window_size *= k;
  }
  const Shape plane_shape(planes);
  Tensor patches = im2col(x.value().reshape(planes), window);
  Tensor y = accelera::mean(patches, std::vector<std::int64_t>{1}).reshape(out_dims);
  return Variable::from_op("avg_pool", y, {x},
                           [plane_shape, s = x.shape(), window, window_size, rows = patches.dim(0)](const Tensor& g) {
                             Tensor per_entry = accelera::multiply(g, scalar(1.0 / static_cast<double>(window_size), g))
                                                    .reshape(std::vector<std::int64_t>{rows, 1})
                                                    .broadcast_to(Shape{rows, window_size})
                                                    .contiguous();
                             return Grads{col2im(per_entry, plane_shape, window).reshape(s.dims())};
                           });
}

Tensor one_hot(const Tensor& labels, std::int64_t classes, DType dtype, bool check) {
  if (labels.dtype() != DType::i64 && labels.dtype() != DType::i32)
    throw DTypeError(fmt::format("class labels must be int32 or int64, got {}", dtype_name(labels.dtype())));
  if (labels.ndim() != 1) throw ShapeError(fmt::format("class labels must be one axis, got shape {}", labels.shape().str()));
  if (check && labels.numel()) {
    const Tensor lowest = min(labels).to(Device::cpu()).astype(DType::i64);
    const Tensor highest = max(labels).to(Device::cpu()).astype(DType::i64);
    const std::int64_t lo = *lowest.data<std::int64_t>(), hi = *highest.data<std::int64_t>();
    if (lo < 0 || hi >= classes)
      throw ValueError(fmt::format("label {} is outside [0, {}) for {} classes", lo < 0 ? lo : hi, classes, classes));
  }
  Tensor ids = Tensor::empty(Shape{1, classes}, labels.dtype());
  for (std::int64_t c = 0; c < classes; ++c) {
    if (labels.dtype() == DType::i64) ids.data<std::int64_t>()[c] = c;
    else ids.data<std::int32_t>()[c] = static_cast<std::int32_t>(c);
  }
  return equal(labels.reshape(std::vector<std::int64_t>{labels.dim(0), 1}), ids.to(labels.device())).astype(dtype);
}

Variable cross_entropy(const Variable& logits_in, const Tensor& target) {
  const Variable logits = amp::full(logits_in);
  check_floating("cross_entropy", logits);
  if (logits.ndim() != 2)
    throw ShapeError(fmt::format("cross_entropy: logits must be (batch, classes), got shape {}", logits.shape().str()));
  Tensor t;
  if (target.dtype() == DType::i64 || target.dtype() == DType::i32) {
    if (target.ndim() != 1 || target.dim(0) != logits.dim(0))
      throw ShapeError(fmt::format("cross_entropy: {} rows of logits but labels of shape {}", logits.dim(0),
                                   target.shape().str()));
    t = one_hot(target.device() == logits.device() ? target : target.to(logits.device()), logits.dim(1), logits.dtype());
  } else {
    t = target_like(target, logits.value());
    check_same_shape("cross_entropy", logits.value(), t);
  }
  Tensor log_p = accelera::log_softmax(logits.value(), -1);
  const std::vector<std::int64_t> rows_axis{1};
  Tensor per_row = negative(accelera::sum(accelera::multiply(t, log_p), rows_axis));
  const double n = static_cast<double>(std::max<std::int64_t>(logits.dim(0), 1));
  return Variable::from_op("cross_entropy", accelera::mean(per_row), {logits}, [t, log_p, n](const Tensor& g) {
    // d/dz of -sum(t log_softmax(z)) = softmax(z) sum(t) - t, per row
    Tensor row_mass = accelera::sum(t, std::vector<std::int64_t>{1}, true);
    Tensor d = accelera::subtract(accelera::multiply(accelera::exp(log_p), row_mass), t);
    return Grads{accelera::multiply(d, accelera::multiply(g, scalar(1.0 / n, g)))};
  });
}

Variable binary_cross_entropy_with_logits(const Variable& logits_in, const Tensor& target) {
  const Variable logits = amp::full(logits_in);
  check_floating("binary_cross_entropy_with_logits", logits);
  Tensor z = logits.value(), t = target_like(target, z);
  check_same_shape("binary_cross_entropy_with_logits", z, t);
  Tensor per_element = accelera::add(accelera::subtract(accelera::relu(z), accelera::multiply(z, t)),
                                     log1p(accelera::exp(negative(accelera::abs(z)))));
  return mean_loss("binary_cross_entropy_with_logits", logits, per_element,
                   accelera::subtract(accelera::sigmoid(z), t));
}

Variable binary_cross_entropy(const Variable& probabilities_in, const Tensor& target, double eps) {
  const Variable probabilities = amp::full(probabilities_in);
  check_floating("binary_cross_entropy", probabilities);
  Tensor raw = probabilities.value(), t = target_like(target, raw);
  check_same_shape("binary_cross_entropy", raw, t);
  Tensor p = minimum(maximum(raw, scalar(eps, raw)), scalar(1.0 - eps, raw));
  Tensor one = scalar(1.0, p), one_minus_p = accelera::subtract(one, p);
  Tensor per_element = negative(accelera::add(accelera::multiply(t, accelera::log(p)),
                                              accelera::multiply(accelera::subtract(one, t), accelera::log(one_minus_p))));
  // d/dp = (p - t) / (p (1 - p)), zero where the clamp held p
  Tensor inside = logical_and(greater_equal(raw, scalar(eps, raw)), less_equal(raw, scalar(1.0 - eps, raw)));
  Tensor d = where(inside, divide(accelera::subtract(p, t), accelera::multiply(p, one_minus_p)), scalar(0.0, p));
  return mean_loss("binary_cross_entropy", probabilities, per_element, d);
}

Variable mse_loss(const Variable& prediction_in, const Tensor& target) {
  const Variable prediction = amp::full(prediction_in);
  check_floating("mse_loss", prediction);
  Tensor y = prediction.value(), t = target_like(target, y);
  check_same_shape("mse_loss", y, t);
  Tensor d = accelera::subtract(y, t);
  return mean_loss("mse_loss", prediction, square(d), accelera::multiply(d, scalar(2.0, d)));
}

Variable huber_loss(const Variable& prediction_in, const Tensor& target, double delta) {
  const Variable prediction = amp::full(prediction_in);
  check_floating("huber_loss", prediction);
  if (!(delta > 0)) throw ValueError(fmt::format("huber_loss: delta must be > 0, got {}", delta));
  Tensor y = prediction.value(), t = target_like(target, y);
  check_same_shape("huber_loss", y, t);
  Tensor d = accelera::subtract(y, t), a = accelera::abs(d), limit = scalar(delta, d);
  Tensor small = less_equal(a, limit);
  Tensor per_element = where(small, accelera::multiply(square(d), scalar(0.5, d)),
                             accelera::multiply(accelera::subtract(a, scalar(0.5 * delta, d)), limit));
  return mean_loss("huber_loss", prediction, per_element, minimum(maximum(d, negative(limit)), limit));
}

}  // namespace accelera::nn::functional
