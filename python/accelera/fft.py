"""The array API standard's ``fft`` extension (NumPy's ``numpy.fft``) on every device.

Transforms run on the tensor's device: pocketfft (NumPy's own FFT) on the CPU, VkFFT on OpenCL and cuFFT on
CUDA. ``n`` and ``s`` cut or zero-pad the input along the transformed axes; ``norm`` puts the 1/n factor on
the inverse ("backward", the default), splits it ("ortho") or puts it on the forward transform ("forward").
Results are complex64 or complex128 (their real halves float32 or float64); integer inputs compute in
complex128, as NumPy's do.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import _core
from ._args import integer
from ._core import ArgumentError, DTypeError, Tensor
from ._creation import arange
from ._manipulation import roll
from ._ops import _tensor

__all__ = ["fft", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifftn", "ifftshift", "ihfft", "irfft", "irfftn",
           "rfft", "rfftfreq", "rfftn"]

_NORMS = ("backward", "ortho", "forward")


def _norm(norm) -> str:
    if norm is None:
        return "backward"
    if not isinstance(norm, str) or norm not in _NORMS:
        raise ArgumentError(f"norm must be 'backward', 'ortho' or 'forward', not {norm!r}")
    return norm


def _length(n):
    return None if n is None else integer(n, "n")


def _list(values, name: str):
    if values is None:
        return None
    if isinstance(values, (int, bool)) or not isinstance(values, Sequence):
        raise DTypeError(f"{name} must be a sequence of integers, not {type(values).__name__}")
    return [integer(v, name) for v in values]


def _one_axis(name: str, doc: str):
    kernel = getattr(_core._fft, name)

    def transform(x, /, *, n=None, axis: int = -1, norm: str = "backward") -> Tensor:
        return kernel(_tensor(x), _length(n), integer(axis, "axis"), _norm(norm))

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = doc
    return transform


def _many_axes(name: str, doc: str):
    kernel = getattr(_core._fft, name)

    def transform(x, /, *, s=None, axes=None, norm: str = "backward") -> Tensor:
        return kernel(_tensor(x), _list(s, "s"), _list(axes, "axes"), _norm(norm))

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = doc
    return transform


fft = _one_axis("fft", "The discrete Fourier transform along ``axis`` (length ``n``: x cut or zero-padded).")
ifft = _one_axis("ifft", "The inverse discrete Fourier transform along ``axis``.")
rfft = _one_axis("rfft", "The n // 2 + 1 non-negative frequencies of the transform of a real x.")
irfft = _one_axis("irfft", "The n real values (default 2 * (m - 1)) whose rfft is the half spectrum x.")
hfft = _one_axis("hfft", "The n real values of a signal with Hermitian symmetry, from its half spectrum x.")
ihfft = _one_axis("ihfft", "The half spectrum of a signal with Hermitian symmetry, from its real values x.")
fftn = _many_axes("fftn", "The transform over ``axes`` (default: the last len(s) axes, or all) with lengths ``s``.")
ifftn = _many_axes("ifftn", "The inverse transform over ``axes`` with lengths ``s``.")
rfftn = _many_axes("rfftn", "The transform of a real x over ``axes``; the last axis keeps s[-1] // 2 + 1 values.")
irfftn = _many_axes("irfftn", "The inverse of rfftn: real values of lengths ``s`` (the last default 2 * (m - 1)).")


def fftfreq(n, /, *, d=1.0, dtype=None, device=None) -> Tensor:
    """The sample frequencies of an n-point transform: [0, 1, ..., n//2 - 1 (or (n-1)//2), -n//2, ..., -1] / (d n)."""
    n = integer(n, "n")
    if n < 1:
        raise ArgumentError(f"fftfreq: n must be at least 1, not {n}")
    scale = 1.0 / (n * float(d))
    k = arange(n, dtype="int64", device=device)
    positive = (n - 1) // 2 + 1  # indices 0 .. positive - 1 are themselves, the rest count from -n
    shifted = _core.where(_core.less(k, _scalar(positive, k)), k, _core.subtract(k, _scalar(n, k)))
    return _scaled(shifted, scale, dtype)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None) -> Tensor:
    """The sample frequencies of rfft's output: [0, 1, ..., n // 2] / (d n)."""
    n = integer(n, "n")
    if n < 1:
        raise ArgumentError(f"rfftfreq: n must be at least 1, not {n}")
    return _scaled(arange(n // 2 + 1, dtype="int64", device=device), 1.0 / (n * float(d)), dtype)


def _scalar(value, like: Tensor) -> Tensor:
    from ._convert import scalar_tensor

    return scalar_tensor(value, like._dtype, like.device)


def _scaled(k: Tensor, scale: float, dtype) -> Tensor:
    from ._creation import DEFAULT_FLOAT
    from ._dtypes import dtype as _dtype

    target = DEFAULT_FLOAT if dtype is None else _dtype(dtype)
    if not target.is_floating:
        raise DTypeError(f"the frequencies are real floating values, not {target.name}")
    values = k._astype("float64")
    return _core.multiply(values, _scalar(scale, values))._astype(target.name)


def fftshift(x, /, *, axes=None) -> Tensor:
    """x with the zero frequency moved to the centre (of ``axes``, default all)."""
    x = _tensor(x)
    axes = list(range(x.ndim)) if axes is None else (_list(axes, "axes") if not isinstance(axes, int) else [axes])
    return roll(x, [x.shape[a] // 2 for a in axes], axis=tuple(axes))


def ifftshift(x, /, *, axes=None) -> Tensor:
    """The inverse of fftshift."""
    x = _tensor(x)
    axes = list(range(x.ndim)) if axes is None else (_list(axes, "axes") if not isinstance(axes, int) else [axes])
    return roll(x, [-(x.shape[a] // 2) for a in axes], axis=tuple(axes))
