"""Staged transfers (_core._stage_upload, _core._stage_download, _core._Transfer): copies through pinned
staging buffers on the upload and download streams, ordered against the compute stream by events only."""

from __future__ import annotations

import gc
import time

import numpy as np
import pytest

import accelera as ac
from accelera import _core

DEVICES = [d["device"] for d in ac.devices()]
DTYPES = ["float32", "float64", "int32", "int64", "bool", "float16"]
SHAPES = [(0,), (1,), (7,), (1000003,), (37, 53), (0, 4), ()]


def _values(rng, shape, dtype) -> np.ndarray:
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return rng.standard_normal(shape).astype(dtype)


def _round_trip(array: np.ndarray, device: str) -> np.ndarray:
    up = _core._stage_upload(array, device)
    return _core._stage_download(up.tensor).result()


def _assert_identical(got: np.ndarray, expected: np.ndarray):
    assert isinstance(got, np.ndarray)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected, strict=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_round_trip(device, dtype, shape, rng):
    x = _values(rng, shape, dtype)
    up = _core._stage_upload(x, device)
    assert up.kind == "upload"
    assert up.tensor.device == device and up.tensor.shape == shape and up.tensor._dtype == dtype
    down = _core._stage_download(up.tensor)
    assert down.kind == "download"
    _assert_identical(down.result(), x)
    # The synchronous path sees the same bytes.
    _assert_identical(up.result().numpy(), x)


@pytest.mark.parametrize("device", DEVICES)
def test_strided_and_foreign_byte_order_sources(device, rng):
    x = rng.standard_normal((40, 30))
    for source in (x.T, x[::3, 1::2], x[::-1, ::-2], x.astype(">f8"), np.asfortranarray(x).astype(np.float32)):
        expected = np.ascontiguousarray(source, dtype=source.dtype.newbyteorder("="))
        _assert_identical(_round_trip(source, device), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_source_may_change_once_staged(device, rng):
    x = rng.standard_normal(1 << 20).astype(np.float32)
    expected = x.copy()
    up = _core._stage_upload(x, device)
    x[:] = -1.0  # at once: the bytes already sit in the staging buffer
    del x
    gc.collect()
    _assert_identical(_core._stage_download(up.tensor).result(), expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_many_uploads_in_flight_then_ops(device, dtype, rng):
    xs = [rng.integers(-1000, 1000, size=10007 + i).astype(dtype) for i in range(16)]
    ups = [_core._stage_upload(x, device) for x in xs]
    sums = [ac.add(up.tensor, 1) for up in ups]  # launched with no host wait
    products = [ac.multiply(up.tensor, up.tensor) for up in ups]
    downs = [_core._stage_download(t) for t in sums + products]
    for x, down in zip(xs, downs[:16]):
        _assert_identical(down.result(), x + np.array(1, dtype))
    for x, down in zip(xs, downs[16:]):
        _assert_identical(down.result(), x * x)


@pytest.mark.parametrize("device", DEVICES)
def test_pipelined_map(device, rng):
    """The parallel map's pattern: stage item i + 1, compute item i, download it, collect item i - 1."""
    xs = [rng.standard_normal((64, 33)).astype(np.float32) for _ in range(12)]
    results = []
    pending = None
    up_next = _core._stage_upload(xs[0], device)
    for i in range(len(xs)):
        up = up_next
        if i + 1 < len(xs):
            up_next = _core._stage_upload(xs[i + 1], device)
        down = _core._stage_download(ac.add(up.tensor, up.tensor))
        del up  # dropping an upload waits for it only if needed; the tensor lives on in the op's inputs
        if pending is not None:
            results.append(pending.result())
        pending = down
    results.append(pending.result())
    for x, r in zip(xs, results):
        _assert_identical(r, x + x)


@pytest.mark.parametrize("device", DEVICES)
def test_upload_into_a_block_queued_kernels_still_use(device, rng):
    """A freed result's block goes back to the cache while kernels may still use it; an upload that gets it
    must not overwrite it before they ran."""
    x = rng.integers(-100, 100, size=300007).astype(np.float32)
    t = ac.asarray(x, device=device)
    for i in range(6):
        y = ac.multiply(t, t)
        z = ac.add(y, y)
        del y
        w = np.full(x.shape, float(i), np.float32)
        up = _core._stage_upload(w, device)
        _assert_identical(_core._stage_download(z).result(), 2 * x * x)
        _assert_identical(_core._stage_download(up.tensor).result(), w)


@pytest.mark.parametrize("device", DEVICES)
def test_dropped_transfers_keep_their_copies_correct(device, rng):
    x = rng.standard_normal(100003)
    t = _core._stage_upload(x, device).tensor  # the transfer is dropped at once
    y = ac.add(t, 2.0)
    arr = _core._stage_download(y)
    del y
    gc.collect()
    _assert_identical(arr.result(), x + 2.0)
    _core._stage_download(t)  # dropped while in flight: waits before freeing its staging buffer


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_download_of_views(device, dtype, rng):
    x = _values(rng, (45, 31), dtype)
    t = ac.asarray(x, device=device)
    _assert_identical(_core._stage_download(t.T).result(), np.ascontiguousarray(x.T))
    _assert_identical(_core._stage_download(t[3:40:2, ::-3]).result(), np.ascontiguousarray(x[3:40:2, ::-3]))
    _assert_identical(_core._stage_download(t[5]).result(), x[5])
    _assert_identical(_core._stage_download(t[7:9]).result(), x[7:9])


@pytest.mark.parametrize("device", DEVICES)
def test_done_wait_and_result(device, rng):
    x = rng.standard_normal(1 << 18)
    up = _core._stage_upload(x, device)
    deadline = time.monotonic() + 60
    while not up.done():
        assert time.monotonic() < deadline, "the upload never completed"
        time.sleep(0.001)
    assert up.result().shares_memory(up.tensor)
    down = _core._stage_download(up.tensor)
    down.wait()
    assert down.done()
    first, second = down.result(), down.result()
    _assert_identical(first, x)
    _assert_identical(second, x)
    # The result is the caller's: the device tensor changing later does not change it.
    up.tensor[...] = 0.0
    _assert_identical(down.result(), x)
    assert "download" in repr(down)


def test_cpu_transfers_complete_at_once(rng):
    x = rng.standard_normal(1000)
    up = _core._stage_upload(x, "cpu")
    assert up.done()
    assert not np.shares_memory(np.from_dlpack(up.tensor), x)
    down = _core._stage_download(up.tensor)
    assert down.done()
    _assert_identical(down.result(), x)


@pytest.mark.parametrize("device", ["gpu", "cuda:x", "", "CPU", "opencl:1.5"])
def test_bad_device_strings(device):
    with pytest.raises(ac.ArgumentError):
        _core._stage_upload(np.ones(3), device)


def test_absent_devices():
    with pytest.raises(ac.DeviceError):
        _core._stage_upload(np.ones(3), "opencl:1000")
    with pytest.raises(ac.DeviceError):
        _core._stage_upload(np.ones(3), "cuda:1000")


def test_bad_arguments_raise_typed_errors():
    x = np.ones(3)
    with pytest.raises(ac.ArgumentError):
        _core._stage_upload(x, 0)
    with pytest.raises(ac.DTypeError):
        _core._stage_upload([1.0, 2.0], "cpu")
    _assert_identical(_core._stage_download(_core._stage_upload(np.float32(2.5), "cpu").tensor).result(),
                      np.asarray(np.float32(2.5)))
    for dtype in (np.clongdouble, np.datetime64, object):
        with pytest.raises(ac.DTypeError):
            _core._stage_upload(np.zeros(3, dtype), "cpu")
    with pytest.raises(ac.DTypeError):
        _core._stage_download(x)
    with pytest.raises(ac.DTypeError):
        _core._stage_download(ac.zeros(3, dtype=ac.bfloat16))
    np.testing.assert_array_equal(x, np.ones(3))
