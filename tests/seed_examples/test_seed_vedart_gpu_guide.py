"""The code examples of ``vedart-gpu-guide.md`` with ``accelera`` for ``vedart``: ``@gpu``, ``Config``,
``get_runtime()`` and ``par_iter`` are the offload runtime's (accelera.offload); the memory pool, custom
kernels and troubleshooting have their Accelera equivalents. Sizes are scaled down; results are checked
against NumPy."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

import accelera as acc
from seed_harness import assert_close, example

GUIDE = "vedart-gpu-guide.md"


@pytest.fixture
def gpu_runtime():
    """The seed's setup lines: a Config with the GPU on, then init."""
    config = acc.Config.builder().gpu(True).build()
    acc.init(config)
    return config


@example(GUIDE, "Installation (pip install vedart[gpu])")
def test_installation_has_gpu_support():
    # The seed installs CuPy for its GPU path; Accelera's GPU backends are compiled in, or it says why not.
    compiled, absent = acc.compiled_backends(), acc.absent_backends()
    for kind in ("opencl", "cuda"):
        assert kind in compiled or absent[kind].startswith("built without")
    assert "cpu" in compiled


@example(GUIDE, "Automatic GPU Offload")
def test_automatic_gpu_offload(gpu_runtime):
    @acc.gpu
    def matrix_multiply(A, B):
        return A @ B

    C_small = matrix_multiply(np.ones((10, 10)), np.ones((10, 10)))
    A_large, B_large = np.ones((500, 500)), np.ones((500, 500))  # the seed's 5000, scaled
    C_large = matrix_multiply(A_large, B_large)
    assert_close(C_small, np.full((10, 10), 10.0), rtol=1e-12)
    assert_close(C_large, np.full((500, 500), 500.0), rtol=1e-12)


@example(GUIDE, "How GPU Offload Works: Cost-Based Decision")
def test_cost_based_decision(gpu_runtime):
    @acc.gpu
    def scale(x):
        return x * 2

    tiny = np.arange(10.0)
    assert_close(scale(tiny), tiny * 2, rtol=0)
    stats = acc.get_runtime().stats()
    assert stats["calls"] >= 1 and stats["kept_on_cpu"] >= 1  # 80 bytes never pay for a transfer


@example(GUIDE, "How GPU Offload Works: Memory Management (memory pool)")
def test_memory_pool_reuses_blocks(gpu_device):
    # The seed's pool pre-allocates and reuses blocks; Accelera's caching allocator does, per device.
    acc.empty_cache(gpu_device)
    first = acc.ones((256, 256), device=gpu_device)
    del first
    before = acc.memory_stats(gpu_device)
    again = acc.ones((256, 256), device=gpu_device)
    after = acc.memory_stats(gpu_device)
    assert after["cache_hits"] == before["cache_hits"] + 1
    assert after["reserved_bytes"] == before["reserved_bytes"]  # no new device memory
    assert_close(again, np.ones((256, 256)), rtol=0)


@example(GUIDE, "Backend Selection: CuPy")
def test_cupy_style_vector_add(gpu_runtime):
    @acc.gpu
    def vector_add(a, b):
        return a + b

    result = vector_add(np.array([1, 2, 3]), np.array([4, 5, 6]))
    np.testing.assert_array_equal(result, [5, 7, 9])


ADD_KERNEL = {
    "opencl": """__kernel void add_kernel(__global const float* a, __global const float* b,
                                         __global float* result, int n) {
                   int idx = get_global_id(0);
                   if (idx < n) result[idx] = a[idx] + b[idx];
               }""",
    "cuda": """extern "C" __global__ void add_kernel(const float* a, const float* b, float* result, int n) {
                   int idx = blockIdx.x * blockDim.x + threadIdx.x;
                   if (idx < n) result[idx] = a[idx] + b[idx];
               }""",
}


@example(GUIDE, "Backend Selection: Numba CUDA (the kernel)")
def test_custom_kernel(gpu_device):
    # Numba's @cuda.jit kernel, written for our KernelManager (OpenCL C, or CUDA C through NVRTC).
    kind = gpu_device.split(":")[0]
    manager = acc.KernelManager(gpu_device)
    if kind == "cpu":
        with pytest.raises(acc.NotSupportedError):
            manager.compile_kernel("add_kernel", ADD_KERNEL["opencl"], "opencl")
        return
    manager.compile_kernel("add_kernel", ADD_KERNEL[kind], kind)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    result = acc.zeros((1000,), device=gpu_device)
    manager.launch("add_kernel", [acc.asarray(a, device=gpu_device), acc.asarray(b, device=gpu_device), result,
                                  1000], global_size=1000)
    assert_close(result, a.astype(np.float64) + b, rtol=1e-7)


@example(GUIDE, "Backend Selection: Numba CUDA (@gpu_kernel)")
def test_gpu_kernel_decorator(gpu_runtime, gpu_device):
    kind = gpu_device.split(":")[0]
    add_kernel = acc.gpu_kernel(acc.KernelManager(gpu_device).compile_kernel("add_kernel", ADD_KERNEL[kind], kind))
    a, b = np.arange(100, dtype=np.float32), np.ones(100, np.float32)
    result = np.zeros(100, np.float32)
    add_kernel(a, b, result, 100)  # Numba reads result.size in the kernel; an OpenCL/CUDA C kernel takes n
    assert_close(result, a + 1.0, rtol=0)


@example(GUIDE, "GPU with Parallel Iterators")
def test_parallel_iterators(gpu_runtime):
    rng = np.random.default_rng(1)
    matrices = [rng.random((50, 50)) for _ in range(10)]  # the seed's 100 of 1000 x 1000, scaled

    @acc.gpu
    def process_matrix(M):
        return np.linalg.eigvals(M)

    eigenvalues = acc.par_iter(matrices).gpu_map(process_matrix).collect()
    for M, got in zip(matrices, eigenvalues):
        np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(np.linalg.eigvals(M)), rtol=1e-8)


@example(GUIDE, "Multi-GPU Support")
def test_multi_gpu(gpu_runtime):
    @acc.gpu(device=0)
    def process_on_gpu_0(data):
        return data * 2

    data = np.arange(1000.0)
    assert_close(process_on_gpu_0(data), data * 2, rtol=0)


@example(GUIDE, "Performance Tips: Batch Small Operations")
def test_batch_small_operations(gpu_runtime):
    @acc.gpu
    def add_small(a, b):
        return a + b

    assert add_small(5, 3) == 8

    @acc.gpu
    def process_batch(batch):
        return batch ** 2  # the seed's list comprehension, as one array op

    large_batch = np.arange(10_000)
    np.testing.assert_array_equal(process_batch(large_batch), large_batch ** 2)


@example(GUIDE, "Performance Tips: Minimize Transfers")
def test_minimize_transfers(gpu_runtime):
    @acc.gpu
    def step1(data):
        return data * 2

    @acc.gpu
    def step2(data):
        return data + 1

    @acc.gpu
    def fused(data):
        return (data * 2) + 1

    data = np.random.default_rng(2).random(100_000)
    assert_close(step2(step1(data)), data * 2 + 1, rtol=1e-15)
    assert_close(fused(data), data * 2 + 1, rtol=1e-15)


@example(GUIDE, "Performance Tips: Use NumPy-Compatible Code")
def test_numpy_compatible_code(gpu_runtime):
    @acc.gpu
    def efficient_operation(X):
        mean = X.mean(axis=0)
        std = X.std(axis=0)
        normalized = (X - mean) / std
        return normalized @ normalized.T

    X = np.random.default_rng(3).random((200, 30))
    n = (X - X.mean(axis=0)) / X.std(axis=0)
    assert_close(efficient_operation(X), n @ n.T, rtol=1e-10, atol=1e-10)


@example(GUIDE, "Memory Management: Monitor GPU Memory")
def test_monitor_gpu_memory(gpu_runtime):
    runtime = acc.get_runtime()
    if runtime.gpu:
        stats = runtime.gpu.get_memory_stats()
        assert stats["used_mb"] + stats["free_mb"] <= stats["total_mb"] + 1e-6
        runtime.gpu.get_utilization()
    else:
        assert not any(d["is_accelerator"] for d in acc.devices())


@example(GUIDE, "Memory Management: Clear GPU Memory")
def test_clear_gpu_memory(gpu_device):
    # CuPy's mempool.free_all_blocks() is accelera.empty_cache(device).
    t = acc.ones((512, 512), device=gpu_device)
    del t
    assert acc.memory_stats(gpu_device)["cached_bytes"] > 0
    acc.empty_cache(gpu_device)
    stats = acc.memory_stats(gpu_device)
    assert stats["cached_bytes"] == 0 and stats["reserved_bytes"] == stats["current_bytes"]


@example(GUIDE, "Debugging GPU Code: Check Backend")
def test_check_backend(gpu_runtime):
    runtime = acc.get_runtime()
    if runtime.gpu:
        assert runtime.gpu.backend in ("cuda", "opencl") and runtime.gpu.device_count >= 1
        assert runtime.gpu.is_available()


@example(GUIDE, "Debugging GPU Code: Force CPU Execution")
def test_force_cpu_execution():
    acc.init(acc.Config.builder().gpu(False).build())

    @acc.gpu
    def double(x):
        return x * 2

    assert_close(double(np.arange(10.0)), np.arange(10.0) * 2, rtol=0)
    assert acc.get_runtime().stats()["offloaded"] == 0


@example(GUIDE, "Debugging GPU Code: Profile GPU Operations")
def test_profile_gpu_operations(gpu_runtime):
    @acc.gpu
    def gpu_operation(data):
        return data @ data.T

    data = np.random.default_rng(4).random((300, 300))  # the seed's 5000, scaled
    start = time.perf_counter()
    result = gpu_operation(data)
    gpu_time = time.perf_counter() - start
    result_cpu = data @ data.T
    assert gpu_time > 0
    assert_close(result, result_cpu, rtol=1e-12)


@example(GUIDE, "Common Patterns: Image Processing")
def test_image_processing(gpu_runtime):
    # The seed convolves with scipy.ndimage, which is no dependency of ours; the same 3x3 filter as shifted
    # sums (interior pixels), which is NumPy-style code the runtime runs on the device.
    gaussian_kernel = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16.0

    @acc.gpu
    def apply_filter(image, kernel):
        h, w = image.shape
        out = 0.0
        for i in range(3):
            for j in range(3):
                out = out + kernel[i, j] * image[i:h - 2 + i, j:w - 2 + j]
        return out

    rng = np.random.default_rng(5)
    images = [rng.random((64, 64)) for _ in range(4)]
    filtered = acc.par_iter(images).gpu_map(lambda img: apply_filter(img, gaussian_kernel)).collect()
    for img, got in zip(images, filtered):
        want = sum(gaussian_kernel[i, j] * img[i:62 + i, j:62 + j] for i in range(3) for j in range(3))
        assert_close(got, want, rtol=1e-12)


@example(GUIDE, "Common Patterns: Machine Learning")
def test_machine_learning(gpu_runtime):
    @acc.gpu
    def train_step(X, y, weights):
        predictions = X @ weights
        loss = ((predictions - y) ** 2).mean()
        grad = 2 * X.T @ (predictions - y) / len(y)
        return loss, grad

    rng = np.random.default_rng(6)
    X_train, y_train = rng.random((200, 10)), rng.random(200)
    weights, ref = np.zeros(10), np.zeros(10)
    for _ in range(5):
        loss, grad = train_step(X_train, y_train, weights)
        weights -= 0.1 * grad
        ref_pred = X_train @ ref
        ref -= 0.1 * (2 * X_train.T @ (ref_pred - y_train) / 200)
    assert_close(weights, ref, rtol=1e-12)


@example(GUIDE, "Common Patterns: Scientific Computing")
def test_monte_carlo_pi(gpu_runtime):
    @acc.gpu
    def monte_carlo_pi(n_samples):
        x = np.random.random(n_samples)
        y = np.random.random(n_samples)
        inside = (x**2 + y**2) <= 1.0
        return 4.0 * inside.sum() / n_samples

    pi = monte_carlo_pi(1_000_000)  # the seed's billion, scaled
    assert abs(pi - np.pi) < 0.01


@example(GUIDE, "Troubleshooting: GPU not available")
def test_gpu_not_available_diagnosis():
    # nvidia-smi / pip show cupy / config.enable_gpu: `accelera info` lists the devices and says why a
    # backend is absent.
    out = subprocess.run([sys.executable, "-m", "accelera", "info"], capture_output=True, text=True, check=True).stdout
    for kind, reason in acc.absent_backends().items():
        assert reason in out
    for d in acc.devices():
        assert d["device"] in out


@example(GUIDE, "Troubleshooting: Out of memory")
def test_out_of_memory_remedies(gpu_device):
    budget = acc.memory_stats(gpu_device)["budget_bytes"]
    acc.set_memory_budget(gpu_device, 1 << 20)
    try:
        with pytest.raises(acc.OutOfMemoryError):
            acc.ones((1024, 1024), dtype=acc.float64, device=gpu_device)  # 8 MiB: too large a batch
        acc.empty_cache(gpu_device)  # clear the pool
        small = acc.ones((256, 512), dtype=acc.float32, device=gpu_device)  # smaller batch, float32
        assert_close(acc.sum(small), 256 * 512, rtol=0)
    finally:
        acc.set_memory_budget(gpu_device, budget)
