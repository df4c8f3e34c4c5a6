"""The gradient of every differentiable function of the namespace, as vector-Jacobian products.

``VJP[name](out, *args, **kwargs)`` is called after the forward with its result and arguments and returns
``vjp(grad)``: the gradients of the positional parameters, in the function's parameter order (None where
there is none). Gradients of broadcast operands may keep the result's shape: the engine sums them down
(Note [Autograd graph]). ``FORWARD[name](fn, *args, **kwargs)`` is for fused ops whose backward needs what
only the forward computes (LayerNorm's statistics, attention's log-sum-exp): it runs the forward itself
and returns ``(result, recorded_output, vjp)``.

Every rule is checked against float64 central differences in tests/python/test_autograd_rules.py.
Piecewise-constant functions (floor, sign, ...) have zero gradients, as in calculus almost everywhere.
"""

from __future__ import annotations

import math

from .. import _core
from .. import _creation as C
from .. import _elementwise as E
from .. import _manipulation as M
from .. import _nn as N
from .. import _ops as O
from .. import _statistics as S
from .._core import Tensor
from ._engine import requires_grad

VJP: dict = {}
FORWARD: dict = {}


def vjp(*names):
    def register(maker):
        for name in names:
            VJP[name] = maker
        return maker
    return register


def forward(name):
    def register(maker):
        FORWARD[name] = maker
        return maker
    return register


def _zeros(out, *args, **kwargs):
    # one zero gradient per argument (a tensor operand gets zeros, never None: its .grad is defined)
    return lambda g: (O.multiply(g, 0.0),) * len(args)


for _name in ("floor", "ceil", "trunc", "round", "sign", "floor_divide"):
    VJP[_name] = _zeros

# ---------------------------------------------------------------------------------------------- unary


@vjp("negative")
def _negative(out, x):
    return lambda g: (O.negative(g),)


@vjp("positive")
def _positive(out, x):
    return lambda g: (g,)


@vjp("abs")
def _abs(out, x):
    return lambda g: (O.multiply(g, E.sign(x)),)


@vjp("square")
def _square(out, x):
    return lambda g: (O.multiply(g, O.multiply(x, 2.0)),)


@vjp("sqrt")
def _sqrt(out, x):
    return lambda g: (O.divide(g, O.multiply(out, 2.0)),)


@vjp("exp")
def _exp(out, x):
    return lambda g: (O.multiply(g, out),)


@vjp("expm1")
def _expm1(out, x):
    return lambda g: (O.multiply(g, O.add(out, 1.0)),)


@vjp("log")
def _log(out, x):
    return lambda g: (O.divide(g, x),)


@vjp("log1p")
def _log1p(out, x):
    return lambda g: (O.divide(g, O.add(x, 1.0)),)


@vjp("log2")
def _log2(out, x):
    return lambda g: (O.divide(g, O.multiply(x, math.log(2.0))),)


@vjp("log10")
def _log10(out, x):
    return lambda g: (O.divide(g, O.multiply(x, math.log(10.0))),)


@vjp("sin")
def _sin(out, x):
    return lambda g: (O.multiply(g, E.cos(x)),)


@vjp("cos")
def _cos(out, x):
    return lambda g: (O.negative(O.multiply(g, E.sin(x))),)


@vjp("tan")
def _tan(out, x):
    return lambda g: (O.multiply(g, O.add(O.square(out), 1.0)),)


@vjp("asin")
def _asin(out, x):
    return lambda g: (O.divide(g, O.sqrt(O.subtract(1.0, O.square(x)))),)


@vjp("acos")
def _acos(out, x):
    return lambda g: (O.negative(O.divide(g, O.sqrt(O.subtract(1.0, O.square(x))))),)


@vjp("atan")
def _atan(out, x):
    return lambda g: (O.divide(g, O.add(O.square(x), 1.0)),)


@vjp("sinh")
def _sinh(out, x):
    return lambda g: (O.multiply(g, E.cosh(x)),)


@vjp("cosh")
def _cosh(out, x):
    return lambda g: (O.multiply(g, E.sinh(x)),)


@vjp("tanh")
def _tanh(out, x):
    return lambda g: (O.multiply(g, O.subtract(1.0, O.square(out))),)


@vjp("asinh")
def _asinh(out, x):
    return lambda g: (O.divide(g, O.sqrt(O.add(O.square(x), 1.0))),)


@vjp("acosh")
def _acosh(out, x):
    return lambda g: (O.divide(g, O.sqrt(O.subtract(O.square(x), 1.0))),)


@vjp("atanh")
def _atanh(out, x):
    return lambda g: (O.divide(g, O.subtract(1.0, O.square(x))),)


@vjp("reciprocal")
def _reciprocal(out, x):
    return lambda g: (O.negative(O.multiply(g, O.square(out))),)


@vjp("sigmoid")
def _sigmoid(out, x):
    return lambda g: (O.multiply(g, O.multiply(out, O.subtract(1.0, out))),)


@vjp("relu")
def _relu(out, x):
    return lambda g: (E.where(E.greater(x, 0.0), g, 0.0),)


@vjp("gelu")
def _gelu(out, x, approximate="none"):
    return lambda g: (N.gelu_backward(g, x, approximate),)


# --------------------------------------------------------------------------------------------- binary


@vjp("add")
def _add(out, a, b):
    return lambda g: (g, g)


# Binary rules make only the gradients asked for: an operand that needs none (a constant, a data batch, a
# Python number) costs no kernel. Whether it needs one is fixed when the op is recorded, as the graph's edges are.


@vjp("subtract")
def _subtract(out, a, b):
    need_b = requires_grad(b)
    return lambda g: (g, O.negative(g) if need_b else None)


@vjp("multiply")
def _multiply(out, a, b):
    need_a, need_b = requires_grad(a), requires_grad(b)
    return lambda g: (O.multiply(g, b) if need_a else None, O.multiply(g, a) if need_b else None)


@vjp("divide")
def _divide(out, a, b):
    need_a, need_b = requires_grad(a), requires_grad(b)
    return lambda g: (O.divide(g, b) if need_a else None,
                      O.negative(O.divide(O.multiply(g, out), b)) if need_b else None)


@vjp("pow")
def _pow(out, a, b):
    need_a = requires_grad(a)

    def grads(g):
        ga = O.multiply(g, O.multiply(b, E.pow(a, O.subtract(b, 1.0)))) if need_a else None
        gb = None
        if getattr(b, "_rg", False):
            # d/db a**b = a**b log a; 0 where a == 0 and b > 0 (the limit), never nan from 0 * -inf
            gb = E.where(E.equal(a, 0.0), 0.0, O.multiply(g, O.multiply(out, O.log(a))))
        return ga, gb
    return grads


@vjp("maximum", "minimum")
def _extremum(out, a, b):
    need_a, need_b = requires_grad(a), requires_grad(b)

    def grads(g):
        # ties share the gradient equally (the subgradient PyTorch and JAX pick too)
        tie = E.equal(a, b)
        share = E.where(tie, O.multiply(g, 0.5), g)
        return (E.where(E.equal(a, out), share, 0.0) if need_a else None,
                E.where(E.equal(b, out), share, 0.0) if need_b else None)
    return grads


@vjp("atan2")
def _atan2(out, y, x):
    need_y, need_x = requires_grad(y), requires_grad(x)

    def grads(g):
        r2 = O.add(O.square(x), O.square(y))
        return (O.divide(O.multiply(g, x), r2) if need_y else None,
                O.negative(O.divide(O.multiply(g, y), r2)) if need_x else None)
    return grads


@vjp("hypot")
def _hypot(out, a, b):
    need_a, need_b = requires_grad(a), requires_grad(b)
    return lambda g: (O.multiply(g, O.divide(a, out)) if need_a else None,
                      O.multiply(g, O.divide(b, out)) if need_b else None)


@vjp("logaddexp")
def _logaddexp(out, a, b):
    need_a, need_b = requires_grad(a), requires_grad(b)
    return lambda g: (O.multiply(g, O.exp(O.subtract(a, out))) if need_a else None,
                      O.multiply(g, O.exp(O.subtract(b, out))) if need_b else None)


@vjp("copysign")
def _copysign(out, a, b):
    need_a, need_b = requires_grad(a), requires_grad(b)
    return lambda g: (O.multiply(g, O.multiply(E.sign(a), E.sign(out))) if need_a else None,
                      O.multiply(g, 0.0) if need_b else None)


@vjp("remainder")
def _remainder(out, a, b):
    need_b = requires_grad(b)
    return lambda g: (g, O.negative(O.multiply(g, E.floor_divide(a, b))) if need_b else None)


@vjp("where")
def _where(out, condition, a, b):
    need_a, need_b = requires_grad(a), requires_grad(b)
    return lambda g: (None, E.where(condition, g, 0.0) if need_a else None,
                      E.where(condition, 0.0, g) if need_b else None)


@vjp("clip")
def _clip(out, x, min=None, max=None):  # noqa: A002  (clip's parameter names)
    def grads(g):
        # x gets the gradient where it passed through; a Tensor bound where it is the result instead (a bound
        # equal to x leaves the gradient with x, as PyTorch's clamp does).
        kept = E.equal(out, x)
        clipped = E.logical_not(kept)
        at_min = None if not isinstance(min, Tensor) else E.where(E.logical_and(clipped, E.equal(out, min)), g, 0.0)
        at_max = None
        if isinstance(max, Tensor):
            by_max = E.logical_and(clipped, E.equal(out, max))
            if at_min is not None:
                by_max = E.logical_and(by_max, E.not_equal(out, min))
            at_max = E.where(by_max, g, 0.0)
        return E.where(kept, g, 0.0), at_min, at_max
    return grads


@vjp("tril")
def _tril(out, x, *, k=0):
    return lambda g: (C.tril(g, k=k),)


@vjp("triu")
def _triu(out, x, *, k=0):
    return lambda g: (C.triu(g, k=k),)


@vjp("matmul")
def _matmul(out, a, b):
    def grads(g):
        a2 = M.expand_dims(a, 0) if a.ndim == 1 else a
        b2 = M.expand_dims(b, -1) if b.ndim == 1 else b
        g2 = M.expand_dims(g, -2) if a.ndim == 1 else g
        g2 = M.expand_dims(g2, -1) if b.ndim == 1 else g2
        # Only the products asked for: an operand that needs no gradient (a data batch) costs nothing.
        ga = O.matmul(g2, M.matrix_transpose(b2)) if requires_grad(a) else None
        gb = O.matmul(M.matrix_transpose(a2), g2) if requires_grad(b) else None
        if a.ndim == 1 and ga is not None:
            ga = M.squeeze(ga, -2)
        if b.ndim == 1 and gb is not None:
            gb = M.squeeze(gb, -1)
        return ga, gb
    return grads


# ----------------------------------------------------------------------------------------- reductions


def _axes(axis, ndim: int) -> list[int]:
    if axis is None:
        return list(range(ndim))
    axes = [axis] if isinstance(axis, int) else list(axis)
    return sorted(a % ndim if ndim else 0 for a in axes)


def _expand(g: Tensor, x: Tensor, axis, keepdims: bool) -> Tensor:
    """``g`` of a reduction over ``axis`` broadcast back to x's shape (a view)."""
    if not keepdims:
        shape = list(x.shape)
        for a in _axes(axis, x.ndim):
            shape[a] = 1
        g = M.reshape(g, tuple(shape))
    return M.broadcast_to(g, x.shape)


def _count(x: Tensor, axis) -> int:
    return math.prod(x.shape[a] for a in _axes(axis, x.ndim)) if x.ndim else 1


@vjp("sum")
def _sum(out, x, axis=None, keepdims=False):
    return lambda g: (_expand(g, x, axis, keepdims),)


@vjp("mean")
def _mean(out, x, axis=None, keepdims=False):
    return lambda g: (O.divide(_expand(g, x, axis, keepdims), float(_count(x, axis))),)


@vjp("max", "min")
def _max(out, x, axis=None, keepdims=False):
    def grads(g):
        hit = E.equal(x, _expand(out, x, axis, keepdims)).astype(x.dtype)
        ties = _expand(O.sum(hit, axis, keepdims), x, axis, keepdims)
        return (O.divide(O.multiply(_expand(g, x, axis, keepdims), hit), ties),)
    return grads


@vjp("var")
def _var(out, x, axis=None, correction=0.0, keepdims=False, *, ddof=None):
    def grads(g):
        n = _count(x, axis) - (correction if ddof is None else ddof)
        centred = O.subtract(x, O.mean(x, axis, True))
        return (O.multiply(_expand(g, x, axis, keepdims), O.multiply(centred, 2.0 / n)),)
    return grads


@vjp("std")
def _std(out, x, axis=None, correction=0.0, keepdims=False, *, ddof=None):
    def grads(g):
        n = _count(x, axis) - (correction if ddof is None else ddof)
        centred = O.subtract(x, O.mean(x, axis, True))
        scale = O.divide(_expand(g, x, axis, keepdims), _expand(O.multiply(out, float(n)), x, axis, keepdims))
        return (O.multiply(scale, centred),)
    return grads


# ------------------------------------------------------------------------------------------ shapes


@vjp("astype")
def _astype(out, x, *args, **kwargs):
    return lambda g: (g.to(x.device) if g.device != x.device else g,)  # the engine casts to x's dtype


@vjp("reshape", "squeeze", "expand_dims", "contiguous", "clone")
def _reshape(out, x, *args, **kwargs):
    return lambda g: (M.reshape(g, x.shape),)


@vjp("to")
def _to(out, x, device):
    return lambda g: (g.to(x.device),)


@vjp("broadcast_to")
def _broadcast_to(out, x, shape):
    return lambda g: (g,)  # the engine sums the broadcast axes away


@vjp("permute_dims", "transpose")
def _permute_dims(out, x, axes):
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a % len(axes)] = i
    return lambda g: (M.permute_dims(g, tuple(inverse)),)


@vjp("matrix_transpose", "T")
def _matrix_transpose(out, x):
    return lambda g: (M.matrix_transpose(g) if x.ndim >= 2 else g,)


@vjp("moveaxis")
def _moveaxis(out, x, source, destination):
    return lambda g: (M.moveaxis(g, destination, source),)


@vjp("flip")
def _flip(out, x, axis=None):
    return lambda g: (M.flip(g, axis=axis),)


@vjp("roll")
def _roll(out, x, shift, axis=None):
    negated = tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift
    return lambda g: (M.roll(g, negated, axis=axis),)


@vjp("getitem")
def _getitem(out, x, key):
    def grads(g):
        # Writing g into zeros is exact for basic indexing and for advanced indices without repeats;
        # a repeated index would keep one contribution, so it is refused at record time (see _install).
        dx = _core._full(list(x.shape), 0.0, x._dtype, x.device)
        dx[key] = g
        return (dx, None)
    return grads


@vjp("concat")
def _concat(out, arrays, axis=0):
    def grads(g):
        if axis is None:
            pieces, start = [], 0
            for a in arrays:
                pieces.append(M.reshape(g[start:start + a.size], a.shape))
                start += a.size
            return (pieces,)
        ax = axis % out.ndim
        pieces, start = [], 0
        for a in arrays:
            stop = start + a.shape[ax]
            pieces.append(g[(slice(None),) * ax + (slice(start, stop),)])
            start = stop
        return (pieces,)
    return grads


@vjp("stack")
def _stack(out, arrays, axis=0):
    return lambda g: (list(M.unstack(g, axis)),)


@vjp("take")
def _take(out, x, indices, axis=None):
    def grads(g):
        # A gather's gradient scatter-adds g back; repeated indices add up, which a one-hot product does
        # exactly on every backend (one GEMM: (size, n) @ (n, rest)).
        from .._creation import arange
        source = x if axis is not None else M.reshape(x, (-1,))
        ax = 0 if axis is None else axis % x.ndim
        size = source.shape[ax]
        idx = M.reshape(indices, (-1,))
        idx = E.where(E.less(idx, 0), O.add(idx, size), idx)
        positions = arange(size, dtype=idx.dtype, device=x.device)
        one_hot = E.equal(M.expand_dims(positions, 1), M.expand_dims(idx, 0)).astype(x.dtype)  # (size, n)
        k = indices.ndim
        if k == 0:
            g, k = M.expand_dims(g, ax), 1
        gm = M.moveaxis(g, tuple(range(ax, ax + k)), tuple(range(k)))  # index axes first
        rest = tuple(gm.shape[k:])
        dx = O.matmul(one_hot, M.reshape(gm, (idx.size, math.prod(rest))))
        dx = M.moveaxis(M.reshape(dx, (size,) + rest), 0, ax)
        return (M.reshape(dx, x.shape), None)
    return grads


@vjp("take_along_axis")
def _take_along_axis(out, x, indices, axis=-1):
    def grads(g):
        ax = axis % x.ndim
        size = x.shape[ax]
        from .._creation import arange
        positions = M.reshape(arange(size, dtype=indices.dtype, device=x.device),
                              (1,) * ax + (size,) + (1,) * (x.ndim - ax - 1))
        idx = E.where(E.less(indices, 0), O.add(indices, size), indices)
        # (..., size, ..., k): positions == idx along a new last axis, summed over k
        match = E.equal(M.expand_dims(positions, -1), M.expand_dims(M.moveaxis(idx, ax, -1), ax))
        contrib = O.multiply(match.astype(x.dtype), M.expand_dims(M.moveaxis(g, ax, -1), ax))
        return (O.sum(contrib, -1), None)
    return grads


# The neural-network ops' rules (fused kernels, convolution windows, pooling) register themselves from
# _rules_nn on import; they use vjp and forward above.
from . import _rules_nn  # noqa: E402,F401
