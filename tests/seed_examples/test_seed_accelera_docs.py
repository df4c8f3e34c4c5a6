"""The code examples of ``accelera-docs.md``, in order, with sizes scaled down (a memory budget makes the
engine stream them as it would the seed's full sizes). PyTorch lines wait on the PyTorch integration."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import accelera as acc
from accelera.chunking import ChunkingStrategy, RowChunking, TileChunking
from seed_harness import assert_close, check_matmul, example

GUIDE = "accelera-docs.md"
# Budget that makes the scaled-down examples stream in several tiles, as the seed's sizes would on a GPU.
SMALL_BUDGET = "1MB"


@pytest.fixture
def engine():
    return acc.MatrixEngine(memory_budget=SMALL_BUDGET, enable_progress=False)


@example(GUIDE, "Installation: Install from Source")
def test_install_from_source_gives_the_command():
    # The seed builds with `python3 -m build` and `make install-bin`; ours is `pip install .`, which installs
    # the package and the `accelera` command (this test run uses that installation).
    out = subprocess.run([sys.executable, "-m", "accelera", "info"], capture_output=True, text=True, check=True)
    assert acc.__version__ in out.stdout and "default device" in out.stdout


@example(GUIDE, "Installation: Verify Installation")
def test_verify_installation():
    # The seed asks torch.cuda.is_available(); Accelera says itself which devices answer.
    devices = acc.devices()
    assert devices[0]["device"] == "cpu"
    engine = acc.MatrixEngine()
    assert engine.device in [d["device"] for d in devices]
    assert engine.get_memory_info()["gpu_total_gb"] > 0


@example(GUIDE, "Quick Start: Basic Matrix Multiplication")
def test_basic_matrix_multiplication():
    engine = acc.MatrixEngine(auto_detect_memory=True, memory_budget=SMALL_BUDGET, enable_progress=False)
    A = acc.Matrix.randn((800, 600), seed=1)  # the seed's 8k x 6k, scaled by 10
    B = acc.Matrix.randn((600, 1000), seed=2)
    C = engine.matmul(A, B)
    assert C.shape == (800, 1000)
    assert engine.last_run["streamed"] and engine.last_run["tiles"] > 1  # chunked, as the budget demands
    check_matmul(C, A.numpy(), B.numpy())


@example(GUIDE, "Quick Start: Element-wise Operations")
def test_element_wise_operations(engine):
    X = acc.Matrix.randn((500, 400), seed=3)
    Y = acc.Matrix.randn((500, 400), seed=4)
    Z1 = engine.add(X, Y)
    Z2 = engine.multiply(X, Y)
    x, y = X.numpy().astype(np.float64), Y.numpy().astype(np.float64)
    assert_close(Z1, x + y, rtol=1e-6, atol=1e-6)
    assert_close(Z2, x * y, rtol=1e-6)


@example(GUIDE, "Quick Start: Working with Different Input Types (NumPy)")
def test_numpy_inputs(engine):
    rng = np.random.default_rng(5)
    A_np = rng.standard_normal((100, 80)).astype(np.float32)
    B_np = rng.standard_normal((80, 120)).astype(np.float32)
    C = engine.matmul(A_np, B_np)
    check_matmul(C, A_np, B_np)


@example(GUIDE, "Quick Start: Working with Different Input Types (PyTorch)")
def test_pytorch_inputs(engine):
    import torch
    import accelera.torch  # noqa: F401  (torch tensors through DLPack)

    A_torch = torch.randn(100, 80)
    B_torch = torch.randn(80, 120)
    C = engine.matmul(A_torch, B_torch)
    check_matmul(C, A_torch.numpy(), B_torch.numpy())


@example(GUIDE, "Core Concepts: Row Chunking")
def test_row_chunking(engine):
    strategy = RowChunking()
    engine = acc.MatrixEngine(chunking_strategy="row", memory_budget=SMALL_BUDGET, enable_progress=False)
    a, b = acc.Matrix.randn((300, 200), seed=6), acc.Matrix.randn((200, 500), seed=7)
    check_matmul(engine.matmul(a, b), a.numpy(), b.numpy())
    assert engine.last_run["strategy"] == "row" and engine.last_run["tile_shape"][1] == 500  # whole rows
    check_matmul(engine.matmul(a, b, chunk_strategy=strategy), a.numpy(), b.numpy())


@example(GUIDE, "Core Concepts: Adaptive Chunking")
def test_adaptive_chunking():
    engine = acc.MatrixEngine(chunking_strategy="adaptive", memory_budget=SMALL_BUDGET, enable_progress=False)
    a, b = acc.Matrix.randn((300, 200), seed=8), acc.Matrix.randn((200, 500), seed=9)
    check_matmul(engine.matmul(a, b), a.numpy(), b.numpy())
    assert engine.last_run["streamed"] and engine.last_run["peak_device_bytes"] <= 1_000_000


@example(GUIDE, "Core Concepts: Tile Chunking")
def test_tile_chunking(engine):
    strategy = TileChunking(tile_size=(64, 64))  # the seed's 1024 x 1024, scaled to these sizes
    a, b = acc.Matrix.randn((200, 100), seed=10), acc.Matrix.randn((100, 150), seed=11)
    check_matmul(engine.matmul(a, b, chunk_strategy=strategy), a.numpy(), b.numpy())
    assert engine.last_run["tiles"] == 4 * 3


@example(GUIDE, "Core Concepts: Matrix Wrapper")
def test_matrix_wrapper():
    A = acc.Matrix.zeros((100, 50))
    B = acc.Matrix.ones((50, 80))
    C = acc.Matrix.eye(100)
    D = acc.Matrix.randn((100, 50), seed=12)
    # The seed adds and multiplies A (1000 x 500) and B (500 x 800) element-wise, which no broadcasting
    # allows: that raises ShapeError here; the element-wise lines use D, which has A's shape.
    with pytest.raises(acc.ShapeError):
        A + B
    with pytest.raises(acc.ShapeError):
        A * B
    E = A + D
    F = A * D
    G = A @ B
    assert_close(E, D.numpy(), rtol=0)
    assert_close(F, np.zeros((100, 50)), rtol=0)
    assert_close(G, np.zeros((100, 80)), rtol=0)
    assert_close(C, np.eye(100), rtol=0)
    assert A.shape == (100, 50) and A.device == "cpu"
    assert A.memory_size() == 100 * 50 * 4


@example(GUIDE, "API Reference: MatrixEngine constructor")
def test_matrix_engine_constructor():
    engine = acc.MatrixEngine(device=None, auto_detect_memory=True, chunking_strategy="adaptive", chunk_size=None,
                              enable_progress=True)
    assert engine.device == acc.default_device() and engine.chunking_strategy == "adaptive"
    fixed = acc.MatrixEngine(device="cpu", auto_detect_memory=False, chunking_strategy="tile", chunk_size=32,
                             enable_progress=False)
    assert fixed.chunk_size == 32 and fixed.chunking_strategy == "tile" and not fixed.enable_progress
    a, b = np.ones((70, 40), np.float32), np.ones((40, 50), np.float32)
    check_matmul(fixed.matmul(a, b), a, b)
    assert fixed.last_run["tile_shape"][:2] == (32, 32)
    for method in ("matmul", "add", "multiply", "get_memory_info", "cleanup"):
        assert callable(getattr(engine, method))


@example(GUIDE, "API Reference: Matrix")
def test_matrix_reference():
    rng = np.random.default_rng(13)
    data = rng.standard_normal((6, 4))
    m = acc.Matrix(data, device=None, dtype=acc.float32)  # the seed's torch.float32 is accelera.float32
    assert m.dtype == acc.float32 and m.storage_device == "cpu"
    assert_close(m, data.astype(np.float32), rtol=0)
    assert_close(acc.Matrix([[1, 2], [3, 4]], dtype="float64"), [[1, 2], [3, 4]], rtol=0)
    for make in (acc.Matrix.zeros, acc.Matrix.ones, acc.Matrix.random, acc.Matrix.randn):
        made = make((3, 5), dtype=acc.float32, device="cpu")
        assert made.shape == (3, 5) and made.dtype == acc.float32
    assert 0 <= acc.Matrix.random((50, 50)).numpy().min() and acc.Matrix.random((50, 50)).numpy().max() < 1
    assert_close(acc.Matrix.eye(3, 4, dtype=acc.float64), np.eye(3, 4), rtol=0)
    moved = m.to_gpu(acc.default_device())
    assert moved.device == acc.default_device() and moved.to_cpu().device == "cpu"
    clone = m.clone()
    assert_close(clone, m.numpy(), rtol=0)


@example(GUIDE, "API Reference: Matrix.tensor() (PyTorch)")
def test_matrix_tensor_is_torch():
    import torch

    m = acc.Matrix.randn((3, 4), seed=14)
    t = m.tensor()
    assert isinstance(t, torch.Tensor)
    assert_close(t.numpy(), m.numpy(), rtol=0)


class CustomChunking(ChunkingStrategy):
    """Row bands of uneven height: what a strategy of one's own may choose."""

    def get_chunks(self, shape, chunk_size):
        start = 0
        while start < shape[0]:
            stop = min(shape[0], start + chunk_size + start % 3)
            yield (slice(start, stop),)
            start = stop


@example(GUIDE, "Advanced Usage: Custom Chunking Strategy")
def test_custom_chunking_strategy():
    engine = acc.MatrixEngine(enable_progress=False)
    engine.chunking_strategy = CustomChunking()
    engine.set_chunk_size(20)
    a, b = acc.Matrix.randn((101, 30), seed=15), acc.Matrix.randn((30, 40), seed=16)
    check_matmul(engine.matmul(a, b), a.numpy(), b.numpy())
    assert engine.last_run["strategy"] == "chunks" and engine.last_run["tiles"] > 1

    class SeedStub(ChunkingStrategy):
        def get_chunks(self, shape, chunk_size):
            pass  # the seed's body: it yields nothing, which is an error rather than an empty result

    engine.chunking_strategy = SeedStub()
    with pytest.raises(acc.ArgumentError, match="get_chunks"):
        engine.matmul(a, b)


@example(GUIDE, "Advanced Usage: Manual Memory Management")
def test_manual_memory_management():
    engine = acc.MatrixEngine(auto_detect_memory=False, enable_progress=False)
    engine.set_chunk_size(64)  # the seed's 512, scaled
    a, b = acc.Matrix.randn((200, 50), seed=17), acc.Matrix.randn((50, 130), seed=18)
    check_matmul(engine.matmul(a, b), a.numpy(), b.numpy())
    assert engine.last_run["streamed"] and engine.last_run["tile_shape"][0] <= 64
    engine.enable_auto_memory_detection(True)
    check_matmul(engine.matmul(a, b), a.numpy(), b.numpy())
    assert engine.last_run["strategy"] == "in-core"  # it fits: no chunks once detection is back on


@example(GUIDE, "Advanced Usage: Memory Monitoring")
def test_memory_monitoring(engine):
    memory_info = engine.get_memory_info()
    assert 0 <= memory_info["gpu_utilization"] <= 100
    assert 0 < memory_info["gpu_available_gb"] <= memory_info["gpu_total_gb"]
    assert 0 < memory_info["cpu_available_gb"] <= memory_info["cpu_total_gb"]


@example(GUIDE, "Advanced Usage: Batch Processing")
def test_batch_processing(engine):
    matrices_A = [acc.Matrix.randn((100, 80), seed=i) for i in range(10)]
    matrices_B = [acc.Matrix.randn((80, 120), seed=100 + i) for i in range(10)]
    results = []
    for A, B in zip(matrices_A, matrices_B):
        C = engine.matmul(A, B)
        results.append(C)
        engine.cleanup()
    for A, B, C in zip(matrices_A, matrices_B, results):
        check_matmul(C, A.numpy(), B.numpy())
    assert acc.memory_stats(engine.device)["cached_bytes"] == 0  # cleanup returned the cache


@example(GUIDE, "Performance Guidelines: Memory Optimization")
def test_memory_optimization(engine):
    A, B = acc.Matrix.randn((300, 200), seed=19), acc.Matrix.randn((200, 250), seed=20)

    def monitor_operation():
        before = engine.get_memory_info()
        result = engine.matmul(A, B)
        after = engine.get_memory_info()
        return result, after["gpu_utilization"] - before["gpu_utilization"]

    result, change = monitor_operation()
    check_matmul(result, A.numpy(), B.numpy())
    assert change >= 0  # the engine's buffers stay cached until cleanup
    engine.cleanup()
    engine.set_chunk_size(32)  # the seed's 256, scaled
    assert engine.chunk_size == 32


@example(GUIDE, "Performance Guidelines: Performance Tuning")
def test_performance_tuning(gpu_device, tmp_path):
    engine = acc.MatrixEngine(device=gpu_device, enable_progress=False)
    assert not engine.enable_progress
    engine = acc.MatrixEngine(device=gpu_device, chunking_strategy="row", enable_progress=False)
    assert engine.chunking_strategy == "row"
    # Prefetch chunks for better throughput: each chunk arrives on the device while the previous one is used.
    from accelera.chunking import ChunkIterator

    tensor = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", dtype=np.float32, shape=(1000, 64))
    tensor[:] = np.random.default_rng(21).standard_normal((1000, 64))
    strategy, chunk_size, memory_manager = RowChunking(), 128, engine.memory_manager
    iterator = ChunkIterator(tensor, strategy, chunk_size, memory_manager, prefetch=True)
    sums = [acc.sum(chunk, axis=1).numpy() for chunk in iterator]
    assert len(sums) == 8
    assert_close(np.concatenate(sums), tensor.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-4)


@example(GUIDE, "Troubleshooting: CUDA Out of Memory")
def test_out_of_memory_remedies():
    engine = acc.MatrixEngine(auto_detect_memory=False, enable_progress=False)
    engine.set_chunk_size(16)  # the seed's 128, scaled
    a, b = acc.Matrix.randn((50, 40), seed=22), acc.Matrix.randn((40, 60), seed=23)
    check_matmul(engine.matmul(a, b), a.numpy(), b.numpy())
    assert engine.last_run["tile_shape"][0] <= 16
    engine.cleanup()
    info = engine.get_memory_info()
    assert set(info) >= {"gpu_utilization", "gpu_available_gb", "cpu_available_gb"}


@example(GUIDE, "Troubleshooting: Slow Performance")
def test_slow_performance_checks():
    engine = acc.MatrixEngine(enable_progress=False)
    A, B = acc.Matrix.randn((200, 100), seed=24), acc.Matrix.randn((100, 300), seed=25)
    memory_needed = A.memory_size() + B.memory_size()
    available = engine.memory_manager.get_available_memory()
    assert memory_needed < available  # direct computation possible
    check_matmul(engine.matmul(A, B), A.numpy(), B.numpy())
    assert engine.last_run["strategy"] == "in-core"
    small = acc.MatrixEngine(memory_budget=memory_needed // 2, enable_progress=False)
    assert small.memory_manager.get_available_memory() < memory_needed
    check_matmul(small.matmul(A, B), A.numpy(), B.numpy())
    assert small.last_run["streamed"]


@example(GUIDE, "Troubleshooting: Dimension Mismatch")
def test_dimension_mismatch(engine):
    A, B = acc.Matrix.randn((30, 20), seed=26), acc.Matrix.randn((21, 10), seed=27)
    assert A.shape[-1] != B.shape[-2]
    with pytest.raises(acc.ShapeError, match=r"\(30, 20\) and \(21, 10\)"):
        engine.matmul(A, B)


@example(GUIDE, "Debugging: Enable Debug Logging")
def test_debug_logging(engine):
    logging.basicConfig(level=logging.DEBUG)
    A, B = acc.Matrix.randn((120, 90), seed=28), acc.Matrix.randn((90, 70), seed=29)
    result = engine.matmul(A, B)
    check_matmul(result, A.numpy(), B.numpy())


@example(GUIDE, "Debugging: Memory Debugging")
def test_memory_debugging(engine, capsys):
    def debug_memory():
        info = engine.get_memory_info()
        for key, value in info.items():
            print(f"{key}: {value}")

    A, B = acc.Matrix.randn((120, 90), seed=30), acc.Matrix.randn((90, 70), seed=31)
    debug_memory()
    result = engine.matmul(A, B)
    debug_memory()
    check_matmul(result, A.numpy(), B.numpy())
    assert capsys.readouterr().out.count("gpu_available_gb: ") == 2


@example(GUIDE, "Debugging: Environment Variables")
def test_environment_variables():
    env = dict(os.environ, ACCELERA_MEMORY_THRESHOLD="0.8", ACCELERA_MIN_CHUNK_SIZE="1",
               ACCELERA_MAX_CHUNK_SIZE="5000", ACCELERA_ENABLE_PREFETCH="true", ACCELERA_LOG_LEVEL="DEBUG")
    code = ("import accelera as acc, json; d = acc.devices()[0]; s = acc.memory_stats('cpu');"
            "print(json.dumps([s['budget_bytes'], d['total_memory']]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    budget, total = json.loads(out.stdout.strip().splitlines()[-1])
    assert abs(budget - 0.8 * total) <= 1
    bad = dict(env, ACCELERA_MAX_CHUNK_SIZE="lots")
    run = subprocess.run([sys.executable, "-c", "import accelera as acc; acc.MatrixEngine()"], env=bad,
                         capture_output=True, text=True)
    assert run.returncode != 0 and "ACCELERA_MAX_CHUNK_SIZE" in run.stderr


@example(GUIDE, "Debugging: Performance Benchmarking")
def test_performance_benchmarking(engine, capsys):
    def benchmark_operation(A, B, num_runs=3):
        times = []
        for i in range(num_runs):
            engine.cleanup()
            start = time.time()
            result = engine.matmul(A, B)
            end = time.time()
            times.append(end - start)
            print(f"Run {i+1}: {times[-1]:.2f}s")
        avg_time = sum(times) / len(times)
        print(f"Average: {avg_time:.2f}s")
        return result, avg_time

    A = acc.Matrix.randn((200, 150), seed=32)  # the seed's 2000 x 1500, scaled
    B = acc.Matrix.randn((150, 250), seed=33)
    result, avg_time = benchmark_operation(A, B)
    check_matmul(result, A.numpy(), B.numpy())
    assert avg_time > 0 and "Run 3" in capsys.readouterr().out
