"""Typed errors: the exception hierarchy, and bad input to every public entry point (shapes, dtypes, devices,
sizes, non-array objects, axes). After each failure the NumPy inputs are unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from helpers import inputs_unchanged

# ----------------------------------------------------------------------------------------------------------
# Hierarchy


@pytest.mark.parametrize(
    "cls, builtin",
    [
        (ac.ArgumentError, ValueError),
        (ac.ShapeError, ValueError),
        (ac.DTypeError, TypeError),
        (ac.DeviceError, RuntimeError),
        (ac.OutOfMemoryError, MemoryError),
        (ac.NotSupportedError, NotImplementedError),
        (ac.InternalError, RuntimeError),
    ],
    ids=lambda c: c.__name__,
)
def test_exception_hierarchy(cls, builtin):
    assert issubclass(cls, ac.Error)
    assert issubclass(cls, builtin)
    assert issubclass(ac.Error, Exception)
    assert cls.__module__ == "accelera"
    err = cls("message")
    assert isinstance(err, ac.Error) and isinstance(err, builtin) and str(err) == "message"


def test_shape_error_is_an_argument_error():
    assert issubclass(ac.ShapeError, ac.ArgumentError)


def test_errors_raised_by_ops_are_catchable_both_ways():
    with pytest.raises(ValueError):
        ac.add(np.ones(3), np.ones(4))
    with pytest.raises(ac.ShapeError):
        ac.add(np.ones(3), np.ones(4))
    with pytest.raises(TypeError):
        ac.matmul(np.ones((2, 2), np.int32), np.ones((2, 2), np.int32))
    with pytest.raises(RuntimeError):
        ac.zeros(3, device="cuda:1000")
    with pytest.raises(NotImplementedError):
        ac.asarray(np.ones(3)).to_device("cpu", stream=1)
    with pytest.raises(IndexError):
        ac.asarray(np.ones(3))["a"]


# ----------------------------------------------------------------------------------------------------------
# Shapes

A34 = np.arange(12.0).reshape(3, 4)
A35 = np.arange(15.0).reshape(3, 5)
A3 = np.arange(3.0)
A234 = np.arange(24.0).reshape(2, 3, 4)

SHAPE_ERRORS = {
    "add": lambda: ac.add(A34, A35),
    "subtract": lambda: ac.subtract(A34, A3),
    "multiply": lambda: ac.multiply(A234, A35),
    "divide": lambda: ac.divide(A3, np.ones(4)),
    "empty_vs_2": lambda: ac.add(np.ones(0), np.ones(2)),
    "operator": lambda: ac.asarray(A34) + ac.asarray(A35),
    "operator_numpy_left": lambda: A34 * ac.asarray(A3),
    "matmul_inner": lambda: ac.matmul(A34, A34),
    "matmul_1d": lambda: ac.matmul(A3, np.ones(4)),
    "matmul_1d_2d": lambda: ac.matmul(np.ones(5), A34),
    "matmul_0d": lambda: ac.matmul(np.float64(2.0) * np.ones(()), A34),
    "matmul_batch": lambda: ac.matmul(np.ones((2, 3, 4)), np.ones((3, 4, 5))),
    "matmul_operator": lambda: ac.asarray(A34) @ ac.asarray(A35),
    "reshape": lambda: ac.asarray(A34).reshape(5, 3),
}


@pytest.mark.parametrize("name", list(SHAPE_ERRORS))
def test_mismatched_shapes_raise_shape_error(name):
    inputs = (A34, A35, A3, A234)
    with inputs_unchanged(*inputs), pytest.raises(ac.ShapeError) as info:
        SHAPE_ERRORS[name]()
    assert isinstance(info.value, ValueError)
    assert str(info.value)


# ----------------------------------------------------------------------------------------------------------
# Dtypes

UNSUPPORTED_ARRAYS = {
    "clongdouble": np.arange(6).astype(np.clongdouble),
    "timedelta": np.arange(6).astype("timedelta64[s]"),
    "object": np.array([1, "a", None, 2.0, object(), 3], dtype=object),
    "str": np.array(["a", "b", "c"]),
    "bytes": np.array([b"a", b"b"]),
    "datetime": np.arange(3).astype("datetime64[s]"),
    "longdouble": np.arange(3).astype(np.longdouble),
    "structured": np.zeros(3, dtype=[("a", np.float32), ("b", np.int32)]),
}

ENTRY_POINTS = {
    "asarray": lambda x: ac.asarray(x),
    "from_dlpack": lambda x: ac.from_dlpack(x),
    "add": lambda x: ac.add(x, x),
    "add_tensor": lambda x: ac.add(ac.asarray(np.ones(1)), x),
    "subtract": lambda x: ac.subtract(x, 1.0),
    "multiply": lambda x: ac.multiply(2, x),
    "divide": lambda x: ac.divide(x, x),
    "matmul": lambda x: ac.matmul(x, x),
    "negative": lambda x: ac.negative(x),
    "exp": lambda x: ac.exp(x),
    "log": lambda x: ac.log(x),
    "tanh": lambda x: ac.tanh(x),
    "relu": lambda x: ac.relu(x),
    "sigmoid": lambda x: ac.sigmoid(x),
    "sum": lambda x: ac.sum(x),
    "mean": lambda x: ac.mean(x, axis=0),
    "max": lambda x: ac.max(x, keepdims=True),
    "operator": lambda x: ac.asarray(np.ones(1)) + x,
    "operator_reflected": lambda x: x - ac.asarray(np.ones(1)),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@pytest.mark.parametrize("kind", list(UNSUPPORTED_ARRAYS))
def test_unsupported_dtypes_raise_dtype_error(kind, entry):
    x = UNSUPPORTED_ARRAYS[kind]
    if entry == "from_dlpack" and kind in ("object", "str", "bytes", "datetime", "timedelta", "longdouble", "clongdouble", "structured"):
        # NumPy itself refuses to export these (BufferError) or exports them as something else; Accelera
        # must still answer with a typed error.
        with inputs_unchanged(x), pytest.raises((ac.DTypeError, BufferError)):
            ENTRY_POINTS[entry](x)
        return
    with inputs_unchanged(x), pytest.raises(ac.DTypeError) as info:
        ENTRY_POINTS[entry](x)
    assert isinstance(info.value, TypeError)


MATMUL_DTYPES = [np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", MATMUL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_matmul_on_non_float_raises_dtype_error(dtype):
    a = np.ones((3, 4), dtype=dtype)
    b = np.ones((4, 2), dtype=dtype)
    with inputs_unchanged(a, b):
        with pytest.raises(ac.DTypeError):
            ac.matmul(a, b)
        with pytest.raises(ac.DTypeError):
            ac.asarray(a) @ ac.asarray(b)


F16_OPS = {
    "add": lambda x: ac.add(x, x),
    "multiply_scalar": lambda x: ac.asarray(x) * 2.0,
    "negative": lambda x: ac.negative(x),
    "exp": lambda x: ac.exp(x),
    "log": lambda x: ac.log(x),
    "tanh": lambda x: ac.tanh(x),
    "relu": lambda x: ac.relu(x),
    "sigmoid": lambda x: ac.sigmoid(x),
    "sum": lambda x: ac.sum(x),
    "mean": lambda x: ac.mean(x),
    "max": lambda x: ac.max(x),
    "matmul": lambda x: ac.matmul(x, x),
}


@pytest.mark.parametrize("name", list(F16_OPS))
def test_float16_computes_in_float32_on_the_cpu(name):
    # The CPU's float16 kernels compute in float32 and round once; matmul (no half GEMM there) rounds the
    # float32 product once.
    x = np.arange(4, dtype=np.float16) + 1
    with inputs_unchanged(x):
        got = F16_OPS[name](x)
    want = F16_OPS[name](x.astype(np.float32))
    assert got.dtype == np.float16
    np.testing.assert_array_equal(np.asarray(got.astype("float32")), np.asarray(want.astype("float16").astype("float32")))


@pytest.mark.parametrize("name", ["negative", "exp", "relu", "sum_bool_ok", "max"])
def test_bool_compute(name):
    x = np.array([True, False, True])
    with inputs_unchanged(x):
        if name == "sum_bool_ok":
            assert int(ac.sum(x).numpy()) == 2  # NumPy counts Trues as int64
            return
        with pytest.raises(ac.DTypeError):
            getattr(ac, name)(x)


@pytest.mark.parametrize("bad", ["int128", "uint", "complex32", np.clongdouble, "float128", "str", "", object()],
                         ids=repr)
def test_bad_dtype_arguments(bad):
    x = np.ones(3)
    with inputs_unchanged(x):
        with pytest.raises(ac.DTypeError):
            ac.zeros(3, dtype=bad)
        with pytest.raises(ac.DTypeError):
            ac.full(3, 1.0, dtype=bad)
        with pytest.raises(ac.DTypeError):
            ac.asarray(x, dtype=bad)
        with pytest.raises(ac.DTypeError):
            ac.asarray(x).astype(bad)
        with pytest.raises(ac.DTypeError):
            ac.dtype(bad)


def test_bfloat16_has_no_numpy_export():
    t = ac.zeros((3,), dtype="bfloat16")
    assert t.dtype == ac.bfloat16
    with pytest.raises(ac.DTypeError):
        t.numpy()
    np.testing.assert_array_equal(t.astype("float32").numpy(), np.zeros(3, np.float32))


# ----------------------------------------------------------------------------------------------------------
# Devices

BAD_DEVICE_STRINGS = ["gpu", "cuda:x", "", "cuda:-1", "CPU", "cuda:", ":0", "cpu:-1", "cuda:0:1", "opencl:1.5",
                      " cpu", "cuda:9999999", "tpu:0"]
# Devices that do not exist here: kinds this build lacks, and indices past the last device of any kind.
# Kinds without a device here: not built, or built with no device answering (CUDA without a GPU).
_NOT_BUILT = [k for k in ("cuda", "opencl") if not any(d["kind"] == k for d in ac.devices())]
ABSENT_DEVICES = [f"{k}{suffix}" for k in _NOT_BUILT for suffix in ("", ":0", ":3")] + ["cuda:1000", "opencl:1000"]


def _device_entry_points(device):
    x = np.ones((2, 3))
    return {
        "Tensor.to": lambda: ac.asarray(x).to(device),
        "asarray": lambda: ac.asarray(x, device=device),
        "from_dlpack": lambda: ac.from_dlpack(x, device=device),
        "memory_stats": lambda: ac.memory_stats(device),
        "empty_cache": lambda: ac.empty_cache(device),
        "set_memory_budget": lambda: ac.set_memory_budget(device, 1 << 30),
        "zeros": lambda: ac.zeros((2,), device=device),
        "ones": lambda: ac.ones((2,), device=device),
        "full": lambda: ac.full((2,), 3.0, device=device),
    }, x


@pytest.mark.parametrize("entry", list(_device_entry_points("cpu")[0]))
@pytest.mark.parametrize("device", BAD_DEVICE_STRINGS, ids=repr)
def test_bad_device_strings_raise_argument_error(device, entry, cpu_budget):
    calls, x = _device_entry_points(device)
    with inputs_unchanged(x), pytest.raises(ac.ArgumentError) as info:
        calls[entry]()
    assert isinstance(info.value, ValueError)
    assert repr(device)[1:-1] in str(info.value) or device == ""


@pytest.mark.parametrize("entry", list(_device_entry_points("cpu")[0]))
@pytest.mark.parametrize("device", ABSENT_DEVICES, ids=repr)
def test_absent_devices_raise_device_error(device, entry, cpu_budget):
    calls, x = _device_entry_points(device)
    with inputs_unchanged(x), pytest.raises(ac.DeviceError) as info:
        calls[entry]()
    assert isinstance(info.value, RuntimeError)
    kind = device.split(":")[0]
    # The registry's reason ("built without ...", "no CUDA device found: ..."), else an index past the end.
    expected = ac.absent_backends().get(kind) or "no such device"
    assert expected in str(info.value), str(info.value)


def test_non_string_devices_raise_typed_errors():
    """asarray(device=0) raises ArgumentError; .to(), memory_stats() and zeros() must raise an accelera.Error
    too, not nanobind's "incompatible function arguments" TypeError."""
    x = np.ones(3)
    for device in (0, 1.5, object(), b"cpu"):
        with pytest.raises(ac.ArgumentError):
            ac.asarray(x, device=device)
        with pytest.raises(ac.Error):
            ac.asarray(x).to(device)
        with pytest.raises(ac.Error):
            ac.memory_stats(device)
        with pytest.raises(ac.Error):
            ac.zeros(3, device=device)


def test_device_none_means_default():
    # asarray shares a NumPy array's memory, so without a device it stays on the host (as from_dlpack does).
    assert ac.asarray(np.ones(2), device=None).device == "cpu"
    assert ac.from_dlpack(np.ones(2), device=None).device == "cpu"
    assert ac.memory_stats(None)["budget_bytes"] == ac.memory_stats(ac.default_device())["budget_bytes"]
    ac.empty_cache(None)
    # The factories take device=None like asarray does (NumPy's convention for "the default").
    assert ac.zeros((2,), device=None).device == ac.default_device()
    assert ac.ones((2,), device=None).device == ac.default_device()
    assert ac.full((2,), 1.0, device=None).device == ac.default_device()


def test_dtype_none_means_the_default():
    # The array API standard: dtype=None is the default floating dtype, the one an omitted dtype gives.
    default = ac.__array_namespace_info__().default_dtypes()["real floating"]
    assert ac.zeros(3, dtype=None).dtype == ac.zeros(3).dtype == default == np.float32
    assert ac.asarray(np.ones(2, np.float32), dtype=None).dtype == np.float32  # no conversion


# ----------------------------------------------------------------------------------------------------------
# Sizes

BAD_SIZES = [-1, (-1,), (2, -3), (0, -1), (2**40, 2**40), (2**62, 4), (2**31, 2**31, 2**31), 2**63, 2**70, (2, 2**64)]


@pytest.mark.parametrize("size", BAD_SIZES, ids=repr)
@pytest.mark.parametrize("factory", ["zeros", "ones", "full"])
def test_negative_or_overflowing_sizes_raise_argument_error(factory, size):
    call = {"zeros": lambda: ac.zeros(size), "ones": lambda: ac.ones(size, dtype="float64"),
            "full": lambda: ac.full(size, 7.0, dtype="int64")}[factory]
    with pytest.raises(ac.ArgumentError) as info:
        call()
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("shape", [3.0, "abc", (2, 2.5), (None,), [1, "2"], object()], ids=repr)
@pytest.mark.parametrize("factory", ["zeros", "ones", "full"])
def test_non_integer_sizes_raise_typed_errors(factory, shape):
    call = {"zeros": lambda: ac.zeros(shape), "ones": lambda: ac.ones(shape),
            "full": lambda: ac.full(shape, 1.0)}[factory]
    with pytest.raises(ac.DTypeError):
        call()


def test_none_as_shape_raises_typed_error():
    for factory in (ac.zeros, ac.ones):
        with pytest.raises(ac.DTypeError):
            factory(None)


@pytest.mark.parametrize("shape", [(), 0, (0,), 5, (2, 0, 3), [4, 1], np.int64(3), (np.int32(2), 2)], ids=repr)
def test_valid_sizes(shape):
    want = np.zeros(shape, dtype=np.float32)
    for t in (ac.zeros(shape), ac.ones(shape), ac.full(shape, 2.5)):
        assert t.shape == want.shape and t.dtype == np.float32
    np.testing.assert_array_equal(ac.full(shape, 2.5).numpy(), np.full(shape, 2.5, np.float32))
    np.testing.assert_array_equal(ac.ones(shape, dtype="int32").numpy(), np.ones(shape, np.int32))


def test_full_with_a_non_number_raises_typed_error():
    """full() is a public entry point: a fill value that is not a number is an accelera error (DTypeError)."""
    for value in ("abc", None, object(), [1, 2], b"1"):
        with pytest.raises(ac.Error):
            ac.full((3,), value)


def test_full_int64_is_exact():
    """NumPy fills int64 exactly; Accelera rounds the value through a C double (2**53 + 1 -> 2**53)."""
    for value in (2**53 + 1, -(2**62) - 1, 2**63 - 1):
        got = ac.full((2,), value, dtype="int64").numpy()
        np.testing.assert_array_equal(got, np.full((2,), value, dtype=np.int64), err_msg=f"full(..., {value})")


def test_full_integer_out_of_range_raises():
    """NumPy raises OverflowError; Accelera must not silently store INT_MIN (a UB double -> int conversion)."""
    for value, dtype in ((2**70, "int64"), (2**31, "int32"), (-(2**40), "int32")):
        with pytest.raises(OverflowError):
            np.full((2,), value, dtype=dtype)  # NumPy's behaviour
        with pytest.raises((OverflowError, ac.ArgumentError)):
            ac.full((2,), value, dtype=dtype)


# ----------------------------------------------------------------------------------------------------------
# Non-array objects

NON_ARRAYS = {
    "None": None,
    "object": object(),
    "str": "abc",
    "bytes": b"abc",
    "dict": {1: 2},
    "set": {1, 2},
    "ragged": [[1, 2], [3]],
    "ragged_deep": [[[1.0]], [2.0, 3.0]],
    "list_of_str": ["a", "b"],
    "list_with_none": [1.0, None],
    "function": len,
}

NON_ARRAY_ENTRY_POINTS = {
    "asarray": lambda x: ac.asarray(x),
    "from_dlpack": lambda x: ac.from_dlpack(x),
    "add_left": lambda x: ac.add(x, np.ones(2)),
    "add_right": lambda x: ac.add(np.ones(2), x),
    "subtract": lambda x: ac.subtract(x, 1.0),
    "multiply": lambda x: ac.multiply(x, x),
    "divide": lambda x: ac.divide(1.0, x),
    "matmul": lambda x: ac.matmul(x, np.ones((2, 2))),
    "negative": lambda x: ac.negative(x),
    "exp": lambda x: ac.exp(x),
    "log": lambda x: ac.log(x),
    "tanh": lambda x: ac.tanh(x),
    "relu": lambda x: ac.relu(x),
    "sigmoid": lambda x: ac.sigmoid(x),
    "sum": lambda x: ac.sum(x),
    "mean": lambda x: ac.mean(x),
    "max": lambda x: ac.max(x),
    "operator": lambda x: ac.asarray(np.ones(2)) * x,
    "operator_reflected": lambda x: x / ac.asarray(np.ones(2)),
}


@pytest.mark.parametrize("entry", list(NON_ARRAY_ENTRY_POINTS))
@pytest.mark.parametrize("kind", list(NON_ARRAYS))
def test_non_array_objects_raise_accelera_errors(kind, entry):
    with pytest.raises(ac.Error):
        NON_ARRAY_ENTRY_POINTS[entry](NON_ARRAYS[kind])


# ----------------------------------------------------------------------------------------------------------
# Axes

X = np.arange(60.0).reshape(3, 4, 5)


@pytest.mark.parametrize("name", ["sum", "mean", "max"])
@pytest.mark.parametrize(
    "axis, error",
    [
        (3, ac.ArgumentError),
        (-4, ac.ArgumentError),
        (100, ac.ArgumentError),
        ((0, 3), ac.ArgumentError),
        ((0, 0), ac.ArgumentError),
        ((1, -2), ac.ArgumentError),  # the same axis twice
        ((0, 1, 2, 0), ac.ArgumentError),
        (1.0, ac.DTypeError),
        ((0, 1.0), ac.DTypeError),
        ("0", ac.DTypeError),
        (True, ac.DTypeError),
        ([0.5], ac.DTypeError),
        (object(), ac.DTypeError),
    ],
    ids=repr,
)
def test_bad_axes(name, axis, error):
    with inputs_unchanged(X), pytest.raises(error):
        getattr(ac, name)(X, axis=axis)
    with pytest.raises(error):
        getattr(ac.asarray(X), name)(axis=axis)
    if error is ac.ArgumentError:
        with pytest.raises(ValueError):
            getattr(np, name)(X, axis=axis)  # NumPy refuses these too (AxisError is a ValueError)


def test_axis_on_0d():
    with pytest.raises(ac.ArgumentError):
        ac.sum(np.array(1.0), axis=0)
    assert ac.sum(np.array(1.0), axis=()).shape == ()
    assert ac.sum(np.array(1.0), axis=None).shape == ()


def test_failed_calls_leave_tensors_usable():
    t = ac.asarray(X)
    for call in (lambda: t.reshape(7), lambda: t.sum(axis=5), lambda: t[10], lambda: t.to("gpu"),
                 lambda: t + np.ones(7), lambda: t.astype("clongdouble")):
        with pytest.raises((ac.Error, IndexError)):
            call()
    np.testing.assert_array_equal(t.numpy(), X)
    np.testing.assert_allclose(ac.sum(t).numpy(), X.sum(), rtol=1e-15)
