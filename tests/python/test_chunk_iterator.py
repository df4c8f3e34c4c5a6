"""accelera.chunking.ChunkIterator: the chunks of a host array (memmaps included) as device tensors, with
prefetch and write-back, against NumPy, on every device; chunks the caller keeps stay valid; bad input is
typed."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import accelera as ac
from accelera.chunking import ChunkingStrategy, ChunkIterator, RowChunking, TileChunking

DEVICES = [d["device"] for d in ac.devices()]


def manager(device):
    return ac.MemoryManager(device)


@pytest.fixture
def data():
    return np.random.default_rng(0).standard_normal((1001, 37)).astype(np.float32)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("prefetch", [True, False])
@pytest.mark.parametrize("chunk_size", [1, 64, 1001, 5000])
def test_row_chunks_map_and_write_back(device, prefetch, chunk_size, data):
    out = np.full_like(data, np.nan)
    it = ChunkIterator(data, RowChunking(), chunk_size, manager(device), prefetch=prefetch, out=out)
    assert len(it) == -(-1001 // chunk_size) and it.index == -1
    seen = 0
    for chunk in it:
        assert chunk.device == device and chunk.shape == data[it.region].shape
        it.write(ac.add(ac.multiply(chunk, 2.0), 1.0))
        seen += 1
    assert seen == len(it) and it.stats["chunks"] == seen
    np.testing.assert_array_equal(out, data * np.float32(2) + np.float32(1))
    moved = 0 if device == "cpu" else data.nbytes
    assert it.stats["bytes_host_to_device"] == moved and it.stats["bytes_device_to_host"] == moved


@pytest.mark.parametrize("device", DEVICES)
def test_memmap_in_and_out(device, tmp_path, data):
    src = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", dtype=np.float32, shape=data.shape)
    src[:] = data
    src.flush()
    src = np.load(tmp_path / "x.npy", mmap_mode="r")  # read-only map
    out = np.lib.format.open_memmap(tmp_path / "y.npy", mode="w+", dtype=np.float32, shape=(1001, 1))
    with ChunkIterator(src, "row", 100, manager(device), out=out) as it:
        for chunk in it:
            it.write(ac.sum(chunk, axis=1, keepdims=True))  # out differs from the source in columns
    out.flush()
    want = data.astype(np.float64).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_tiles_of_a_strided_source(device, data):
    source = data.T[:, ::2]  # 37 x 501, neither C- nor F-contiguous: tiles are packed through staging
    out = np.zeros(source.shape, np.float32)
    it = ChunkIterator(source, TileChunking(tile_size=(10, 128)), None, manager(device), out=out)
    regions = []
    for chunk in it:
        regions.append(it.region)
        np.testing.assert_array_equal(chunk.numpy(), source[it.region])
        it.write(ac.negative(chunk))
    np.testing.assert_array_equal(out, -source)
    assert len(regions) == 4 * 4 and regions[1] == (slice(0, 10), slice(128, 256))
    if device.startswith("opencl"):
        assert it.stats["staged_chunks"] == len(regions)


class Bands(ChunkingStrategy):
    def get_chunks(self, shape, chunk_size):
        yield (slice(0, 3),)
        yield (slice(3, -1),)
        yield slice(-1, None)


@pytest.mark.parametrize("device", DEVICES)
def test_custom_strategy_and_one_dimensional_source(device):
    x = np.arange(20, dtype=np.float64)
    chunks = [c.numpy() for c in ChunkIterator(x, Bands(), 1, manager(device))]
    assert [c.tolist() for c in chunks] == [[0, 1, 2], list(range(3, 19)), [19]]


@pytest.mark.parametrize("device", DEVICES)
def test_kept_chunks_are_never_overwritten(device, data):
    kept = list(ChunkIterator(data, "row", 50, manager(device), prefetch=True))
    gc.collect()
    for i, chunk in enumerate(kept):
        np.testing.assert_array_equal(chunk.numpy(), data[50 * i:50 * (i + 1)])


def test_loop_left_early_still_lands_its_writes(data):
    device = DEVICES[-1]
    out = np.zeros_like(data)
    with ChunkIterator(data, "row", 100, manager(device), out=out) as it:
        for chunk in it:
            it.write(chunk)
            if it.index == 2:
                break
    np.testing.assert_array_equal(out[:300], data[:300])
    assert not out[300:].any()


def test_automatic_chunk_size_follows_the_budget(data):
    it = ChunkIterator(data, "row", None, ac.MemoryManager("cpu", budget=8 * 37 * 4 * 10))
    assert it.chunk_size == 10 and len(it) == 101
    tiles = ChunkIterator(data, "tile", None, ac.MemoryManager("cpu", budget=8 * 4 * 400))
    assert tiles.chunk_size == 20


def test_default_memory_manager_is_the_default_device(data):
    it = ChunkIterator(data, chunk_size=500)
    assert it.device == ac.default_device() and len(it) == 3


def test_bad_input_is_typed(data):
    cpu = manager("cpu")
    with pytest.raises(ac.ShapeError):
        ChunkIterator(np.float32(3), "row", 1, cpu)
    with pytest.raises(ac.ShapeError):
        ChunkIterator(np.ones(5), "tile", 2, cpu)
    with pytest.raises(ac.ArgumentError, match="chunk_size"):
        ChunkIterator(data, "row", 0, cpu)
    with pytest.raises(ac.ArgumentError, match="strategy"):
        ChunkIterator(data, "spiral", 4, cpu)
    with pytest.raises(ac.ArgumentError, match="memory_manager"):
        ChunkIterator(data, "row", 4, "cpu")

    class Outside(ChunkingStrategy):
        def get_chunks(self, shape, chunk_size):
            yield (slice(0, shape[0] + 1),)

    with pytest.raises(ac.ShapeError, match="outside"):
        ChunkIterator(data, Outside(), 4, cpu)
    with pytest.raises(ac.ShapeError):
        ChunkIterator(data, "row", 4, cpu, out=np.zeros((10, 37), np.float32))
    read_only = np.zeros_like(data)
    read_only.flags.writeable = False
    with pytest.raises(ac.ArgumentError, match="read-only"):
        ChunkIterator(data, "row", 4, cpu, out=read_only)
    it = ChunkIterator(data, "row", 100, manager(DEVICES[-1]), out=np.zeros_like(data))
    with pytest.raises(ac.ArgumentError, match="no chunk"):
        it.write(np.zeros((100, 37), np.float32))
    chunk = next(it)
    with pytest.raises(ac.ShapeError):
        it.write(ac.sum(chunk, axis=0))
    with pytest.raises(ac.DTypeError):
        it.write(chunk.astype("float64"))
    without_out = ChunkIterator(data, "row", 100, cpu)
    next(without_out)
    with pytest.raises(ac.ArgumentError, match="without an out"):
        without_out.write(np.zeros((100, 37), np.float32))
