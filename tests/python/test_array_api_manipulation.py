"""The array API manipulation functions against NumPy, exactly, on every device and on strided, transposed,
reversed, broadcast and offset views; results stay on the input's device; bad input raises typed errors and
leaves the inputs unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from array_api_support import DEVICES, assert_same, device, tensors_unchanged, view_pairs  # noqa: F401 (fixture)

BASES = [(7,), (1,), (0,), (6, 5), (3, 1, 4), (2, 3, 0), (5, 2, 3, 2)]


def bases(rng, dtype="float64"):
    for shape in BASES:
        yield rng.integers(-100, 100, size=shape).astype(dtype)


def each_view(rng, device, dtype="float64"):
    for base in bases(rng, dtype):
        for name, (a, t) in view_pairs(base, device).items():
            yield f"{base.shape} {name}", a, t


def test_reshape(device, rng):
    for label, a, t in each_view(rng, device):
        for shape in [(-1,), (a.size,), (1, a.size, 1), (a.size, -1) if a.size else (0, 3)]:
            with tensors_unchanged(t):
                assert_same(ac.reshape(t, shape), a.reshape(shape), device)
                copied = ac.reshape(t, shape, copy=True)
                assert_same(copied, a.reshape(shape), device)
                assert not copied.shares_memory(t)


def test_reshape_copy_false_returns_a_view_or_raises(device):
    t = ac.asarray(np.arange(12.0).reshape(3, 4), device=device)
    view = ac.reshape(t, (2, 6), copy=False)
    assert view.shares_memory(t)
    assert ac.reshape(t[:, ::2], (6,), copy=None).shape == (6,)
    with pytest.raises(ValueError):
        ac.reshape(t.T, (12,), copy=False)  # needs a copy
    with pytest.raises(ValueError):
        ac.reshape(t, (5, 3))
    with pytest.raises(ValueError):
        ac.reshape(t, (5, 3), copy=False)


def test_permute_dims_and_matrix_transpose(device, rng):
    for label, a, t in each_view(rng, device):
        axes = tuple(reversed(range(a.ndim)))
        assert_same(ac.permute_dims(t, axes), np.permute_dims(a, axes), device)
        if a.ndim >= 2:
            assert_same(ac.matrix_transpose(t), np.matrix_transpose(a), device)
            assert_same(t.mT, np.matrix_transpose(a), device)
            assert ac.matrix_transpose(t).shares_memory(t)


def test_expand_dims_squeeze_flip(device, rng):
    for label, a, t in each_view(rng, device):
        for axis in range(-a.ndim - 1, a.ndim + 1):
            assert_same(ac.expand_dims(t, axis=axis), np.expand_dims(a, axis), device)
        assert_same(ac.expand_dims(t, axis=(0, -1)), np.expand_dims(a, (0, -1)), device)
        assert_same(ac.squeeze(t), np.squeeze(a), device)
        ones = tuple(i for i, d in enumerate(a.shape) if d == 1)
        if ones:
            assert_same(ac.squeeze(t, axis=ones[0]), np.squeeze(a, ones[0]), device)
        assert_same(ac.flip(t), np.flip(a), device)
        for axis in range(-a.ndim, a.ndim):
            assert_same(ac.flip(t, axis=axis), np.flip(a, axis), device)
        assert ac.flip(t).shares_memory(t) and ac.squeeze(t).shares_memory(t)


def test_moveaxis(device, rng):
    a = rng.standard_normal((2, 3, 4, 5))
    t = ac.asarray(a, device=device)
    for source, destination in [(0, -1), (-1, 0), ((0, 1), (2, 3)), ((3, 0), (1, 2)), ((), ())]:
        assert_same(ac.moveaxis(t, source, destination), np.moveaxis(a, source, destination), device)


def test_broadcast_to_and_broadcast_arrays(device, rng):
    a = rng.standard_normal((3, 1))
    t = ac.asarray(a, device=device)
    for shape in [(3, 1), (3, 4), (2, 3, 4), (0, 3, 0)]:
        assert_same(ac.broadcast_to(t, shape), np.broadcast_to(a, shape), device)
    b = rng.standard_normal((4,))
    got = ac.broadcast_arrays(t, ac.asarray(b, device=device), ac.asarray(np.float64(2.0), device=device))
    want = np.broadcast_arrays(a, b, np.float64(2.0))
    assert isinstance(got, list) and len(got) == 3
    for g, w in zip(got, want):
        assert_same(g, w, device)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concat(device, rng, axis):
    parts = [rng.standard_normal((3, 4)), rng.standard_normal((3, 4))[::-1, ::-1], np.zeros((3, 4)),
             rng.standard_normal((4, 3)).T]
    tensors = [ac.asarray(p, device=device) for p in parts[:3]] + [ac.asarray(parts[3].T, device=device).T]
    with tensors_unchanged(*tensors):
        assert_same(ac.concat(tensors, axis=axis), np.concat(parts, axis=axis), device)
    # Unequal extents along the axis (0 included) and one tensor alone.
    a, b = rng.standard_normal((2, 0)), rng.standard_normal((2, 5))
    assert_same(ac.concat([ac.asarray(a, device=device), ac.asarray(b, device=device)], axis=1),
                np.concat([a, b], axis=1), device)
    assert_same(ac.concat([ac.asarray(b, device=device)]), b, device)


def test_concat_promotes(device):
    i = ac.asarray(np.arange(3, dtype=np.int32), device=device)
    f = ac.asarray(np.arange(2, dtype=np.float32), device=device)
    b = ac.asarray(np.array([True]), device=device)
    assert_same(ac.concat([i, f]), np.concat([np.arange(3, dtype=np.int32), np.arange(2, dtype=np.float32)]), device)
    assert_same(ac.concat([b, i]), np.array([1, 0, 1, 2], np.int32), device)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack_and_unstack(device, rng, axis):
    parts = [rng.integers(0, 9, (3, 4)).astype(np.int64) for _ in range(3)]
    tensors = [ac.asarray(p, device=device) for p in parts]
    tensors[1] = ac.asarray(parts[1][::-1], device=device)[::-1]  # a reversed view
    stacked = ac.stack(tensors, axis=axis)
    assert_same(stacked, np.stack(parts, axis=axis), device)
    pieces = ac.unstack(stacked, axis=axis)
    assert isinstance(pieces, tuple) and len(pieces) == 3
    for got, want in zip(pieces, np.unstack(np.stack(parts, axis=axis), axis=axis)):
        assert_same(got, want, device)


@pytest.mark.parametrize("shift, axis", [(1, None), (-3, None), (13, None), (0, None), (2, 0), (-1, 1),
                                         ((1, 2), (0, 1)), ((5, -7), (1, 0)), (3, -1)])
def test_roll(device, rng, shift, axis):
    for label, a, t in each_view(rng, device):
        if axis is not None and (a.ndim < 2 if isinstance(axis, tuple) or axis == 1 else a.ndim < 1):
            continue
        with tensors_unchanged(t):
            got = ac.roll(t, shift, axis=axis)
        assert_same(got, np.roll(a, shift, axis=axis), device)
        assert not got.shares_memory(t)


@pytest.mark.parametrize("reps", [0, 1, 3, (2, 1), (1, 3), (2, 0, 2), (1, 1, 1, 1, 2)])
def test_tile(device, rng, reps):
    for label, a, t in each_view(rng, device, "int32"):
        assert_same(ac.tile(t, reps if isinstance(reps, tuple) else (reps,)), np.tile(a, reps), device)


@pytest.mark.parametrize("repeats", [0, 1, 3])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_repeat(device, rng, repeats, axis):
    for label, a, t in each_view(rng, device, "bool"):
        if axis is not None and a.ndim == 0:
            continue
        assert_same(ac.repeat(t, repeats, axis=axis), np.repeat(a, repeats, axis=axis), device)


def test_repeat_with_counts_per_element(device, rng):
    a = rng.standard_normal((4, 3))
    t = ac.asarray(a, device=device)[::-1]
    counts = [2, 0, 1, 3]
    assert_same(ac.repeat(t, counts, axis=0), np.repeat(a[::-1], counts, axis=0), device)
    assert_same(ac.repeat(t, np.array([1, 2, 0]), axis=1), np.repeat(a[::-1], [1, 2, 0], axis=1), device)
    assert_same(ac.repeat(t, [2], axis=1), np.repeat(a[::-1], [2], axis=1), device)


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32", "int64", "bool"])
def test_copies_keep_every_dtype(device, rng, dtype):
    a = rng.integers(0, 2 if dtype == "bool" else 50, (5, 4)).astype(dtype)
    t = ac.asarray(a, device=device)
    assert_same(ac.concat([t, t.T[:4, :4]], axis=0), np.concat([a, a.T[:4, :4]]), device)
    assert_same(ac.roll(t, 2, axis=1), np.roll(a, 2, axis=1), device)
    assert_same(ac.tile(t, (2, 2)), np.tile(a, (2, 2)), device)


def test_bfloat16_concat(device):
    t = ac.asarray(np.arange(4, dtype=np.float32), device=device).astype("bfloat16")
    got = ac.concat([t, ac.flip(t)])
    assert got.dtype == "bfloat16"
    assert got.astype("float32").numpy().tolist() == [0, 1, 2, 3, 3, 2, 1, 0]


# ----------------------------------------------------------------------------------------------------------
# Bad input


def test_bad_arguments_raise_typed_errors(device):
    t = ac.asarray(np.arange(12.0).reshape(3, 4), device=device)
    with tensors_unchanged(t):
        for call, error in [
            (lambda: ac.reshape(t, (5, 5)), ValueError),
            (lambda: ac.reshape(t, (2.5, 2)), TypeError),
            (lambda: ac.reshape(t, (-1, -1)), ValueError),
            (lambda: ac.reshape(np.zeros(3), (3,)), TypeError),
            (lambda: ac.permute_dims(t, (0,)), ValueError),
            (lambda: ac.permute_dims(t, (0, 0)), ValueError),
            (lambda: ac.permute_dims(t, (0, 2)), IndexError),
            (lambda: ac.matrix_transpose(t[0]), ValueError),
            (lambda: ac.expand_dims(t, axis=3), IndexError),
            (lambda: ac.expand_dims(t, axis=(0, 0)), ValueError),
            (lambda: ac.expand_dims(t, axis="0"), TypeError),
            (lambda: ac.squeeze(t, axis=0), ValueError),
            (lambda: ac.squeeze(t, axis=5), IndexError),
            (lambda: ac.flip(t, axis=2), IndexError),
            (lambda: ac.moveaxis(t, (0, 1), 0), ValueError),
            (lambda: ac.broadcast_to(t, (4, 3)), ValueError),
            (lambda: ac.broadcast_to(t, (-3, 4)), ValueError),
            (lambda: ac.broadcast_arrays(t, t[:2, :3]), ValueError),
            (lambda: ac.concat([]), ValueError),
            (lambda: ac.concat(t), ValueError),
            (lambda: ac.concat([t, t[:, :2]], axis=0), ValueError),
            (lambda: ac.concat([t, t[0]]), ValueError),
            (lambda: ac.concat([t[0, 0]]), ValueError),
            (lambda: ac.concat([t, np.zeros((3, 4))]), TypeError),
            (lambda: ac.concat([t, t], axis=2), IndexError),
            (lambda: ac.stack([t, t[:2]]), ValueError),
            (lambda: ac.stack([t, t], axis=3), IndexError),
            (lambda: ac.unstack(t[0, 0]), ValueError),
            (lambda: ac.roll(t, 1.5), TypeError),
            (lambda: ac.roll(t, (1, 2), axis=0), ValueError),
            (lambda: ac.tile(t, (-1,)), ValueError),
            (lambda: ac.tile(t, 2.0), TypeError),
            (lambda: ac.repeat(t, -1), ValueError),
            (lambda: ac.repeat(t, [1, 2], axis=0), ValueError),
            (lambda: ac.repeat(t, 1.5), TypeError),
        ]:
            with pytest.raises(error):
                call()
            with pytest.raises(ac.Error):
                call()


def test_functions_on_two_devices_are_refused():
    if len(DEVICES) < 2:
        pytest.skip("one device only")  # CI has cpu and opencl:0
    a, b = ac.zeros((2, 2), device=DEVICES[0]), ac.zeros((2, 2), device=DEVICES[1])
    for call in (lambda: ac.concat([a, b]), lambda: ac.stack([a, b])):
        with pytest.raises(ac.DeviceError):
            call()


def test_repeat_counts_on_a_device_are_refused():
    device = next((d for d in DEVICES if d != "cpu"), None)
    if device is None:
        pytest.skip("no device beside the cpu")
    with pytest.raises(ac.NotSupportedError):
        ac.repeat(ac.zeros((3,)), ac.asarray(np.array([1, 1, 1]), device=device))
