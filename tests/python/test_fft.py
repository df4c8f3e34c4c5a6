"""accelera.fft on every device against numpy.fft in float64 (complex128) on the same inputs: every function,
lengths 1, primes, powers of two and odd composites, cut and padded inputs, strided views, the three norms,
integer inputs, and the standard's errors."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from array_api_support import device, tensors_unchanged  # noqa: F401 (fixture)

DTYPES = ["float32", "float64"]
COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}
NORMS = ["backward", "ortho", "forward"]


def needs_fp64(dtype: str, device: str) -> None:
    if dtype == "float64" and not ac.supports(device, "copy", "float64"):
        pytest.skip(f"{device} has no float64")


def signal(shape, dtype: str, complex_: bool, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if complex_:
        return (x + 1j * rng.standard_normal(shape)).astype(COMPLEX_OF[dtype])
    return x.astype(dtype)


def close(result: ac.Tensor, expected: np.ndarray, dtype: str, device: str) -> None:
    """Within a few ulps (of float32 or float64) times log2(n) of the largest reference value."""
    assert result.device == device
    assert result.shape == expected.shape, (result.shape, expected.shape)
    want_dtype = expected.dtype if dtype == "float64" else (np.complex64 if np.iscomplexobj(expected) else np.float32)
    assert result.dtype == want_dtype, (result.dtype, want_dtype)
    eps = np.finfo(dtype).eps
    scale = max(float(np.max(np.abs(expected), initial=0.0)), 1e-30)
    size = max(expected.size, 2)
    np.testing.assert_allclose(result.numpy(), expected, rtol=0, atol=8 * eps * np.log2(size) * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 7, 16, 97, 120, 1024])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_one_axis_transforms(name, n, dtype, device):
    needs_fp64(dtype, device)
    complex_input = name in ("fft", "ifft", "irfft", "hfft")
    length = n // 2 + 1 if name in ("irfft", "hfft") else n
    x = signal((3, length), dtype, complex_input, seed=n)
    t = ac.asarray(x, device=device)
    kwargs = {"n": n} if name in ("irfft", "hfft") else {}
    if name in ("irfft", "hfft") and n == 1:
        kwargs = {"n": 1}
    expected = getattr(np.fft, name)(x.astype(np.complex128 if complex_input else np.float64), **kwargs)
    with tensors_unchanged(t):
        result = getattr(ac.fft, name)(t, **kwargs)
    close(result, expected, dtype, device)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [4099, 8192, 8194, 65536])
@pytest.mark.parametrize("name", ["fft", "rfft", "irfft"])
def test_long_transforms_in_uneven_batches(name, n, dtype, device):
    """A prime (Bluestein), the longest real plan on OpenCL and the next even length (run as a complex
    transform there), a length whose real transform is split over several kernels on GPUs; five rows, so
    that a device which plans batches in powers of two runs two of them. irfft ignores the imaginary parts
    of the zero and Nyquist frequencies."""
    needs_fp64(dtype, device)
    complex_input = name != "rfft"
    x = signal((5, n // 2 + 1 if name == "irfft" else n), dtype, complex_input, seed=n)
    kwargs = {"n": n} if name == "irfft" else {}
    expected = getattr(np.fft, name)(x.astype(np.complex128 if complex_input else np.float64), **kwargs)
    t = ac.asarray(x, device=device)
    with tensors_unchanged(t):
        result = getattr(ac.fft, name)(t, **kwargs)
    close(result, expected, dtype, device)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_norms_cut_and_pad_along_any_axis(name, norm, device):
    complex_input = name in ("fft", "ifft", "irfft", "hfft")
    x = signal((6, 5, 9), "float32", complex_input, seed=3)
    t = ac.asarray(x, device=device)
    for n, axis in ((4, 0), (13, 1), (None, -1)):
        expected = getattr(np.fft, name)(x.astype(np.complex128 if complex_input else np.float64), n=n, axis=axis,
                                         norm=norm)
        close(getattr(ac.fft, name)(t, n=n, axis=axis, norm=norm), expected, "float32", device)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("s, axes", [(None, None), ((4, 6), None), (None, (0, 2)), ((3, 8), (2, 0)), ((5,), (1,))])
def test_many_axes_transforms(name, s, axes, dtype, device):
    needs_fp64(dtype, device)
    complex_input = name != "rfftn"
    x = signal((5, 4, 7), dtype, complex_input, seed=11)
    if name == "irfftn" and s is None:
        s_np = None
    else:
        s_np = s
    if axes is None and s is not None:
        axes_np = tuple(range(3 - len(s), 3))  # the last len(s) axes, which NumPy 2 asks to be spelled out
    else:
        axes_np = axes
    expected = getattr(np.fft, name)(x.astype(np.complex128 if complex_input else np.float64), s=s_np, axes=axes_np)
    result = getattr(ac.fft, name)(ac.asarray(x, device=device), s=s, axes=axes)
    close(result, expected, dtype, device)


def test_strided_views_and_integer_inputs(device):
    x = signal((8, 12), "float64", True, seed=5)
    if not ac.supports(device, "copy", "float64"):
        x = x.astype(np.complex64)
    t = ac.asarray(x, device=device)
    dtype = "float64" if x.dtype == np.complex128 else "float32"
    close(ac.fft.fft(t.T, axis=0), np.fft.fft(x.T.astype(np.complex128), axis=0), dtype, device)
    close(ac.fft.fft(t[::2, ::-3]), np.fft.fft(x[::2, ::-3].astype(np.complex128)), dtype, device)
    close(ac.fft.fftn(ac.broadcast_to(t[:1], (4, 12))), np.fft.fftn(np.broadcast_to(x[:1], (4, 12))), dtype, device)
    ints = np.arange(10)
    if ac.supports(device, "copy", "float64"):
        result = ac.fft.fft(ac.asarray(ints, device=device))
        assert result.dtype == "complex128"  # int64 computes in complex128, as NumPy
        close(result, np.fft.fft(ints), "float64", device)
    small = ac.fft.rfft(ac.asarray(ints.astype(np.int16), device=device))
    assert small.dtype == "complex64"


def test_round_trips_recover_the_input(device):
    x = signal((4, 33), "float32", False, seed=7)
    t = ac.asarray(x, device=device)
    np.testing.assert_allclose(ac.fft.irfft(ac.fft.rfft(t), n=33).numpy(), x, atol=1e-5)
    z = signal((4, 33), "float32", True, seed=8)
    tz = ac.asarray(z, device=device)
    np.testing.assert_allclose(ac.fft.ifftn(ac.fft.fftn(tz, norm="ortho"), norm="ortho").numpy(), z, atol=1e-5)


def test_frequencies_and_shifts(device):
    for n in (1, 8, 9):
        np.testing.assert_allclose(ac.fft.fftfreq(n, d=0.25, device=device, dtype="float64").numpy()
                                   if ac.supports(device, "copy", "float64")
                                   else ac.fft.fftfreq(n, d=0.25, device=device).numpy(),
                                   np.fft.fftfreq(n, d=0.25), rtol=1e-6)
        np.testing.assert_allclose(ac.fft.rfftfreq(n, device=device).numpy(), np.fft.rfftfreq(n), rtol=1e-6)
    assert ac.fft.fftfreq(4, device=device).dtype == "float32"  # the default real floating dtype
    x = np.arange(30).reshape(5, 6)
    t = ac.asarray(x, device=device)
    np.testing.assert_array_equal(ac.fft.fftshift(t).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(ac.fft.ifftshift(t, axes=(0,)).numpy(), np.fft.ifftshift(x, axes=(0,)))
    np.testing.assert_array_equal(ac.fft.ifftshift(ac.fft.fftshift(t)).numpy(), x)


def test_bad_input_raises_typed_errors(device):
    z = ac.asarray(signal((4, 6), "float32", True), device=device)
    with tensors_unchanged(z):
        with pytest.raises(ac.DTypeError, match="rfft: needs a real tensor"):
            ac.fft.rfft(z)
        with pytest.raises(ValueError, match="invalid length 0"):
            ac.fft.fft(z, n=0)
        with pytest.raises(IndexError, match="axis 2 is out of range"):
            ac.fft.fft(z, axis=2)
        with pytest.raises(ValueError, match="repeated axis"):
            ac.fft.fftn(z, axes=(0, -2))
        with pytest.raises(ValueError, match="s has 1 lengths for 2 axes"):
            ac.fft.fftn(z, s=(3,), axes=(0, 1))
        with pytest.raises(ac.ArgumentError, match="norm must be"):
            ac.fft.fft(z, norm="unitary")
        with pytest.raises(ValueError, match="0-d"):
            ac.fft.fft(z[0, 0])
        with pytest.raises(ac.DTypeError, match="bool"):
            ac.fft.fft(ac.asarray(np.array([True, False]), device=device))
        with pytest.raises(ValueError, match="invalid length 0"):
            ac.fft.irfft(z[:, :1])  # the default length 2 * (1 - 1)


def test_planning_leaves_the_process_locale_alone(device):
    """A new plan on a device whose library switches locales while it writes kernels (VkFFT on OpenCL) leaves
    the process's locale as it found it: Python decodes text with it."""
    import locale

    before = locale.setlocale(locale.LC_ALL)
    x = ac.asarray(signal((2, 4099), "float32", True, seed=11), device=device)  # a length no other test plans
    ac.fft.fft(x)
    assert locale.setlocale(locale.LC_ALL) == before
