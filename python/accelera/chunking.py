"""Chunking strategies for MatrixEngine.matmul.

The built-in strategies are planned in C++ (see ``MatrixEngine``): ``RowChunking`` ('row') keeps whole rows
of the result per tile, ``TileChunking`` ('tile') uses square tiles, ``AdaptiveChunking`` ('adaptive')
searches every tile shape for the least traffic. A strategy that implements ``get_chunks(shape, chunk_size)``
itself chooses the output tiles: a subclass of ``ChunkingStrategy``, or of a built-in class that overrides
``get_chunks`` (and ``TileChunking`` given a ``tile_size``). It yields index tuples over the result's shape,
``(rows,)`` or ``(rows, cols)`` with ``rows``/``cols`` slices of step 1 inside the result, which together must
cover it exactly once. The engine validates them (a slice reaching past the result is an error, never
clipped) and streams the operands for each.

``ChunkIterator`` is the general out-of-core map over the chunks of one array, with the same strategies.
"""

from __future__ import annotations

import operator

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
    """Square tiles of the result, sized from the memory budget; ``tile_size=(rows, cols)`` fixes them."""

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


_PLANNED = (RowChunking, TileChunking, AdaptiveChunking)


def planner_name(strategy: ChunkingStrategy) -> str | None:
    """The C++ planner's name for a built-in strategy, or None when the object's ``get_chunks`` chooses the
    tiles: a subclass that overrides it, a ``TileChunking`` with a ``tile_size``, any other strategy."""
    builtin = next((cls for cls in type(strategy).__mro__ if cls in _PLANNED), None)
    if builtin is None or type(strategy).get_chunks is not builtin.get_chunks:
        return None
    if isinstance(strategy, TileChunking) and strategy.tile_size is not None:
        return None
    return builtin.name


def _span(s, extent: int, chunk) -> tuple[int, int]:
    """(start, length) of a step-1 slice over an axis of ``extent``; negative bounds count from the end as in
    Python indexing, but nothing is clipped: a bound outside the axis is left for the engine to reject."""
    if not isinstance(s, slice):
        raise ArgumentError(f"a chunk must be made of slices, got {chunk!r}")
    if s.step not in (None, 1):
        raise ArgumentError(f"chunk slices must have step 1, got {chunk!r}")
    try:
        start = 0 if s.start is None else operator.index(s.start)
        stop = extent if s.stop is None else operator.index(s.stop)
    except TypeError as err:
        raise ArgumentError(f"chunk slice bounds must be integers, got {chunk!r}") from err
    start = start + extent if start < 0 else start
    stop = stop + extent if stop < 0 else stop
    return start, stop - start


def chunks_to_tiles(chunks, shape) -> list[tuple[int, int, int, int]]:
    """(row0, rows, col0, cols) for each chunk a strategy yielded; ArgumentError for malformed ones. Whether
    they lie inside the result and cover it once is checked by the engine."""
    m, n = shape
    tiles = []
    if chunks is None or not hasattr(chunks, "__iter__"):
        raise ArgumentError(f"get_chunks(shape, chunk_size) must return or yield the chunks, got {chunks!r}")
    for chunk in chunks:
        if isinstance(chunk, slice):
            chunk = (chunk,)
        if not isinstance(chunk, tuple) or not 1 <= len(chunk) <= 2:
            raise ArgumentError(f"a chunk must be a tuple of one or two slices, got {chunk!r}")
        row0, rows = _span(chunk[0], m, chunk)
        col0, cols = _span(chunk[1], n, chunk) if len(chunk) == 2 else (0, n)
        tiles.append((row0, rows, col0, cols))
    return tiles


from ._chunk_iterator import ChunkIterator  # noqa: E402  (it uses the strategies above)
