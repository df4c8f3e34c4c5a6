"""Convolution and pooling layers over 1, 2 or 3 spatial axes of (N, C, *spatial) inputs (the layout of
PyTorch and cuDNN's default), computed as in Note [Convolution as one GEMM] (nn/_windows.py)."""

from __future__ import annotations

import math

import numpy as np

from .._convert import asarray, device_or_default
from .._core import ArgumentError
from .._dtypes import dtype as _dtype
from . import _windows as W
from . import functional as F
from ._layers import _positive, _rng
from ._module import Module, Parameter


class _ConvNd(Module):
    axes = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 bias: bool = True, *, device=None, dtype="float32", seed=None):
        super().__init__()
        name = type(self).__name__
        self.in_channels = _positive(in_channels, f"{name} in_channels")
        self.out_channels = _positive(out_channels, f"{name} out_channels")
        self.kernel_size = W.expand_window(kernel_size, self.axes, f"{name} kernel_size")
        self.stride = W.expand_window(stride, self.axes, f"{name} stride")
        self.padding = W.expand_window(padding, self.axes, f"{name} padding")
        self.dilation = W.expand_window(dilation, self.axes, f"{name} dilation")
        for what, values in (("kernel_size", self.kernel_size), ("stride", self.stride), ("dilation", self.dilation)):
            for v in values:
                _positive(v, f"{name} {what}")
        if any(p < 0 for p in self.padding):
            raise ArgumentError(f"{name} padding must be non-negative, got {self.padding}")
        taps = math.prod(self.kernel_size)
        # Glorot-uniform over the receptive field (as Linear and Keras's Conv2D); zero bias.
        bound = F.glorot_bound(in_channels * taps, out_channels * taps)
        device = device_or_default(device)
        dt = _dtype(dtype)
        w = _rng(seed).uniform(-bound, bound, (out_channels, in_channels) + self.kernel_size)
        self.weight = Parameter(asarray(w.astype(dt.name), device=device))
        self.bias = Parameter(asarray(np.zeros(out_channels, dt.name), device=device)) if bias else None

    def forward(self, x):
        W.check_image(f"{type(self).__name__}({self.extra_repr()})", x, self.axes, self.in_channels)
        return W.conv(x, self.weight, self.bias, self.stride, self.padding, self.dilation)

    def output_shape(self, input_shape) -> tuple[int, ...]:
        """The (C, *spatial) this layer makes of a (C, *spatial) input."""
        spatial = W._out_extents(input_shape[1:], self.kernel_size, self.stride, self.padding, self.dilation)
        return (self.out_channels,) + spatial

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}")


class Conv1d(_ConvNd):
    axes = 1


class Conv2d(_ConvNd):
    axes = 2


class Conv3d(_ConvNd):
    axes = 3


class _PoolNd(Module):
    axes = 2
    kind = "max"

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        name = type(self).__name__
        self.kernel_size = W.expand_window(kernel_size, self.axes, f"{name} kernel_size")
        self.stride = self.kernel_size if stride is None else W.expand_window(stride, self.axes, f"{name} stride")
        self.padding = W.expand_window(padding, self.axes, f"{name} padding")
        for what, values in (("kernel_size", self.kernel_size), ("stride", self.stride)):
            for v in values:
                _positive(v, f"{name} {what}")

    def forward(self, x):
        W.check_image(f"{type(self).__name__}({self.extra_repr()})", x, self.axes)
        pool = W.max_pool if self.kind == "max" else W.avg_pool
        return pool(x, self.kernel_size, self.stride, self.padding)

    def output_shape(self, input_shape) -> tuple[int, ...]:
        ones = (1,) * self.axes
        return (input_shape[0],) + W._out_extents(input_shape[1:], self.kernel_size, self.stride, self.padding, ones)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool1d(_PoolNd):
    axes = 1


class MaxPool2d(_PoolNd):
    axes = 2


class MaxPool3d(_PoolNd):
    axes = 3


class AvgPool1d(_PoolNd):
    axes, kind = 1, "avg"


class AvgPool2d(_PoolNd):
    axes, kind = 2, "avg"


class AvgPool3d(_PoolNd):
    axes, kind = 3, "avg"


# The seed's spellings.
Conv2D, Conv3D, MaxPool2D, AvgPool2D = Conv2d, Conv3d, MaxPool2d, AvgPool2d
