"""The offload runtime on the devices present: results equal NumPy's, decisions are recorded, failures are
never silent, calibration files survive corruption, par_iter keeps order and names failing items."""

from __future__ import annotations

import json
import logging
import math
import os
import threading

import numpy as np
import pytest

import accelera as acc
from accelera.offload import _calibration

DEVICES = [d["device"] for d in acc.devices()]
ACCELERATORS = [d for d in DEVICES if d != "cpu"]


@pytest.fixture(autouse=True)
def fresh_runtime(monkeypatch):
    # Calibrations go to the session's file (tests/conftest.py): measuring takes seconds on a device that
    # shares the CPU's cores. Tests of the file itself name their own.
    monkeypatch.delenv("ACCELERA_FORCE_CPU", raising=False)
    yield
    acc.init()


def synthetic(device_speedup: float) -> _calibration.Calibration:
    cpu = _calibration.Rates({"float64": 1e10, "float32": 2e10}, 1e10, 1e9, 1e-6)
    dev = _calibration.Rates({k: v * device_speedup for k, v in cpu.gemm_flops.items()}, 1e10 * device_speedup,
                             1e9 * device_speedup, 1e-6)
    link = _calibration.Link(1e-6, 1e12)
    return _calibration.Calibration("synthetic", cpu, dev, link, link, link)


def always_on(device: str, **settings) -> acc.offload.Runtime:
    builder = acc.Config.builder().device(device).min_offload_bytes(0)
    for name, value in settings.items():
        builder = getattr(builder, name)(value)
    return acc.init(builder.build())


def standardise_gram(X):
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    normalized = (X - mean) / std
    return normalized @ normalized.T


def train_step(X, y, weights):
    predictions = X @ weights
    loss = ((predictions - y) ** 2).mean()
    grad = 2 * X.T @ (predictions - y) / len(y)
    return loss, grad


def inside_circle(x, y):
    inside = (x ** 2 + y ** 2) <= 1.0
    return 4.0 * inside.sum() / x.shape[0]


def chain(a, b):
    return np.exp(-np.abs(a)) * b + np.maximum(a, b).sum(axis=1, keepdims=True)


def cases(rng):
    X = rng.random((37, 11))
    return [(standardise_gram, (X,)), (train_step, (X, rng.random(37), rng.random(11))),
            (inside_circle, (rng.random(1001), rng.random(1001))),
            (chain, (rng.standard_normal((13, 7)), rng.random((13, 7))))]


def assert_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    assert isinstance(got, (np.ndarray, np.generic, float)), type(got)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_results_equal_numpy_on_every_device(device):
    runtime = always_on(device)
    rng = np.random.default_rng(0)
    for fn, args in cases(rng):
        assert_same(acc.gpu(fn)(*args), fn(*args))
    stats = runtime.stats()
    assert stats["offloaded"] == stats["calls"] == 4 and stats["bytes_to_device"] > 0


@pytest.mark.parametrize("device", DEVICES)
def test_results_equal_numpy_under_the_cost_model(device):
    runtime = acc.init(acc.Config.builder().device(device).build())
    for speedup in (1e-3, 1e3):  # every call on the CPU, then (after the traced first ones) on the device
        runtime.set_calibration(device, synthetic(speedup))
        rng = np.random.default_rng(1)
        for _ in range(3):
            for fn, args in cases(rng):
                assert_same(acc.gpu(fn)(*args), fn(*args))
        acc.init(runtime.config)
        runtime = acc.get_runtime()
    stats = runtime.stats()
    assert stats["calls"] == 0  # init started afresh


def test_decisions_are_recorded_with_predictions():
    device = ACCELERATORS[0] if ACCELERATORS else "cpu"
    runtime = acc.init(acc.Config.builder().device(device).build())
    runtime.set_calibration(device, synthetic(1e3))
    f = acc.gpu(standardise_gram)
    X = np.random.default_rng(2).random((64, 8))
    for _ in range(12):
        f(X)
    stats = runtime.stats()
    assert stats["calls"] == 12 and stats["traced_calls"] == 1
    first, second = stats["decisions"][:2]
    assert first["target"] == "cpu" and first["predicted_s"] is None and "traced" in first["reason"]
    assert second["target"] == "device" and second["predicted_s"] > 0 and second["measured_s"] > 0
    for d in stats["decisions"][1:]:  # from then on the measured times decide: the faster prediction wins
        faster = "device" if d["predicted_device_s"] < d["predicted_cpu_s"] else "cpu"
        assert d["target"] == faster or d["reason"].startswith("close call")
    assert stats["predicted_calls"] == 11 and stats["median_prediction_error"] >= 0


def test_a_trace_serves_the_functions_other_sizes():
    device = ACCELERATORS[0] if ACCELERATORS else "cpu"
    runtime = acc.init(acc.Config.builder().device(device).build())
    runtime.set_calibration(device, synthetic(1e-3))
    f = acc.gpu(chain)
    for n in (10, 100, 1000, 10000):
        a, b = np.ones((n, 4)), np.ones((n, 4))
        np.testing.assert_allclose(f(a, b), chain(a, b))
    stats = runtime.stats()
    assert stats["traced_calls"] == 1 and stats["buckets"] == 4 and stats["predicted_calls"] == 3


def test_force_cpu(monkeypatch):
    monkeypatch.setenv("ACCELERA_FORCE_CPU", "1")
    runtime = acc.init(acc.Config.builder().gpu(True).build())
    assert runtime.gpu is None
    assert_same(acc.gpu(standardise_gram)(np.arange(12.0).reshape(4, 3) ** 2), standardise_gram(
        np.arange(12.0).reshape(4, 3) ** 2))
    monkeypatch.delenv("ACCELERA_FORCE_CPU")
    runtime = acc.init(acc.Config.builder().gpu(False).build())
    acc.gpu(np.sum)(np.ones(10))
    stats = runtime.stats()
    assert stats["offloaded"] == 0 and stats["kept_on_cpu"] == 1
    assert stats["decisions"][0]["reason"] == "the CPU is forced"


def eigvals_plus_one(M):
    return np.linalg.eigvals(M) + 1


@pytest.mark.parametrize("device", DEVICES)
def test_fallback_error_raises_a_typed_error_naming_the_call(device):
    always_on(device)
    M = np.diag([1.0, 2.0])
    with pytest.raises(acc.NotSupportedError, match="eigvals") as info:
        acc.gpu(eigvals_plus_one)(M)
    assert any("fallback('cpu')" in note for note in info.value.__notes__)
    np.testing.assert_array_equal(M, np.diag([1.0, 2.0]))


@pytest.mark.parametrize("device", DEVICES)
def test_fallback_cpu_is_logged_and_counted(device, caplog):
    runtime = always_on(device, fallback="cpu")
    with caplog.at_level(logging.WARNING, logger="accelera.offload"):
        got = acc.gpu(eigvals_plus_one)(np.diag([1.0, 2.0]))
    np.testing.assert_allclose(np.sort(got), [2.0, 3.0])
    assert runtime.stats()["fallbacks"] == 1
    assert any("eigvals" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)


def test_the_model_keeps_what_accelera_lacks_on_the_cpu():
    device = ACCELERATORS[0] if ACCELERATORS else "cpu"
    runtime = acc.init(acc.Config.builder().device(device).build())
    runtime.set_calibration(device, synthetic(1e6))
    f = acc.gpu(eigvals_plus_one)
    for _ in range(3):
        np.testing.assert_allclose(np.sort(f(np.diag([1.0, 2.0]))), [2.0, 3.0])
    stats = runtime.stats()
    assert stats["offloaded"] == 0 and stats["fallbacks"] == 0
    assert "numpy.linalg.eigvals" in stats["decisions"][-1]["reason"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("offload", [True, False])
def test_exceptions_inside_decorated_functions_propagate(device, offload):
    if offload:
        always_on(device)
    else:
        acc.init(acc.Config.builder().gpu(False).build())

    @acc.gpu
    def bad(x):
        if x.shape[0] == 3:
            raise ValueError("three rows")
        return x

    with pytest.raises(ValueError, match="three rows"):
        bad(np.ones((3, 2)))


@pytest.mark.parametrize("device", ACCELERATORS)
def test_keep_leaves_results_on_the_device(device):
    runtime = always_on(device)

    @acc.gpu(keep=True)
    def step1(data):
        return data * 2

    @acc.gpu(keep=True)
    def step2(data):
        return data + 1

    data = np.random.default_rng(3).random(1000)
    mid = step1(data)
    assert isinstance(mid, acc.Tensor) and mid.device == device
    out = step2(mid)
    assert isinstance(out, acc.Tensor) and out.device == device
    stats = runtime.stats()
    assert stats["bytes_to_device"] == data.nbytes and stats["bytes_to_host"] == 0
    np.testing.assert_allclose(np.asarray(out), data * 2 + 1, rtol=1e-15)


@pytest.mark.parametrize("device", DEVICES)
def test_device_index_and_methods(device):
    always_on(device)

    class Scaler:
        factor = 3.0

        @acc.gpu
        def scale(self, x):
            return x * self.factor

    np.testing.assert_allclose(Scaler().scale(np.arange(5.0)), np.arange(5.0) * 3)
    if device != "cpu":
        kind, index = device.split(":")
        if kind == DEVICES[1].split(":")[0]:
            np.testing.assert_allclose(acc.gpu(device=int(index))(np.negative)(np.arange(3.0)), -np.arange(3.0))
    with pytest.raises(acc.DeviceError, match="no device"):
        acc.gpu(device="opencl:99")(np.negative)(np.arange(3.0))


def test_threads_share_the_runtime_safely():
    device = ACCELERATORS[0] if ACCELERATORS else "cpu"
    runtime = acc.init(acc.Config.builder().device(device).build())
    runtime.set_calibration(device, synthetic(10.0))
    f = acc.gpu(chain)
    rng = np.random.default_rng(4)
    inputs = [(rng.standard_normal((20, 5)), rng.random((20, 5))) for _ in range(8)]
    failures = []

    def worker(a, b):
        try:
            for _ in range(25):
                np.testing.assert_allclose(f(a, b), chain(a, b), rtol=1e-12)
        except Exception as exc:  # reported by the main thread below
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=pair) for pair in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    stats = runtime.stats()
    assert stats["calls"] == 200 and stats["offloaded"] + stats["kept_on_cpu"] == 200


def test_calibration_is_cached_and_a_corrupt_file_is_rebuilt(tmp_path, monkeypatch):
    device = ACCELERATORS[0] if ACCELERATORS else "cpu"
    path = tmp_path / "calibration.json"
    monkeypatch.setenv("ACCELERA_CALIBRATION", str(path))
    first = acc.init(acc.Config.builder().device(device).build())
    cal = first.calibration(device)
    assert first.stats()["calibration"] == "measured" and path.exists()
    assert cal.cpu.stream_bytes_per_s > 0 and cal.upload.bytes_per_s > 0 and cal.device.op_s > 0
    again = acc.init(acc.Config.builder().device(device).build())
    assert again.calibration(device) == cal and again.stats()["calibration"] == "cache"
    path.write_text('{"format": 1, "entries": {"x": ')  # a write cut short
    rebuilt = acc.init(acc.Config.builder().device(device).build())
    rebuilt.calibration(device)
    stats = rebuilt.stats()
    assert stats["calibration"] == "rebuilt" and stats["calibration_rebuilt"] == 1
    assert json.loads(path.read_text())["format"] == _calibration.FORMAT
    assert [p.name for p in tmp_path.iterdir()] == ["calibration.json"]  # no temporary left behind


def test_the_calibration_file_keeps_the_most_recent_entries(tmp_path, monkeypatch):
    rates = _calibration.Rates(gemm_flops={"float64": 1e11}, stream_bytes_per_s=1e10, transcendental_per_s=1e9,
                               op_s=1e-6)
    link = _calibration.Link(alpha_s=1e-5, bytes_per_s=1e10)
    made = _calibration.Calibration("new", rates, rates, link, link, link)
    path = tmp_path / "calibration.json"
    old = {f"old {i}": made.to_json() for i in range(_calibration.ENTRIES_KEPT)}
    path.write_text(json.dumps({"format": _calibration.FORMAT, "entries": old}))
    monkeypatch.setenv("ACCELERA_CALIBRATION", str(path))
    monkeypatch.setattr(_calibration, "calibration_key", lambda device: "new")
    monkeypatch.setattr(_calibration, "measure", lambda device: made)
    assert _calibration.load_or_measure("cpu") == (made, "measured")
    kept = list(json.loads(path.read_text())["entries"])
    assert len(kept) == _calibration.ENTRIES_KEPT and kept[0] == "old 1" and kept[-1] == "new"


def test_calibration_off_writes_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELERA_CALIBRATION", "off")
    device = ACCELERATORS[0] if ACCELERATORS else "cpu"
    runtime = acc.init(acc.Config.builder().device(device).build())
    runtime.calibration(device)
    assert runtime.stats()["calibration_path"] is None and not list(tmp_path.iterdir())


@pytest.mark.parametrize("device", ACCELERATORS)
def test_gpu_info(device):
    runtime = acc.init(acc.Config.builder().device(device).build())
    gpu = runtime.gpu
    assert gpu.device == device and gpu.backend == device.split(":")[0] and gpu.device_count >= 1
    assert gpu.is_available()
    stats = gpu.get_memory_stats()
    assert stats["used_mb"] + stats["free_mb"] == pytest.approx(stats["total_mb"])
    assert {"reserved_mb", "allocated_mb", "cached_mb", "peak_mb", "budget_mb"} <= set(stats)
    utilization = gpu.get_utilization()
    if gpu.backend == "opencl":
        assert math.isnan(utilization) and gpu.utilization_source.startswith("unavailable")
    else:
        assert 0.0 <= utilization <= 100.0


def test_par_iter_map_and_filter_keep_order():
    items = list(range(50))
    assert acc.par_iter(items).map(lambda i: i * i).filter(lambda v: v % 3 == 0).collect() == \
        [i * i for i in items if (i * i) % 3 == 0]
    assert acc.par_iter([]).map(abs).gpu_map(abs).collect() == []


@pytest.mark.parametrize("stage", ["map", "gpu_map", "filter"])
def test_par_iter_names_the_failing_item(stage):
    def f(x):
        if float(np.asarray(x).ravel()[0]) == 7.0:
            raise ZeroDivisionError("item seven")
        return x

    items = [np.full(4, float(i)) for i in range(10)]
    with pytest.raises(ZeroDivisionError, match="item seven") as info:
        getattr(acc.par_iter(items), stage)(f).collect()
    assert info.value.item_index == 7
    assert any(f"item 7 of par_iter(...).{stage}" in note for note in info.value.__notes__)


@pytest.mark.parametrize("device", DEVICES)
def test_gpu_map_equals_numpy(device):
    acc.init(acc.Config.builder().device(device).build())
    acc.get_runtime().set_calibration(device, synthetic(10.0))
    rng = np.random.default_rng(5)
    matrices = [rng.random((17, 17)) for _ in range(12)] + [rng.random((3, 3)).astype(np.float32)]
    decorated = acc.gpu(standardise_gram)
    got = acc.par_iter(matrices).gpu_map(decorated).collect()
    plain = acc.par_iter(matrices).gpu_map(lambda m: m @ m + 1).collect()
    for m, g, p in zip(matrices, got, plain):
        assert isinstance(g, np.ndarray) and isinstance(p, np.ndarray)
        np.testing.assert_allclose(g, standardise_gram(m), rtol=1e-5 if m.dtype == np.float32 else 1e-10, atol=1e-5)
        np.testing.assert_allclose(p, m @ m + 1, rtol=1e-5 if m.dtype == np.float32 else 1e-12)


def test_numpy_blas_spin_is_measured_where_the_device_computes_on_the_cpu_cores():
    from accelera.offload import _spin

    assert _spin.measure("cpu", shares_cores=False) == _spin.Spin()  # a GPU pays nothing: nothing to measure
    spin = _spin.measure("cpu", shares_cores=True)
    assert spin.valid()

    def square(n: int):
        m = np.ones((n, n))
        return lambda: m @ m

    if math.isinf(spin.gemm_from_flops):  # NumPy's BLAS never left a thread running after a product
        assert spin.penalty_s == 0.0 and not _spin.parallel_in_most(square(512))
        return
    n = round((spin.gemm_from_flops / 2) ** (1 / 3))
    assert 0.0 < spin.duration_s < _spin.QUIET_FOR_S
    assert _spin.parallel_in_most(square(math.ceil(1.3 * n)))
    if n > 16:  # the smallest size probed: below it nothing is known
        assert not _spin.parallel_in_most(square(int(0.7 * n)))


def test_traced_products_that_would_wake_numpy_blas_threads_run_on_accelera():
    from accelera.offload import _spin, _trace

    rng = np.random.default_rng(3)
    a, b, v = rng.random((384, 383)), rng.random((383, 385)), rng.random(383)
    spin = _spin.Spin(0.1, 0.05, gemm_from_flops=2e6, gemv_from_flops=1e6)
    _spin._wait_quiet()
    with _trace.recording(spin) as trace:
        product = _trace.unwrap(_trace.wrap(a) @ _trace.wrap(b))
        matrix_vector = _trace.unwrap(np.dot(_trace.wrap(a), _trace.wrap(v)))
        small = _trace.unwrap(_trace.wrap(a[:8, :8]) @ _trace.wrap(b[:8, :8]))
    assert _spin._other_threads_busy() <= _spin.BUSY_CORES  # NumPy's workers were never woken
    assert type(product) is np.ndarray and type(matrix_vector) is np.ndarray
    np.testing.assert_allclose(product, a @ b, rtol=1e-12)
    np.testing.assert_allclose(matrix_vector, a @ v, rtol=1e-12)
    np.testing.assert_array_equal(small, a[:8, :8] @ b[:8, :8])  # one thread in NumPy: left there
    assert [(op.kind, op.vector, op.flops) for op in trace.ops] == [
        ("gemm", False, 2.0 * 384 * 383 * 385), ("gemm", True, 2.0 * 384 * 383), ("gemm", False, 2.0 * 8 ** 3)]


def test_a_new_build_of_the_library_measures_again(monkeypatch, tmp_path):
    assert os.path.isfile(_calibration.library_file())
    library = tmp_path / "libaccelera.so.0"
    library.write_bytes(b"one build")
    monkeypatch.setattr(_calibration, "library_file", lambda: str(library))
    before = _calibration.calibration_key("cpu")
    assert _calibration.calibration_key("cpu") == before
    library.write_bytes(b"another build")  # the same version number, other kernels
    assert _calibration.calibration_key("cpu") != before


def test_calibration_key_ignores_the_memory_a_host_device_reports(monkeypatch):
    reported = {"total_memory": 15 << 30}

    def info(device):
        accelerator = device == "cuda:0"
        return {"device": device, "name": "dev", "vendor": "v", "is_accelerator": accelerator, **reported}

    monkeypatch.setattr(_calibration, "_device_info", info)
    monkeypatch.setattr(_calibration, "driver_version", lambda device: "")
    before = {d: _calibration.calibration_key(d) for d in ("opencl:0", "cuda:0")}
    reported["total_memory"] = 19 << 30  # PoCL's share of free memory, in the next process
    assert _calibration.calibration_key("opencl:0") == before["opencl:0"]
    assert _calibration.calibration_key("cuda:0") != before["cuda:0"]  # a GPU's memory names the board
