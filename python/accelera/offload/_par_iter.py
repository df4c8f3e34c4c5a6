"""``accelera.par_iter(items)``: ordered parallel map and filter, and ``gpu_map`` pipelined through the device.

Note [gpu_map pipeline]
``gpu_map(f)`` keeps the device busy: while ``f`` computes item i, items i+1 .. i+depth are already being
uploaded on the device's upload stream (through pinned staging buffers, ``_core._stage_upload``) and item
i-1's result is being downloaded on its download stream; the compute stream waits for each upload's event,
so no host thread waits between them. ``depth`` is as many items as fit in a quarter of the device's free
memory (at least 1, at most 8). ``f`` gets the item as Accelera arrays on the device; decorated functions
called inside run there (the map's decision stands for them) and keep their results there (as with
``keep=True``), so results leave the device once, through the pipeline. When ``f`` is itself a decorated
function, the map first asks its cost model about the first item as it would be called alone: if that
call would stay on the CPU (a call it has not seen yet is one: its first call is traced on the CPU), the
items are not moved at all and each call runs as it would alone. On the "cpu" target the items are used in
place (nothing to move). Without a device (or with the CPU forced) ``gpu_map`` is ``map``.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections import deque

import numpy as np

from .. import _core
from .._core import Tensor
from . import _decorator
from ._runtime import get_runtime

_pool = None
_pool_lock = threading.Lock()
MAX_DEPTH = 8


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1,
                                                          thread_name_prefix="accelera-par-iter")
        return _pool


def _annotated(exc: BaseException, index: int, stage: str) -> BaseException:
    exc.item_index = index
    exc.add_note(f"raised by item {index} of par_iter(...).{stage}")
    return exc


def _call(f, item, index: int, stage: str):
    try:
        return f(item)
    except Exception as exc:
        raise _annotated(exc, index, stage)


def _nbytes(value) -> int:
    if isinstance(value, (np.ndarray, Tensor)):
        return value.nbytes
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value)
    return 0


class _Upload:
    """An item on its way to the device: its arrays staged on the upload stream. ``value()`` hands out the
    device tensors, which is when the compute stream starts waiting for their copies — so it is called only
    once the next items are staged, or their uploads would queue behind this item's compute."""

    def __init__(self, item, device: str):
        self.transfers = []
        self._staged = self._stage(item, device)

    def _stage(self, value, device):
        if device == "cpu" and isinstance(value, np.ndarray) and value.dtype.char in _decorator._HELD:
            return _decorator._core_asarray(value, device)  # zero-copy: nothing to move
        if isinstance(value, np.ndarray) and value.dtype.char in _decorator._HELD:  # others stay NumPy
            transfer = _core._stage_upload(value, device)
            self.transfers.append(transfer)
            return transfer
        if isinstance(value, Tensor):
            return value if value.device == device else value.to(device)
        if type(value) in (list, tuple):
            return type(value)(self._stage(v, device) for v in value)
        return value

    def value(self):
        return self._resolve(self._staged)

    def _resolve(self, value):
        if type(value) is _core._Transfer:
            return value.tensor
        if type(value) in (list, tuple):
            return type(value)(self._resolve(v) for v in value)
        return value


class _Download:
    """A result on its way back: its device tensors staged for download."""

    def __init__(self, value):
        self.transfers = {}
        self.value = self._stage(value)

    def _stage(self, value):
        if isinstance(value, Tensor) and value.device != "cpu":
            transfer = _core._stage_download(value)
            self.transfers[id(transfer)] = transfer
            return transfer
        if type(value) in (list, tuple):
            return type(value)(self._stage(v) for v in value)
        if type(value) is dict:
            return {k: self._stage(v) for k, v in value.items()}
        return value

    def result(self):
        return self._finish(self.value)

    def _finish(self, value):
        if id(value) in self.transfers:
            array = value.result()
            return array[()] if array.ndim == 0 else array
        if isinstance(value, Tensor):  # a CPU tensor: zero-copy
            array = np.asarray(value)
            return array[()] if array.ndim == 0 else array
        if type(value) in (list, tuple):
            return type(value)(self._finish(v) for v in value)
        if type(value) is dict:
            return {k: self._finish(v) for k, v in value.items()}
        return value


class ParIter:
    """A lazy chain of ``map``, ``filter`` and ``gpu_map`` stages over items, run by ``collect()``. Order is
    kept; an exception raised for an item propagates with ``item_index`` set (and a note naming it)."""

    def __init__(self, items, stages=()):
        self._items = items
        self._stages = tuple(stages)

    def _then(self, stage) -> "ParIter":
        return ParIter(self._items, self._stages + (stage,))

    def map(self, f) -> "ParIter":
        """f(item) for every item, on the CPU threads (NumPy releases the GIL in its loops)."""
        return self._then(("map", f))

    def filter(self, pred) -> "ParIter":
        """The items for which pred(item) is true."""
        return self._then(("filter", pred))

    def gpu_map(self, f, device=None) -> "ParIter":
        """f(item) for every item on the device, pipelined (Note [gpu_map pipeline])."""
        return self._then(("gpu_map", (f, device)))

    def collect(self) -> list:
        items = list(self._items)
        for kind, f in self._stages:
            if kind == "map":
                items = self._map(f, items, "map")
            elif kind == "filter":
                keep = self._map(f, items, "filter")
                items = [item for item, k in zip(items, keep) if k]
            else:
                items = self._gpu_map(*f, items)
        return items

    def __iter__(self):
        return iter(self.collect())

    @staticmethod
    def _map(f, items: list, stage: str) -> list:
        if len(items) <= 1:
            return [_call(f, item, i, stage) for i, item in enumerate(items)]
        futures = [_executor().submit(_call, f, item, i, stage) for i, item in enumerate(items)]
        try:
            return [future.result() for future in futures]
        finally:
            for future in futures:
                future.cancel()

    @staticmethod
    def _gpu_map(f, device, items: list) -> list:
        runtime = get_runtime()
        target = None if runtime.config.force_cpu else (
            _decorator.resolve_device(device) if device is not None else (runtime.gpu.device if runtime.gpu else None))
        if target is None:
            return ParIter._map(f, items, "gpu_map")
        if isinstance(f, _decorator.Offloaded) and items and not f.offloads(items[0], target):
            # The cost model keeps such calls on the CPU: moving the items to the device first would only
            # add their transfers. Run them as they would run one by one.
            return [_call(f, item, i, "gpu_map") for i, item in enumerate(items)]
        free = next((d["free_memory"] for d in _core.devices() if d["device"] == target), 0)
        largest = max((_nbytes(item) for item in items), default=0)
        depth = max(1, min(MAX_DEPTH, (free // 4) // largest if largest else MAX_DEPTH))
        uploads: deque = deque()
        downloads: list = []
        next_up = 0
        outer = getattr(_decorator._local, "keep", False), getattr(_decorator._local, "on_device", False)
        _decorator._local.keep = _decorator._local.on_device = True
        try:
            for i in range(len(items)):
                while next_up < len(items) and next_up <= i + depth:
                    uploads.append(_Upload(items[next_up], target))
                    next_up += 1
                upload = uploads.popleft()
                result = _call(f, upload.value(), i, "gpu_map")
                downloads.append(_Download(result))
                del upload  # its staging buffers wait for their copies before they are freed
            return [d.result() for d in downloads]
        finally:
            _decorator._local.keep, _decorator._local.on_device = outer
