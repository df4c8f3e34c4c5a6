"""NumPy and DLPack interop: zero-copy in both directions, the DLPack Python protocol (versioned and legacy
capsules), lifetimes, read-only and byte-swapped arrays, dtype round trips, and PyTorch if installed."""

from __future__ import annotations

import ctypes
import gc

import warnings

import numpy as np
import pytest

import accelera as ac

ROUND_TRIP_DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64, np.bool_]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]

DLPACK_FLAG_READ_ONLY = 1


def _capsule_name(capsule) -> str:
    return _get_name(capsule).decode()


def _versioned_header(capsule):
    """(major, minor, flags) of a DLManagedTensorVersioned capsule (DLPack 1.x layout)."""
    ptr = _get_pointer(capsule, b"dltensor_versioned")
    major, minor = (ctypes.c_uint32 * 2).from_address(ptr)
    flags = ctypes.c_uint64.from_address(ptr + 8 + 2 * ctypes.sizeof(ctypes.c_void_p)).value
    return major, minor, flags


def _sample(dtype, shape=(7, 13)):
    return (np.arange(int(np.prod(shape))) % 5).reshape(shape).astype(dtype)


# ----------------------------------------------------------------------------------------------------------
# asarray / numpy(): zero-copy


@pytest.mark.parametrize("dtype", ROUND_TRIP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_asarray_shares_memory_and_round_trips(dtype):
    arr = _sample(dtype)
    t = ac.asarray(arr)
    assert t.dtype == np.dtype(dtype)
    assert t.shape == arr.shape
    out = t.numpy()
    assert out.dtype == arr.dtype
    assert np.shares_memory(out, arr)
    np.testing.assert_array_equal(out, arr)
    # numpy() is zero-copy: two exports alias the same memory.
    assert np.shares_memory(t.numpy(), out)
    # A write through NumPy is visible to the tensor (same memory).
    arr[0, 0] = arr[1, 1] if dtype is not np.bool_ else not arr[0, 0]
    np.testing.assert_array_equal(t.numpy(), arr)


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a.T,
        lambda a: a[::2, 1::3],
        lambda a: a[::-1, ::-2],
        lambda a: np.broadcast_to(a[:1], (5, 13)),
        lambda a: np.broadcast_to(a[2, 3, ...], (4, 6)),  # all strides 0
        lambda a: a[3],
        lambda a: a[3, 4, ...],  # 0-d view
        lambda a: a[:0],
        lambda a: a[:, 2:2],
    ],
    ids=["T", "steps", "neg_steps", "broadcast_row", "broadcast_0d", "row", "0d", "empty_rows", "empty_cols"],
)
def test_asarray_strided_views_zero_copy(make):
    base = np.arange(7 * 13, dtype=np.float64).reshape(7, 13)
    view = make(base)
    t = ac.asarray(view)
    assert t.shape == view.shape
    out = t.numpy()
    np.testing.assert_array_equal(out, view)
    assert out.shape == view.shape
    if view.size:
        assert np.shares_memory(out, base)
        assert out.strides == view.strides  # exported with the same strides
    # Ops read the strided view correctly.
    np.testing.assert_array_equal((t * 1.0).numpy(), view)


def test_numpy_array_protocol():
    t = ac.asarray(np.arange(6.0).reshape(2, 3))
    a = np.asarray(t)
    assert np.shares_memory(a, t.numpy())
    c = np.array(t)  # np.array copies
    assert not np.shares_memory(c, t.numpy())
    np.testing.assert_array_equal(c, a)
    f = np.asarray(t, dtype=np.float32)
    assert f.dtype == np.float32
    np.testing.assert_array_equal(f, a.astype(np.float32))


def test_0d_and_empty_round_trip():
    for arr in (np.array(3.5), np.zeros((0,)), np.zeros((3, 0, 2), np.float32), np.array(7, np.int32)):
        t = ac.asarray(arr)
        assert t.shape == arr.shape and t.ndim == arr.ndim and t.size == arr.size
        out = t.numpy()
        assert out.shape == arr.shape and out.dtype == arr.dtype
        np.testing.assert_array_equal(out, arr)
        np.testing.assert_array_equal(np.from_dlpack(t), arr)


def test_python_scalars_and_lists():
    assert ac.asarray(3.0).dtype == np.float64 and ac.asarray(3.0).shape == ()
    assert ac.asarray(3).dtype == np.int64
    assert ac.asarray(True).dtype == np.bool_
    t = ac.asarray([[1, 2, 3], [4, 5, 6]])
    assert t.shape == (2, 3) and t.dtype == np.int64
    np.testing.assert_array_equal(t.numpy(), [[1, 2, 3], [4, 5, 6]])
    t = ac.asarray([1.5, 2], dtype="float32")
    assert t.dtype == np.float32
    np.testing.assert_array_equal(t.numpy(), np.array([1.5, 2], np.float32))


def test_asarray_of_tensor_is_the_same_data():
    t = ac.asarray(np.arange(5.0))
    assert np.shares_memory(ac.asarray(t).numpy(), t.numpy())
    c = ac.asarray(t, dtype=np.float32)
    assert c.dtype == np.float32
    np.testing.assert_array_equal(c.numpy(), np.arange(5.0, dtype=np.float32))


# ----------------------------------------------------------------------------------------------------------
# Lifetimes


def _scribble(nbytes: int, rounds: int = 8):
    """Allocate and fill memory (NumPy and Accelera) so that freed blocks would be overwritten."""
    keep = []
    for i in range(rounds):
        keep.append(np.full(nbytes // 8 + 1, -1234.5 - i))
        keep.append(ac.full((nbytes // 8 + 1,), -999.0 - i, dtype="float64"))
    return keep


def test_tensor_outlives_source_numpy_array(collected):
    arr = np.random.default_rng(1).standard_normal((301, 7))
    expected = arr.copy()
    t = ac.asarray(arr)
    del arr
    gc.collect()
    junk = _scribble(expected.nbytes)
    np.testing.assert_array_equal(t.numpy(), expected)
    np.testing.assert_array_equal((t + 0.0).numpy(), expected)
    del junk


def test_strided_view_tensor_outlives_base(collected):
    base = np.random.default_rng(2).standard_normal((64, 65))
    expected = base[::-3, 1::2].copy()
    t = ac.asarray(base[::-3, 1::2])
    del base
    gc.collect()
    junk = _scribble(64 * 65 * 8)
    np.testing.assert_array_equal(t.numpy(), expected)
    del junk


def test_numpy_export_outlives_tensor(collected):
    x = np.random.default_rng(3).standard_normal((257, 3))
    t = ac.exp(x)  # memory owned by Accelera's allocator
    out = t.numpy()
    expected = np.exp(x)
    current_with_tensor = ac.memory_stats("cpu")["current_bytes"]
    del t
    gc.collect()
    # The export keeps the block alive: it is not returned to the allocator's cache ...
    assert ac.memory_stats("cpu")["current_bytes"] == current_with_tensor
    junk = [ac.exp(x) for _ in range(4)]  # ... so same-size allocations cannot reuse it
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    del junk
    gc.collect()
    before_release = ac.memory_stats("cpu")["current_bytes"]
    del out
    gc.collect()
    assert ac.memory_stats("cpu")["current_bytes"] < before_release


def test_dlpack_export_outlives_tensor(collected):
    t = ac.full((1000,), 2.5, dtype="float64") * 2.0
    capsule_consumer = np.from_dlpack(t)
    del t
    gc.collect()
    junk = _scribble(8000)
    np.testing.assert_array_equal(capsule_consumer, np.full(1000, 5.0))
    del junk


def test_unconsumed_capsule_is_released(collected):
    t = ac.full((5000,), 1.0, dtype="float64") + 1.0
    before = ac.memory_stats("cpu")["current_bytes"]
    for max_version in (None, (1, 0)):
        capsule = t.__dlpack__(max_version=max_version)
        del capsule  # never consumed: its destructor must drop its reference, not leak the tensor
    gc.collect()
    assert ac.memory_stats("cpu")["current_bytes"] == before
    del t
    gc.collect()
    assert ac.memory_stats("cpu")["current_bytes"] < before


# ----------------------------------------------------------------------------------------------------------
# DLPack protocol


def test_dlpack_device_is_cpu():
    t = ac.asarray(np.ones(3))
    device_type, device_id = t.__dlpack_device__()
    assert (int(device_type), int(device_id)) == (1, 0)  # kDLCPU


def test_dlpack_versioned_and_legacy_capsules():
    t = ac.asarray(np.arange(6.0).reshape(2, 3))
    versioned = t.__dlpack__(max_version=(1, 0))
    assert _capsule_name(versioned) == "dltensor_versioned"
    major, minor, flags = _versioned_header(versioned)
    assert (major, minor) == (1, 0)
    assert flags & DLPACK_FLAG_READ_ONLY == 0
    assert _capsule_name(t.__dlpack__()) == "dltensor"
    assert _capsule_name(t.__dlpack__(max_version=(0, 8))) == "dltensor"  # consumer predates 1.0
    assert _capsule_name(t.__dlpack__(max_version=(1, 3))) == "dltensor_versioned"
    assert _capsule_name(t.__dlpack__(max_version=(2, 0))) == "dltensor_versioned"  # consumer must check
    assert _capsule_name(t.__dlpack__(dl_device=(1, 0))) == "dltensor"


def test_numpy_from_dlpack_zero_copy():
    t = ac.asarray(np.arange(12.0).reshape(3, 4)).T  # a strided tensor
    out = np.from_dlpack(t)
    np.testing.assert_array_equal(out, np.arange(12.0).reshape(3, 4).T)
    assert np.shares_memory(out, t.numpy())
    copied = np.from_dlpack(t, copy=True)
    assert not np.shares_memory(copied, t.numpy())
    np.testing.assert_array_equal(copied, out)


def test_dlpack_copy_argument():
    t = ac.asarray(np.arange(4.0))
    shared = ac.from_dlpack(_CapsuleOnce(t.__dlpack__(max_version=(1, 0))))
    assert np.shares_memory(shared.numpy(), t.numpy())
    copy = ac.from_dlpack(_CapsuleOnce(t.__dlpack__(max_version=(1, 0), copy=True)))
    assert not np.shares_memory(copy.numpy(), t.numpy())
    np.testing.assert_array_equal(copy.numpy(), t.numpy())


def test_dlpack_stream_must_be_none_on_cpu():
    t = ac.asarray(np.ones(3))
    with pytest.raises(ValueError):
        t.__dlpack__(stream=1)


def test_dlpack_unsupported_device_request_raises_buffer_error():
    """The array API: "If the device type cannot be handled by the producer, __dlpack__ must raise BufferError"."""
    t = ac.asarray(np.ones(3))
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))  # kDLCUDA


@pytest.mark.parametrize("dtype", ROUND_TRIP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_from_dlpack_numpy_zero_copy(dtype):
    arr = _sample(dtype)
    t = ac.from_dlpack(arr)
    assert t.dtype == np.dtype(dtype)
    assert np.shares_memory(t.numpy(), arr)
    np.testing.assert_array_equal(t.numpy(), arr)
    c = ac.from_dlpack(arr, copy=True)
    assert not np.shares_memory(c.numpy(), arr)
    np.testing.assert_array_equal(c.numpy(), arr)
    assert ac.from_dlpack(arr, device="cpu").device == "cpu"


class _LegacyProducer:
    """A producer from before DLPack 1.0: __dlpack__ takes no max_version and exports a legacy capsule."""

    def __init__(self, array):
        self._array = array
        self.calls = []

    def __dlpack__(self, stream=None):
        self.calls.append(stream)
        return self._array.__dlpack__()  # NumPy's legacy export: a "dltensor" capsule

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class _CapsuleOnce:
    """A producer that hands out one fixed capsule."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_from_dlpack_legacy_producer(collected):
    arr = np.arange(7 * 13, dtype=np.float32).reshape(7, 13)[::2, ::-1]
    expected = arr.copy()
    producer = _LegacyProducer(arr)
    t = ac.from_dlpack(producer)
    assert producer.calls, "__dlpack__ was not called without max_version after the TypeError"
    assert t.shape == arr.shape and t.dtype == np.float32
    assert np.shares_memory(t.numpy(), arr)
    np.testing.assert_array_equal(t.numpy(), expected)
    t2 = ac.asarray(_LegacyProducer(arr))  # asarray takes any producer as well
    assert np.shares_memory(t2.numpy(), arr)
    del producer, arr
    gc.collect()
    junk = _scribble(expected.nbytes * 4)
    np.testing.assert_array_equal(t.numpy(), expected)
    del junk


def test_capsule_is_consumed_once():
    capsule = np.arange(3.0).__dlpack__(max_version=(1, 0))
    producer = _CapsuleOnce(capsule)
    t = ac.from_dlpack(producer)
    np.testing.assert_array_equal(t.numpy(), np.arange(3.0))
    assert _capsule_name(capsule) == "used_dltensor_versioned"  # renamed by the consumer, per the spec
    with pytest.raises(ac.Error):
        ac.from_dlpack(producer)  # a used capsule cannot be consumed again
    legacy = np.arange(3.0).__dlpack__()
    ac.from_dlpack(_CapsuleOnce(legacy))
    assert _capsule_name(legacy) == "used_dltensor"


def test_from_dlpack_rejects_non_producers():
    for bad in ([1, 2], None, object(), "abc"):
        with pytest.raises(ac.DTypeError):
            ac.from_dlpack(bad)


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "complex32"])
def test_from_dlpack_rejects_unsupported_dtypes(dtype):
    # NumPy exports only dtypes Accelera holds; PyTorch exports float8 (DLPack code 10) and complex32 (code 5,
    # 32 bits), which it does not.
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PyTorch calls its complex32 experimental
        t = torch.zeros(3, dtype=getattr(torch, dtype))
    with pytest.raises(ac.DTypeError, match="not one of Accelera's dtypes"):
        ac.from_dlpack(t)


# ----------------------------------------------------------------------------------------------------------
# Read-only and byte-swapped arrays


def test_read_only_arrays_are_accepted():
    arr = np.arange(10.0)
    arr.flags.writeable = False
    t = ac.asarray(arr)
    np.testing.assert_array_equal(t.numpy(), arr)
    np.testing.assert_array_equal((t * 2).numpy(), arr * 2)
    np.testing.assert_array_equal(ac.sum(arr).numpy(), np.sum(arr))
    bcast = np.broadcast_to(np.arange(3.0), (4, 3))  # read-only with zero strides
    np.testing.assert_array_equal(ac.add(bcast, 1.0).numpy(), bcast + 1.0)


def test_read_only_arrays_stay_read_only():
    """Importing a read-only array must not hand out a writable view of it (DLPack READ_ONLY flag)."""
    frozen = np.frombuffer(b"\x00" * 64, dtype=np.float64)  # memory of an immutable bytes object
    assert not frozen.flags.writeable
    t = ac.asarray(frozen)
    out = t.numpy()
    assert not out.flags.writeable, "asarray(read-only array).numpy() is writable: writes would corrupt bytes"
    _, _, flags = _versioned_header(t.__dlpack__(max_version=(1, 0)))
    assert flags & DLPACK_FLAG_READ_ONLY


def test_broadcast_view_export_is_not_writable():
    base = np.zeros(3)
    t = ac.asarray(np.broadcast_to(base, (4, 3)))
    assert not t.numpy().flags.writeable  # a write would alias all four rows onto base


@pytest.mark.parametrize("dtype", [">f8", ">f4", ">i4", ">i8", ">f2"])
def test_non_native_byte_order_is_converted(dtype):
    arr = (np.arange(12) - 5).reshape(3, 4).astype(dtype)
    assert not arr.dtype.isnative
    saved = arr.copy()
    t = ac.asarray(arr)
    assert t.dtype == arr.dtype.newbyteorder("=")
    out = t.numpy()
    assert out.dtype.isnative
    np.testing.assert_array_equal(out, arr)
    np.testing.assert_array_equal(arr, saved)
    assert arr.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(ac.negative(arr).numpy(), -saved.astype(out.dtype))


# ----------------------------------------------------------------------------------------------------------
# PyTorch (optional)


def test_torch_zero_copy():
    torch = pytest.importorskip("torch")
    src = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    t = ac.from_dlpack(src)
    np.testing.assert_array_equal(t.numpy(), src.numpy())
    assert t.numpy().ctypes.data == src.data_ptr()
    back = torch.from_dlpack(ac.asarray(np.arange(6.0)))
    assert back.dtype == torch.float64
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    t2 = ac.asarray(np.arange(6.0))
    assert torch.from_dlpack(t2).data_ptr() == t2.numpy().ctypes.data
