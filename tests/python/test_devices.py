"""The Python API on every device other than the CPU (opencl:N on PoCL in CI): tensors move there with
asarray(device=...) / .to(), ops run there, results come back through .numpy()."""

import numpy as np
import pytest

import accelera as ac

DEVICES = [d["device"] for d in ac.devices() if d["kind"] != "cpu"]


def test_device_listing_reports_what_runs():
    if not DEVICES:
        pytest.skip("no device other than the CPU answers")
    for d in ac.devices():
        assert d["total_memory"] > 0 and d["compute_units"] > 0, d


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ops_on_device_match_numpy(device, dtype):
    rng = np.random.default_rng(7)
    a = rng.uniform(0.5, 2.0, (13, 31)).astype(dtype)
    b = rng.uniform(0.5, 2.0, (31,)).astype(dtype)
    ta, tb = ac.asarray(a, device=device), ac.asarray(b).to(device)
    assert ta.device == device and tb.device == device
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    rtol = 2e-6 if dtype == np.float32 else 1e-12
    for got, want in [
        (ta + tb, a64 + b64), (ta - 1.5, a64 - 1.5), (ta * tb, a64 * b64), (ta / tb, a64 / b64),
        (ac.exp(ta), np.exp(a64)), (ac.log(ta), np.log(a64)), (ac.tanh(-ta), np.tanh(-a64)),
        (ta.T[::2], a64.T[::2]), (ac.sum(ta, axis=0), a64.sum(0)), (ac.max(ta, axis=1), a64.max(1)),
        (ac.mean(ta), a64.mean()),
    ]:
        assert got.device == device
        out = got.numpy()
        assert out.dtype == dtype and out.shape == want.shape
        np.testing.assert_allclose(out, want, rtol=rtol * 40, atol=0)
    m = (ta @ ta.T).numpy()
    np.testing.assert_allclose(m, a64 @ a64.T, rtol=31 * np.finfo(dtype).eps * 4)


@pytest.mark.parametrize("device", DEVICES)
def test_device_errors_are_typed(device):
    t = ac.ones((4,), device=device)
    with pytest.raises(ac.DeviceError):
        t + ac.ones((4,))  # operands on two devices
    before = ac.memory_stats(device)["current_bytes"]
    budget = ac.memory_stats(device)["budget_bytes"]
    ac.set_memory_budget(device, 1 << 20)
    try:
        with pytest.raises(ac.OutOfMemoryError):
            ac.zeros((1 << 20,), device=device)
    finally:
        ac.set_memory_budget(device, budget)
    assert ac.memory_stats(device)["current_bytes"] == before
