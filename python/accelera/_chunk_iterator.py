"""ChunkIterator: the chunks of a host array (memmaps included) as device tensors, the next chunk's upload
overlapping the caller's work on the current one, results written back chunk by chunk (Note [Chunk stream]
in src/engine/chunk_stream.cpp)."""

from __future__ import annotations

import math

from . import _core
from ._args import flag
from ._convert import asarray
from ._core import ArgumentError, ShapeError, Tensor
from .chunking import ChunkingStrategy, TileChunking, _span, planner_name
from .memory_manager import MemoryManager

# Each chunk takes at most this share of the memory the manager has available: three chunk buffers are
# in flight with prefetch, plus what the caller's work makes of them.
_BUDGET_SHARE = 8
# Larger chunks move no faster: 64 MiB keeps the pipeline's start and end short.
_MAX_CHUNK_BYTES = 64 << 20


def _source(x) -> Tensor:
    if hasattr(x, "_data") and isinstance(x._data, Tensor):  # a Matrix
        return x._data
    return asarray(x)


def _auto_chunk_size(source: Tensor, tiles: bool, manager: MemoryManager) -> int:
    """Rows per chunk (or a tile's edge) from the memory the manager has available."""
    limit = min(manager.get_available_memory() // _BUDGET_SHARE, _MAX_CHUNK_BYTES)
    if tiles:
        return max(1, math.isqrt(max(1, limit // source.itemsize)))
    row_bytes = source.itemsize * math.prod(source.shape[1:])
    return max(1, limit // max(1, row_bytes))


def _regions(strategy, shape, chunk_size) -> list[tuple[int, int, int, int]]:
    """(row0, rows, col0, cols) per chunk; cols = -1: every column (chunks of whole rows)."""
    name = strategy if isinstance(strategy, str) else planner_name(strategy)
    if name in ("row", "adaptive"):  # the map moves each element once: whole rows are the adaptive choice
        return [(r, min(chunk_size, shape[0] - r), 0, -1) for r in range(0, shape[0], chunk_size)]
    if name == "tile" or (name is None and type(strategy) is TileChunking):
        if len(shape) < 2:
            raise ShapeError(f"tile chunks need a 2-D (or more) array, got shape {tuple(shape)}")
        tr, tc = strategy.tile_size if isinstance(strategy, TileChunking) and strategy.tile_size else (chunk_size,) * 2
        return [(r, min(tr, shape[0] - r), c, min(tc, shape[1] - c))
                for r in range(0, shape[0], tr) for c in range(0, shape[1], tc)]
    if name is not None:
        raise ArgumentError(f"unknown chunking strategy {name!r}: expected 'row', 'tile' or 'adaptive'")
    chunks = strategy.get_chunks(tuple(shape), chunk_size)
    if chunks is None or not hasattr(chunks, "__iter__"):
        raise ArgumentError(f"get_chunks(shape, chunk_size) must return or yield the chunks, got {chunks!r}")
    regions = []
    for chunk in chunks:
        chunk = (chunk,) if isinstance(chunk, slice) else chunk
        if not isinstance(chunk, tuple) or not 1 <= len(chunk) <= min(2, len(shape)):
            raise ArgumentError(f"a chunk must be a tuple of one or two slices (rows, columns), got {chunk!r}")
        row0, rows = _span(chunk[0], shape[0], chunk)
        col0, cols = _span(chunk[1], shape[1], chunk) if len(chunk) == 2 else (0, -1)
        regions.append((row0, rows, col0, cols))
    return regions


class ChunkIterator:
    """Iterate over the chunks of ``tensor`` as tensors on the memory manager's device.

    ``tensor``: a NumPy array or memmap (read in place), a Matrix or a host Tensor. ``strategy``: 'row'
    (default; also 'adaptive' and ``RowChunking``/``AdaptiveChunking``: chunks of whole rows), 'tile' or
    ``TileChunking`` (2-D tiles), or a ``ChunkingStrategy`` whose ``get_chunks(shape, chunk_size)`` yields
    ``(rows,)`` or ``(rows, cols)`` slices. ``chunk_size``: rows per chunk (a tile's edge); None sizes chunks
    from the memory the manager has available. ``memory_manager``: the device and its budget (default:
    ``MemoryManager()``, the default device). ``prefetch``: upload chunk i + 1 while the caller works on
    chunk i. ``out``: a writable host array that ``write(result)`` fills with each chunk's result, in
    ``out[region]`` (the chunk's rows, and columns for tiles).

    A chunk stays valid as long as it is referenced (its buffer is then not reused). The loop's end waits
    for every write; ``close()`` (or leaving a ``with`` block) does too when a loop stops early.
    """

    def __init__(self, tensor, strategy=None, chunk_size=None, memory_manager=None, prefetch=True, out=None):
        source = _source(tensor)
        if source.ndim == 0:
            raise ShapeError("a 0-d array has no chunks")
        if memory_manager is None:
            memory_manager = MemoryManager()
        if not isinstance(memory_manager, MemoryManager):
            raise ArgumentError(f"memory_manager must be a MemoryManager (e.g. engine.memory_manager), got "
                                f"{type(memory_manager).__name__}")
        if strategy is None:
            strategy = "row"
        if not isinstance(strategy, (str, ChunkingStrategy)):
            raise ArgumentError(f"strategy must be a name or a ChunkingStrategy, got {type(strategy).__name__}")
        tiles = strategy == "tile" or isinstance(strategy, TileChunking)
        if chunk_size is None:
            chunk_size = _auto_chunk_size(source, tiles, memory_manager)
        elif isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise ArgumentError(f"chunk_size must be a positive integer, got {chunk_size!r}")
        self.chunk_size = chunk_size
        self.regions = _regions(strategy, source.shape, chunk_size)
        self._out = out
        out_tensor = None if out is None else _source(out)
        self._stream = _core._ChunkStream(source, self.regions, memory_manager.device, flag(prefetch, "prefetch"),
                                          out_tensor)

    def __iter__(self):
        return self

    def __next__(self) -> Tensor:
        chunk = self._stream.next()
        if chunk is None:
            raise StopIteration
        return chunk

    def __len__(self) -> int:
        return self._stream.size

    @property
    def device(self) -> str:
        return self._stream.device

    @property
    def index(self) -> int:
        """The chunk last handed out (-1 before the first)."""
        return self._stream.index

    @property
    def region(self) -> tuple:
        """The index of the current chunk in the array: ``tensor[it.region]`` is the chunk."""
        if self.index < 0:
            raise ArgumentError("no chunk has been handed out yet")
        row0, rows, col0, cols = self.regions[self.index]
        rows_slice = slice(row0, row0 + rows)
        return (rows_slice,) if cols < 0 else (rows_slice, slice(col0, col0 + cols))

    def write(self, result) -> None:
        """Write ``result`` (a device tensor, or anything on the host) into ``out[region]`` of the current
        chunk, asynchronously; it has landed by the end of the loop or ``close()``."""
        self._stream.write(result if isinstance(result, Tensor) else _source(result))

    def close(self) -> None:
        """Wait until every write has landed in ``out``."""
        self._stream.finish()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def stats(self) -> dict:
        """chunks handed out, bytes each way, chunks packed through staging, peak device bytes of the
        chunk buffers, and seconds from the first chunk until the writes landed."""
        return self._stream.stats
