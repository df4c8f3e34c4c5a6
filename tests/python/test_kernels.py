"""User kernels through accelera.KernelManager, and the on-disk kernel cache behind them."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from accelera import _core

OPENCL = [d["device"] for d in ac.devices() if d["kind"] == "opencl"]
needs_opencl = pytest.mark.skipif(not OPENCL, reason="no OpenCL device (CI runs these on PoCL)")

SCALE_SOURCE = """
__kernel void scale_add(__global float* y, __global const float* x, float a, int n) {
    const int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + 1.0f;
}
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELERA_KERNEL_CACHE", str(tmp_path))
    _core._reload_config()
    yield tmp_path
    monkeypatch.undo()
    _core._reload_config()


@needs_opencl
def test_compile_and_launch_matches_numpy(cache_dir):
    manager = ac.KernelManager(OPENCL[0])
    kernel = manager.compile_kernel("scale_add", SCALE_SOURCE, "opencl")
    assert kernel.name == "scale_add" and kernel.device == OPENCL[0]
    assert manager.compiled_kernels == ["scale_add"]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1021).astype(np.float32)
    y = ac.zeros((1021,), device=OPENCL[0])
    manager.launch("scale_add", [y, ac.asarray(x).to(OPENCL[0]), 0.5, 1021], 1021, 64)
    np.testing.assert_allclose(y.numpy(), 0.5 * x.astype(np.float64) + 1.0, rtol=1e-6)
    # The same through the kernel object, with the driver choosing the work-group size.
    kernel.launch([y, ac.asarray(x).to(OPENCL[0]), np.float32(2.0), np.int32(1021)], global_size=(1021,))
    np.testing.assert_allclose(y.numpy(), 2.0 * x.astype(np.float64) + 1.0, rtol=1e-6)


@needs_opencl
def test_second_build_comes_from_the_disk_cache(cache_dir):
    before = _core._kernel_cache_stats()
    ac.KernelManager().compile_kernel("scale_add", SCALE_SOURCE, "opencl")
    ac.KernelManager().compile_kernel("scale_add", SCALE_SOURCE, "opencl")
    after = _core._kernel_cache_stats()
    assert after["stores"] - before["stores"] == 1
    assert after["hits"] - before["hits"] == 1
    assert len(list(cache_dir.iterdir())) == 1


@needs_opencl
def test_compile_error_carries_the_build_log(cache_dir):
    manager = ac.KernelManager()
    with pytest.raises(ac.ArgumentError, match="no_such_variable"):
        manager.compile_kernel("bad", "__kernel void bad(__global float* y) { y[0] = no_such_variable; }",
                               "opencl")
    assert manager.compiled_kernels == []


@needs_opencl
def test_bad_launches_are_typed_errors(cache_dir):
    manager = ac.KernelManager()
    manager.compile_kernel("scale_add", SCALE_SOURCE, "opencl")
    y = ac.zeros((8,), device=OPENCL[0])
    x = ac.zeros((8,), device=OPENCL[0])
    with pytest.raises(ac.ArgumentError, match="takes 4 arguments"):
        manager.launch("scale_add", [y, x], 8)
    with pytest.raises(ac.ArgumentError, match="does not match"):
        manager.launch("scale_add", [y, x, 1.0, np.int64(8)], 8)  # long where int is declared
    with pytest.raises(ac.ArgumentError, match="expected an accelera Tensor"):
        manager.launch("scale_add", [np.zeros(8, np.float32), x, 1.0, 8], 8)
    with pytest.raises(ac.DeviceError):
        manager.launch("scale_add", [ac.zeros((8,)), x, 1.0, 8], 8)
    with pytest.raises(ac.ArgumentError, match="does not fit a C int"):
        manager.launch("scale_add", [y, x, 1.0, 2**40], 8)
    with pytest.raises(ac.ArgumentError, match="no kernel named"):
        manager.launch("never_compiled", [], 1)


def test_cpu_and_unknown_backends_are_refused():
    manager = ac.KernelManager()
    with pytest.raises(ac.ArgumentError, match="opencl"):
        manager.compile_kernel("k", "", "vulkan")
    if "cuda" not in [d["kind"] for d in ac.devices()]:
        with pytest.raises(ac.DeviceError, match="CUDA"):
            manager.compile_kernel("k", "", "cuda")
