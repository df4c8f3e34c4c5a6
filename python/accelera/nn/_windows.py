"""Convolution and pooling over 1, 2 or 3 spatial axes of (N, C, *spatial) tensors, on every backend.

Convolutions are the library's ops accelera.conv and accelera.conv_backward (Note [Convolution kernels] in
src/ops/conv.hpp): oneDNN's direct convolution on the CPU in float32 (and the half formats, computed in
float32), im2col and one GEMM per image on the other devices and for float64. Max pooling is its own
kernel (accelera.max_pool: one pass, values and indices). docs/nn.md gives the measured cost against
PyTorch's convolution.
"""

from __future__ import annotations


from .. import _manipulation as M
from .. import _nn as N
from .. import _ops as O
from .. import amp
from .._core import ArgumentError, ShapeError, Tensor


def expand_window(value, axes: int, what: str) -> tuple[int, ...]:
    """An int (every axis) or a sequence of ``axes`` ints, checked."""
    values = tuple(value) if hasattr(value, "__iter__") else (value,) * axes
    if len(values) != axes or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ArgumentError(f"{what} must be an int or {axes} ints, got {value!r}")
    return values


def check_image(layer: str, x: Tensor, axes: int, channels: int | None = None) -> None:
    """x is (N, C, *spatial) with ``axes`` spatial axes (and ``channels`` channels when given)."""
    names = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[axes]
    if not isinstance(x, Tensor) or x.ndim != axes + 2:
        shape = tuple(x.shape) if hasattr(x, "shape") else type(x).__name__
        raise ShapeError(f"{layer} expects {names} inputs, got shape {shape}")
    if channels is not None and x.shape[1] != channels:
        raise ShapeError(f"{layer} expects {channels} input channels (axis 1), got shape {tuple(x.shape)}")


def _out_extents(spatial, kernel, stride, padding, dilation) -> tuple[int, ...]:
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation))


@amp.in_autocast_dtype
def conv(x: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1) -> Tensor:
    """Cross-correlation (as every deep-learning library's "convolution") of x (N, C_in, *spatial) with
    weight (C_out, C_in, *kernel) over 1, 2 or 3 spatial axes, plus bias (C_out,); the result is
    (N, C_out, *out). ``stride``, ``padding`` (zeros) and ``dilation``: an int or one per spatial axis."""
    axes = weight.ndim - 2
    if axes not in (1, 2, 3):
        raise ShapeError(f"conv weight must be (C_out, C_in, *kernel) with 1 to 3 kernel axes, got shape "
                         f"{tuple(weight.shape)}")
    check_image(f"conv{axes}d", x, axes, weight.shape[1])
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise ShapeError(f"conv{axes}d bias must have shape ({weight.shape[0]},), got {tuple(bias.shape)}")
    stride, padding, dilation = (expand_window(v, axes, what) for v, what in
                                 ((stride, "stride"), (padding, "padding"), (dilation, "dilation")))
    return N.conv(x, weight, bias, stride, padding, dilation)  # differentiable: conv_backward


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1) -> Tensor:
    check_image("conv1d", x, 1)
    return conv(x, weight, bias, stride, padding, dilation)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1) -> Tensor:
    check_image("conv2d", x, 2)
    return conv(x, weight, bias, stride, padding, dilation)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1) -> Tensor:
    check_image("conv3d", x, 3)
    return conv(x, weight, bias, stride, padding, dilation)


# ------------------------------------------------------------------------------------------------ pooling


def _channel_patches(x: Tensor, kernel, stride, padding, dilation, pad_value):
    """Each channel as its own image: the patch matrix (N * C * prod(out), prod(kernel))."""
    planes = M.reshape(x, (x.shape[0] * x.shape[1], 1) + tuple(x.shape[2:]))
    return N.im2col(planes, kernel, stride, padding, dilation, pad_value), planes.shape


def _spatial_axes(name: str, x) -> int:
    if not isinstance(x, Tensor) or x.ndim not in (3, 4, 5):
        shape = tuple(x.shape) if hasattr(x, "shape") else type(x).__name__
        raise ShapeError(f"{name} expects (N, C, *spatial) inputs with 1 to 3 spatial axes, got shape {shape}")
    return x.ndim - 2


def _pool_window(name: str, x, axes: int, kernel_size, stride, padding, dilation=1):
    check_image(name, x, axes)
    kernel = expand_window(kernel_size, axes, "kernel_size")
    stride = kernel if stride is None else expand_window(stride, axes, "stride")
    padding = expand_window(padding, axes, "padding")
    dilation = expand_window(dilation, axes, "dilation")
    if any(2 * p > k for p, k in zip(padding, kernel)):
        raise ArgumentError(f"{name}: padding {padding} must be at most half the kernel {kernel}, so that every "
                            f"window sees the image")
    return kernel, stride, padding, dilation


def max_pool(x: Tensor, kernel_size, stride=None, padding=0, dilation=1) -> Tensor:
    """The maximum over each window of the 1 to 3 spatial axes of x (N, C, *spatial); ``stride`` defaults
    to the kernel size (non-overlapping windows), padding reads -inf."""
    axes = _spatial_axes("max_pool", x)
    kernel, stride, padding, dilation = _pool_window(f"max_pool{axes}d", x, axes, kernel_size, stride, padding,
                                                     dilation)
    values, _ = N.max_pool(x, kernel, stride, padding, dilation)  # differentiable: max_pool_backward
    return values


def avg_pool(x: Tensor, kernel_size, stride=None, padding=0) -> Tensor:
    """The mean over each window of the 1 to 3 spatial axes of x (N, C, *spatial); ``stride`` defaults to
    the kernel size; zeros of the padding count in the mean (PyTorch's count_include_pad=True)."""
    axes = _spatial_axes("avg_pool", x)
    kernel, stride, padding, dilation = _pool_window(f"avg_pool{axes}d", x, axes, kernel_size, stride, padding)
    patches, _ = _channel_patches(x, kernel, stride, padding, dilation, 0.0)
    out_spatial = _out_extents(x.shape[2:], kernel, stride, padding, dilation)
    return M.reshape(O.mean(patches, 1), tuple(x.shape[:2]) + out_spatial)


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1):
    check_image("max_pool1d", x, 1)
    return max_pool(x, kernel_size, stride, padding, dilation)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1):
    check_image("max_pool2d", x, 2)
    return max_pool(x, kernel_size, stride, padding, dilation)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1):
    check_image("max_pool3d", x, 3)
    return max_pool(x, kernel_size, stride, padding, dilation)


def avg_pool1d(x, kernel_size, stride=None, padding=0):
    check_image("avg_pool1d", x, 1)
    return avg_pool(x, kernel_size, stride, padding)


def avg_pool2d(x, kernel_size, stride=None, padding=0):
    check_image("avg_pool2d", x, 2)
    return avg_pool(x, kernel_size, stride, padding)


def avg_pool3d(x, kernel_size, stride=None, padding=0):
    check_image("avg_pool3d", x, 3)
    return avg_pool(x, kernel_size, stride, padding)
