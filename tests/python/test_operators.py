"""Python operators on Tensor: + - * / @ and unary -, with Tensors, Python scalars and NumPy arrays on
either side. Tensor sets ``__array_ufunc__ = None``, so NumPy defers to Tensor's reflected operators and
``ndarray (op) Tensor`` is a Tensor; NumPy ufuncs and in-place NumPy operators refuse Tensors."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

import accelera as ac
from helpers import assert_close, inputs_unchanged, random_array

OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}


def _exact(fn, a, b):
    with np.errstate(all="ignore"):
        want = fn(np.asarray(a), np.asarray(b)) if not np.isscalar(a) and not np.isscalar(b) else fn(a, b)
        a64 = a.astype(np.float64) if isinstance(a, np.ndarray) else a
        b64 = b.astype(np.float64) if isinstance(b, np.ndarray) else b
        return np.asarray(want).dtype, fn(a64, b64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("symbol", list(OPS))
def test_tensor_with_tensor_and_numpy_on_either_side(symbol, dtype, rng):
    fn = OPS[symbol]
    a = random_array(rng, (7, 13), dtype, 0.5, 3.0)
    b = random_array(rng, (13,), dtype, 0.5, 3.0)
    ta, tb = ac.asarray(a), ac.asarray(b)
    want_dtype, want = _exact(fn, a, b)
    with inputs_unchanged(a, b):
        for got in (fn(ta, tb), fn(ta, b), fn(a, tb)):  # ndarray on the left defers to Tensor.__r*__
            assert type(got) is ac.Tensor
            assert_close(got, want, want_dtype)
    want_dtype, want = _exact(fn, b, a)
    for got in (fn(tb, ta), fn(b, ta), fn(tb, a)):
        assert type(got) is ac.Tensor
        assert_close(got, want, want_dtype)


@pytest.mark.parametrize("scalar", [2, -1, 0.5, 3.25, True], ids=repr)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("symbol", list(OPS))
def test_tensor_with_python_scalars_on_either_side(symbol, dtype, scalar, rng):
    fn = OPS[symbol]
    x = random_array(rng, (13, 7), dtype, 1.0, 4.0)
    if np.dtype(dtype).kind == "i":
        x = np.where(x == 0, 3, x).astype(dtype)
    t = ac.asarray(x)
    for got, (want_dtype, want) in ((fn(t, scalar), _exact(fn, x, scalar)), (fn(scalar, t), _exact(fn, scalar, x))):
        assert type(got) is ac.Tensor
        assert_close(got, want, want_dtype)


@pytest.mark.parametrize("np_scalar", [np.float32(2.5), np.float64(-1.5), np.int32(3), np.int64(-2)], ids=repr)
@pytest.mark.parametrize("symbol", list(OPS))
def test_tensor_with_numpy_scalars_on_either_side(symbol, np_scalar, rng):
    fn = OPS[symbol]
    x = random_array(rng, (7,), np.float32, 1.0, 4.0)
    t = ac.asarray(x)
    for got, (want_dtype, want) in ((fn(t, np_scalar), _exact(fn, x, np_scalar)),
                                    (fn(np_scalar, t), _exact(fn, np_scalar, x))):
        assert type(got) is ac.Tensor
        assert_close(got, want, want_dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_matmul_operator(dtype, rng):
    a = random_array(rng, (2, 7, 13), dtype)
    b = random_array(rng, (13, 5), dtype)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    scale = np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    ta, tb = ac.asarray(a), ac.asarray(b)
    with inputs_unchanged(a, b):
        for got in (ta @ tb, ta @ b, a @ tb):  # a @ tb: NumPy defers to Tensor.__rmatmul__
            assert type(got) is ac.Tensor
            assert_close(got, want, np.dtype(dtype), scale=scale, factor=math.sqrt(13))
    # Reflected with the 1-D operand on the NumPy side.
    v = random_array(rng, (7,), dtype)
    got = v @ ta
    assert type(got) is ac.Tensor
    assert_close(got, np.matmul(v.astype(np.float64), a.astype(np.float64)), np.dtype(dtype),
                 scale=np.matmul(np.abs(v.astype(np.float64)), np.abs(a.astype(np.float64))), factor=math.sqrt(7))


def test_matmul_operator_with_scalar_is_a_shape_error():
    t = ac.asarray(np.ones((3, 3)))
    with pytest.raises(ValueError):
        np.ones((3, 3)) @ 2.0  # NumPy refuses too
    with pytest.raises(ac.ShapeError):
        t @ 2.0
    with pytest.raises(ac.ShapeError):
        2.0 @ t


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_unary_minus_and_plus(dtype, rng):
    x = random_array(rng, (13, 7), dtype)
    t = ac.asarray(x)
    got = -t
    assert type(got) is ac.Tensor
    assert got.dtype == (-x).dtype
    np.testing.assert_array_equal(got.numpy(), -x)
    np.testing.assert_array_equal((+t).numpy(), x)
    np.testing.assert_array_equal((-(-t)).numpy(), x)
    np.testing.assert_array_equal(x, t.numpy())  # the operand is untouched


def test_operators_do_not_modify_operands(rng):
    x = random_array(rng, (7, 13), np.float64)
    saved = x.copy()
    t = ac.asarray(x)
    u = (t + 1) * 2  # binary operators make new tensors
    np.testing.assert_array_equal(x, saved)
    np.testing.assert_allclose(u.numpy(), (saved + 1) * 2, rtol=1e-15)
    # In-place operators write into the target tensor itself (and so into the NumPy array it shares
    # memory with, as torch.from_numpy does); the other operand is untouched.
    other = random_array(rng, (13,), np.float64)
    other_saved = other.copy()
    alias = t
    t += ac.asarray(other)
    assert t is alias
    np.testing.assert_array_equal(other, other_saved)
    np.testing.assert_allclose(x, saved + other_saved, rtol=1e-15)


def test_numpy_ufuncs_run_accelera_and_refuse_out():
    """Note [NumPy protocols]: NumPy ufuncs on Tensors give Tensors; in-place NumPy operators (out=) are refused."""
    x = np.arange(4.0)
    t = ac.asarray(np.ones(4))
    assert type(np.add(x, t)) is ac.Tensor
    assert type(np.exp(t)) is ac.Tensor
    before = x.copy()
    with pytest.raises(ac.NotSupportedError):
        x += t
    np.testing.assert_array_equal(x, before)
    # But the binary operators give a Tensor.
    got = x + t
    assert type(got) is ac.Tensor
    np.testing.assert_array_equal(got.numpy(), before + 1)


def test_operator_with_unsupported_operand_raises_type_error():
    t = ac.asarray(np.ones(3))
    for bad in (None, "abc", object(), {1: 2}):
        with pytest.raises(TypeError):
            t + bad
        with pytest.raises(TypeError):
            bad * t
