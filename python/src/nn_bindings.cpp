// The fused neural-network ops, taking Tensors (the Python package converts array-likes), and what the
// `accelera.backends` objects need to know about each backend. The GIL is released while kernels run.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

namespace {

using OptTensor = std::optional<Tensor>;

Tensor value_or_undefined(const OptTensor& t) { return t ? *t : Tensor(); }
OptTensor defined_or_none(const Tensor& t) { return t.defined() ? OptTensor(t) : std::nullopt; }
GeluApproximation approximation(const std::string& name) { return gelu_approximation_from_name(name); }

// Whether every fused neural-network op runs on the device (in float32, which every backend computes).
bool has_fused_kernels(const Device& device) {
  for (const char* op : {"gelu", "gelu_backward", "linear_gelu", "layer_norm", "layer_norm_backward", "softmax",
                         "log_softmax", "softmax_backward", "log_softmax_backward", "attention",
                         "attention_backward"}) {
    if (!supports(device, op, DType::f32)) return false;
  }
  return true;
}

// What Python's get_backend reports: whether the kind is compiled in and answers, and if not, why (the
// registry's own DeviceError message); whether it has the fused kernels; the programs it has built.
nb::dict backend_status(const std::string& kind_name) {
  const Device device = Device::parse(kind_name);
  nb::dict d;
  d["device"] = device.str();
  try {
    DeviceInterface& interface = device_interface(device);
    d["available"] = true;
    d["reason"] = "";
    d["has_fused_kernels"] = has_fused_kernels(device);
    d["compiled_kernels"] = interface.compiled_kernels(device.index);
    d["name"] = interface.device_info(device.index).name;
  } catch (const DeviceError& e) {  // "built without X support" / "no X device found": reported, not hidden
    d["available"] = false;
    d["reason"] = std::string(e.what());
    d["has_fused_kernels"] = false;
    d["compiled_kernels"] = std::vector<std::string>{};
    d["name"] = "";
  }
  return d;
}

// The hyperparameters of accelera.nn.optim's optimizers, by keyword (rule: "sgd", "adam" or "rmsprop").
OptimizerHyperparameters hyperparameters(const std::string& rule, double lr, double weight_decay, bool decoupled,
                                         double momentum, double dampening, bool nesterov, double beta1, double beta2,
                                         bool amsgrad, double alpha, bool centered, double eps, std::int64_t step) {
  OptimizerHyperparameters h;
  if (rule == "sgd") {
    h.rule = OptimizerRule::sgd;
  } else if (rule == "adam") {
    h.rule = OptimizerRule::adam;
  } else if (rule == "rmsprop") {
    h.rule = OptimizerRule::rmsprop;
  } else {
    throw ValueError("optimizer_step: rule must be 'sgd', 'adam' or 'rmsprop', got '" + rule + "'");
  }
  h.lr = lr;
  h.weight_decay = weight_decay;
  h.decoupled_weight_decay = decoupled;
  h.momentum = momentum;
  h.dampening = dampening;
  h.nesterov = nesterov;
  h.beta1 = beta1;
  h.beta2 = beta2;
  h.amsgrad = amsgrad;
  h.alpha = alpha;
  h.centered = centered;
  h.eps = eps;
  h.step = step;
  return h;
}

}  // namespace

void bind_nn(nb::module_& m) {
  const auto release = nb::call_guard<ReleaseGil>();
  m.def("gelu", [](const Tensor& x, const std::string& a) { return gelu(x, approximation(a)); }, nb::arg("x"),
        nb::arg("approximate"), release);
  m.def(
      "gelu_backward",
      [](const Tensor& g, const Tensor& x, const std::string& a) { return gelu_backward(g, x, approximation(a)); },
      nb::arg("grad"), nb::arg("x"), nb::arg("approximate"), release);
  m.def(
      "bias_gelu",
      [](const Tensor& x, const Tensor& b, const std::string& a) { return bias_gelu(x, b, approximation(a)); },
      nb::arg("x"), nb::arg("bias"), nb::arg("approximate"), release);
  m.def(
      "linear_gelu",
      [](const Tensor& x, const Tensor& w, const OptTensor& b, const std::string& a) {
        return linear_gelu(x, w, value_or_undefined(b), approximation(a));
      },
      nb::arg("x"), nb::arg("weight"), nb::arg("bias").none(), nb::arg("approximate"), release);
  m.def(
      "layer_norm",
      [](const Tensor& x, const OptTensor& w, const OptTensor& b, double eps) {
        auto r = layer_norm(x, value_or_undefined(w), value_or_undefined(b), eps);
        return std::make_tuple(r.out, r.mean, r.rstd);
      },
      nb::arg("x"), nb::arg("weight").none(), nb::arg("bias").none(), nb::arg("eps"), release);
  m.def(
      "layer_norm_backward",
      [](const Tensor& g, const Tensor& x, const OptTensor& w, const OptTensor& b, const Tensor& mean,
         const Tensor& rstd) {
        auto r = layer_norm_backward(g, x, value_or_undefined(w), value_or_undefined(b), mean, rstd);
        return std::make_tuple(r.dx, defined_or_none(r.dweight), defined_or_none(r.dbias));
      },
      nb::arg("grad"), nb::arg("x"), nb::arg("weight").none(), nb::arg("bias").none(), nb::arg("mean"),
      nb::arg("rstd"), release);
  m.def("softmax", [](const Tensor& x, std::int64_t axis) { return softmax(x, axis); }, release);
  m.def("log_softmax", [](const Tensor& x, std::int64_t axis) { return log_softmax(x, axis); }, release);
  m.def(
      "softmax_backward", [](const Tensor& g, const Tensor& y, std::int64_t axis) { return softmax_backward(g, y, axis); },
      release);
  m.def(
      "log_softmax_backward",
      [](const Tensor& g, const Tensor& y, std::int64_t axis) { return log_softmax_backward(g, y, axis); }, release);
  m.def(
      "attention",
      [](const Tensor& q, const Tensor& k, const Tensor& v, std::optional<double> scale, bool causal) {
        auto r = attention(q, k, v, scale, causal);
        return std::make_tuple(r.out, r.lse);
      },
      nb::arg("q"), nb::arg("k"), nb::arg("v"), nb::arg("scale").none(), nb::arg("causal"), release);
  m.def(
      "attention_backward",
      [](const Tensor& g, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out, const Tensor& lse,
         std::optional<double> scale, bool causal) {
        auto r = attention_backward(g, q, k, v, out, lse, scale, causal);
        return std::make_tuple(r.dq, r.dk, r.dv);
      },
      nb::arg("grad"), nb::arg("q"), nb::arg("k"), nb::arg("v"), nb::arg("out"), nb::arg("lse"),
      nb::arg("scale").none(), nb::arg("causal"), release);
  m.def(
      "im2col",
      [](const Tensor& x, const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& stride,
         const std::vector<std::int64_t>& padding, const std::vector<std::int64_t>& dilation, double pad_value) {
        return im2col(x, ConvWindow{kernel, stride, padding, dilation}, pad_value);
      },
      nb::arg("x"), nb::arg("kernel"), nb::arg("stride"), nb::arg("padding"), nb::arg("dilation"),
      nb::arg("pad_value"), release);
  m.def(
      "col2im",
      [](const Tensor& patches, const std::vector<std::int64_t>& image_shape, const std::vector<std::int64_t>& kernel,
         const std::vector<std::int64_t>& stride, const std::vector<std::int64_t>& padding,
         const std::vector<std::int64_t>& dilation) {
        return col2im(patches, Shape(image_shape), ConvWindow{kernel, stride, padding, dilation});
      },
      nb::arg("patches"), nb::arg("image_shape"), nb::arg("kernel"), nb::arg("stride"), nb::arg("padding"),
      nb::arg("dilation"), release);
  m.def(
      "conv",
      [](const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, const std::vector<std::int64_t>& stride,
         const std::vector<std::int64_t>& padding, const std::vector<std::int64_t>& dilation) {
        return conv(x, weight, bias.value_or(Tensor()), ConvWindow{{}, stride, padding, dilation});
      },
      nb::arg("x"), nb::arg("weight"), nb::arg("bias").none(), nb::arg("stride"), nb::arg("padding"),
      nb::arg("dilation"), release);
  m.def(
      "conv_backward",
      [](const Tensor& grad, const Tensor& x, const Tensor& weight, const std::vector<std::int64_t>& stride,
         const std::vector<std::int64_t>& padding, const std::vector<std::int64_t>& dilation, bool input_grad,
         bool bias_grad) {
        auto r = conv_backward(grad, x, weight, ConvWindow{{}, stride, padding, dilation}, input_grad, bias_grad);
        auto optional = [](const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; };
        return std::make_tuple(optional(r.input), r.weight, optional(r.bias));
      },
      nb::arg("grad"), nb::arg("x"), nb::arg("weight"), nb::arg("stride"), nb::arg("padding"), nb::arg("dilation"),
      nb::arg("input_grad"), nb::arg("bias_grad"), release);
  m.def(
      "lstm_cell",
      [](const Tensor& gates, const Tensor& c_prev) {
        auto r = lstm_cell(gates, c_prev);
        return std::make_tuple(r.h, r.c, r.act);
      },
      nb::arg("gates"), nb::arg("c_prev"), release);
  m.def(
      "lstm_cell_backward",
      [](const Tensor& grad_h, const Tensor& dc, const Tensor& act, const Tensor& c_prev, const Tensor& c) {
        auto r = lstm_cell_backward(grad_h, dc, act, c_prev, c);
        return std::make_tuple(r.d_gates, r.dc_prev);
      },
      nb::arg("grad_h"), nb::arg("dc"), nb::arg("act"), nb::arg("c_prev"), nb::arg("c"), release);
  m.def(
      "gru_cell",
      [](const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& h_prev) {
        auto r = gru_cell(input_gates, hidden_gates, h_prev);
        return std::make_tuple(r.h, r.act);
      },
      nb::arg("input_gates"), nb::arg("hidden_gates"), nb::arg("h_prev"), release);
  m.def(
      "gru_cell_backward",
      [](const Tensor& grad_h, const Tensor& act, const Tensor& hidden_gates, const Tensor& h_prev) {
        auto r = gru_cell_backward(grad_h, act, hidden_gates, h_prev);
        return std::make_tuple(r.d_input_gates, r.d_hidden_gates, r.dh_prev);
      },
      nb::arg("grad_h"), nb::arg("act"), nb::arg("hidden_gates"), nb::arg("h_prev"), release);
  m.def(
      "lstm_sequence",
      [](const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh,
         const OptTensor& bias, bool reverse) {
        auto r = lstm_sequence(x, h0, c0, w_ih, w_hh, bias.value_or(Tensor()), reverse);
        return std::make_tuple(r.hs, r.h_last, r.c_last, r.workspace);
      },
      nb::arg("x"), nb::arg("h0"), nb::arg("c0"), nb::arg("w_ih"), nb::arg("w_hh"), nb::arg("bias").none(),
      nb::arg("reverse"), release);
  // accelera.nn's LSTM: the same, with the (length + 1, batch, hidden) tensor that hs and c_last are parts of.
  m.def(
      "_lstm_sequence_packed",
      [](const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh,
         const OptTensor& bias, bool reverse) {
        auto r = lstm_sequence(x, h0, c0, w_ih, w_hh, bias.value_or(Tensor()), reverse);
        return std::make_tuple(r.hs_and_c_last, r.hs, r.h_last, r.c_last, r.workspace);
      },
      nb::arg("x"), nb::arg("h0"), nb::arg("c0"), nb::arg("w_ih"), nb::arg("w_hh"), nb::arg("bias").none(),
      nb::arg("reverse"), release);
  m.def(
      "lstm_sequence_backward",
      [](const Tensor& grad_hs, const Tensor& grad_c_last, const Tensor& x, const Tensor& h0, const Tensor& c0,
         const Tensor& w_ih, const Tensor& w_hh, const OptTensor& bias, bool reverse, const Tensor& hs,
         const Tensor& h_last, const Tensor& c_last, const Tensor& workspace, bool input_grad) {
        auto g = lstm_sequence_backward(grad_hs, grad_c_last, x, h0, c0, w_ih, w_hh, bias.value_or(Tensor()), reverse,
                                        LstmSequenceResult{hs, h_last, c_last, workspace}, input_grad);
        auto optional = [](const Tensor& t) { return t.defined() ? OptTensor(t) : std::nullopt; };
        return std::make_tuple(optional(g.dx), g.dh0, g.dc0, g.dw_ih, g.dw_hh, optional(g.dbias));
      },
      nb::arg("grad_hs"), nb::arg("grad_c_last"), nb::arg("x"), nb::arg("h0"), nb::arg("c0"), nb::arg("w_ih"),
      nb::arg("w_hh"), nb::arg("bias").none(), nb::arg("reverse"), nb::arg("hs"), nb::arg("h_last"),
      nb::arg("c_last"), nb::arg("workspace"), nb::arg("input_grad"), release);
  m.def(
      "gru_sequence",
      [](const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh, const OptTensor& b_ih,
         const OptTensor& b_hh, bool reverse) {
        auto r = gru_sequence(x, h0, w_ih, w_hh, b_ih.value_or(Tensor()), b_hh.value_or(Tensor()), reverse);
        return std::make_tuple(r.hs, r.h_last, r.workspace);
      },
      nb::arg("x"), nb::arg("h0"), nb::arg("w_ih"), nb::arg("w_hh"), nb::arg("b_ih").none(), nb::arg("b_hh").none(),
      nb::arg("reverse"), release);
  m.def(
      "gru_sequence_backward",
      [](const Tensor& grad_hs, const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh,
         const OptTensor& b_ih, const OptTensor& b_hh, bool reverse, const Tensor& hs, const Tensor& h_last,
         const Tensor& workspace, bool input_grad) {
        auto g = gru_sequence_backward(grad_hs, x, h0, w_ih, w_hh, b_ih.value_or(Tensor()), b_hh.value_or(Tensor()),
                                       reverse, GruSequenceResult{hs, h_last, workspace}, input_grad);
        auto optional = [](const Tensor& t) { return t.defined() ? OptTensor(t) : std::nullopt; };
        return std::make_tuple(optional(g.dx), g.dh0, g.dw_ih, g.dw_hh, optional(g.db_ih), optional(g.db_hh));
      },
      nb::arg("grad_hs"), nb::arg("x"), nb::arg("h0"), nb::arg("w_ih"), nb::arg("w_hh"), nb::arg("b_ih").none(),
      nb::arg("b_hh").none(), nb::arg("reverse"), nb::arg("hs"), nb::arg("h_last"), nb::arg("workspace"),
      nb::arg("input_grad"), release);
  m.def(
      "max_pool",
      [](const Tensor& x, const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& stride,
         const std::vector<std::int64_t>& padding, const std::vector<std::int64_t>& dilation) {
        auto r = max_pool(x, ConvWindow{kernel, stride, padding, dilation});
        return std::make_tuple(r.values, r.indices);
      },
      nb::arg("x"), nb::arg("kernel"), nb::arg("stride"), nb::arg("padding"), nb::arg("dilation"), release);
  m.def(
      "max_pool_backward",
      [](const Tensor& grad, const Tensor& indices, const std::vector<std::int64_t>& image_shape,
         const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& stride,
         const std::vector<std::int64_t>& padding, const std::vector<std::int64_t>& dilation) {
        return max_pool_backward(grad, indices, Shape(image_shape), ConvWindow{kernel, stride, padding, dilation});
      },
      nb::arg("grad"), nb::arg("indices"), nb::arg("image_shape"), nb::arg("kernel"), nb::arg("stride"),
      nb::arg("padding"), nb::arg("dilation"), release);
  m.def(
      "optimizer_step",
      [](const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
         const std::vector<std::vector<Tensor>>& state, const std::string& rule, double lr, double weight_decay,
         bool decoupled_weight_decay, double momentum, double dampening, bool nesterov, double beta1, double beta2,
         bool amsgrad, double alpha, bool centered, double eps, std::int64_t step) {
        optimizer_step(params, grads, state,
                       hyperparameters(rule, lr, weight_decay, decoupled_weight_decay, momentum, dampening, nesterov,
                                       beta1, beta2, amsgrad, alpha, centered, eps, step));
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("state"), nb::arg("rule"), nb::arg("lr"), nb::arg("weight_decay"),
      nb::arg("decoupled_weight_decay"), nb::arg("momentum"), nb::arg("dampening"), nb::arg("nesterov"),
      nb::arg("beta1"), nb::arg("beta2"), nb::arg("amsgrad"), nb::arg("alpha"), nb::arg("centered"), nb::arg("eps"),
      nb::arg("step"), release);
  m.def(
      "optimizer_state_names",
      [](const std::string& rule, double momentum, bool amsgrad, bool centered) {
        return optimizer_state_names(
            hyperparameters(rule, 0, 0, false, momentum, 0, false, 0.9, 0.999, amsgrad, 0.99, centered, 0, 1));
      },
      nb::arg("rule"), nb::arg("momentum"), nb::arg("amsgrad"), nb::arg("centered"));
  m.def("_backend_status", &backend_status, nb::arg("device"));
  m.def(
      "_synchronize",
      [](const std::string& device) {
        const Device d = Device::parse(device);
        device_interface(d).synchronize(d.index);
      },
      release);
}

}  // namespace accelera::python
