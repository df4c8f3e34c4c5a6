"""MatrixEngine and Matrix from Python: streamed matmul vs NumPy float64, memmaps, strategies, faults."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from accelera import _core
from accelera.chunking import AdaptiveChunking, ChunkingStrategy, RowChunking, TileChunking

DEVICES = [d["device"] for d in ac.devices()]


def ref(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def check(c, a, b):
    c = np.asarray(c)
    k = a.shape[1]
    tol = (6e-8 if c.dtype == np.float32 else 1.2e-16) * 8 * k
    np.testing.assert_allclose(c, ref(a, b), rtol=0, atol=tol * max(1.0, np.abs(a).max() * np.abs(b).max()))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("strategy", ["row", "tile", "adaptive"])
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 13, 1), (97, 61, 89), (128, 257, 96)])
def test_streamed_matmul_matches_numpy(device, strategy, shape):
    m, k, n = shape
    rng = np.random.default_rng(m * 1000 + k)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    a0, b0 = a.copy(), b.copy()
    budget = max(3072, (m * k + k * n + m * n) * 4 // 6)
    engine = ac.MatrixEngine(device=device, chunking_strategy=strategy, memory_budget=budget, enable_progress=False)
    c = engine.matmul(a, b)
    assert isinstance(c, ac.Matrix) and c.shape == (m, n)
    check(c.numpy(), a, b)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)
    run = engine.last_run
    assert run["peak_device_bytes"] <= budget
    assert run["fallbacks"] == 0


def test_memmap_in_and_out(tmp_path):
    rng = np.random.default_rng(1)
    m, k, n = 300, 200, 250
    a = np.lib.format.open_memmap(tmp_path / "a.npy", mode="w+", dtype=np.float32, shape=(m, k))
    b = np.lib.format.open_memmap(tmp_path / "b.npy", mode="w+", dtype=np.float32, shape=(k, n))
    a[:] = rng.uniform(-1, 1, (m, k))
    b[:] = rng.uniform(-1, 1, (k, n))
    c = np.lib.format.open_memmap(tmp_path / "c.npy", mode="w+", dtype=np.float32, shape=(m, n))
    c[:] = np.nan
    engine = ac.MatrixEngine(memory_budget="100KB", enable_progress=False)
    assert engine.matmul(a, b, out=c) is c
    c.flush()
    check(np.load(tmp_path / "c.npy"), np.asarray(a), np.asarray(b))
    assert engine.last_run["streamed"] and engine.last_run["tiles"] > 1


def test_transposed_and_strided_numpy_views():
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (60, 90)).T  # 90 x 60, column-major
    b = rng.uniform(-1, 1, (121, 50))[::2]  # 61 rows... take 60
    b = b[:60]
    engine = ac.MatrixEngine(memory_budget=20_000, enable_progress=False)
    c = engine.matmul(a, b)
    check(c.numpy(), a, b)


class Halves(ChunkingStrategy):
    def get_chunks(self, shape, chunk_size):
        half = shape[0] // 2
        yield (slice(0, half),)
        yield (slice(half, shape[0]), slice(0, 3))
        yield (slice(half, shape[0]), slice(3, shape[1]))


def test_user_and_builtin_strategy_objects():
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (21, 8)).astype(np.float32)
    b = rng.uniform(-1, 1, (8, 11)).astype(np.float32)
    engine = ac.MatrixEngine(enable_progress=False)
    engine.chunking_strategy = Halves()
    check(engine.matmul(a, b).numpy(), a, b)
    assert engine.last_run["strategy"] == "chunks" and engine.last_run["tiles"] == 3
    check(engine.matmul(a, b, chunk_strategy=RowChunking()).numpy(), a, b)
    check(engine.matmul(a, b, chunk_strategy=TileChunking((5, 5))).numpy(), a, b)

    class Overlapping(ChunkingStrategy):
        def get_chunks(self, shape, chunk_size):
            yield (slice(0, shape[0]),)
            yield (slice(0, 1),)

    with pytest.raises(ac.ArgumentError, match="overlap"):
        engine.matmul(a, b, chunk_strategy=Overlapping())

    class Stepped(ChunkingStrategy):
        def get_chunks(self, shape, chunk_size):
            yield (slice(0, shape[0], 2),)

    with pytest.raises(ac.ArgumentError, match="step 1"):
        engine.matmul(a, b, chunk_strategy=Stepped())


@pytest.mark.parametrize("builtin", [RowChunking, TileChunking, AdaptiveChunking])
def test_builtin_subclass_that_overrides_get_chunks_decides_the_tiles(builtin):
    class SevenStripes(builtin):
        def get_chunks(self, shape, chunk_size):
            step = -(-shape[0] // 7)
            for r in range(0, shape[0], step):
                yield (slice(r, min(r + step, shape[0])), slice(None))

    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (21, 8)).astype(np.float32)
    b = rng.uniform(-1, 1, (8, 11)).astype(np.float32)
    engine = ac.MatrixEngine(enable_progress=False)  # everything fits: the planner would not tile at all
    check(engine.matmul(a, b, chunk_strategy=SevenStripes()).numpy(), a, b)
    assert engine.last_run["strategy"] == "chunks" and engine.last_run["tiles"] == 7
    engine.chunking_strategy = SevenStripes()
    assert isinstance(engine.chunking_strategy, SevenStripes)
    check(engine.matmul(a, b).numpy(), a, b)
    assert engine.last_run["strategy"] == "chunks" and engine.last_run["tiles"] == 7


def test_builtin_strategy_objects_go_to_the_planner():
    rng = np.random.default_rng(8)
    a = rng.uniform(-1, 1, (64, 48)).astype(np.float32)
    b = rng.uniform(-1, 1, (48, 40)).astype(np.float32)
    engine = ac.MatrixEngine(memory_budget=12_000, enable_progress=False)
    for strategy, planned in ((RowChunking(), {"row"}), (TileChunking(), {"tile"}),
                              (AdaptiveChunking(), {"row", "tile"})):
        check(engine.matmul(a, b, chunk_strategy=strategy).numpy(), a, b)
        assert engine.last_run["strategy"] in planned
    engine.chunking_strategy = TileChunking()
    assert engine.chunking_strategy == "tile"
    # A tile size given to TileChunking is honoured: its own get_chunks tiles the result.
    check(engine.matmul(a, b, chunk_strategy=TileChunking((16, 16))).numpy(), a, b)
    assert engine.last_run["strategy"] == "chunks" and engine.last_run["tiles"] == 4 * 3


def test_chunks_beyond_the_result_are_rejected_not_clipped():
    class TooTall(TileChunking):
        def get_chunks(self, shape, chunk_size):
            yield (slice(0, 1000), slice(0, shape[1]))

    class BeforeTheStart(TileChunking):
        def get_chunks(self, shape, chunk_size):
            yield (slice(-400, None),)

    a = np.ones((300, 8), np.float32)
    b = np.ones((8, 11), np.float32)
    out = np.full((300, 11), 7.0, np.float32)
    engine = ac.MatrixEngine(enable_progress=False)
    with pytest.raises(ac.ArgumentError, match=r"rows \[0, 1000\) .* past the result's 300 rows"):
        engine.matmul(a, b, chunk_strategy=TooTall(), out=out)
    with pytest.raises(ValueError, match="starts before"):
        engine.matmul(a, b, chunk_strategy=BeforeTheStart(), out=out)
    np.testing.assert_array_equal(out, np.full((300, 11), 7.0, np.float32))
    np.testing.assert_array_equal(a, np.ones((300, 8), np.float32))

    class LastRows(TileChunking):  # negative bounds count from the end, as in indexing
        def get_chunks(self, shape, chunk_size):
            yield (slice(0, -100),)
            yield (slice(-100, None),)

    engine.matmul(a, b, chunk_strategy=LastRows(), out=out)
    np.testing.assert_array_equal(out, np.full((300, 11), 8.0, np.float32))
    assert engine.last_run["tiles"] == 2


def test_strategy_names_are_parsed_at_the_boundary():
    for bad in ("spiral", "Row", ""):
        with pytest.raises(ac.ArgumentError, match="expected 'row', 'tile' or 'adaptive'"):
            ac.MatrixEngine(chunking_strategy=bad)
    engine = ac.MatrixEngine(chunking_strategy="row", enable_progress=False)
    assert engine.chunking_strategy == "row"
    with pytest.raises(ac.ArgumentError, match="'diagonal'"):
        engine.chunking_strategy = "diagonal"
    assert engine.chunking_strategy == "row"
    a = np.ones((4, 3), np.float32)
    with pytest.raises(ac.ArgumentError, match="'diagonal'"):
        engine.matmul(a, a.T, chunk_strategy="diagonal")
    with pytest.raises(ac.ArgumentError, match="a name or a ChunkingStrategy"):
        engine.chunking_strategy = 3
    assert engine.chunking_strategy == "row"
    assert ac.MatrixEngine(chunking_strategy=None).chunking_strategy == "adaptive"


def test_fixed_chunk_size_without_auto_detection():
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (50, 10)).astype(np.float32)
    b = rng.uniform(-1, 1, (10, 40)).astype(np.float32)
    engine = ac.MatrixEngine(auto_detect_memory=False, chunking_strategy="row", enable_progress=False)
    engine.set_chunk_size(7)
    check(engine.matmul(a, b).numpy(), a, b)
    assert engine.last_run["tiles"] == 8 and engine.last_run["tile_shape"][0] == 7


@pytest.mark.parametrize("device", DEVICES)
def test_out_of_memory_is_recovered_without_leaks(device):
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (40, 30)).astype(np.float32)
    b = rng.uniform(-1, 1, (30, 50)).astype(np.float32)
    out = np.empty((40, 50), np.float32)
    before = ac.memory_stats(device)["current_bytes"]
    for nth in range(1, 5):
        engine = ac.MatrixEngine(device=device, memory_budget=8192, enable_progress=False)
        _core._fail_nth_allocation(device, nth)
        try:
            engine.matmul(a, b, out=out)
        finally:
            _core._fail_nth_allocation(device, 0)
        check(out, a, b)
        assert engine.last_run["fallbacks"] >= 1
        assert ac.memory_stats(device)["current_bytes"] == before


def test_progress_callback_and_cancellation():
    rng = np.random.default_rng(6)
    a = rng.uniform(-1, 1, (64, 64)).astype(np.float32)
    engine = ac.MatrixEngine(memory_budget=16384, enable_progress=False)
    seen = []
    engine.set_progress_callback(lambda p: seen.append(p["tiles_done"]) or p["tiles_done"] < 2)
    with pytest.raises(ac.CancelledError):
        engine.matmul(a, a)
    assert seen == [1, 2]

    def boom(progress):
        raise KeyError("from the callback")

    engine.set_progress_callback(boom)
    with pytest.raises(KeyError, match="from the callback"):
        engine.matmul(a, a)
    engine.set_progress_callback(None)
    check(engine.matmul(a, a).numpy(), a, a)


def test_bad_input_is_typed():
    engine = ac.MatrixEngine(enable_progress=False)
    a = np.ones((3, 4), np.float32)
    with pytest.raises(ac.ShapeError):
        engine.matmul(a, np.ones((5, 2), np.float32))
    with pytest.raises(ac.DTypeError):
        engine.matmul(a, np.ones((4, 2), np.float64))
    with pytest.raises(ac.DTypeError):
        engine.matmul(a.astype(np.int32), np.ones((4, 2), np.int32))
    with pytest.raises(ac.ArgumentError):
        ac.MatrixEngine(chunking_strategy="spiral")
    with pytest.raises(ac.ArgumentError):
        ac.MatrixEngine(memory_budget="lots")
    with pytest.raises(ac.ArgumentError):
        engine.set_chunk_size(0)
    with pytest.raises(ac.OutOfMemoryError):
        ac.MatrixEngine(memory_budget=100, enable_progress=False).matmul(np.ones((64, 64), np.float32),
                                                                          np.ones((64, 64), np.float32))
    with pytest.raises(ac.ArgumentError, match="read-only"):
        ro = np.zeros((3, 2), np.float32)
        ro.flags.writeable = False
        engine.matmul(a, np.ones((4, 2), np.float32), out=ro)
    np.testing.assert_array_equal(a, np.ones((3, 4), np.float32))


@pytest.mark.skipif("opencl:0" not in DEVICES, reason="needs an OpenCL device")
def test_live_tensors_holding_the_whole_budget_are_out_of_memory():
    """Other tensors on the device already use its whole budget: the streamed product has no room, which is
    an OutOfMemoryError saying so (not a complaint about the request)."""
    original = ac.memory_stats("opencl:0")["budget_bytes"]
    held = ac.asarray(np.ones((256, 256), np.float32), device="opencl:0")
    a = np.ones((64, 64), np.float32)
    try:
        ac.set_memory_budget("opencl:0", ac.memory_stats("opencl:0")["current_bytes"])
        with pytest.raises(ac.OutOfMemoryError, match="already hold its whole memory budget"):
            ac.MatrixEngine("opencl:0", enable_progress=False).matmul(a, a)
    finally:
        ac.set_memory_budget("opencl:0", original)
    np.testing.assert_array_equal(a, np.ones((64, 64), np.float32))
    del held


def test_matrix_api_and_memory_info():
    A = ac.Matrix.randn((20, 10), seed=1)
    B = ac.Matrix.ones((10, 5))
    C = A @ B
    np.testing.assert_allclose(C.numpy(), A.numpy().astype(np.float64) @ B.numpy(), rtol=1e-5, atol=1e-5)
    assert ac.Matrix.eye(3).numpy().tolist() == np.eye(3).tolist()
    assert A.shape == (20, 10) and A.dtype == ac.float32 and A.storage_device == "cpu"
    assert A.memory_size() == 800
    np.testing.assert_array_equal((A + A).numpy(), A.numpy() * 2)
    np.testing.assert_array_equal((A * A).numpy(), A.numpy() ** 2)
    assert A.clone().numpy().tolist() == A.numpy().tolist()
    for device in DEVICES:
        moved = A.to_gpu(device)
        assert moved.device == device and moved.to_cpu().device == "cpu"
    engine = ac.MatrixEngine(enable_progress=False)
    info = engine.get_memory_info()
    for key in ("gpu_utilization", "gpu_available_gb", "cpu_available_gb", "gpu_total_gb", "cpu_total_gb"):
        assert key in info and info[key] >= 0
    np.testing.assert_array_equal(engine.add(A, A).numpy(), A.numpy() * 2)
    np.testing.assert_array_equal(engine.multiply(A, A).numpy(), A.numpy() ** 2)
    assert engine.last_run["device"] == "cpu"
    engine.cleanup()
    with pytest.raises(ac.ArgumentError):
        ac.Matrix(np.ones(3))
