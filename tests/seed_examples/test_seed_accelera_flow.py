"""The code examples of ``accelera-flow.md``: where data starts, the engine's decisions, its fallbacks
(``MatrixEngine(fallback_strategy=...)``) and chunking strategies. The seed's flow begins with PyTorch
interception, which waits on the PyTorch integration."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as acc
from accelera import _core
from accelera.chunking import AdaptiveChunking, RowChunking
from seed_harness import assert_close, check_matmul, example

GUIDE = "accelera-flow.md"


def operands(m=60, k=40, n=50, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (m, k)).astype(np.float32), rng.uniform(-1, 1, (k, n)).astype(np.float32))


def matmul_with_failure(engine, a, b, nth):
    """engine.matmul(a, b) with the engine device's nth allocation failing (0: none)."""
    _core._fail_nth_allocation(engine.device, nth)
    try:
        return engine.matmul(a, b)
    finally:
        _core._fail_nth_allocation(engine.device, 0)


@example(GUIDE, "Execution Flow Overview: Entry Point: PyTorch Interception")
def test_pytorch_interception():
    import torch
    import accelera.torch as acc_torch

    a, b = torch.randn(60, 40), torch.randn(40, 50)
    acc_torch.enable(min_bytes=0)  # scaled down: below the default threshold nothing would be routed
    try:
        c = torch.matmul(a, b)
    finally:
        acc_torch.disable()
    check_matmul(c.numpy(), a.numpy(), b.numpy())
    assert acc_torch.stats()["routed"] >= 1


@example(GUIDE, "Execution Flow Overview: Engine Decision Tree")
def test_engine_decision_tree(gpu_device):
    a, b = operands()
    # Normal processing, direct: everything fits the budget.
    engine = acc.MatrixEngine(device=gpu_device, enable_progress=False)
    check_matmul(engine.matmul(a, b), a, b)
    assert engine.last_run["strategy"] == "in-core" and engine.last_run["fallbacks"] == 0
    # Normal processing, chunked: it does not fit.
    engine = acc.MatrixEngine(device=gpu_device, memory_budget=12_000, enable_progress=False)
    check_matmul(engine.matmul(a, b), a, b)
    assert engine.last_run["streamed"] and engine.last_run["fallbacks"] == 0
    # Fallback: the device runs out of memory mid-call; the CPU finishes.
    engine = acc.MatrixEngine(device=gpu_device, memory_budget=12_000, fallback_strategy="cpu", enable_progress=False)
    check_matmul(matmul_with_failure(engine, a, b, nth=2), a, b)
    assert engine.last_run["fallbacks"] >= 1


@example(GUIDE, "Execution Flow Overview: Result Processing")
def test_result_processing():
    a, b = operands(seed=1)
    result = acc.MatrixEngine(enable_progress=False).matmul(a, b)  # Matrix result
    tensor = acc.asarray(result)  # -> tensor, zero-copy through DLPack
    assert isinstance(tensor, acc.Tensor) and tensor.device == "cpu"
    check_matmul(tensor, a, b)


@example(GUIDE, "CPU vs GPU Starting Point: Starting Point: ALWAYS CPU")
def test_matrix_starts_on_cpu(gpu_device):
    a, _ = operands(seed=2)
    m = acc.Matrix(a)
    assert m.storage_device == "cpu"  # device=None: CPU storage
    on_device = acc.Matrix(a, device=gpu_device)
    assert on_device.storage_device == gpu_device
    assert_close(on_device, a, rtol=0)


@example(GUIDE, "CPU vs GPU Starting Point: CPU <-> GPU Transfer Flow")
def test_transfer_flow(gpu_device):
    a, b = operands(seed=3)
    engine = acc.MatrixEngine(device=gpu_device, memory_budget=12_000, enable_progress=False)
    c = engine.matmul(a, b)  # input on the CPU, processed on the device, result back on the CPU
    assert c.device == "cpu" and engine.last_run["device"] == gpu_device
    check_matmul(c, a, b)
    if gpu_device != "cpu":
        assert engine.last_run["bytes_host_to_device"] > 0
    # Inputs already on the device: the result stays there, as the inputs' original device.
    da, db = acc.Matrix(a, device=gpu_device), acc.Matrix(b, device=gpu_device)
    dc = acc.MatrixEngine(device=gpu_device, enable_progress=False).matmul(da, db)
    assert dc.device == gpu_device
    check_matmul(dc, a, b)


@example(GUIDE, "Fallback Mechanisms: Primary Fallback Check and Strategy Selection")
def test_fallback_strategy_selection(gpu_device):
    a, b = operands(seed=4)
    before = acc.memory_stats(gpu_device)["current_bytes"]
    # 'cpu': out of device memory, the unfinished tiles are computed on the CPU at once.
    engine = acc.MatrixEngine(device=gpu_device, memory_budget=12_000, fallback_strategy="cpu", enable_progress=False)
    check_matmul(matmul_with_failure(engine, a, b, nth=3), a, b)
    assert engine.fallback_strategy == "cpu"
    assert engine.last_run["fallbacks"] == 1 and "CPU" in engine.last_run["fallback_log"][0]
    # 'default_chunk': shrink the tiles and resume on the device.
    engine = acc.MatrixEngine(device=gpu_device, memory_budget=12_000, fallback_strategy="default_chunk",
                              enable_progress=False)
    check_matmul(matmul_with_failure(engine, a, b, nth=3), a, b)
    assert "resuming" in engine.last_run["fallback_log"][0]
    # 'error': no fallback at all.
    engine = acc.MatrixEngine(device=gpu_device, memory_budget=12_000, fallback_strategy="error", enable_progress=False)
    with pytest.raises(acc.OutOfMemoryError):
        matmul_with_failure(engine, a, b, nth=3)
    assert engine.last_run["fallbacks"] == 0 and not engine.last_run["completed"]
    assert acc.memory_stats(gpu_device)["current_bytes"] == before
    with pytest.raises(acc.ArgumentError, match="fallback_strategy"):
        acc.MatrixEngine(fallback_strategy="gpu")


@example(GUIDE, "Fallback Mechanisms: Fallback Locations (in core, chunks, memory manager)")
def test_fallback_locations(gpu_device):
    a, b = operands(seed=5)
    # Location 3: the direct (in-core) attempt runs out of memory; the engine streams instead.
    engine = acc.MatrixEngine(device=gpu_device, enable_progress=False)
    check_matmul(matmul_with_failure(engine, a, b, nth=1), a, b)
    assert engine.last_run["streamed"] and "in core" in engine.last_run["fallback_log"][0]
    # Location 2: out of memory while processing chunks; the CPU finishes under fallback_strategy='cpu'.
    engine = acc.MatrixEngine(device=gpu_device, memory_budget=12_000, fallback_strategy="cpu", enable_progress=False)
    check_matmul(matmul_with_failure(engine, a, b, nth=4), a, b)
    assert any("CPU" in line for line in engine.last_run["fallback_log"])


@example(GUIDE, "Chunking Strategies: Row Chunking get_chunks")
def test_row_chunking_get_chunks():
    shape, chunk_size = (1003, 7), 100
    chunks = list(RowChunking().get_chunks(shape, chunk_size))
    rows = shape[0]
    expected = [(slice(start, min(start + chunk_size, rows)),) for start in range(0, rows, chunk_size)]
    assert chunks == expected
    covered = np.zeros(rows, int)
    for (s,) in chunks:
        covered[s] += 1
    assert (covered == 1).all()


@example(GUIDE, "Chunking Strategies: Default Chunking Strategy (adaptive)")
def test_default_strategy_is_adaptive():
    engine = acc.MatrixEngine(enable_progress=False)
    assert engine.chunking_strategy == "adaptive"
    strategy = AdaptiveChunking(engine.memory_manager)
    a, b = operands(200, 100, 150, seed=6)
    small = acc.MatrixEngine(memory_budget=60_000, enable_progress=False)
    check_matmul(small.matmul(a, b, chunk_strategy=strategy), a, b)
    assert small.last_run["streamed"] and small.last_run["peak_device_bytes"] <= 60_000


@example(GUIDE, "Chunking Strategies: Default Chunking in MemoryEfficientEngine (fixed rows)")
def test_default_chunking_fixed_rows():
    a, b = operands(250, 30, 40, seed=7)
    default_chunk_size = 100  # the seed's 1000 rows, scaled
    engine = acc.MatrixEngine(auto_detect_memory=False, chunking_strategy="row", chunk_size=default_chunk_size,
                              enable_progress=False)
    check_matmul(engine.matmul(a, b), a, b)
    assert engine.last_run["tiles"] == 3 and engine.last_run["tile_shape"][0] == 100


@example(GUIDE, "Memory Management Flow: Memory Calculation")
def test_memory_calculation():
    a, b = operands(300, 200, 250, seed=8)
    bytes_per_element = 4  # float32
    a_memory_gb = a.size * bytes_per_element / 1024**3
    b_memory_gb = b.size * bytes_per_element / 1024**3
    result_memory_gb = (a.shape[0] * b.shape[1] * bytes_per_element) / 1024**3
    total_memory_gb = a_memory_gb + b_memory_gb + result_memory_gb
    total_bytes = int(round(total_memory_gb * 1024**3))
    # The engine computes in core when operands and result fit its budget, and streams otherwise.
    roomy = acc.MatrixEngine(memory_budget=2 * total_bytes, enable_progress=False)
    check_matmul(roomy.matmul(a, b), a, b)
    assert roomy.last_run["strategy"] == "in-core"
    tight = acc.MatrixEngine(memory_budget=total_bytes // 2, enable_progress=False)
    check_matmul(tight.matmul(a, b), a, b)
    assert tight.last_run["streamed"] and tight.last_run["peak_device_bytes"] <= total_bytes // 2
