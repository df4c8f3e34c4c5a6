"""accelera.linalg, tensordot and vecdot against numpy.linalg in float64 on every device: sizes 0 (where
allowed), 1, primes and batches; eigh, svd and qr by their invariants (reconstruction, orthogonality,
ordering), not by the signs of vectors; bad input raises typed errors and leaves the inputs untouched."""

from __future__ import annotations

import math

import numpy as np
import pytest

import accelera as ac
from accelera import linalg as la

DEVICES = [d["device"] for d in ac.devices()]
SQUARE = [(1, 1), (2, 2), (5, 5), (13, 13), (3, 7, 7), (2, 2, 3, 3), (0, 4, 4)]
RECT = [(1, 1), (7, 3), (3, 7), (13, 13), (2, 5, 2), (2, 2, 9), (0, 3, 2)]


def tol(dtype, cond=1.0):
    eps = np.finfo(np.float32 if dtype == "float32" else np.float64).eps
    return 200 * eps * max(cond, 1.0)


def well_conditioned(rng, shape):
    n = shape[-1]
    return rng.standard_normal(shape) + 2 * n ** 0.5 * np.eye(n)


def spd(rng, shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def put(x, device, dtype):
    return ac.asarray(np.asarray(x, dtype=dtype), device=device)


def close(got, want, rtol, scale=None):
    got = np.asarray(got.numpy() if isinstance(got, ac.Tensor) else got, dtype=np.float64)
    scale = np.max(np.abs(want), initial=1.0) if scale is None else scale
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=0, atol=rtol * scale)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_solve_inv_det(device, dtype):
    rng = np.random.default_rng(1)
    for shape in SQUARE:
        a = well_conditioned(rng, shape).astype(dtype)
        b = rng.standard_normal(shape[:-1] + (3,)).astype(dtype)
        ta, tb = put(a, device, dtype), put(b, device, dtype)
        a64 = a.astype(np.float64)
        cond = np.linalg.cond(a64).max() if a.size else 1.0
        close(la.solve(ta, tb), np.linalg.solve(a64, b.astype(np.float64)), tol(dtype, cond))
        close(la.inv(ta), np.linalg.inv(a64), tol(dtype, cond))
        close(la.det(ta), np.linalg.det(a64), tol(dtype, cond), scale=np.max(np.abs(np.linalg.det(a64)), initial=1))
        sign, logabs = la.slogdet(ta)
        ws, wl = np.linalg.slogdet(a64)
        close(sign, ws, 0)
        close(logabs, wl, tol(dtype, cond) * shape[-1])
        np.testing.assert_array_equal(ta.numpy(), a)  # inputs untouched
    # One vector right-hand side, and batch axes that broadcast.
    a = well_conditioned(rng, (2, 1, 4, 4))
    b = rng.standard_normal((3, 4, 2))
    close(la.solve(put(a, device, dtype), put(b, device, dtype)), np.linalg.solve(a, b), tol(dtype, 10))
    v = rng.standard_normal(4)
    close(la.solve(put(a[0, 0], device, dtype), put(v, device, dtype)), np.linalg.solve(a[0, 0], v), tol(dtype, 10))


@pytest.mark.parametrize("device", DEVICES)
def test_singular_and_not_positive_definite(device):
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    t = put(a, device, "float64")
    for f in (la.inv, lambda x: la.solve(x, x), la.cholesky):
        with pytest.raises(ac.LinAlgError):
            f(t)
    assert issubclass(ac.LinAlgError, ValueError) and la.LinAlgError is ac.LinAlgError
    np.testing.assert_array_equal(t.numpy(), a)
    assert float(la.det(t).numpy()) == 0.0
    sign, logabs = la.slogdet(t)
    assert float(sign.numpy()) == 0.0 and float(logabs.numpy()) == -math.inf
    batch = np.stack([np.eye(2), a])
    with pytest.raises(ac.LinAlgError, match="matrix 1 of the batch"):
        la.inv(put(batch, device, "float64"))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cholesky(device, dtype):
    rng = np.random.default_rng(2)
    for shape in SQUARE:
        a = spd(rng, shape)
        t = put(a, device, dtype)
        want = np.linalg.cholesky(a)
        close(la.cholesky(t), want, tol(dtype, 10))
        close(la.cholesky(t, upper=True), np.swapaxes(want, -1, -2), tol(dtype, 10))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigh(device, dtype):
    rng = np.random.default_rng(3)
    for shape in SQUARE:
        a = rng.standard_normal(shape)
        a = a + np.swapaxes(a, -1, -2)
        t = put(a, device, dtype)
        w, v = la.eigh(t)
        w, v = w.numpy().astype(np.float64), v.numpy().astype(np.float64)
        scale = np.max(np.abs(a), initial=1) * shape[-1]
        close(w, np.linalg.eigvalsh(a), tol(dtype), scale=scale)
        close(la.eigvalsh(t), np.linalg.eigvalsh(a), tol(dtype), scale=scale)
        assert np.all(np.diff(w, axis=-1) >= 0)
        close(v @ (w[..., None] * np.swapaxes(v, -1, -2)), a, tol(dtype), scale=scale)
        close(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(shape[-1]), a.shape), tol(dtype) * shape[-1], 1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_and_qr(device, dtype):
    rng = np.random.default_rng(4)
    for shape in RECT:
        a = rng.standard_normal(shape)
        t = put(a, device, dtype)
        m, n = shape[-2:]
        k = min(m, n)
        scale = np.max(np.abs(a), initial=1) * max(m, n)
        want_s = np.linalg.svd(a, compute_uv=False)
        close(la.svdvals(t), want_s, tol(dtype), scale=scale)
        for full in (True, False):
            u, s, vh = (x.numpy().astype(np.float64) for x in la.svd(t, full_matrices=full))
            assert u.shape == shape[:-2] + (m, m if full else k) and vh.shape == shape[:-2] + (n if full else k, n)
            close(s, want_s, tol(dtype), scale=scale)
            close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, tol(dtype), scale=scale)
            close(np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2),
                  tol(dtype) * max(m, n), 1)
        for mode in ("reduced", "complete"):
            q, r = (x.numpy().astype(np.float64) for x in la.qr(t, mode=mode))
            c = m if mode == "complete" else k
            assert q.shape == shape[:-2] + (m, c) and r.shape == shape[:-2] + (c, n)
            close(q @ r, a, tol(dtype), scale=scale)
            close(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(c), q.shape[:-2] + (c, c)), tol(dtype) * m, 1)
            np.testing.assert_array_equal(np.tril(r, -1), 0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pinv_rank_norms(device, dtype):
    rng = np.random.default_rng(5)
    for shape in [(7, 3), (3, 7), (2, 5, 5), (1, 1)]:
        a = rng.standard_normal(shape)
        t = put(a, device, dtype)
        close(la.pinv(t), np.linalg.pinv(a), tol(dtype, np.linalg.cond(a).max()))
        np.testing.assert_array_equal(la.matrix_rank(t).numpy(), np.linalg.matrix_rank(a))
        for ord in ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]:
            for keepdims in (False, True):
                want = np.linalg.norm(a, ord=ord, axis=(-2, -1), keepdims=keepdims)
                close(la.matrix_norm(t, ord=ord, keepdims=keepdims), want, tol(dtype) * 10)
    # Empty matrices: the largest of no sums or singular values is 0, as in NumPy; the smallest of none raises.
    for shape in [(0, 0), (2, 0, 3), (3, 0)]:
        empty = put(np.zeros(shape), device, dtype)
        for ord in ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]:
            try:
                want = np.linalg.matrix_norm(np.zeros(shape), ord=ord)
            except ValueError:
                with pytest.raises(ValueError):
                    la.matrix_norm(empty, ord=ord)
                continue
            close(la.matrix_norm(empty, ord=ord), want, 0)
    low_rank = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5))
    assert int(la.matrix_rank(put(low_rank, device, dtype)).numpy()) == 2
    x = rng.standard_normal((3, 4, 5))
    x[0, 0, 0] = 0
    tx = put(x, device, dtype)
    for ord in [2, 1, 0, 3, 0.5, math.inf, -math.inf, -1]:
        for axis in [None, -1, 0, (0, 2), (1, 2)]:
            for keepdims in (False, True):
                with np.errstate(divide="ignore"):  # NumPy's negative orders divide by the zero element
                    want = np.linalg.vector_norm(x, ord=ord, axis=axis, keepdims=keepdims)
                close(la.vector_norm(tx, ord=ord, axis=axis, keepdims=keepdims), want, tol(dtype) * 10)


VECDOT_CASES = [  # (shape of x1, shape of x2, axis, x1 transposed (its last two axes swapped))
    ((1,), (1,), -1, False), ((13,), (13,), 0, False), ((5, 16), (5, 16), -1, False),
    ((3, 17), (17,), -1, False), ((1031, 1), (1031, 1), 0, False), ((64, 1031), (64, 1031), -1, False),
    ((7, 4099), (1, 4099), 1, False), ((2, 1, 29), (3, 29), -1, False), ((6, 8, 37), (37, 8), 1, True),
    ((37, 19), (19, 37), 0, True), ((4096, 3), (4096, 3), -1, False), ((40009,), (40009,), 0, False),
    ((3, 5, 0), (3, 5, 0), -1, False),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", VECDOT_CASES,
                         ids=[f"{a}x{b}@{axis}{'T' if t else ''}" for a, b, axis, t in VECDOT_CASES])
def test_vecdot_layouts(device, dtype, case):
    """vecdot over every layout its kernels take apart (short and long vectors, broadcasting, other axes,
    transposed operands, empty vectors) within a few ulp of each dot product's magnitude in float64."""
    shape_a, shape_b, axis, transposed = case
    rng = np.random.default_rng(len(shape_a) * 100 + shape_a[-1])
    a = rng.standard_normal(shape_a).astype(dtype)
    b = rng.standard_normal(shape_b).astype(dtype)
    ta, tb = put(a, device, dtype), put(b, device, dtype)
    if transposed:
        a = np.swapaxes(a, -1, -2)
        ta = ac.matrix_transpose(ta)
    want = np.sum(a.astype(np.float64) * b.astype(np.float64), axis=axis)
    magnitude = np.sum(np.abs(a.astype(np.float64) * b.astype(np.float64)), axis=axis)
    got = ac.vecdot(ta, tb, axis=axis)
    assert got.dtype == getattr(ac, dtype) and got.shape == want.shape
    bound = 0.0 if want.size == 0 else 4 * np.finfo(dtype).eps * magnitude.max(initial=1.0)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=0, atol=bound)
    # Mixed dtypes promote first; the inputs are left as they were.
    mixed = ac.vecdot(ta, put(b, device, "float64"), axis=axis)
    assert mixed.dtype == ac.float64
    np.testing.assert_array_equal(tb.numpy(), b)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_products_and_views(device, dtype):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((4, 5, 2))
    ta, tb = put(a, device, dtype), put(b, device, dtype)
    close(ac.tensordot(ta, tb), np.tensordot(a, b), tol(dtype) * 20)
    c = rng.standard_normal((5, 2))
    close(la.tensordot(ta, put(c, device, dtype), axes=1), np.tensordot(a, c, axes=1), tol(dtype) * 20)
    close(ac.tensordot(ta, tb, axes=([1, 2], [0, 1])), np.tensordot(a, b, axes=([1, 2], [0, 1])), tol(dtype) * 20)
    close(ac.tensordot(ta, tb, axes=0), np.tensordot(a, b, axes=0), tol(dtype))
    close(ac.tensordot(ta, tb, axes=([2, 1], [1, 0])), np.tensordot(a, b, axes=([2, 1], [1, 0])), tol(dtype) * 20)
    x, y = rng.standard_normal((2, 1, 7)), rng.standard_normal((3, 7))
    close(ac.vecdot(put(x, device, dtype), put(y, device, dtype)), np.sum(x * y, axis=-1), tol(dtype) * 10)
    close(la.vecdot(put(x, device, dtype), put(y, device, dtype), axis=-1), np.sum(x * y, axis=-1), tol(dtype) * 10)
    m = rng.standard_normal((2, 4, 6)).astype(dtype).astype(np.float64)  # exact in dtype: views compare exactly
    tm = put(m, device, dtype)
    for offset in [0, 1, -2, 5, -7]:
        close(la.diagonal(tm, offset=offset), np.diagonal(m, offset, -2, -1), 0)
        close(la.trace(tm, offset=offset), np.trace(m, offset, -2, -1), tol(dtype) * 10)
        close(la.diagonal(tm.mT, offset=offset), np.diagonal(np.swapaxes(m, -1, -2), offset, -2, -1), 0)
    close(la.outer(put(m[0, 0], device, dtype), put(m[1, 1], device, dtype)), np.outer(m[0, 0], m[1, 1]), tol(dtype))
    u, v = rng.standard_normal((4, 3)), rng.standard_normal((2, 1, 3))
    close(la.cross(put(u, device, dtype), put(v, device, dtype)), np.cross(u, v), tol(dtype) * 10)
    close(la.cross(put(u.T, device, dtype), put(u[::-1].T, device, dtype), axis=-2), np.cross(u.T, u[::-1].T, axis=0),
          tol(dtype) * 10)
    s = well_conditioned(rng, (2, 3, 3)) / 3
    ts = put(s, device, dtype)
    for n in [0, 1, 2, 3, 7, -1, -3]:
        close(la.matrix_power(ts, n), np.linalg.matrix_power(s, n), tol(dtype, 100) * 10)
    close(la.matrix_transpose(tm), np.swapaxes(m, -1, -2), 0)
    close(la.matmul(tm, tm.mT), m @ np.swapaxes(m, -1, -2), tol(dtype) * 10)


@pytest.mark.parametrize("device", DEVICES)
def test_half_formats_compute_in_float32(device):
    a = spd(np.random.default_rng(7), (4, 4))
    for dtype in ["float16", "bfloat16"]:
        t = ac.astype(ac.asarray(a, device=device), dtype)
        inv = la.inv(t)
        assert inv.dtype == t.dtype
        close(ac.astype(inv, "float64"), np.linalg.inv(ac.astype(t, "float64").numpy()), 2e-2)
        w = la.eigvalsh(t)
        assert w.dtype == t.dtype


@pytest.mark.parametrize("device", DEVICES)
def test_bad_input(device):
    sq = put(np.eye(3), device, "float64")
    ints = ac.asarray(np.eye(3, dtype=np.int64), device=device)
    rect = put(np.ones((2, 3)), device, "float64")
    vec = put(np.ones(3), device, "float64")
    for f in (la.inv, la.det, la.cholesky, la.eigh, la.svd, la.qr, la.matrix_norm, la.pinv):
        with pytest.raises(TypeError):
            f(ints)
        with pytest.raises(ValueError):
            f(vec)
    for f in (la.inv, la.det, la.slogdet, la.cholesky, la.eigh, la.eigvalsh, lambda x: la.matrix_power(x, 2)):
        with pytest.raises(ValueError):
            f(rect)
    with pytest.raises(ValueError):
        la.solve(sq, put(np.ones((2, 1)), device, "float64"))
    with pytest.raises(ValueError):
        la.qr(sq, mode="r")
    with pytest.raises(ValueError):
        la.matrix_norm(sq, ord=3)
    with pytest.raises(ValueError):
        ac.tensordot(sq, vec, axes=2)
    with pytest.raises(ValueError):
        ac.vecdot(sq, put(np.ones(4), device, "float64"))
    with pytest.raises(ValueError):
        la.cross(vec, put(np.ones(4), device, "float64"))
    with pytest.raises(ValueError):
        la.outer(sq, vec)
    np.testing.assert_array_equal(sq.numpy(), np.eye(3))


def test_factorisations_in_op_table():
    table = {(r["op"], r["device_kind"]) for r in ac.op_table()}
    for op in ["lu_factor", "lu_solve", "cholesky", "eigh", "svd", "qr_factor", "householder_product"]:
        assert (op, "cpu") in table


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_vecdot_keeps_the_integer_dtype(device, dtype):
    """vecdot's dtype is its operands' (the standard's and NumPy's), not the sum's widened one: int8 wraps."""
    rng = np.random.default_rng(9)
    x = rng.integers(0 if dtype == "uint8" else -100, 100, (3, 40)).astype(dtype)
    y = rng.integers(0 if dtype == "uint8" else -100, 100, (40,)).astype(dtype)
    result = ac.vecdot(ac.asarray(x, device=device), ac.asarray(y, device=device))
    assert result.dtype == dtype and result.device == device
    np.testing.assert_array_equal(result.numpy(), np.vecdot(x, y))
    flags = ac.asarray(x > 0, device=device)
    with pytest.raises(TypeError, match="vecdot: needs numeric tensors, not bool"):
        ac.vecdot(flags, flags)
