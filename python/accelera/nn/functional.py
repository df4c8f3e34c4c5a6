"""Stateless neural-network functions over Tensors, differentiable through accelera.autograd.

The fused kernels (GELU, LayerNorm, softmax, log-softmax, attention) run as one kernel forward and one
backward; the rest are short compositions of namespace ops, each with its recorded gradient.
"""

from __future__ import annotations

import math

from .. import _elementwise as E
from .. import amp
from .. import _manipulation as M
from .. import _nn as N
from .. import _ops as O
from .. import random as _random
from .._convert import asarray
from .._core import ArgumentError, DTypeError, ShapeError, Tensor
from .._creation import arange
from ..autograd import Function

# the fused kernels, with their gradients (accelera.autograd records them), under the autocast policy
# of Note [Autocast policy]
gelu = amp.in_kernel_dtype("gelu", lowered=False)(N.gelu)
layer_norm = amp.in_float32(N.layer_norm)
softmax = amp.in_float32(N.softmax)
log_softmax = amp.in_float32(N.log_softmax)
attention = amp.in_kernel_dtype("attention", lowered=True)(N.attention)


def relu(x: Tensor) -> Tensor:
    return O.relu(x)


def leaky_relu(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    return E.where(E.greater(x, 0.0), x, O.multiply(x, float(negative_slope)))


def sigmoid(x: Tensor) -> Tensor:
    return O.sigmoid(x)


def tanh(x: Tensor) -> Tensor:
    return O.tanh(x)


def silu(x: Tensor) -> Tensor:
    """x * sigmoid(x) (Swish with beta = 1)."""
    return O.multiply(x, O.sigmoid(x))


swish = silu


class _Linear(Function):
    """x @ weight.T + bias as one recorded op: its backward makes the weight's gradient g^T x directly
    (contiguous, one GEMM) and the bias's one column sum, where the generic path would transpose and copy."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight, bias)
        y = O.matmul(x, weight.T)
        return y if bias is None else O.add(y, bias)

    @staticmethod
    def backward(ctx, g):
        # Only the gradients asked for: a first layer's input (a data batch) needs none, and its product
        # would be the largest of the step.
        x, weight, bias = ctx.saved_tensors
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad
        g2 = M.reshape(g, (-1, g.shape[-1]))
        dw = O.matmul(g2.T, M.reshape(x, (-1, x.shape[-1]))) if needs_weight else None
        db = O.sum(g2, 0) if bias is not None and needs_bias else None
        return (O.matmul(g, weight) if needs_x else None), dw, db


@amp.in_autocast_dtype
def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ weight.T + bias: weight (out, in), as in a Linear layer."""
    return _Linear.apply(x, weight, bias)


def dropout(x: Tensor, p: float, training: bool = True, generator=None) -> Tensor:
    """Zeroes each element with probability ``p`` and scales the rest by 1 / (1 - p) (inverted dropout),
    so evaluation needs no rescaling; the identity when not training or p == 0."""
    if not 0.0 <= p < 1.0:
        raise ArgumentError(f"dropout probability must be in [0, 1), got {p}")
    if not training or p == 0.0:
        return x
    u = (generator or _random._global).random(tuple(x.shape), dtype=x.dtype, device=x.device)
    keep = E.greater_equal(u, p).astype(x.dtype)
    return O.multiply(x, O.multiply(keep, 1.0 / (1.0 - p)))


@amp.in_float32
def batch_norm(x: Tensor, running_mean: Tensor, running_var: Tensor, weight=None, bias=None, training=True,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalises each channel (axis 1) over the batch and spatial axes. Training uses the batch statistics
    and updates the running ones in place (unbiased variance, as PyTorch); evaluation uses the running
    statistics."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    if training:
        mean = O.mean(x, axes, True)
        var = O.mean(O.square(O.subtract(x, mean)), axes, True)
        count = x.size // x.shape[1]
        if count < 2:
            raise ShapeError(f"batch_norm in training needs more than one value per channel, got input shape "
                             f"{tuple(x.shape)}")
        from ..autograd import no_grad
        with no_grad():
            unbiased = O.multiply(M.reshape(var.detach(), (-1,)), count / (count - 1))
            _blend_into(running_mean, M.reshape(mean.detach(), (-1,)), momentum)
            _blend_into(running_var, unbiased, momentum)
    else:
        mean, var = M.reshape(running_mean, shape), M.reshape(running_var, shape)
    y = O.divide(O.subtract(x, mean), O.sqrt(O.add(var, eps)))
    if weight is not None:
        y = O.multiply(y, M.reshape(weight, shape))
    if bias is not None:
        y = O.add(y, M.reshape(bias, shape))
    return y


def _blend_into(target: Tensor, value: Tensor, momentum: float) -> None:
    from .._core import _copy_into
    _copy_into(O.add(O.multiply(target, 1.0 - momentum), O.multiply(value, momentum)), target)


# ---- losses ---------------------------------------------------------------------------------------

def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return O.mean(loss)
    if reduction == "sum":
        return O.sum(loss)
    if reduction == "none":
        return loss
    raise ArgumentError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _same_shape(what: str, prediction: Tensor, target: Tensor) -> None:
    if tuple(prediction.shape) != tuple(target.shape):
        raise ShapeError(f"{what}: the prediction has shape {tuple(prediction.shape)}, the target "
                         f"{tuple(target.shape)}")


@amp.in_float32
def mse_loss(prediction: Tensor, target, reduction: str = "mean") -> Tensor:
    target = _like(target, prediction)
    _same_shape("mse_loss", prediction, target)
    return _reduce(O.square(O.subtract(prediction, target)), reduction)


@amp.in_float32
def huber_loss(prediction: Tensor, target, delta: float = 1.0, reduction: str = "mean") -> Tensor:
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta), d = prediction - target."""
    if not delta > 0:
        raise ArgumentError(f"huber_loss: delta must be > 0, got {delta}")
    target = _like(target, prediction)
    _same_shape("huber_loss", prediction, target)
    d = O.subtract(prediction, target)
    a = O.abs(d)
    quadratic = O.multiply(O.square(d), 0.5)
    linear_part = O.multiply(O.subtract(a, 0.5 * delta), float(delta))
    return _reduce(E.where(E.less_equal(a, float(delta)), quadratic, linear_part), reduction)


def one_hot(labels: Tensor, classes: int, dtype) -> Tensor:
    """(n,) integer labels -> (n, classes) one-hot rows, on the labels' device."""
    positions = arange(classes, dtype=labels.dtype, device=labels.device)
    return E.equal(M.expand_dims(labels, -1), positions).astype(dtype)


def check_labels(labels: Tensor, classes: int, where: str = "cross_entropy") -> None:
    """Integer labels must lie in [0, classes); one read-back of their min and max."""
    if labels.size == 0:
        return
    from .. import _statistics as S
    low, high = int(S.min(labels).item()), int(O.max(labels).item())
    if low < 0 or high >= classes:
        bad = low if low < 0 else high
        raise ArgumentError(f"{where}: label {bad} is outside [0, {classes}) for {classes} classes")


@amp.in_float32
def cross_entropy(logits: Tensor, target, reduction: str = "mean", *, check: bool = True) -> Tensor:
    """Softmax cross-entropy from logits (N, C), fused with log-softmax so that it never takes log(0).

    ``target``: integer class labels (N,) or class probabilities / one-hot rows (N, C). Labels outside
    [0, C) raise ArgumentError (``check=False`` skips that read-back)."""
    if logits.ndim != 2:
        raise ShapeError(f"cross_entropy: logits must be (batch, classes), got shape {tuple(logits.shape)}")
    target = target if isinstance(target, Tensor) else asarray(target, device=logits.device)
    if target._dtype in ("int32", "int64"):
        if tuple(target.shape) != (logits.shape[0],):
            raise ShapeError(f"cross_entropy: {logits.shape[0]} rows of logits but labels of shape "
                             f"{tuple(target.shape)}")
        if check:
            check_labels(target, logits.shape[1])
        target = one_hot(target, logits.shape[1], logits.dtype)
    else:
        target = target.astype(logits.dtype) if target._dtype != logits._dtype else target
        _same_shape("cross_entropy", logits, target)
    per_row = O.negative(O.sum(O.multiply(target, N.log_softmax(logits, -1)), 1))
    return _reduce(per_row, reduction)


@amp.in_float32
def binary_cross_entropy_with_logits(logits: Tensor, target, reduction: str = "mean") -> Tensor:
    """-(t log sigmoid(z) + (1 - t) log(1 - sigmoid(z))) computed stably as max(z, 0) - z t + log1p(exp(-|z|))."""
    target = _like(target, logits)
    _same_shape("binary_cross_entropy", logits, target)
    loss = O.add(O.subtract(O.relu(logits), O.multiply(logits, target)), E.log1p(O.exp(O.negative(O.abs(logits)))))
    return _reduce(loss, reduction)


@amp.in_float32
def binary_cross_entropy(probabilities: Tensor, target, reduction: str = "mean", eps: float = 1e-7) -> Tensor:
    """Binary cross-entropy of probabilities (clamped to [eps, 1 - eps] so that log never sees 0)."""
    target = _like(target, probabilities)
    _same_shape("binary_cross_entropy", probabilities, target)
    p = O.minimum(O.maximum(probabilities, eps), 1.0 - eps)
    loss = O.negative(O.add(O.multiply(target, O.log(p)), O.multiply(O.subtract(1.0, target), O.log(O.subtract(1.0, p)))))
    return _reduce(loss, reduction)


def _like(target, reference: Tensor) -> Tensor:
    if not isinstance(target, Tensor):
        return asarray(target, dtype=reference.dtype, device=reference.device)
    if target._dtype != reference._dtype:
        if target._dtype not in ("float32", "float64", "float16", "bfloat16", "int32", "int64", "bool"):
            raise DTypeError(f"a target of dtype {target._dtype} cannot be compared with {reference._dtype}")
        return target.astype(reference.dtype)
    return target


def scaled_dot_product_attention(q, k, v, causal: bool = False, scale=None) -> Tensor:
    """softmax(q k^T * scale) v by the flash-attention kernel (q, k, v: (batch, heads, length, dim))."""
    return attention(q, k, v, scale, causal)


def glorot_bound(fan_in: int, fan_out: int) -> float:
    return math.sqrt(6.0 / (fan_in + fan_out))


from ._windows import (avg_pool, avg_pool1d, avg_pool2d, avg_pool3d, conv, conv1d, conv2d, conv3d,  # noqa: E402
                       max_pool, max_pool1d, max_pool2d, max_pool3d)
