"""The offload cost model on synthetic calibrations: pure and deterministic (no timing)."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as acc
from accelera.offload import _model, _trace
from accelera.offload._calibration import Calibration, Link, Rates
from accelera.offload._spin import Spin
from accelera.offload._model import Bucket, Call, History, Previous, RecentRatios, inlier_median


def calibration(device_speedup: float, link_bytes_per_s: float = 1e10) -> Calibration:
    cpu = Rates(gemm_flops={"float64": 1e11, "float32": 2e11}, stream_bytes_per_s=1e10, transcendental_per_s=1e9,
                op_s=1e-6)
    dev = Rates(gemm_flops={k: v * device_speedup for k, v in cpu.gemm_flops.items()},
                stream_bytes_per_s=1e10 * device_speedup, transcendental_per_s=1e9 * device_speedup, op_s=1e-5)
    link = Link(alpha_s=1e-5, bytes_per_s=link_bytes_per_s)
    return Calibration("synthetic", cpu, dev, link, link, link)


def gemm_trace(n: int) -> _trace.Trace:
    nbytes = 3 * n * n * 8
    return _trace.Trace([_trace.Op("matmul", "gemm", "float64", nbytes, 2.0 * n ** 3, n * n, True)],
                        output_bytes=n * n * 8)


def traced_bucket(n: int, cal: Calibration) -> tuple[Bucket, Call]:
    bucket, call = Bucket(), Call(host_bytes=2 * n * n * 8, device_bytes=0, keep=False)
    trace = gemm_trace(n)
    bucket.learn_trace(trace, call.nbytes, cal)
    return bucket, call


def test_first_call_is_traced_on_the_cpu():
    decision = Bucket().decide(Call(800, 0, False), calibration(10.0))
    assert decision.target == "cpu" and "traced" in decision.reason and decision.predicted_s is None


@pytest.mark.parametrize("n, speedup, want", [(2000, 20.0, "device"), (8, 20.0, "cpu"), (2000, 0.5, "cpu")])
def test_roofline_decision(n, speedup, want):
    cal = calibration(speedup)
    bucket, call = traced_bucket(n, cal)
    decision = bucket.decide(call, cal)
    assert decision.target == want
    # The prediction is the roofline: GEMM FLOPs at the device's rate plus moving A, B and C.
    expected_device = 2.0 * n ** 3 / (1e11 * speedup) + 1e-5 + cal.upload.seconds(call.host_bytes) \
        + cal.download.seconds(n * n * 8)
    assert decision.predicted_device_s == pytest.approx(max(expected_device, 3 * n * n * 8 / (1e10 * speedup) + 1e-5
                                                            + cal.upload.seconds(call.host_bytes)
                                                            + cal.download.seconds(n * n * 8)), rel=1e-9)


def test_a_slow_link_keeps_streaming_work_on_the_cpu():
    # x + 1 over 8 MB: 20x faster compute cannot pay for a 1 GB/s link.
    trace = _trace.Trace([_trace.Op("add", "stream", "float64", 16_000_000, 1e6, 1_000_000, True)], 8_000_000)
    for link, want in ((1e9, "cpu"), (1e12, "device")):
        cal = calibration(20.0, link)
        bucket, call = Bucket(), Call(8_000_000, 0, False)
        bucket.learn_trace(trace, call.nbytes, cal)
        assert bucket.decide(call, cal).target == want


def test_data_on_the_device_costs_nothing_to_use_there():
    trace = _trace.Trace([_trace.Op("add", "stream", "float64", 16_000_000, 1e6, 1_000_000, True)], 8_000_000)
    cal = calibration(2.0, 1e9)
    bucket = Bucket()
    bucket.learn_trace(trace, 8_000_000, cal)
    assert bucket.decide(Call(8_000_000, 0, False), cal).target == "cpu"
    resident = Bucket()
    resident.learn_trace(trace, 8_000_000, cal)
    assert resident.decide(Call(0, 8_000_000, True), cal).target == "device"


def test_history_takes_over_after_ten_samples():
    cal = calibration(20.0)
    bucket, call = traced_bucket(2000, cal)
    first = bucket.decide(call, cal)
    assert first.target == "device"
    for _ in range(_model.HISTORY_MIN):  # the device is really 100x slower than its roofline says
        bucket.learn(first, call, 100 * first.predicted_device_s, cal)
    later = bucket.decide(call, cal)
    assert later.target == "cpu"
    assert later.predicted_device_s == pytest.approx(100 * first.predicted_device_s, rel=1e-9)


def test_outliers_are_rejected():
    assert inlier_median([1.0] * 9 + [1000.0]) == 1.0
    assert inlier_median([1.0, 2.0, 3.0]) == 2.0
    assert inlier_median([1.0, 1.1, 1.2, 1.3, 9.0]) == pytest.approx(1.15)  # 9.0 is dropped first
    history = History()
    for s in [0.01] * 12 + [5.0]:
        history.add(1000, s, 0.02)
    assert history.predict(1000, 0.02, 1.0) == pytest.approx(0.01)
    assert history.predict(2000, 0.02, 1.0) == pytest.approx(0.02)  # scaled to the call's size


def test_before_ten_samples_the_roofline_is_scaled_by_the_measured_ratio():
    history = History()
    history.add(1000, 0.3, 0.1)
    history.add(1000, 0.5, 0.1)
    assert history.predict(1000, 0.2, 1.0) == pytest.approx(0.8)  # median ratio 4


def test_calls_after_a_cold_predecessor_keep_their_own_history():
    # Small CPU calls: 10 us after a small CPU call, 40 us after a device call or a large one.
    cal = calibration(0.01, 1e15)  # a device 100x slower: every call stays on the CPU
    bucket, call = traced_bucket(8, cal)
    warm, after_device, after_large = Previous("cpu", 1000), Previous("device", 1000), Previous("cpu", 64 << 20)
    assert not warm.leaves_cold("cpu") and after_device.leaves_cold("cpu") and after_large.leaves_cold("cpu")
    assert warm.leaves_cold("device")
    first = bucket.decide(call, cal, previous=warm)
    assert first.target == "cpu" and not first.cold
    for _ in range(_model.HISTORY_MIN):
        bucket.learn(bucket.decide(call, cal, previous=warm), call, 10e-6, cal)
    # No cold sample yet: a cold call is predicted from the warm history rather than the roofline.
    assert bucket.decide(call, cal, previous=after_device).predicted_cpu_s == pytest.approx(10e-6)
    for previous in [after_device, after_large] * 5:
        decision = bucket.decide(call, cal, previous=previous)
        assert decision.cold
        bucket.learn(decision, call, 40e-6, cal)
    assert bucket.decide(call, cal, previous=warm).predicted_cpu_s == pytest.approx(10e-6)
    assert bucket.decide(call, cal, previous=after_large).predicted_cpu_s == pytest.approx(40e-6)
    assert bucket.decide(call, cal).predicted_cpu_s == pytest.approx(10e-6)  # the process's first call: warm


def test_the_runtime_tells_the_model_where_the_previous_call_ran():
    runtime = acc.init(acc.Config.builder().gpu(False).build())
    runtime.record("f", _model.Decision("device", "test"), Call(10, 0, False), 1e-3, 10, 10)
    assert runtime._previous == Previous("device", 10)
    runtime.record("f", _model.Decision("device", "test"), Call(5, 0, False), 1e-3, 0, 0, fallback=True)
    assert runtime._previous == Previous("cpu", 5)  # a fallback ran on the CPU


def test_close_calls_try_the_device_once():
    cal = calibration(1.0, 1e15)  # as fast as the CPU, a free link: the device loses only by its op cost
    bucket, call = traced_bucket(1000, cal)
    tries = [bucket.decide(call, cal).target for _ in range(3)]
    assert tries == ["device", "cpu", "cpu"]


def test_a_function_calling_what_accelera_lacks_stays_on_the_cpu():
    a = np.eye(4)
    with _trace.recording() as trace:
        _trace.unwrap(np.linalg.eigvals(_trace.wrap(a)) + _trace.wrap(a)[0])
    assert trace.unsupported == ["numpy.linalg.eigvals"]
    cal = calibration(1000.0)
    bucket = Bucket()
    bucket.learn_trace(trace, a.nbytes, cal)
    decision = bucket.decide(Call(a.nbytes, 0, False), cal)
    assert decision.target == "cpu" and "numpy.linalg.eigvals" in decision.reason


def test_trace_counts_each_op_once():
    x = np.random.default_rng(0).random((50, 20))
    with _trace.recording() as trace:
        t = _trace.wrap(x)
        result = _trace.unwrap(((t - t.mean(axis=0)) / np.std(t, axis=0)) @ t.T)
    assert isinstance(result, np.ndarray) and type(result) is np.ndarray
    names = [op.name for op in trace.ops]
    assert names.count("matmul") == 1 and names[0] == "add" and "std" in names  # np.std's inner ops not counted
    gemm = next(op for op in trace.ops if op.name == "matmul")
    assert gemm.kind == "gemm" and gemm.flops == 2.0 * 50 * 50 * 20
    assert not trace.unsupported


def test_scaled_traces_grow_gemm_work_faster_than_data():
    trace = _trace.Trace([_trace.Op("matmul", "gemm", "float64", 300, 1000.0, 100, True),
                          _trace.Op("add", "stream", "float64", 300, 100.0, 100, True)], output_bytes=100)
    big = trace.scaled(4.0)
    assert [op.nbytes for op in big.ops] == [1200, 1200] and big.output_bytes == 400
    assert big.ops[0].flops == pytest.approx(8000.0) and big.ops[1].flops == pytest.approx(400.0)


def test_scaled_traces_grow_matrix_vector_work_as_data():
    trace = _trace.Trace([_trace.Op("matmul", "gemm", "float64", 300, 1000.0, 100, True, vector=True)])
    assert trace.scaled(4.0).ops[0].flops == pytest.approx(4000.0) and trace.scaled(4.0).ops[0].vector


def test_the_trace_tells_matrix_vector_products_apart():
    x, v = np.ones((30, 20)), np.ones(20)
    with _trace.recording() as trace:
        t = _trace.wrap(x)
        _trace.unwrap(t @ _trace.wrap(v))
        _trace.unwrap(t @ t.T)
    assert [(op.vector, op.flops) for op in trace.ops] == [(True, 2.0 * 30 * 20), (False, 2.0 * 30 * 30 * 20)]


SPIN = Spin(duration_s=0.15, penalty_s=0.05, gemm_from_flops=2e6, gemv_from_flops=1e6)


def spinning(cal: Calibration, spin: Spin = SPIN) -> Calibration:
    cal.spin = spin
    return cal


def test_numpy_calls_that_wake_its_blas_threads_pay_for_their_spin():
    # n = 200: NumPy's product (16 MFLOP, parallel) is predicted faster, but not by the 50 ms its workers
    # will take from the device's next calls on the same cores.
    for spin, want in ((Spin(), "cpu"), (SPIN, "device")):
        cal = spinning(calibration(0.5, 1e15), spin)
        bucket, call = traced_bucket(200, cal)
        decision = bucket.decide(call, cal)
        assert decision.target == want and decision.predicted_device_s > decision.predicted_cpu_s
        assert ("spinning" in decision.reason) == (want == "device")


def test_a_product_while_the_workers_still_spin_pays_only_for_the_extension():
    # Workers woken 0.1 s ago spin 0.05 s more: a product now moves their window's end by 0.1 s of 0.15.
    assert SPIN.window_share(now=10.0, spinning_until=10.05) == pytest.approx(0.1 / 0.15)
    assert SPIN.window_share(now=10.0, spinning_until=9.0) == 1.0  # asleep: a whole new window
    assert SPIN.window_share(now=10.0, spinning_until=10.15) == 0.0  # woken just now
    assert Spin().window_share(now=10.0, spinning_until=10.1) == 1.0  # no spin measured: nothing to share
    cal = spinning(calibration(0.5, 1e15))
    bucket, call = traced_bucket(200, cal)
    assert bucket.decide(call, cal, spin_share=1.0).target == "device"
    kept = bucket.decide(call, cal, spin_share=0.0)
    assert kept.target == "cpu" and kept.predicted_cpu_s < kept.predicted_device_s


def test_the_runtime_shares_the_window_of_workers_it_woke():
    import time

    from accelera.offload._config import Config
    from accelera.offload._model import Decision
    from accelera.offload._runtime import Runtime

    cal = spinning(calibration(0.5, 1e15))
    runtime = Runtime(Config.builder().gpu(False).build())
    runtime.set_calibration("dev", cal)
    bucket, call = traced_bucket(200, cal)
    key = ("f", ())
    assert runtime.decide(key, call, "dev")[0].target == "cpu"  # the traced first call of a fresh bucket
    runtime._buckets[key + (_model.size_bucket(call.nbytes),)] = bucket
    assert runtime.decide(key, call, "dev")[0].target == "device"  # the workers sleep: a whole window
    runtime.learn(key, bucket, Decision("cpu", "kept"), call, 1.6e-4, "dev")  # NumPy ran it: they spin now
    decision, _ = runtime.decide(key, call, "dev")
    assert decision.target == "cpu", decision.reason
    runtime._spinning_until = time.perf_counter() - 1.0  # asleep again
    assert runtime.decide(key, call, "dev")[0].target == "device"


def test_products_below_the_parallel_size_pay_nothing():
    cal = spinning(calibration(0.5, 1e15))
    bucket, call = traced_bucket(90, cal)  # 1.46 MFLOP: one thread
    assert bucket.spin_s == 0.0 and bucket.decide(call, cal).target == "cpu"
    assert traced_bucket(101, cal)[0].spin_s == 0.05  # 2.06 MFLOP


def test_matrix_vector_products_have_their_own_parallel_size():
    gemv = _trace.Op("matmul", "gemm", "float64", 1, 1.5e6, 1, True, vector=True)
    gemm = _trace.Op("matmul", "gemm", "float64", 1, 1.5e6, 1, True)
    lu = _trace.Op("solve", "factorisation", "float64", 1, 3e6, 1, True)
    assert SPIN.wakes_workers(gemv) and not SPIN.wakes_workers(gemm) and SPIN.wakes_workers(lu)
    assert not Spin().wakes_workers(gemv)


def test_calibrations_keep_their_spin_and_refuse_a_bad_one():
    cal = spinning(calibration(2.0), Spin(0.1, 0.02, 2e6, float("inf")))
    assert Calibration.from_json(cal.to_json()) == cal
    bad = cal.to_json()
    bad["spin"]["penalty_s"] = -1.0
    with pytest.raises(ValueError, match="spin"):
        Calibration.from_json(bad)


def test_large_fresh_results_cost_numpy_their_page_faults():
    rates = Rates(gemm_flops={"float64": 1e11}, stream_bytes_per_s=1e10, transcendental_per_s=1e9, op_s=0.0,
                  fresh_s_per_byte=1e-10)
    small = _trace.Op("add", "stream", "float64", 3 << 20, 0.0, 1 << 17, True, out_bytes=1 << 20)
    large = _trace.Op("add", "stream", "float64", 3 << 26, 0.0, 1 << 23, True, out_bytes=1 << 26)
    assert _model.op_seconds(small, rates) == pytest.approx((3 << 20) / 1e10)
    assert _model.op_seconds(large, rates) == pytest.approx((3 << 26) / 1e10 + (1 << 26) * 1e-10)


def test_config_validation():
    with pytest.raises(acc.ArgumentError, match="fallback"):
        acc.Config.builder().fallback("retry")
    with pytest.raises(acc.ArgumentError, match="min_offload_bytes"):
        acc.Config.builder().min_offload_bytes(-1)
    with pytest.raises(acc.ArgumentError, match="gpu"):
        acc.Config.builder().gpu("yes")
    with pytest.raises(acc.ArgumentError, match="Config"):
        acc.init("gpu")
    config = acc.Config.builder().gpu(True).device("cpu").fallback("cpu").min_offload_bytes(None).build()
    assert (config.gpu, config.device, config.fallback, config.min_offload_bytes) == (True, "cpu", "cpu", None)


def test_recent_ratios_give_their_median_at_least_a_quarter_and_refresh_it_every_eighth_sample():
    ratios = RecentRatios()
    assert ratios.median == 1.0  # nothing measured yet: the roofline as it is
    for value in (3.0, 1.0, 2.0):
        ratios.add(value)
    assert ratios.median == 2.0
    for _ in range(7):
        ratios.add(0.01)
    assert ratios.median == 0.25  # ten samples, most of them far below the roofline: floored
    ratios.add(50.0)  # the 11th..15th samples do not move it
    for _ in range(4):
        ratios.add(50.0)
    assert ratios.median == 0.25
    for _ in range(11):
        ratios.add(50.0)  # the 16th and the 24th re-read it (then 14 of the 24 samples are 50)
    assert ratios.median == 50.0
