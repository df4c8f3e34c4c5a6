// attention and attention_backward: validation and dispatch.
// Note [Attention]
// out[i] = sum_j softmax_j(scale * q_i . k_j) v_j over the keys j that query i sees. Without a mask that is
// every key. With `causal`, the mask is aligned to the bottom-right corner of the q_len x kv_len score
// matrix: query i sees keys j <= i + (kv_len - q_len). With q_len == kv_len that is the usual lower
// triangle; with q_len < kv_len (decoding against a KV cache) the last query sees every key; with
// q_len > kv_len the first q_len - kv_len queries see no key, and get out = 0 and lse = -inf (their
// gradients are zero). This is FlashAttention's convention (v2.1 onwards).
// lse[i] = log(sum_j exp(scale * q_i . k_j)) over the visible keys: the backward pass recomputes the
// probabilities tile by tile as exp(scale * q_i . k_j - lse[i]).
#include <cmath>
#include <limits>

#include "ops/attention.hpp"
#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

struct Dims {
  std::int64_t batch, heads, q_len, kv_len, head_dim;
};

Dims check_qkv(const Tensor& q, const Tensor& k, const Tensor& v, std::string_view op) {
  check_nn_operand(q, op, "q");
  check_like(k, q, op, "k", "q");
  check_like(v, q, op, "v", "q");
  for (const auto& [t, what] : {std::pair{&q, "q"}, std::pair{&k, "k"}, std::pair{&v, "v"}}) {
    ACC_CHECK(t->ndim() == 4, ShapeError, "{}: {} must be 4-D (batch, heads, seq, head_dim), got shape {}", op, what,
              t->shape().str());
  }
  const Dims d{q.dim(0), q.dim(1), q.dim(2), k.dim(2), q.dim(3)};
  ACC_CHECK(k.dim(0) == d.batch && k.dim(1) == d.heads && k.dim(3) == d.head_dim, ShapeError,
            "{}: k {} does not match q {} in batch, heads or head_dim", op, k.shape().str(), q.shape().str());
  ACC_CHECK(v.shape() == k.shape(), ShapeError, "{}: v has shape {} but k has shape {}; they must be equal", op,
            v.shape().str(), k.shape().str());
  ACC_CHECK(d.head_dim >= 1, ShapeError, "{}: head_dim must be at least 1, got shape {}", op, q.shape().str());
  return d;
}

double resolve_scale(std::optional<double> scale, const Dims& d, std::string_view op) {
  const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(d.head_dim));
  ACC_CHECK(std::isfinite(s), ValueError, "{}: scale must be finite, got {}", op, s);
  return s;
}

DType lse_dtype(DType dtype) { return dtype == DType::f64 ? DType::f64 : DType::f32; }

// (batch, heads, seq, dim) -> contiguous (batch * heads, seq, dim).
Tensor flat_heads(const Tensor& t) {
  const std::int64_t dims[] = {t.dim(0) * t.dim(1), t.dim(2), t.dim(3)};
  return t.contiguous().reshape(dims);
}

}  // namespace

AttentionResult attention(const Tensor& q, const Tensor& k, const Tensor& v, std::optional<double> scale, bool causal) {
  constexpr std::string_view op = "attention";
  const Dims d = check_qkv(q, k, v, op);
  const double s = resolve_scale(scale, d, op);
  AttentionResult r{Tensor::empty(q.shape(), q.dtype(), q.device()),
                    Tensor::empty(Shape{d.batch, d.heads, d.q_len}, lse_dtype(q.dtype()), q.device())};
  const auto kernel = kernel_for(op::attention, q.device(), q.dtype());
  if (r.out.numel() == 0) return r;
  if (d.kv_len == 0) {  // no key at all: every query sees nothing
    fill_tensor(r.out, 0.0);
    fill_tensor(r.lse, -std::numeric_limits<double>::infinity());
    return r;
  }
  const std::int64_t lse_dims[] = {d.batch * d.heads, d.q_len};
  kernel(flat_heads(q), flat_heads(k), flat_heads(v), s, causal, flat_heads(r.out), r.lse.reshape(lse_dims));
  return r;
}

AttentionGrads attention_backward(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                                  const Tensor& out, const Tensor& lse, std::optional<double> scale, bool causal) {
  constexpr std::string_view op = "attention_backward";
  const Dims d = check_qkv(q, k, v, op);
  const double s = resolve_scale(scale, d, op);
  check_like(grad, q, op, "grad", "q");
  check_same_shape(grad, q, op, "grad", "q");
  check_like(out, q, op, "out", "q");
  check_same_shape(out, q, op, "out", "q");
  check_defined(lse, op, "lse");
  ACC_CHECK(lse.dtype() == lse_dtype(q.dtype()), DTypeError, "{}: lse must be {} (as attention returns it), got {}",
            op, dtype_name(lse_dtype(q.dtype())), dtype_name(lse.dtype()));
  ACC_CHECK(lse.device() == q.device(), DeviceError, "{}: lse is on {} but q is on {}", op, lse.device().str(),
            q.device().str());
  const Shape lse_shape{d.batch, d.heads, d.q_len};
  ACC_CHECK(lse.shape() == lse_shape, ShapeError, "{}: lse must have shape {}, got {}", op, lse_shape.str(),
            lse.shape().str());
  AttentionGrads g{Tensor::empty(q.shape(), q.dtype(), q.device()), Tensor::empty(k.shape(), k.dtype(), k.device()),
                   Tensor::empty(v.shape(), v.dtype(), v.device())};
  const auto kernel = kernel_for(op::attention_backward, q.device(), q.dtype());
  if (d.q_len == 0 || d.kv_len == 0 || d.batch * d.heads == 0) {  // nothing attends: all gradients are zero
    for (const Tensor* t : {&g.dq, &g.dk, &g.dv}) fill_tensor(*t, 0.0);
    return g;
  }
  const std::int64_t lse_dims[] = {d.batch * d.heads, d.q_len};
  kernel(flat_heads(grad), flat_heads(q), flat_heads(k), flat_heads(v), flat_heads(out),
                             lse.contiguous().reshape(lse_dims), s, causal, flat_heads(g.dq), flat_heads(g.dk),
                             flat_heads(g.dv));
  return g;
}

}  // namespace accelera
