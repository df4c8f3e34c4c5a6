"""MemoryManager: the device memory a MatrixEngine (or a ChunkIterator) may use, as the seed's
``engine.memory_manager``. All figures are bytes."""

from __future__ import annotations

from . import _core
from ._args import parse_bytes


class MemoryManager:
    """The memory of one device as an engine sees it.

    ``get_available_memory()``: what one call may use now (the budget less what live tensors hold on the
    device). ``get_total_memory()``: the device's memory. ``budget``: the engine's own cap (None: the device
    allocator's budget, ``ACCELERA_MEMORY_THRESHOLD`` of its memory); setting it changes the engine's.

    ``MemoryManager(device, budget)`` makes one without an engine, for a ChunkIterator; an engine's is
    ``engine.memory_manager`` and shares its budget.
    """

    def __init__(self, device=None, budget=None):
        self._engine = _core._MatrixEngine(device, True, "adaptive", None, False, parse_bytes(budget), "default_chunk")

    @classmethod
    def _of_engine(cls, engine) -> MemoryManager:
        manager = cls.__new__(cls)
        manager._engine = engine
        return manager

    @property
    def device(self) -> str:
        return self._engine.device

    def get_available_memory(self) -> int:
        return int(self._engine.budget_bytes)

    def get_total_memory(self) -> int:
        return int(self._engine.total_memory)

    @property
    def budget(self) -> int | None:
        return self._engine.memory_budget

    @budget.setter
    def budget(self, budget) -> None:
        self._engine.set_memory_budget(parse_bytes(budget))

    def get_memory_info(self) -> dict:
        """The engine's get_memory_info(): utilisation and gigabytes of the device and the host."""
        return self._engine.memory_info()

    def cleanup(self) -> None:
        """Wait for the device and return its cached memory."""
        self._engine.cleanup()

    def __repr__(self) -> str:
        return (f"MemoryManager(device={self.device!r}, available={self.get_available_memory()}, "
                f"total={self.get_total_memory()})")
