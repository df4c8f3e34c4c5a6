"""Shared by the test_array_api_* modules: the devices under test and the views every function must take."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import accelera as ac

# Every device of the kinds CI has (cpu and, through PoCL, opencl:0); CUDA devices join when present.
DEVICES = [d["device"] for d in ac.devices()]


@pytest.fixture(params=DEVICES)
def device(request) -> str:
    return request.param


def view_pairs(base: np.ndarray, device: str) -> dict[str, tuple[np.ndarray, ac.Tensor]]:
    """The same view of ``base`` in NumPy and of its copy on ``device``: contiguous, transposed, stepped,
    reversed, broadcast (stride 0) and at an offset."""
    t = ac.asarray(base, device=device)
    pairs = {"contiguous": (base, t), "transposed": (base.T, t.T), "step2": (base[::2], t[::2]),
             "negstep": (base[::-1], t[::-1])}
    if base.ndim >= 1 and base.shape[0] >= 1:
        pairs["offset"] = (base[1:], t[1:])
        pairs["broadcast"] = (np.broadcast_to(base[:1], base.shape), ac.broadcast_to(t[:1], base.shape))
    return pairs


def host(t: ac.Tensor) -> np.ndarray:
    """A tensor's values as a NumPy array (bfloat16 read through float32)."""
    return (t.astype("float32") if t.dtype == "bfloat16" else t).numpy()


def assert_same(result: ac.Tensor, expected: np.ndarray, device: str) -> None:
    """Exactly NumPy's values, shape and dtype, on the device under test."""
    assert isinstance(result, ac.Tensor)
    assert result.device == device
    assert result.shape == expected.shape
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    np.testing.assert_array_equal(result.numpy(), expected)


@contextlib.contextmanager
def tensors_unchanged(*tensors: ac.Tensor):
    """Assert that the tensors hold the same values, shape and dtype after the block."""
    saved = [(t, host(t).copy(), t.shape, t.dtype) for t in tensors]
    yield
    for t, values, shape, dtype in saved:
        assert t.shape == shape and t.dtype == dtype
        np.testing.assert_array_equal(host(t), values)
