"""Devices and the caching allocator: device list, statistics, cache reuse, empty_cache, budgets and
out-of-memory errors, and injected allocation failures that must not leak."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import accelera as ac

STAT_KEYS = {"current_bytes", "peak_bytes", "reserved_bytes", "cached_bytes", "budget_bytes", "num_allocs",
             "num_frees", "cache_hits"}


def _stats():
    return ac.memory_stats("cpu")


def test_devices_lists_cpu_first():
    devices = ac.devices()
    assert isinstance(devices, list) and devices
    cpu = devices[0]
    assert cpu["device"] == "cpu"
    assert cpu["kind"] == "cpu"
    assert cpu["total_memory"] > 0
    assert 0 <= cpu["free_memory"] <= cpu["total_memory"]
    assert ac.default_device() == "cpu" or ac.default_device() in [d["device"] for d in devices]
    assert "cpu" in ac.compiled_backends()


def test_memory_stats_keys_and_invariants():
    for stats in (ac.memory_stats("cpu"), ac.memory_stats(), ac.memory_stats("cpu:0")):
        assert STAT_KEYS <= set(stats)
        assert all(isinstance(stats[k], int) for k in STAT_KEYS)
        assert stats["reserved_bytes"] == stats["current_bytes"] + stats["cached_bytes"]
        assert stats["peak_bytes"] >= stats["current_bytes"] >= 0
        assert stats["budget_bytes"] > 0
        assert stats["num_allocs"] >= stats["num_frees"] >= 0


def test_allocation_and_free_change_current_bytes_then_cache_hit(collected):
    n = 12_347  # an unusual size: no other live block is of its class
    before = _stats()
    t = ac.zeros((n,), dtype="float64")
    during = _stats()
    assert during["current_bytes"] - before["current_bytes"] >= n * 8
    assert during["current_bytes"] - before["current_bytes"] < 2 * n * 8
    assert during["num_allocs"] == before["num_allocs"] + 1
    assert during["peak_bytes"] >= during["current_bytes"]
    del t
    after_free = _stats()
    assert after_free["current_bytes"] == before["current_bytes"]
    assert after_free["num_frees"] == during["num_frees"] + 1
    assert after_free["cached_bytes"] >= during["current_bytes"] - before["current_bytes"]
    # The same size again is served from the cache.
    t2 = ac.ones((n,), dtype="float64")
    again = _stats()
    assert again["cache_hits"] == after_free["cache_hits"] + 1
    assert again["reserved_bytes"] == after_free["reserved_bytes"]  # nothing new taken from the system
    np.testing.assert_array_equal(t2.numpy(), np.ones(n))  # a reused block holds the new values
    del t2


def test_numpy_backed_tensors_do_not_allocate(collected):
    arr = np.ones((1000, 100))
    before = _stats()
    t = ac.asarray(arr)
    assert _stats()["num_allocs"] == before["num_allocs"]
    assert _stats()["current_bytes"] == before["current_bytes"]
    del t


def test_empty_cache(collected):
    t = ac.zeros((50_000,), dtype="float32")
    del t
    assert _stats()["cached_bytes"] > 0
    ac.empty_cache("cpu")
    stats = _stats()
    assert stats["cached_bytes"] == 0
    assert stats["reserved_bytes"] == stats["current_bytes"]
    ac.empty_cache()  # the default device
    assert _stats()["cached_bytes"] == 0


def test_budget_makes_large_allocation_raise_out_of_memory(cpu_budget, collected):
    ac.empty_cache("cpu")
    ac.set_memory_budget("cpu", 1 << 20)
    assert _stats()["budget_bytes"] == 1 << 20
    with pytest.raises(ac.OutOfMemoryError) as info:
        ac.zeros((4 << 20,), dtype="float32")  # 16 MiB
    assert isinstance(info.value, MemoryError) and isinstance(info.value, ac.Error)
    assert "cpu" in str(info.value)
    # Small allocations still work within the budget.
    small = ac.zeros((1000,), dtype="float32")
    assert small.numpy().sum() == 0
    # An op whose result does not fit raises too, and leaves its inputs alone.
    x = np.ones((1 << 19,), dtype=np.float32)  # NumPy memory: not counted
    saved = x.copy()
    with pytest.raises(ac.OutOfMemoryError):
        ac.exp(x.astype(np.float64))  # 4 MiB result
    np.testing.assert_array_equal(x, saved)


def test_budget_restored_allows_large_allocations_again(cpu_budget):
    ac.set_memory_budget("cpu", 1 << 20)
    ac.set_memory_budget("cpu", cpu_budget)
    t = ac.zeros((4 << 20,), dtype="float32")
    assert t.shape == (4 << 20,)


def test_fractional_budget(cpu_budget):
    ac.set_memory_budget("cpu", 0.5)
    total = ac.devices()[0]["total_memory"]
    assert _stats()["budget_bytes"] == int(0.5 * total)
    for bad in (0.0, -0.5, 1.5):
        with pytest.raises(ac.ArgumentError):
            ac.set_memory_budget("cpu", bad)
    for bad in (0, -1):
        with pytest.raises(ac.ArgumentError):
            ac.set_memory_budget("cpu", bad)
    assert _stats()["budget_bytes"] == int(0.5 * total)  # failed calls change nothing


def test_allocation_beyond_any_device_is_out_of_memory():
    with pytest.raises(ac.OutOfMemoryError) as info:
        ac.zeros((1 << 40,), dtype="float32")  # 4 TiB
    assert "cpu" in str(info.value)


# Ops that allocate one or more blocks (casts of operands, then the result).
FAILING_OPS = {
    "zeros": lambda x, y: ac.zeros((1000,)),
    "exp": lambda x, y: ac.exp(x),
    "add_cast": lambda x, y: ac.add(x.astype(np.int32), y),  # int32 + float32: two casts, then the result
    "matmul": lambda x, y: ac.matmul(x.reshape(20, 50), y.reshape(50, 20)),
    "matmul_mixed": lambda x, y: ac.matmul(x.reshape(20, 50).astype(np.float64), y.reshape(50, 20)),
    "sum_axis": lambda x, y: ac.sum(x.reshape(10, 100).astype(np.int32), axis=1),
    "mean": lambda x, y: ac.mean(x.reshape(10, 100), axis=(0, 1), keepdims=True),
    "max_strided": lambda x, y: ac.max(x.reshape(10, 100)[::-1, ::3], axis=0),
    "contiguous": lambda x, y: ac.asarray(x.reshape(10, 100).T).contiguous(),
    "astype": lambda x, y: ac.asarray(x).astype("float64"),
    "divide_int": lambda x, y: ac.asarray(x.astype(np.int32)) / 3,
    "operator": lambda x, y: ac.asarray(x) * ac.asarray(y) + 1.0,
}


@pytest.mark.parametrize("nth", [1, 2, 3])
@pytest.mark.parametrize("name", list(FAILING_OPS))
def test_injected_allocation_failure_does_not_leak(name, nth, cpu_budget, collected):
    rng = np.random.default_rng(7)
    x = rng.uniform(1, 2, size=1000).astype(np.float32)
    y = rng.uniform(1, 2, size=1000).astype(np.float32)
    saved = (x.copy(), y.copy())
    op = FAILING_OPS[name]
    expected = op(x, y).numpy().copy()  # how many allocations the op makes is its own business
    gc.collect()
    baseline = _stats()
    ac._core._fail_nth_allocation("cpu", nth)
    try:
        result = op(x, y)
    except ac.OutOfMemoryError as err:
        assert isinstance(err, MemoryError)
        assert "cpu" in str(err)
        result = None
    finally:
        ac._core._fail_nth_allocation("cpu", 0)
    if nth == 1:
        assert result is None, "the first allocation was to fail"
    if result is not None:
        # The op made fewer than nth allocations: it must simply have succeeded.
        np.testing.assert_array_equal(result.numpy(), expected)
        del result
    gc.collect()
    assert _stats()["current_bytes"] == baseline["current_bytes"], "an allocation leaked after the failure"
    np.testing.assert_array_equal(x, saved[0])
    np.testing.assert_array_equal(y, saved[1])
    # The switch fired once: the next op works.
    np.testing.assert_array_equal(op(x, y).numpy(), expected)


def test_fail_nth_allocation_counts_allocations(cpu_budget, collected):
    ac._core._fail_nth_allocation("cpu", 2)
    first = ac.zeros((10,))  # the 1st allocation succeeds
    with pytest.raises(ac.OutOfMemoryError):
        ac.zeros((10,))  # the 2nd fails
    third = ac.zeros((10,))  # and the switch is spent
    assert first.shape == third.shape == (10,)
    assert _stats()["num_ooms"] >= 1
