"""NumPy's __array_function__ and __array_ufunc__ on Tensors (Note [NumPy protocols]): NumPy calls run
accelera's functions on the tensor's device and return Tensors; what accelera lacks raises
NotSupportedError naming the NumPy call, and nothing is copied to the host."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import accelera as ac
from array_api_support import DEVICES, assert_same, device  # noqa: F401 (fixture)


@pytest.fixture
def pair(device, rng):
    a = rng.standard_normal((5, 4))
    return a, ac.asarray(a, device=device)


def test_ufuncs_run_accelera_functions_on_the_device(device, pair):
    a, t = pair
    for got, want in [(np.exp(t), np.exp(a)), (np.add(t, t), a + a), (np.add(t, 2.0), a + 2.0),
                      (np.multiply(3, t), 3 * a), (np.absolute(t), np.abs(a)), (np.negative(t), -a),
                      (np.maximum(t, 0.0), np.maximum(a, 0.0)), (np.divide(t, 4.0), a / 4.0),
                      (np.sqrt(np.abs(t)), np.sqrt(np.abs(a)))]:
        assert isinstance(got, ac.Tensor) and got.device == device
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_a_numpy_operand_joins_the_tensors_device(device, pair):
    a, t = pair
    for got in (np.add(t, a), np.add(a, t), a + t, np.subtract(a, t)):
        assert isinstance(got, ac.Tensor) and got.device == device
    np.testing.assert_allclose(np.subtract(a, t).numpy(), np.zeros_like(a))


def test_reductions_and_functions(device, pair):
    a, t = pair
    for got, want in [(np.mean(t), np.mean(a)), (np.sum(t, axis=0), a.sum(axis=0)),
                      (np.sum(t, 1, keepdims=True), a.sum(1, keepdims=True)), (np.max(t), a.max()),
                      (np.add.reduce(t), np.add.reduce(a)), (np.add.reduce(t, axis=None), a.sum()),
                      (np.maximum.reduce(t, axis=1, keepdims=True), a.max(axis=1, keepdims=True))]:
        assert isinstance(got, ac.Tensor) and got.device == device
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_manipulation_functions_are_exact(device, pair):
    a, t = pair
    cases = [
        (np.concatenate([t, t[::-1]]), np.concatenate([a, a[::-1]])),
        (np.concatenate((t, t), 1), np.concatenate((a, a), 1)),
        (np.concatenate([t, t], axis=None), np.concatenate([a, a], axis=None)),
        (np.concat([t, t], axis=-1), np.concat([a, a], axis=-1)),
        (np.stack([t, t], 1), np.stack([a, a], 1)),
        (np.transpose(t), a.T), (np.transpose(t, (1, 0)), a.T), (np.permute_dims(t, (1, 0)), a.T),
        (np.reshape(t, (2, 10)), a.reshape(2, 10)), (np.reshape(t, shape=-1), a.reshape(-1)),
        (np.expand_dims(t, 1), np.expand_dims(a, 1)), (np.squeeze(t[:1]), np.squeeze(a[:1])),
        (np.flip(t, 0), np.flip(a, 0)), (np.flip(t), np.flip(a)), (np.moveaxis(t, 0, 1), a.T),
        (np.roll(t, 3), np.roll(a, 3)), (np.roll(t, -1, axis=1), np.roll(a, -1, axis=1)),
        (np.tile(t, (2, 1)), np.tile(a, (2, 1))), (np.repeat(t, 2, axis=0), np.repeat(a, 2, axis=0)),
        (np.broadcast_to(t[:1], (3, 4)), np.broadcast_to(a[:1], (3, 4))),
        (np.matrix_transpose(t), a.T), (np.zeros_like(t), np.zeros_like(a)), (np.ones_like(t), np.ones_like(a)),
        (np.full_like(t, 7.0), np.full_like(a, 7.0)), (np.astype(t, np.float32), a.astype(np.float32)),
    ]
    for got, want in cases:
        assert_same(got, want, device)
    for got, want in zip(np.broadcast_arrays(t, t[:1]), np.broadcast_arrays(a, a[:1])):
        assert_same(got, want, device)
    for got, want in zip(np.unstack(t, axis=1), np.unstack(a, axis=1)):
        assert_same(got, want, device)


def test_dtype_functions(pair):
    a, t = pair
    assert np.result_type(t, np.float32) == ac.float64
    assert np.can_cast(t, np.float32) is False


@pytest.mark.parametrize("call", [
    lambda t: np.cumsum(t),
    lambda t: np.linalg.norm(t),
    lambda t: np.array_equal(t, t),
    lambda t: np.add.outer(t, t),
    lambda t: np.add.at(t, [0], 1.0),
    lambda t: np.exp(t, out=t),
    lambda t: np.add(t, t, where=False),
    lambda t: np.mean(t, where=False),
    lambda t: np.concatenate([t, t], dtype=np.float32),
    lambda t: np.reshape(t, (4, 5), order="F"),
    lambda t: np.sum(t, out=np.zeros(())),
], ids=["cumsum", "linalg.norm", "array_equal", "outer", "at", "out", "where", "mean-where",
        "concatenate-dtype", "reshape-order", "sum-out"])
def test_what_accelera_lacks_is_not_supported_never_a_host_copy(pair, call):
    a, t = pair
    before = t.numpy().copy()
    with pytest.raises(ac.NotSupportedError, match="numpy"):
        call(t)
    np.testing.assert_array_equal(t.numpy(), before)


def test_accumulate_is_not_supported():
    # In a child process: NumPy 2.4 keeps a reference to the operand when __array_ufunc__ refuses
    # accumulate or reduceat, and nanobind would report the tensor as leaked at this process's exit.
    code = ("import numpy as np, accelera as ac\n"
            "for method in (np.add.accumulate, lambda t: np.add.reduceat(t, [0])):\n"
            "    try:\n"
            "        method(ac.zeros((3,)))\n"
            "    except ac.NotSupportedError as err:\n"
            "        print(err)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert "numpy.add.accumulate is not supported" in run.stdout
    assert "numpy.add.reduceat is not supported" in run.stdout


def test_lookups_happen_at_call_time(monkeypatch, pair):
    a, t = pair
    with pytest.raises(ac.NotSupportedError):
        np.cumsum(t)
    monkeypatch.setattr(ac, "cumulative_sum", lambda x, axis=None: ac.full((), 42.0), raising=False)
    monkeypatch.setitem(__import__("accelera._protocols", fromlist=["_"])._RENAMED, "cumsum", "cumulative_sum")
    assert np.cumsum(t).numpy() == 42.0


def test_numpy_argument_names_are_translated(monkeypatch, pair):
    a, t = pair
    monkeypatch.setattr(ac, "clip", lambda x, /, min=None, max=None: (min, max), raising=False)
    assert np.clip(t, 0, 1) == (0, 1)
    assert np.clip(t, a_min=-1, a_max=2) == (-1, 2)
    with pytest.raises(ac.NotSupportedError, match="out="):
        np.clip(t, 0, 1, out=t)


def test_matmul_is_a_ufunc_too(device, pair):
    a, t = pair
    for got in (np.matmul(t, t.T), np.matmul(a, t.T), a @ t.T):
        assert isinstance(got, ac.Tensor) and got.device == device
        np.testing.assert_allclose(got.numpy(), a @ a.T, rtol=1e-12)


def test_explicit_conversion_is_unchanged(device, pair):
    a, t = pair
    np.testing.assert_array_equal(np.asarray(t), a)
    assert isinstance(np.asarray(t), np.ndarray)
    np.testing.assert_array_equal(np.array(t, dtype=np.float32), a.astype(np.float32))


def test_other_array_types_are_left_to_their_own_protocols(pair):
    class Other:
        def __array_function__(self, func, types, args, kwargs):
            return "other"

        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "other"

    a, t = pair
    assert np.concatenate([t, Other()]) == "other"
    assert np.add(t, Other()) == "other"
