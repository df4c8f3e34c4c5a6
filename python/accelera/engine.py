"""MatrixEngine and Matrix: matmul of matrices larger than device memory, streamed through the device.

Operands may be NumPy arrays (``numpy.memmap`` of files larger than RAM included), Accelera tensors,
``Matrix`` objects or any DLPack producer; they are read in place, never copied whole and never modified.
Element-wise ops on host operands run on the CPU: streaming them through a device is bound by the bus (at most
bandwidth / (2 x element size) elements per second on the way in), slower than the CPU reading host memory.
"""

from __future__ import annotations

import numpy as np

from . import _core
from ._args import parse_bytes
from ._convert import asarray
from ._core import ArgumentError, ShapeError, Tensor
from .chunking import ChunkingStrategy, chunks_to_tiles, planner_name
from .memory_manager import MemoryManager


def _tensor(x) -> Tensor:
    if isinstance(x, Matrix):
        return x._data
    return asarray(x)


def _fallback_name(fallback) -> str:
    if not isinstance(fallback, str):
        raise ArgumentError(f"fallback_strategy must be 'cpu', 'default_chunk' or 'error', got {fallback!r}")
    return fallback  # the engine parses it (ArgumentError naming the choices)


def _planner_name(strategy) -> str | None:
    """The name the C++ planner gets for ``strategy`` (it parses names: an unknown one is an ArgumentError
    naming the choices), or None when the object's own ``get_chunks`` chooses the tiles."""
    if isinstance(strategy, str):
        return strategy
    if isinstance(strategy, ChunkingStrategy):
        return planner_name(strategy)
    raise ArgumentError(f"chunking strategy must be a name or a ChunkingStrategy, got {type(strategy).__name__}")


def _device_list(devices, include_cpu):
    """The device names for ``MatrixEngine(devices=..., include_cpu=...)``; None for one device."""
    if devices is None:
        if include_cpu:
            raise ArgumentError("include_cpu goes with devices (the CPU as one more device)")
        return None
    if isinstance(devices, str):
        return _core._engine_devices(devices, bool(include_cpu))
    if not isinstance(devices, (list, tuple)) or not all(isinstance(d, str) for d in devices):
        raise ArgumentError(f"devices must be 'all' or a list of device names, got {devices!r}")
    return _core._engine_devices(",".join(devices), bool(include_cpu))


class MatrixEngine:
    """Matrix operations that never run out of device memory.

    ``device``: where to compute (default: the best device present). ``auto_detect_memory``: size tiles from
    the device's free memory and budget; when False, ``chunk_size`` fixes the tile edge. ``chunking_strategy``:
    'row', 'tile', 'adaptive' or a ``ChunkingStrategy``. ``memory_budget``: device bytes the engine may use
    (an int, or a string such as '2GB'). ``enable_progress``: a progress bar on stderr for long calls.
    ``fallback_strategy``: what happens when the device runs out of memory mid-call: 'default_chunk' shrinks
    the tiles and resumes on the device (finishing on the CPU what not even the smallest tile fits), 'cpu'
    computes the rest on the CPU at once (a budget too small for any tile too), 'error' raises
    OutOfMemoryError. Each fallback is logged and listed in ``last_run``.

    ``devices``: share each streamed matmul among several devices: 'all' (every GPU and OpenCL device) or a
    list such as ``["cuda:0", "cuda:1"]``; ``include_cpu`` adds the CPU as one more. Output tiles are shared
    by work stealing, so a slower device simply takes fewer; out of memory on one device shrinks its tiles
    (or, under 'cpu', hands them to the others) without stopping the rest. ``last_run['per_device']`` says
    what each device did.
    """

    def __init__(self, device=None, auto_detect_memory=True, chunking_strategy="adaptive", chunk_size=None,
                 enable_progress=True, memory_budget=None, fallback_strategy="default_chunk", devices=None,
                 include_cpu=False):
        self._user_strategy = None
        name = _planner_name("adaptive" if chunking_strategy is None else chunking_strategy)
        if name is None:  # the strategy chooses its own tiles: the engine plans nothing itself
            self._user_strategy = chunking_strategy
            name = "adaptive"
        self._engine = _core._MatrixEngine(device, bool(auto_detect_memory), name, chunk_size, bool(enable_progress),
                                           parse_bytes(memory_budget), _fallback_name(fallback_strategy),
                                           _device_list(devices, include_cpu))

    # -- configuration -------------------------------------------------------------------------------------
    @property
    def device(self) -> str:
        return self._engine.device

    @property
    def devices(self) -> list:
        """Every device a streamed matmul uses (just ``device`` unless several were given)."""
        return self._engine.devices

    @property
    def chunking_strategy(self):
        return self._user_strategy if self._user_strategy is not None else self._engine.chunking_strategy

    @chunking_strategy.setter
    def chunking_strategy(self, strategy) -> None:
        name = _planner_name(strategy)
        if name is None:
            self._user_strategy = strategy
        else:
            self._engine.set_chunking_strategy(name)  # raises for an unknown name, changing nothing
            self._user_strategy = None

    @property
    def chunk_size(self):
        return self._engine.chunk_size

    def set_chunk_size(self, chunk_size: int) -> None:
        """Fix the tile edge (rows for 'row'); used while automatic memory detection is off."""
        self._engine.set_chunk_size(int(chunk_size))

    def enable_auto_memory_detection(self, enabled: bool = True) -> None:
        self._engine.enable_auto_memory_detection(bool(enabled))

    def set_memory_budget(self, budget) -> None:
        self._engine.set_memory_budget(parse_bytes(budget))

    def set_progress_callback(self, callback) -> None:
        """``callback(progress: dict) -> bool`` after every tile; returning False raises CancelledError."""
        self._engine.set_progress_callback(callback)

    @property
    def fallback_strategy(self) -> str:
        """'default_chunk', 'cpu' or 'error' (see the class documentation)."""
        return self._engine.fallback_strategy

    @fallback_strategy.setter
    def fallback_strategy(self, fallback: str) -> None:
        self._engine.set_fallback_strategy(_fallback_name(fallback))

    @property
    def memory_manager(self) -> MemoryManager:
        """The device memory this engine may use: available and total bytes, and its budget."""
        return MemoryManager._of_engine(self._engine)

    @property
    def enable_progress(self) -> bool:
        return self._engine.enable_progress

    @enable_progress.setter
    def enable_progress(self, enabled: bool) -> None:
        self._engine.set_enable_progress(bool(enabled))

    # -- operations ----------------------------------------------------------------------------------------
    def matmul(self, A, B, chunk_strategy=None, out=None):
        """C = A @ B, streamed through the device when it does not fit. Returns a Matrix (or fills ``out``,
        which may be a NumPy array or memmap, a Tensor or a Matrix, and returns it)."""
        a, b = _tensor(A), _tensor(B)
        out_tensor = None if out is None else _tensor(out)
        strategy = chunk_strategy if chunk_strategy is not None else self.chunking_strategy
        name = _planner_name(strategy)
        try:
            if name is None:
                shape = (a.shape[0] if a.ndim == 2 else 0, b.shape[1] if b.ndim == 2 else 0)
                chunk = self.chunk_size or max(1, shape[0])
                tiles = chunks_to_tiles(strategy.get_chunks(shape, chunk), shape)
                result = self._engine.matmul_chunks(a, b, tiles, out_tensor)
            else:
                result = self._engine.matmul(a, b, name, out_tensor)
        except KeyboardInterrupt as interrupt:
            # Ctrl-C stops the call between tiles; accelera's own errors already say what `out` holds.
            if out is not None and hasattr(interrupt, "add_note"):
                run = self.last_run
                interrupt.add_note(f"MatrixEngine.matmul was interrupted: out holds {len(run['finished_tiles'])} "
                                   "finished tile(s), listed in last_run['finished_tiles']; the rest is unspecified")
            raise
        return out if out is not None else Matrix(result)

    def add(self, A, B):
        return Matrix(self._engine.add(_tensor(A), _tensor(B)))

    def multiply(self, A, B):
        return Matrix(self._engine.multiply(_tensor(A), _tensor(B)))

    def plan(self, shape_a, shape_b, dtype="float32", chunk_strategy=None) -> dict:
        """What ``matmul`` would do now for host operands of these shapes, without doing it: ``in_core``,
        ``strategy``, ``tile_shape``, ``k_steps``, ``tiles`` (row0, rows, col0, cols), ``device_bytes`` and the
        bytes each way on one device. With several devices, the tiles they share."""
        (m, k), (k2, n) = tuple(shape_a), tuple(shape_b)
        if k != k2:
            raise ShapeError(f"MatrixEngine.plan: shapes {tuple(shape_a)} and {tuple(shape_b)} do not fit")
        name = _planner_name(chunk_strategy) if chunk_strategy is not None else None
        return self._engine.plan(int(m), int(n), int(k), np.dtype(dtype).name, name)

    # -- memory --------------------------------------------------------------------------------------------
    def get_memory_info(self) -> dict:
        """gpu_utilization (%), gpu_total_gb, gpu_available_gb, gpu_budget_gb, engine_budget_gb, cpu_total_gb,
        cpu_available_gb and the device."""
        return self._engine.memory_info()

    def cleanup(self) -> None:
        """Wait for the device and return its cached memory."""
        self._engine.cleanup()

    @property
    def last_run(self) -> dict:
        """Statistics of the last call: strategy, tiles, tile_shape, bytes each way, peak device bytes,
        fallbacks (with fallback_log), seconds, gflops; completed (False after an error or Ctrl-C) and
        finished_tiles, the (row0, rows, col0, cols) blocks of C written (all of C when completed)."""
        return self._engine.last_run

    def __repr__(self) -> str:
        return f"MatrixEngine(device={self.device!r}, chunking_strategy={self.chunking_strategy!r})"


_default_engine = None


def _engine_for_operators() -> MatrixEngine:
    global _default_engine
    if _default_engine is None:
        _default_engine = MatrixEngine(enable_progress=False)
    return _default_engine


class Matrix:
    """A 2-D matrix kept in host memory (``storage_device`` 'cpu') unless moved with ``to_gpu``.

    ``A @ B`` goes through a MatrixEngine on the default device, so it streams when it does not fit.
    """

    def __init__(self, data, device=None, dtype=None):
        tensor = data._data if isinstance(data, Matrix) else asarray(data, dtype=dtype)
        if tensor.ndim != 2:
            raise ArgumentError(f"a Matrix is 2-D, got shape {tuple(tensor.shape)}")
        self._data = tensor if device is None else tensor.to(device)

    # -- constructors --------------------------------------------------------------------------------------
    @staticmethod
    def zeros(shape, dtype="float32", device="cpu") -> Matrix:
        return Matrix(np.zeros(shape, dtype=np.dtype(str(dtype))), device=device)

    @staticmethod
    def ones(shape, dtype="float32", device="cpu") -> Matrix:
        return Matrix(np.ones(shape, dtype=np.dtype(str(dtype))), device=device)

    @staticmethod
    def eye(n, m=None, dtype="float32", device="cpu") -> Matrix:
        return Matrix(np.eye(n, m, dtype=np.dtype(str(dtype))), device=device)

    @staticmethod
    def random(shape, dtype="float32", device="cpu", seed=None) -> Matrix:
        rng = np.random.default_rng(seed)
        return Matrix(rng.random(shape, dtype=np.dtype(str(dtype))), device=device)

    @staticmethod
    def randn(shape, dtype="float32", device="cpu", seed=None) -> Matrix:
        rng = np.random.default_rng(seed)
        return Matrix(rng.standard_normal(shape, dtype=np.dtype(str(dtype))), device=device)

    # -- properties ----------------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return tuple(self._data.shape)

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def device(self) -> str:
        return self._data.device

    @property
    def storage_device(self) -> str:
        """Where the data lives between operations (the host unless moved with to_gpu)."""
        return self._data.device

    def memory_size(self) -> int:
        """Bytes of the matrix's elements."""
        return int(np.prod(self.shape)) * self._data.itemsize

    # -- conversions ---------------------------------------------------------------------------------------
    def to_gpu(self, device=None) -> Matrix:
        target = device or _core.default_device()
        return Matrix(self._data.to(target))

    def to_cpu(self) -> Matrix:
        return Matrix(self._data.to("cpu"))

    def numpy(self) -> np.ndarray:
        return self._data.to("cpu").numpy()

    def tensor(self):
        """The matrix as a PyTorch tensor (zero-copy through DLPack); needs PyTorch."""
        try:
            import torch
        except ImportError as err:
            raise _core.NotSupportedError("Matrix.tensor() needs PyTorch, which is not installed") from err
        return torch.from_dlpack(self._data)

    def clone(self) -> Matrix:
        return Matrix(self._data.clone())

    def __dlpack__(self, **kwargs):
        return self._data.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype)

    # -- operators -----------------------------------------------------------------------------------------
    def __matmul__(self, other) -> Matrix:
        return _engine_for_operators().matmul(self, other)

    def __add__(self, other) -> Matrix:
        return Matrix(self._data + _tensor(other))

    def __mul__(self, other) -> Matrix:
        return Matrix(self._data * _tensor(other))

    def __repr__(self) -> str:
        return f"Matrix(shape={self.shape}, dtype={self.dtype}, device={self.device!r})"
