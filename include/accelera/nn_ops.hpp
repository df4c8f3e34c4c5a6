#pragma once
// Fused neural-network ops: GELU, linear + GELU, LayerNorm, softmax, attention, with their backward
// passes. Each validates its inputs (typed errors, inputs never modified), allocates the results on the
// inputs' device and runs one fused kernel of that device's backend: there is no composite fallback, so a
// backend without the kernel raises NotSupportedError. Semantics are identical on every backend.
// dtypes: float32 and float64 everywhere; float16 and bfloat16 (float32 accumulation) where the backend
// computes them (CUDA). All operands of a call share one dtype.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accelera/core/tensor.hpp"
#include "accelera/core/nn_types.hpp"
#include "accelera/core/export.hpp"

namespace accelera {

// GELU(x) element-wise. The exact form is x * Phi(x) = 0.5 x erfc(-x / sqrt(2)). On every backend
// gelu(-inf) = 0 (the limit), gelu(inf) = inf and nan stays nan.
ACC_API Tensor gelu(const Tensor& x, GeluApproximation approximation = GeluApproximation::none);
// grad * GELU'(x): the gradient of gelu with respect to x.
ACC_API Tensor gelu_backward(const Tensor& grad, const Tensor& x, GeluApproximation approximation = GeluApproximation::none);
// GELU(x + bias) in one pass; bias has x's last extent and is broadcast over the leading axes.
ACC_API Tensor bias_gelu(const Tensor& x, const Tensor& bias, GeluApproximation approximation = GeluApproximation::none);
// GELU(x @ weight^T + bias): x (..., in), weight (out, in) as in a linear layer, bias (out) or undefined;
// the result is (..., out). The bias and GELU are applied as the GEMM's epilogue.
ACC_API Tensor linear_gelu(const Tensor& x, const Tensor& weight, const Tensor& bias,
                   GeluApproximation approximation = GeluApproximation::none);

struct LayerNormResult {
  Tensor out;   // x's shape
  Tensor mean;  // x's shape without the last axis
  Tensor rstd;  // 1 / sqrt(var + eps), same shape as mean (biased variance, as PyTorch)
};
// Normalises over the last axis, then scales by weight and shifts by bias (each (n) or undefined). A row
// with nan or inf is nan. Float32 rows beyond about 1e19, whose squared deviations overflow, are still
// normalised right (their statistics are computed again on the row scaled by its largest deviation).
ACC_API LayerNormResult layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps = 1e-5);
struct LayerNormGrads {
  Tensor dx, dweight, dbias;  // dweight (dbias) is undefined when weight (bias) was
};
// Gradients of layer_norm given the upstream grad and the forward's mean and rstd.
ACC_API LayerNormGrads layer_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& bias,
                                   const Tensor& mean, const Tensor& rstd);

// exp(x - max) / sum(exp(x - max)) along `axis` (numerically stable for any finite input).
ACC_API Tensor softmax(const Tensor& x, std::int64_t axis = -1);
// x - max - log(sum(exp(x - max))) along `axis`.
ACC_API Tensor log_softmax(const Tensor& x, std::int64_t axis = -1);
// Gradient with respect to x given grad and the forward result y = softmax(x): y * (grad - sum(grad * y)).
ACC_API Tensor softmax_backward(const Tensor& grad, const Tensor& y, std::int64_t axis = -1);
// Gradient given y = log_softmax(x): grad - exp(y) * sum(grad).
ACC_API Tensor log_softmax_backward(const Tensor& grad, const Tensor& y, std::int64_t axis = -1);

struct AttentionResult {
  Tensor out;  // (batch, heads, q_len, head_dim)
  Tensor lse;  // (batch, heads, q_len): log-sum-exp of each query's scaled scores (-inf: no visible key)
};
// softmax(q k^T * scale [+ causal mask]) v for q (batch, heads, q_len, head_dim) and k, v (batch, heads,
// kv_len, head_dim); scale defaults to 1 / sqrt(head_dim). Computed flash-style: tiled, with an online
// softmax, never materialising the q_len x kv_len matrix. Causal masking is aligned to the bottom-right
// corner: query i sees keys j <= i + kv_len - q_len (as FlashAttention and KV-cache decoding); a query
// that sees no key (only when q_len > kv_len) gets a zero output and lse = -inf.
ACC_API AttentionResult attention(const Tensor& q, const Tensor& k, const Tensor& v, std::optional<double> scale = std::nullopt,
                          bool causal = false);
struct AttentionGrads {
  Tensor dq, dk, dv;
};
// Gradients of attention given the upstream grad and the forward's out and lse; the attention matrix is
// recomputed tile by tile from lse (FlashAttention-2), never stored.
ACC_API AttentionGrads attention_backward(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                                  const Tensor& out, const Tensor& lse, std::optional<double> scale = std::nullopt,
                                  bool causal = false);

// ---- sliding windows (convolution and pooling) ---------------------------------------------------------

// A window sliding over the trailing 1, 2 or 3 spatial axes of an (N, C, *spatial) image: one entry per
// spatial axis. stride, padding and dilation may be left empty (1, 0 and 1 on every axis) or hold a single
// value for every axis. Output extent per axis: (in + 2 padding - dilation (kernel - 1) - 1) / stride + 1.
struct ConvWindow {
  std::vector<std::int64_t> kernel, stride, padding, dilation;
};
// The patch matrix of x (N, C, *spatial): one row per (n, output position) in row-major order, one column
// per (c, kernel offset) in row-major order, so (N * prod(out), C * prod(kernel)). Positions in the padding
// read pad_value (0 for convolution, -inf for max pooling). A convolution is then one GEMM: patches @
// weight.reshape(C_out, -1)^T. Any floating dtype x has on the device; the result is C-contiguous.
ACC_API Tensor im2col(const Tensor& x, const ConvWindow& window, double pad_value = 0.0);
// The adjoint of im2col: each image element is the sum of the patch entries that read it (padding reads
// are dropped). image_shape is x's shape (N, C, *spatial) in the im2col call; patches must have its
// (rows, columns). Deterministic: every element sums its entries in one fixed order.
ACC_API Tensor col2im(const Tensor& patches, const Shape& image_shape, const ConvWindow& window);

// The cross-correlation (every deep-learning library's "convolution") of x (N, C_in, *spatial) with weight
// (C_out, C_in, *kernel) over 1 to 3 spatial axes, plus bias (C_out,) when it is defined: (N, C_out, *out).
// window.kernel may be left empty (weight's trailing axes are the kernel) or must equal them. A device
// with a direct convolution kernel runs it (the CPU: oneDNN, float32; accelera info --ops lists where);
// elsewhere conv is im2col and one GEMM per image. Any floating dtype x has on the device.
ACC_API Tensor conv(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvWindow& window);
// The gradients of conv given grad (N, C_out, *out): of x when input_grad (the first layer's data needs
// none), of weight, and of bias when bias_grad; the others are left undefined.
struct ConvGrads {
  Tensor input, weight, bias;
};
ACC_API ConvGrads conv_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const ConvWindow& window,
                                bool input_grad = true, bool bias_grad = true);

// Max pooling of x (N, C, *spatial): values (N, C, *out) hold the maximum of each window, indices (int64,
// the same shape) the flat position within its image plane (row-major over the spatial axes, as PyTorch's
// return_indices) of the first maximum in the window's row-major order. A NaN is the maximum (the first
// one wins); positions in the padding are never chosen, and a window entirely in the padding gives -inf and
// index -1. Any floating dtype x has on the device.
struct MaxPoolResult {
  Tensor values, indices;
};
ACC_API MaxPoolResult max_pool(const Tensor& x, const ConvWindow& window);
// The gradient of max_pool: each image element (of image_shape, x's shape) is the sum of the grad entries
// (N, C, *out) whose index names it; an index that is not a position of its own window (such as -1)
// contributes nothing. Deterministic: every element sums its entries in one fixed order.
ACC_API Tensor max_pool_backward(const Tensor& grad, const Tensor& indices, const Shape& image_shape,
                                 const ConvWindow& window);

// ---- the LSTM cell ----------------------------------------------------------------------------------------

// One LSTM step's element-wise part, fused: from the pre-activation gates (batch, 4 hidden) in PyTorch's
// order i, f, g, o (x W_ih^T + h W_hh^T + biases) and the previous cell state (batch, hidden): the new
// hidden state h = o tanh(c), the new cell state c = f c_prev + i g, and act (batch, 4 hidden), the
// activated gates (sigmoid i, f, o; tanh g) that the backward reads.
struct LstmCellResult {
  Tensor h, c, act;
};
ACC_API LstmCellResult lstm_cell(const Tensor& gates, const Tensor& c_prev);
// The step's backward: from the hidden state's gradient grad_h, the cell state's gradient dc from the next
// step, and the forward's act, c_prev and c: the pre-activation gates' gradient and c_prev's.
struct LstmCellGrads {
  Tensor d_gates, dc_prev;
};
ACC_API LstmCellGrads lstm_cell_backward(const Tensor& grad_h, const Tensor& dc, const Tensor& act,
                                         const Tensor& c_prev, const Tensor& c);

// ---- the GRU cell -----------------------------------------------------------------------------------------

// One GRU step's element-wise part, fused, in PyTorch's gate order r, z, n: from the input's gates
// input_gates = x W_ih^T + b_ih and the hidden side's hidden_gates = h_prev W_hh^T + b_hh (batch, 3 hidden)
// and the previous hidden state h_prev (batch, hidden): r = sigmoid(input_r + hidden_r), z likewise,
// n = tanh(input_n + r hidden_n), the new hidden state h = (1 - z) n + z h_prev, and act (batch, 3 hidden)
// holding r, z, n for the backward.
struct GruCellResult {
  Tensor h, act;
};
ACC_API GruCellResult gru_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& h_prev);
// The step's backward: from h's gradient grad_h and the forward's act, hidden_gates and h_prev: the
// gradients of input_gates and hidden_gates, and dh_prev = grad_h z, h_prev's gradient apart from the one
// through hidden_gates (add d_hidden W_hh for the whole of it).
struct GruCellGrads {
  Tensor d_input_gates, d_hidden_gates, dh_prev;
};
ACC_API GruCellGrads gru_cell_backward(const Tensor& grad_h, const Tensor& act, const Tensor& hidden_gates,
                                       const Tensor& h_prev);

// A whole LSTM layer in one direction over a sequence, in one kernel (where the device has one: see
// `accelera info --ops`): x (length, batch, input), the initial states h0 and c0 (batch, hidden), PyTorch's
// weights w_ih (4 hidden, input) and w_hh (4 hidden, hidden) in the gate order i, f, g, o, and one bias
// (4 hidden; b_ih + b_hh) or none. `reverse` runs from the last step to the first. Returns the hidden state
// after every step, the states after the last one, and the workspace lstm_sequence_backward reads. hs and c_last
// are the two parts of one (length + 1, batch, hidden) tensor, `hs_and_c_last`, so that an autograd node whose
// output is both (the layer's, in accelera::nn and accelera.nn) needs no concatenation.
struct LstmSequenceResult {
  Tensor hs, h_last, c_last, workspace;
  Tensor hs_and_c_last;  // hs then c_last; undefined in a result put together from its parts
};
ACC_API LstmSequenceResult lstm_sequence(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                                         const Tensor& w_hh, const Tensor& bias, bool reverse = false);
// Its backward: from the gradients of every hidden state (length, batch, hidden) and of the last cell state,
// the gradients of x (when `input_grad`), h0, c0, the weights and the bias (when there is one).
struct LstmSequenceGrads {
  Tensor dx, dh0, dc0, dw_ih, dw_hh, dbias;
};
ACC_API LstmSequenceGrads lstm_sequence_backward(const Tensor& grad_hs, const Tensor& grad_c_last, const Tensor& x,
                                                 const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                                                 const Tensor& w_hh, const Tensor& bias, bool reverse,
                                                 const LstmSequenceResult& forward, bool input_grad = true);

// A whole GRU layer in one direction over a sequence, in one kernel (where the device has one), with
// PyTorch's weights w_ih (3 hidden, input), w_hh (3 hidden, hidden) and biases b_ih, b_hh (3 hidden, each
// optional) in the gate order r, z, n: n = tanh(x W_in^T + b_in + r (h W_hn^T + b_hn)), h' = (1 - z) n + z h.
// Returns the hidden state after every step, the one after the last, and the backward's workspace.
struct GruSequenceResult {
  Tensor hs, h_last, workspace;
};
ACC_API GruSequenceResult gru_sequence(const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh,
                                       const Tensor& b_ih, const Tensor& b_hh, bool reverse = false);
struct GruSequenceGrads {
  Tensor dx, dh0, dw_ih, dw_hh, db_ih, db_hh;
};
ACC_API GruSequenceGrads gru_sequence_backward(const Tensor& grad_hs, const Tensor& x, const Tensor& h0,
                                               const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                                               const Tensor& b_hh, bool reverse, const GruSequenceResult& forward,
                                               bool input_grad = true);

// ---- fused optimizer updates ------------------------------------------------------------------------------

// The update rules of optimizer_step and their hyperparameters (PyTorch's torch.optim semantics).
enum class OptimizerRule { sgd, adam, rmsprop };

struct OptimizerHyperparameters {
  OptimizerRule rule = OptimizerRule::sgd;
  double lr = 1e-3;
  double weight_decay = 0.0;
  // true: p *= 1 - lr * weight_decay before the update (AdamW); false: g += weight_decay * p (L2).
  bool decoupled_weight_decay = false;
  double momentum = 0.0;   // sgd and rmsprop; > 0 keeps a momentum buffer
  double dampening = 0.0;  // sgd: the buffer adds (1 - dampening) g after the first step
  bool nesterov = false;   // sgd: step along g + momentum * buffer (needs momentum > 0, dampening 0)
  double beta1 = 0.9, beta2 = 0.999;  // adam: decay of the first and second moment averages
  bool amsgrad = false;               // adam: divide by the running maximum of the second moment
  double alpha = 0.99;                // rmsprop: decay of the squared-gradient average
  bool centered = false;              // rmsprop: subtract the squared mean gradient from that average
  double eps = 1e-8;                  // adam and rmsprop: added to the denominator
  // This update's number, counted from 1 for each parameter: Adam's bias corrections use it, and SGD's
  // first momentum step sets the buffer to g (later ones blend it).
  std::int64_t step = 1;
};

// The state tensors each parameter keeps under `h`, in the order optimizer_step takes them (PyTorch's
// names): sgd {"momentum_buffer"} with momentum, else none; adam {"exp_avg", "exp_avg_sq"} and
// "max_exp_avg_sq" with amsgrad; rmsprop {"square_avg"}, then "momentum_buffer" with momentum and
// "grad_avg" when centered. Each starts as zeros of the parameter's shape, dtype and device.
ACC_API std::vector<std::string> optimizer_state_names(const OptimizerHyperparameters& h);

// One optimizer step over a group of parameters, in place: params[i] and its state[i] (the tensors named
// by optimizer_state_names) are updated from grads[i] by one fused kernel (on the CPU one parallel pass
// over every parameter; on CUDA one launch per 16 parameters; on OpenCL one launch per parameter), instead
// of a dozen element-wise ops each. Every tensor is on one device in one floating dtype; params and state
// are C-contiguous, writable and share no memory with each other or with the gradients; grads[i] has
// params[i]'s shape in any layout. Everything is checked before anything is written, so a bad call leaves
// every tensor as it was.
ACC_API void optimizer_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                            const std::vector<std::vector<Tensor>>& state, const OptimizerHyperparameters& h);

}  // namespace accelera
