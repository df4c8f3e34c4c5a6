"""Layers: Linear (Dense), activations, Dropout, Flatten, Reshape, LayerNorm, BatchNorm, Embedding,
MultiHeadAttention. Each checks its input's shape and names itself in the error.

Initial weights are drawn on the host by a NumPy generator seeded per layer (``seed=``), so a model built
twice with the same seeds starts identical on every device.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _manipulation as M
from .. import _ops as O
from .._convert import asarray, device_or_default
from .._core import ArgumentError, ShapeError, Tensor
from .._dtypes import dtype as _dtype
from . import functional as F
from ._module import Module, Parameter

_init_seeds = np.random.SeedSequence(0)


def _rng(seed):
    """A generator per layer: the given seed, else the next child of a process-wide sequence (so that two
    layers never share their initial weights)."""
    if seed is None:
        (child,) = _init_seeds.spawn(1)
        return np.random.default_rng(child)
    return np.random.default_rng(seed)


def _positive(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ArgumentError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def _check_features(layer: str, x: Tensor, expected: int) -> None:
    if x.ndim < 1 or x.shape[-1] != expected:
        raise ShapeError(f"{layer} expects inputs whose last axis has {expected} features, got shape "
                         f"{tuple(x.shape)}")


class Linear(Module):
    """y = x @ weight.T + bias, weight (out_features, in_features); Glorot-uniform weights, zero bias."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *, device=None, dtype="float32",
                 seed=None):
        super().__init__()
        self.in_features = _positive(in_features, "Linear in_features")
        self.out_features = _positive(out_features, "Linear out_features")
        device = device_or_default(device)
        dt = _dtype(dtype)
        bound = F.glorot_bound(in_features, out_features)
        w = _rng(seed).uniform(-bound, bound, (out_features, in_features))
        self.weight = Parameter(asarray(w.astype(dt.name), device=device))
        self.bias = Parameter(asarray(np.zeros(out_features, dt.name), device=device)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        _check_features(f"Linear({self.in_features}, {self.out_features})", x, self.in_features)
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"{self.in_features}, {self.out_features}, bias={self.bias is not None}"


Dense = Linear


class _Activation(Module):
    fn = None

    def forward(self, x):
        return type(self).fn(x)


class ReLU(_Activation):
    fn = staticmethod(F.relu)


class Sigmoid(_Activation):
    fn = staticmethod(F.sigmoid)


class Tanh(_Activation):
    fn = staticmethod(F.tanh)


class SiLU(_Activation):
    fn = staticmethod(F.silu)


Swish = SiLU


class Identity(Module):
    def forward(self, x):
        return x


class GELU(Module):
    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, self.approximate)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = float(negative_slope)

    def forward(self, x):
        return F.leaky_relu(x, self.negative_slope)


class Softmax(Module):
    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        return F.softmax(x, self.axis)


class LogSoftmax(Softmax):
    def forward(self, x):
        return F.log_softmax(x, self.axis)


class Dropout(Module):
    """Inverted dropout in training; the identity in eval mode."""

    def __init__(self, p: float = 0.5, *, seed=None):
        super().__init__()
        if not 0.0 <= p < 1.0:
            raise ArgumentError(f"Dropout probability must be in [0, 1), got {p}")
        self.p = float(p)
        from .. import random
        self._generator = random.default_rng(seed)

    def forward(self, x):
        return F.dropout(x, self.p, self.training, self._generator)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class Flatten(Module):
    """(batch, ...) -> (batch, prod(...))."""

    def forward(self, x):
        if x.ndim < 1:
            raise ShapeError("Flatten needs an input with a batch axis")
        return M.reshape(x, (x.shape[0], -1))


class Reshape(Module):
    """(batch, ...) -> (batch, *shape)."""

    def __init__(self, *shape):
        super().__init__()
        self.shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else tuple(shape)

    def forward(self, x):
        target = math.prod(self.shape)
        if x.ndim < 1 or x.size != x.shape[0] * target:
            raise ShapeError(f"Reshape{self.shape} cannot take an input of shape {tuple(x.shape)}")
        return M.reshape(x, (x.shape[0],) + self.shape)


class LayerNorm(Module):
    """LayerNorm over the last axis, by the fused kernel (one pass forward, one backward)."""

    def __init__(self, normalized_shape: int, eps: float = 1e-5, *, device=None, dtype="float32"):
        super().__init__()
        self.normalized_shape = _positive(normalized_shape, "LayerNorm normalized_shape")
        self.eps = float(eps)
        device = device_or_default(device)
        self.weight = Parameter(asarray(np.ones(normalized_shape, _dtype(dtype).name), device=device))
        self.bias = Parameter(asarray(np.zeros(normalized_shape, _dtype(dtype).name), device=device))

    def forward(self, x):
        _check_features(f"LayerNorm({self.normalized_shape})", x, self.normalized_shape)
        return F.layer_norm(x, self.weight, self.bias, self.eps)


class _BatchNorm(Module):
    ranks = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, *, device=None,
                 dtype="float32"):
        super().__init__()
        self.num_features = _positive(num_features, f"{type(self).__name__} num_features")
        self.eps, self.momentum = float(eps), float(momentum)
        device = device_or_default(device)
        name = _dtype(dtype).name
        self.weight = Parameter(asarray(np.ones(num_features, name), device=device))
        self.bias = Parameter(asarray(np.zeros(num_features, name), device=device))
        self.register_buffer("running_mean", asarray(np.zeros(num_features, name), device=device))
        self.register_buffer("running_var", asarray(np.ones(num_features, name), device=device))

    def forward(self, x):
        if x.ndim not in self.ranks or x.shape[1] != self.num_features:
            raise ShapeError(f"{type(self).__name__}({self.num_features}) expects inputs of rank "
                             f"{' or '.join(map(str, self.ranks))} with {self.num_features} channels on axis 1, got "
                             f"shape {tuple(x.shape)}")
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias, self.training,
                            self.momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    """BatchNorm over (batch, features) or (batch, channels, length)."""
    ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """BatchNorm over (batch, channels, height, width)."""
    ranks = (4,)


class Embedding(Module):
    """Rows of a (num_embeddings, dim) table by integer index; the gradient adds repeated indices up."""

    def __init__(self, num_embeddings: int, embedding_dim: int, *, device=None, dtype="float32", seed=None):
        super().__init__()
        self.num_embeddings = _positive(num_embeddings, "Embedding num_embeddings")
        self.embedding_dim = _positive(embedding_dim, "Embedding embedding_dim")
        w = _rng(seed).standard_normal((num_embeddings, embedding_dim)).astype(_dtype(dtype).name)
        self.weight = Parameter(asarray(w, device=device_or_default(device)))

    def forward(self, indices):
        indices = indices if isinstance(indices, Tensor) else asarray(indices, device=self.weight.device)
        if indices._dtype not in ("int32", "int64"):
            raise ArgumentError(f"Embedding({self.num_embeddings}, {self.embedding_dim}) takes integer indices, "
                                f"got {indices._dtype}")
        F.check_labels(indices, self.num_embeddings, f"Embedding({self.num_embeddings}, {self.embedding_dim})")
        return O.take(self.weight, indices, axis=0)


class MultiHeadAttention(Module):
    """Multi-head self/cross attention over (batch, length, embed_dim) by the flash-attention kernel: the
    length x length score matrix is never stored, forward or backward."""

    def __init__(self, embed_dim: int, num_heads: int, bias: bool = True, *, causal: bool = False, device=None,
                 dtype="float32", seed=None):
        super().__init__()
        self.embed_dim = _positive(embed_dim, "MultiHeadAttention embed_dim")
        self.num_heads = _positive(num_heads, "MultiHeadAttention num_heads")
        if embed_dim % num_heads:
            raise ArgumentError(f"MultiHeadAttention: embed_dim {embed_dim} is not a multiple of num_heads "
                                f"{num_heads}")
        self.causal = bool(causal)
        rng = _rng(seed)
        seeds = rng.integers(0, 2**63, 4)
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (
            Linear(embed_dim, embed_dim, bias, device=device, dtype=dtype, seed=int(s)) for s in seeds)

    def _heads(self, x):
        b, n, _ = x.shape
        return M.permute_dims(M.reshape(x, (b, n, self.num_heads, self.embed_dim // self.num_heads)), (0, 2, 1, 3))

    def forward(self, query, key=None, value=None):
        key = query if key is None else key
        value = key if value is None else value
        for name, t in (("query", query), ("key", key), ("value", value)):
            if t.ndim != 3 or t.shape[-1] != self.embed_dim:
                raise ShapeError(f"MultiHeadAttention({self.embed_dim}, {self.num_heads}): {name} must be "
                                 f"(batch, length, {self.embed_dim}), got {tuple(t.shape)}")
        q, k, v = self._heads(self.q_proj(query)), self._heads(self.k_proj(key)), self._heads(self.v_proj(value))
        out = F.attention(q.contiguous(), k.contiguous(), v.contiguous(), None, self.causal)
        b, _, n, _ = out.shape
        return self.out_proj(M.reshape(M.permute_dims(out, (0, 2, 1, 3)), (b, n, self.embed_dim)))
