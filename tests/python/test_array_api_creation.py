"""The array API creation functions against NumPy, on every device: values, dtypes, devices, copy= rules
and bad input (typed errors, inputs unchanged)."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from array_api_support import (  # noqa: F401 (fixture)
    DEVICES, assert_same, device, host, tensors_unchanged, view_pairs)

DTYPES = ["float16", "float32", "float64", "int32", "int64", "bool"]
SHAPES = [(), (0,), (1,), (7,), (3, 0), (13, 31), (2, 3, 5)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_zeros_ones_full_empty(device, shape, dtype):
    assert_same(ac.zeros(shape, dtype=dtype, device=device), np.zeros(shape, dtype), device)
    assert_same(ac.ones(shape, dtype=dtype, device=device), np.ones(shape, dtype), device)
    value = True if dtype == "bool" else 3
    assert_same(ac.full(shape, value, dtype=dtype, device=device), np.full(shape, value, dtype), device)
    e = ac.empty(shape, dtype=dtype, device=device)
    assert e.shape == shape and e.dtype == dtype and e.device == device


@pytest.mark.parametrize("value, dtype", [(2**62 + 1, "int64"), (-2**63, "int64"), (2**31 - 1, "int32"),
                                          (-7.9, "int64"), (0.1, "float32"), (0.1, "float16"), (1e300, "float32"),
                                          (float("nan"), "float64"), (float("-inf"), "float16"), (True, "float32"),
                                          (5, "bool")])
def test_full_is_exact(device, value, dtype):
    with np.errstate(over="ignore"):  # 1e300 as float32 is inf in NumPy too
        want = np.full((3, 2), value, dtype)
    assert_same(ac.full((3, 2), value, dtype=dtype, device=device), want, device)


def test_full_bfloat16(device):
    t = ac.full((4,), 0.1, dtype="bfloat16", device=device)
    assert t.dtype == "bfloat16" and host(t).tolist() == [0.10009765625] * 4


@pytest.mark.parametrize("value, dtype", [(True, "bool"), (7, "int64"), (2.5, "float32")])
def test_full_infers_the_default_dtype_of_the_value(device, value, dtype):
    assert ac.full((2,), value, device=device).dtype == dtype


def test_default_dtypes_and_devices():
    info = ac.__array_namespace_info__()
    assert ac.zeros(2).dtype == info.default_dtypes()["real floating"] == ac.float32
    assert ac.arange(3).dtype == info.default_dtypes()["integral"] == ac.int64
    assert ac.zeros(2).device == ac.default_device() == info.default_device()


@pytest.mark.parametrize("dtype", [None, "float32", "int32"])
def test_like_functions_keep_shape_dtype_and_device(device, rng, dtype):
    base = rng.standard_normal((5, 7)).astype(np.float64)
    for name, view in {"contiguous": base, "transposed": base.T, "negstep": base[::-2, ::-1]}.items():
        x = ac.asarray(view, device=device)
        want = view.dtype if dtype is None else np.dtype(dtype)
        with tensors_unchanged(x):
            assert_same(ac.zeros_like(x, dtype=dtype), np.zeros_like(view, dtype=want), device)
            assert_same(ac.ones_like(x, dtype=dtype), np.ones_like(view, dtype=want), device)
            assert_same(ac.full_like(x, 4, dtype=dtype), np.full_like(view, 4, dtype=want), device)
            e = ac.empty_like(x, dtype=dtype)
            assert e.shape == view.shape and e.dtype == want and e.device == device
    assert ac.zeros_like(ac.zeros(3, device=device), device="cpu").device == "cpu"


@pytest.mark.parametrize("n, m, k", [(0, None, 0), (1, None, 0), (4, None, 0), (4, 5, 1), (5, 4, -2), (3, 7, 6),
                                     (3, 7, 7), (6, 2, -6), (13, 31, 3), (31, 13, -12)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_eye(device, n, m, k, dtype):
    assert_same(ac.eye(n, m, k=k, dtype=dtype, device=device), np.eye(n, m, k=k, dtype=dtype), device)


def test_eye_bfloat16(device):
    np.testing.assert_array_equal(host(ac.eye(3, 4, k=1, dtype="bfloat16", device=device)), np.eye(3, 4, k=1))


@pytest.mark.parametrize("args", [(5,), (0,), (1,), (-3,), (2, 11), (11, 2), (11, 2, -3), (-7, 13, 4), (0, 10**6, 9973),
                                  (3, 3)])
@pytest.mark.parametrize("dtype", [None, "int32", "int64", "float32", "float64"])
def test_arange_of_integers_is_exact(device, args, dtype):
    assert_same(ac.arange(*args, dtype=dtype, device=device), np.arange(*args, dtype=dtype or np.int64), device)


@pytest.mark.parametrize("args", [(0.5,), (0.0, 1.0, 0.1), (1.0, 0.0, -0.3), (-2.5, 7, 0.7), (0, 1, 1e-3),
                                  (1e10, 1e10 + 5, 1.5)])
@pytest.mark.parametrize("dtype", [None, "float16", "float32", "float64"])
def test_arange_of_floats_rounds_float64_values_once(device, args, dtype):
    with np.errstate(over="ignore"):  # 1e10 as float16 is inf in NumPy too
        want = np.arange(*(float(a) for a in args), dtype=np.float64).astype(dtype or np.float32)
    assert_same(ac.arange(*args, dtype=dtype, device=device), want, device)


@pytest.mark.parametrize("args", [(0, 1, 5), (0, 1, 0), (0, 1, 1), (-3.5, 2, 7), (5, -5, 101), (1, 1, 4)])
@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", [None, "float16", "float32", "float64"])
def test_linspace(device, args, endpoint, dtype):
    want = np.linspace(*args, endpoint=endpoint, dtype=np.float64).astype(dtype or np.float32)
    assert_same(ac.linspace(*args, endpoint=endpoint, dtype=dtype, device=device), want, device)


@pytest.mark.parametrize("sizes", [(), (3,), (3, 4), (2, 0, 5), (1, 3, 2, 4)])
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(device, sizes, indexing):
    arrays = [np.arange(n, dtype=np.int32) * (i + 2) for i, n in enumerate(sizes)]
    got = ac.meshgrid(*[ac.asarray(a, device=device) for a in arrays], indexing=indexing)
    want = np.meshgrid(*arrays, indexing=indexing)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w, device)


def test_meshgrid_of_strided_views(device):
    a, b = np.arange(10.0), np.arange(7.0)
    ta, tb = ac.asarray(a, device=device), ac.asarray(b, device=device)
    for g, w in zip(ac.meshgrid(ta[::-3], tb[1::2]), np.meshgrid(a[::-3], b[1::2])):
        assert_same(g, w, device)


# ----------------------------------------------------------------------------------------------------------
# asarray and copy=


def test_asarray_copy_rules_for_tensors(device):
    x = ac.asarray(np.arange(6.0), device=device)
    assert ac.asarray(x) is x and ac.asarray(x, copy=False) is x
    copied = ac.asarray(x, copy=True)
    assert not copied.shares_memory(x)
    np.testing.assert_array_equal(copied.numpy(), x.numpy())
    assert ac.asarray(x, dtype="float32").dtype == "float32"
    with pytest.raises(ValueError):
        ac.asarray(x, dtype="float32", copy=False)
    other = "cpu" if device != "cpu" else DEVICES[-1]
    if other != device:
        with pytest.raises(ValueError):
            ac.asarray(x, device=other, copy=False)
        assert ac.asarray(x, device=other).device == other


def test_asarray_copy_rules_for_numpy():
    a = np.arange(6.0)
    shared = ac.asarray(a, copy=False)
    assert np.shares_memory(shared.numpy(), a)
    assert not np.shares_memory(ac.asarray(a, copy=True).numpy(), a)
    assert not np.shares_memory(ac.asarray(a, copy=True, device="cpu").numpy(), a)
    with pytest.raises(ValueError):
        ac.asarray([1.0, 2.0], copy=False)  # a Python list always needs a copy
    with pytest.raises(ValueError):
        ac.asarray(3, copy=False)
    with pytest.raises(ValueError):
        ac.asarray(np.arange(3, dtype=">f8"), copy=False)
    assert ac.asarray([1, 2], copy=True).numpy().tolist() == [1, 2]
    assert ac.asarray(a, dtype="float32", device="cpu").dtype == "float32"


# ----------------------------------------------------------------------------------------------------------
# Bad input


def test_bad_arguments_raise_typed_errors(device):
    x = ac.asarray(np.arange(4.0), device=device)
    with tensors_unchanged(x):
        for call, error in [
            (lambda: ac.arange(0, 5, 0), ValueError),
            (lambda: ac.arange("5"), TypeError),
            (lambda: ac.arange(3, dtype="bool"), TypeError),
            (lambda: ac.arange(2**31, 2**31 + 2, dtype="int32"), OverflowError),
            (lambda: ac.arange(2**70), OverflowError),
            (lambda: ac.arange(10**400), OverflowError),
            (lambda: ac.arange(float("nan")), ValueError),
            (lambda: ac.arange(0, float("inf")), ValueError),
            (lambda: ac.arange(0, 1, 1e-320), ValueError),  # more elements than a tensor holds
            (lambda: ac.linspace(0, float("nan"), 3), ValueError),
            (lambda: ac.linspace(0, 1, -1), ValueError),
            (lambda: ac.linspace(0, 1, 2.5), TypeError),
            (lambda: ac.linspace(0, 1, 5, dtype="int32"), TypeError),
            (lambda: ac.linspace(0, 1, 5, endpoint=None), TypeError),
            (lambda: ac.eye(-1), ValueError),
            (lambda: ac.eye(2.0), TypeError),
            (lambda: ac.eye(2, k=0.5), TypeError),
            (lambda: ac.full((2,), "a"), TypeError),
            (lambda: ac.full((2,), None), TypeError),
            (lambda: ac.full((2,), 2**40, dtype="int32"), OverflowError),
            (lambda: ac.full((2,), float("nan"), dtype="int64"), ValueError),
            (lambda: ac.zeros((2,), dtype="clongdouble"), TypeError),
            (lambda: ac.full((2,), 1j, dtype="float32"), TypeError),
            (lambda: ac.empty((-1,)), ValueError),
            (lambda: ac.zeros_like(np.zeros(3)), TypeError),
            (lambda: ac.full_like(x, "a"), TypeError),
            (lambda: ac.meshgrid(x, indexing="yx"), ValueError),
            (lambda: ac.meshgrid(x, x.astype("float32")), TypeError),
            (lambda: ac.meshgrid(x.reshape(2, 2)), ValueError),
            (lambda: ac.meshgrid(np.arange(3)), TypeError),
            (lambda: ac.asarray(x, copy="yes"), TypeError),
            (lambda: ac.asarray(x, dtype="clongdouble"), TypeError),
            (lambda: ac.zeros(3, device="nowhere:0"), ValueError),
        ]:
            with pytest.raises(error):
                call()
            with pytest.raises(ac.Error):
                call()


def test_meshgrid_on_two_devices_is_refused():
    if len(DEVICES) < 2:
        pytest.skip("one device only")  # CI has cpu and opencl:0
    a, b = ac.arange(3, device=DEVICES[0]), ac.arange(3, device=DEVICES[1])
    with pytest.raises(ac.DeviceError):
        ac.meshgrid(a, b)


@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (7, 3), (2, 5, 5), (4, 0), (2, 3, 13, 11)], ids=str)
@pytest.mark.parametrize("k", [0, 1, -2, 6, -20])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_tril_and_triu_match_numpy_on_every_view(device, shape, k, dtype):
    rng = np.random.default_rng(11)
    base = (rng.integers(-9, 10, shape) + (1j if dtype == "complex64" else 0)).astype(dtype)
    for name, (b, t) in view_pairs(base, device).items():
        with tensors_unchanged(t):
            assert_same(ac.tril(t, k=k), np.tril(b, k=k), device)
            assert_same(ac.triu(t, k=k), np.triu(b, k=k), device)


def test_tril_and_triu_keep_nan_and_signed_zero_and_run_through_numpy(device):
    base = np.array([[np.nan, -0.0], [np.inf, np.nan]], np.float64)
    t = ac.asarray(base, device=device)
    np.testing.assert_array_equal(ac.tril(t).numpy(), np.tril(base))
    assert np.signbit(ac.triu(t).numpy()[0, 1])
    assert np.isnan(ac.triu(t, k=-1).numpy()[1, 1])
    # NumPy's functions on accelera tensors run on their device (Note [NumPy protocols]).
    assert_same(np.tril(t, 1), np.tril(base, 1), device)


def test_tril_and_triu_bad_input(device):
    vector = ac.asarray(np.arange(3.0), device=device)
    matrix = ac.asarray(np.ones((2, 2)), device=device)
    with tensors_unchanged(vector, matrix):
        for function in (ac.tril, ac.triu):
            with pytest.raises(ValueError, match="at least 2 dimensions"):
                function(vector)
            with pytest.raises(TypeError, match="k must be an integer"):
                function(matrix, k=1.5)


def test_asarray_of_python_integers_is_exact_in_the_dtype_asked_for(device):
    """Python ints beyond 2**53 in a list convert straight to the requested dtype: through NumPy's default
    (float64 for [2**63 + 1, 5]) they lost their low bits."""
    big = [2**63 + 1, 5, 2**64 - 1]
    assert ac.asarray(big, dtype=ac.uint64, device=device).numpy().tolist() == big
    near = [2**62 + 1, -(2**63), 3]
    assert ac.asarray(near, dtype=ac.int64, device=device).numpy().tolist() == near
    with pytest.raises(OverflowError, match="out of bounds for uint64"):
        ac.asarray([-1, 2], dtype=ac.uint64, device=device)
    with pytest.raises(OverflowError):
        ac.asarray([300], dtype="int8", device=device)
    assert host(ac.asarray([1.5, -2.25], dtype=ac.bfloat16, device=device)).tolist() == [1.5, -2.25]
    assert ac.asarray([[1, 2], [3, 4]], dtype=ac.float32, device=device).dtype == ac.float32
