"""The Python API on every device other than the CPU (opencl:N on PoCL in CI): tensors move there with
asarray(device=...) / .to(), ops run there, results come back through .numpy()."""

import subprocess
import sys

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


_CUDA_PRESENT = any(d["kind"] == "cuda" for d in ac.devices())


@pytest.mark.skipif(_CUDA_PRESENT, reason="a CUDA device answers here")
@pytest.mark.parametrize("device", ["cuda", "cuda:0"])
def test_absent_cuda_says_why(device):
    want = "no CUDA device found" if "cuda" in ac.compiled_backends() else "built without CUDA support"
    assert want in ac.absent_backends()["cuda"]
    for call in (lambda: ac.asarray(np.ones(3), device=device), lambda: ac.zeros((2,), device=device),
                 lambda: ac.memory_stats(device)):
        with pytest.raises(ac.DeviceError, match=want):
            call()
    assert all(d["kind"] != "cuda" for d in ac.devices())


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_half_formats_compute_in_float32_on_the_cpu(dtype):
    x = ac.asarray(np.linspace(-2, 2, 9, dtype=np.float32).reshape(3, 3)).astype(dtype)
    f = x.astype("float32")
    for got, want in [(x + x, f + f), (ac.exp(x), ac.exp(f)), (ac.sum(x, axis=1), ac.sum(f, axis=1))]:
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got.astype("float32").numpy(), want.astype(dtype).astype("float32").numpy())
    # matmul has no half GEMM on the CPU: the float32 product is rounded once.
    np.testing.assert_array_equal((x @ x).astype("float32").numpy(), (f @ f).astype(dtype).astype("float32").numpy())
    assert (x @ x).dtype == x.dtype
    # Promoted with float32 as in NumPy.
    assert (x + ac.asarray(np.ones(3, np.float32))).dtype == ac.float32


def test_tf32_switch():
    assert ac.allow_tf32() is False  # off unless ACCELERA_ALLOW_TF32 or set_allow_tf32 says otherwise
    ac.set_allow_tf32(True)
    try:
        assert ac.allow_tf32() is True
    finally:
        ac.set_allow_tf32(False)
    assert ac.allow_tf32() is False


@pytest.mark.parametrize("device", [d for d in DEVICES if d.startswith("cuda")] or ["cuda:0"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_formats_on_cuda(device, dtype):
    if device not in DEVICES:
        pytest.skip(f"{device}: {ac.absent_backends().get('cuda', 'not present')}")
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (64, 96)).astype(np.float32)
    ta = ac.asarray(a, device=device).astype(dtype)
    back = ta.astype("float32").numpy().astype(np.float64)
    eps = 2.0**-10 if dtype == "float16" else 2.0**-7
    np.testing.assert_allclose((ta + ta).astype("float32").numpy(), 2 * back, rtol=eps)
    np.testing.assert_allclose((ta @ ta.T).astype("float32").numpy(), back @ back.T, rtol=eps, atol=96 * eps)


@pytest.mark.skipif("opencl" in ac.absent_backends(), reason="no OpenCL device: nothing can be left queued")
def test_exit_with_opencl_work_still_queued_is_clean():
    # The result is never read, so the exp may still be queued (or running in the driver's threads) when the
    # interpreter exits; the queues are drained at exit instead of crashing in the driver's worker thread.
    code = ("import accelera as acc, numpy as np; "
            "acc.exp(acc.asarray(np.ones(10**7, np.float32), device='opencl:0'))")
    for _ in range(5):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
        assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
