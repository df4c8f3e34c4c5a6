"""Chunking strategies for MatrixEngine.matmul.

The built-in strategies are planned in C++ (see ``MatrixEngine``): ``RowChunking`` ('row') keeps whole rows
of the result per tile, ``TileChunking`` ('tile') uses square tiles, ``AdaptiveChunking`` ('adaptive')
searches every tile shape for the least traffic. A subclass of ``ChunkingStrategy`` that implements
``get_chunks(shape, chunk_size)`` chooses the output tiles itself: it yields index tuples over the result's
shape, ``(rows,)`` or ``(rows, cols)`` with ``rows``/``cols`` slices of step 1, which together must cover the
result exactly once. The engine validates them and streams the operands for each.
"""

from __future__ import annotations

from ._core import ArgumentError


class ChunkingStrategy:
    """Base class of user chunking strategies: override ``get_chunks(shape, chunk_size)``."""

    name = None  # built-in strategies name their C++ planner

    def get_chunks(self, shape, chunk_size):
        raise NotImplementedError("a ChunkingStrategy subclass must implement get_chunks(shape, chunk_size)")


class RowChunking(ChunkingStrategy):
    """Row chunks of the result, sized from the memory budget (or ``chunk_size`` rows)."""

    name = "row"

    def get_chunks(self, shape, chunk_size):
        rows = shape[0]
        for start in range(0, rows, chunk_size):
            yield (slice(start, min(start + chunk_size, rows)),)


class TileChunking(ChunkingStrategy):
    """Square tiles of the result, sized from the memory budget (or ``tile_size``)."""

    name = "tile"

    def __init__(self, tile_size=None):
        self.tile_size = tile_size

    def get_chunks(self, shape, chunk_size):
        tr, tc = self.tile_size or (chunk_size, chunk_size)
        for r in range(0, shape[0], tr):
            for c in range(0, shape[1], tc):
                yield (slice(r, min(r + tr, shape[0])), slice(c, min(c + tc, shape[1])))


class AdaptiveChunking(ChunkingStrategy):
    """Tiles whose shape minimises host-device traffic within the memory budget."""

    name = "adaptive"

    def __init__(self, memory_manager=None):
        self.memory_manager = memory_manager


def chunks_to_tiles(chunks, shape) -> list[tuple[int, int, int, int]]:
    """(row0, rows, col0, cols) for each chunk a user strategy yielded; ArgumentError for malformed ones."""
    m, n = shape
    tiles = []
    for chunk in chunks:
        if isinstance(chunk, slice):
            chunk = (chunk,)
        if not isinstance(chunk, tuple) or not 1 <= len(chunk) <= 2:
            raise ArgumentError(f"a chunk must be a tuple of one or two slices, got {chunk!r}")
        rows = chunk[0]
        cols = chunk[1] if len(chunk) == 2 else slice(0, n)
        spans = []
        for s, extent in ((rows, m), (cols, n)):
            if not isinstance(s, slice):
                raise ArgumentError(f"a chunk must be made of slices, got {chunk!r}")
            start, stop, step = s.indices(extent)
            if step != 1:
                raise ArgumentError(f"chunk slices must have step 1, got {chunk!r}")
            spans.append((start, stop - start))
        tiles.append((spans[0][0], spans[0][1], spans[1][0], spans[1][1]))
    return tiles
