"""The gradients of the neural-network ops of the namespace: the fused kernels (softmax, GELU, linear + GELU,
LayerNorm, attention), the convolution windows and pooling. Registered into _rules' tables (VJP, FORWARD)
on import, with the same conventions (see _rules' docstring)."""

from __future__ import annotations

from .. import _manipulation as M
from .. import _nn as N
from .. import _ops as O
from ._engine import requires_grad
from ._rules import forward, vjp


# ---------------------------------------------------------------------------------------- fused ops


@vjp("softmax")
def _softmax(out, x, axis=-1):
    return lambda g: (N.softmax_backward(g, out, axis),)


@vjp("log_softmax")
def _log_softmax(out, x, axis=-1):
    return lambda g: (N.log_softmax_backward(g, out, axis),)


@vjp("bias_gelu")
def _bias_gelu(out, x, bias, approximate="none"):
    def grads(g):
        dx = N.gelu_backward(g, O.add(x, bias), approximate)
        return dx, dx  # the engine sums dx over the broadcast axes for the bias
    return grads


@forward("linear_gelu")
def _linear_gelu(fn, x, weight, bias=None, approximate="none"):
    pre = O.matmul(x, M.matrix_transpose(weight))
    if bias is not None:
        pre = O.add(pre, bias)
    out = N.gelu(pre, approximate)

    def grads(g):
        dpre = N.gelu_backward(g, pre, approximate)
        dx = O.matmul(dpre, weight)
        d2 = M.reshape(dpre, (-1, dpre.shape[-1]))
        dw = O.matmul(M.matrix_transpose(d2), M.reshape(x, (-1, x.shape[-1])))
        return dx, dw, dpre if bias is not None else None
    return out, out, grads


@forward("layer_norm")
def _layer_norm(fn, x, weight=None, bias=None, eps=1e-5, *, return_stats=False):
    out, mean, rstd = N.layer_norm(x, weight, bias, eps, return_stats=True)

    def grads(g):
        return N.layer_norm_backward(g, x, mean, rstd, weight, bias)
    return ((out, mean, rstd) if return_stats else out), out, grads


@forward("attention")
def _attention(fn, q, k, v, scale=None, causal=False, *, return_lse=False):
    out, lse = N.attention(q, k, v, scale, causal, return_lse=True)

    def grads(g):
        return N.attention_backward(g, q, k, v, out, lse, scale, causal)
    return ((out, lse) if return_lse else out), out, grads


# ---------------------------------------------------------------------------------------------- windows
# im2col and col2im are linear and each other's adjoint: the gradient of one is the other.


@vjp("im2col")
def _im2col(out, x, kernel_size, stride=1, padding=0, dilation=1, pad_value=0.0):
    return lambda g: (N.col2im(g, x.shape, kernel_size, stride, padding, dilation),)


@vjp("col2im")
def _col2im(out, patches, image_shape, kernel_size, stride=1, padding=0, dilation=1):
    return lambda g: (N.im2col(g, kernel_size, stride, padding, dilation),)


@vjp("conv")
def _conv(out, x, weight, bias=None, stride=1, padding=0, dilation=1):
    def grads(g):
        # The first layer's input (the data) needs no gradient: its backward-data pass is skipped.
        needs_x, needs_b = requires_grad(x), bias is not None and requires_grad(bias)
        dx, dw, db = N.conv_backward(g, x, weight, stride, padding, dilation, needs_x, needs_b)
        return dx, dw, db
    return grads


@forward("max_pool")
def _max_pool(fn, x, kernel_size, stride=None, padding=0, dilation=1):
    values, indices = N.max_pool(x, kernel_size, stride, padding, dilation)

    def grads(g):
        return (N.max_pool_backward(g, indices, x.shape, kernel_size, stride, padding, dilation),)
    return (values, indices), values, grads
