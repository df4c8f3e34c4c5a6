"""DataLoader: shuffled batches of host arrays, uploaded to a device one batch ahead."""

from __future__ import annotations

import concurrent.futures
import math

import numpy as np

from .._convert import asarray, device_or_default
from .._core import ArgumentError, ShapeError


class DataLoader:
    """Iterates over ``(x_batch, y_batch, ...)`` tuples of Tensors on ``device`` from NumPy arrays of equal
    length. Each epoch reshuffles (seeded); the next batch's upload runs on a worker thread while the caller
    computes on the current one (uploads release the GIL and go through accelera's pinned staging buffers on
    GPUs), so the bus and the device overlap."""

    def __init__(self, *arrays, batch_size: int = 32, shuffle: bool = True, seed=None, device=None,
                 drop_last: bool = False, prefetch: bool = True):
        if not arrays:
            raise ArgumentError("DataLoader needs at least one array")
        self.arrays = [np.asarray(a) for a in arrays]
        if len({len(a) for a in self.arrays}) != 1:
            raise ShapeError(f"DataLoader arrays differ in length: {[len(a) for a in self.arrays]}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ArgumentError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.batch_size, self.shuffle, self.drop_last, self.prefetch = batch_size, shuffle, drop_last, prefetch
        self.device = device_or_default(device)
        self._rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        n = len(self.arrays[0])
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def _batch(self, rows):
        return tuple(asarray(np.ascontiguousarray(a[rows]), device=self.device) for a in self.arrays)

    def __iter__(self):
        n = len(self.arrays[0])
        order = self._rng.permutation(n) if self.shuffle else np.arange(n)
        slices = [order[i * self.batch_size:(i + 1) * self.batch_size] for i in range(len(self))]
        if not self.prefetch:
            for rows in slices:
                yield self._batch(rows)
            return
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="accelera-loader") as pool:
            pending = pool.submit(self._batch, slices[0]) if slices else None
            for i in range(len(slices)):
                batch = pending.result()
                pending = pool.submit(self._batch, slices[i + 1]) if i + 1 < len(slices) else None
                yield batch
