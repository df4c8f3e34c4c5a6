"""``@accelera.gpu`` and ``@accelera.gpu_kernel``: NumPy code and user kernels run where the cost model says."""

from __future__ import annotations

import functools
import logging
import threading
import time

import numpy as np

from .. import _core
from .._core import Tensor
from . import _trace
from ._model import Call, Decision
from ._runtime import get_runtime, resolve_device

_log = logging.getLogger("accelera.offload")
# depth: decorated calls running in this thread; keep, on_device: par_iter's gpu_map overrides.
_local = threading.local()


def _is_number(x) -> bool:
    return isinstance(x, (int, float, complex, np.generic))


class _Inputs:
    """The arrays of a call's arguments: bytes on the host and on the device, and a signature of their dtypes
    and places for the cost model's buckets."""

    __slots__ = ("device", "host_bytes", "device_bytes", "signature")

    def __init__(self, device: str, args: tuple, kwargs: dict | None = None):
        self.device, self.host_bytes, self.device_bytes, self.signature = device, 0, 0, []
        for value in args:
            self._scan(value)
        if kwargs:
            for value in kwargs.values():
                self._scan(value)

    def _scan(self, value) -> None:
        kind = type(value)
        if kind is np.ndarray or (kind is not Tensor and isinstance(value, np.ndarray)):
            self.host_bytes += value.nbytes
            self.signature.append(value.dtype.char)
        elif kind is Tensor:
            if value.device == self.device:
                self.device_bytes += value.nbytes
                self.signature.append("@" + value._dtype)
            else:
                self.host_bytes += value.nbytes
                self.signature.append(value._dtype)
        elif kind is list or kind is tuple:
            if value and not _is_number(value[0]):
                for v in value:
                    self._scan(v)
        elif kind is dict:
            for v in value.values():
                self._scan(v)


def _to_device(value, device: str, moved: list):
    kind = type(value)
    if kind is Tensor:
        if value.device == device:
            return value
        moved[0] += value.nbytes
        return value.to(device)
    if isinstance(value, np.ndarray):
        moved[0] += value.nbytes
        return _core_asarray(value, device)
    if kind is list or kind is tuple:
        return kind(_to_device(v, device, moved) for v in value)
    if kind is dict:
        return {k: _to_device(v, device, moved) for k, v in value.items()}
    return value


def _core_asarray(array: np.ndarray, device: str) -> Tensor:
    import accelera as acc

    return acc.asarray(array, device=device)


def _to_host(value, moved: list):
    """Tensors as NumPy arrays (0-d ones as NumPy scalars, as NumPy's reductions return them)."""
    kind = type(value)
    if kind is Tensor:
        if value.device != "cpu":
            moved[1] += value.nbytes
        array = np.asarray(value)
        return array[()] if array.ndim == 0 else array
    if kind is list or kind is tuple:
        return kind(_to_host(v, moved) for v in value)
    if kind is dict:
        return {k: _to_host(v, moved) for k, v in value.items()}
    return value


_HELD = {np.dtype(t).char for t in (np.float16, np.float32, np.float64, np.int32, np.int64, np.bool_)}


def _as_cpu_tensors(value):
    """NumPy results as CPU tensors (zero-copy), for ``keep=True`` calls that ran on the CPU; arrays of dtypes
    Accelera does not hold (complex, for one) stay NumPy arrays."""
    import accelera as acc

    if isinstance(value, np.ndarray):
        return acc.asarray(value) if value.dtype.char in _HELD else value
    if type(value) in (list, tuple):
        return type(value)(_as_cpu_tensors(v) for v in value)
    if type(value) is dict:
        return {k: _as_cpu_tensors(v) for k, v in value.items()}
    return value


def _result_bytes(value) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if type(value) in (list, tuple):
        return sum(_result_bytes(v) for v in value)
    if type(value) is dict:
        return sum(_result_bytes(v) for v in value.values())
    return 0


class _Depth:
    def __enter__(self):
        _local.depth = getattr(_local, "depth", 0) + 1

    def __exit__(self, *exc):
        _local.depth -= 1


class Offloaded:
    """A function decorated with ``@accelera.gpu``: each call runs on the CPU (NumPy, as written) or on the
    device (its arrays moved there as Accelera arrays, whose NumPy protocols run ``np.*`` calls on the
    device), as the runtime decides (Note [Offload decisions])."""

    def __init__(self, fn, device=None, keep: bool = False):
        if not callable(fn):
            raise _core.ArgumentError(f"@gpu decorates a function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self._fn, self._device, self.keep = fn, device, bool(keep)
        code = getattr(fn, "__code__", None)
        self._key = (getattr(fn, "__qualname__", repr(fn)), id(code) if code is not None else id(fn))
        if device is not None and not isinstance(device, (int, str)) or isinstance(device, bool):
            raise _core.ArgumentError(f"@gpu(device=...) takes an index or a device string, got {device!r}")

    def __repr__(self) -> str:
        return f"<accelera.gpu {self._key[0]}>"

    def __get__(self, instance, owner):  # decorated methods bind like functions
        return self if instance is None else functools.partial(self, instance)

    def _target(self, runtime) -> str | None:
        if runtime.config.force_cpu:
            return None
        if self._device is None:
            return runtime.gpu.device if runtime.gpu else None
        return resolve_device(self._device)

    def offloads(self, item, device: str) -> bool:
        """Whether the cost model would run ``self(item)`` on ``device`` (for par_iter's gpu_map)."""
        runtime = get_runtime()
        if runtime.config.force_cpu:
            return False
        inputs = _Inputs(device, (item,))
        call = Call(inputs.host_bytes, inputs.device_bytes, self.keep)
        decision, _ = runtime.decide((self._key, tuple(inputs.signature)), call, device)
        return decision.target == "device"

    def __call__(self, *args, **kwargs):
        if getattr(_local, "depth", 0):  # inside another decorated call, which chose the place already
            return self._fn(*args, **kwargs)
        runtime = get_runtime()
        device = self._target(runtime)
        keep = self.keep or getattr(_local, "keep", False)
        if device is None:
            return self._run_plain(runtime, args, kwargs, keep)
        inputs = _Inputs(device, args, kwargs)
        call = Call(inputs.host_bytes, inputs.device_bytes, keep)
        key = (self._key, tuple(inputs.signature))
        if getattr(_local, "on_device", False):  # inside par_iter's gpu_map, whose decision stands
            decision, bucket = Decision("device", "inside par_iter(...).gpu_map"), None
        else:
            decision, bucket = runtime.decide(key, call, device)
        moved = [0, 0]
        trace, fallback = None, False
        start = time.perf_counter()
        if decision.target == "device":
            try:
                result = self._run_device(device, args, kwargs, keep, moved)
            except _core.Error as exc:
                if runtime.config.fallback != "cpu":
                    exc.add_note(f"while running {self._key[0]} on {device}; Config.builder().fallback('cpu') "
                                 "runs such calls on the CPU instead")
                    raise
                _log.warning("%s failed on %s (%s: %s); running it on the CPU (fallback='cpu')", self._key[0],
                             device, type(exc).__name__, exc)
                if isinstance(exc, _core.NotSupportedError):
                    runtime.block(bucket, str(exc))
                fallback = True
                result = self._run_cpu(args, kwargs, keep, moved, None)
        else:
            traced = bucket is not None and bucket.trace is None
            if traced:
                spin = runtime.calibration(device).spin
                with _trace.recording(spin if spin.penalty_s > 0 else None) as trace:
                    result = self._run_cpu(args, kwargs, keep, moved, trace)
            else:
                result = self._run_cpu(args, kwargs, keep, moved, None)
        seconds = time.perf_counter() - start
        if not fallback:
            runtime.learn(key, bucket, decision, call, seconds, device, trace)
        runtime.record(self._key[0], decision, call, seconds, moved[0], moved[1], fallback, trace is not None)
        return result

    def _run_plain(self, runtime, args, kwargs, keep):
        """No device to offload to (or the CPU forced): the function as written, counted."""
        start = time.perf_counter()
        moved = [0, 0]
        result = self._run_cpu(args, kwargs, keep, moved, None)
        reason = "the CPU is forced" if runtime.config.force_cpu else "no device"
        runtime.record(self._key[0], Decision("cpu", reason), Call(0, 0, keep), time.perf_counter() - start,
                       moved[0], moved[1])
        return result

    def _run_cpu(self, args, kwargs, keep, moved, trace):
        args, kwargs = _to_host(args, moved), (_to_host(kwargs, moved) if kwargs else kwargs)
        with _Depth():
            if trace is None:
                result = self._fn(*args, **kwargs)
            else:
                result = _trace.unwrap(self._fn(*_trace.wrap(args), **_trace.wrap(kwargs)))
                trace.output_bytes = _result_bytes(result)
        return _as_cpu_tensors(result) if keep else result

    def _run_device(self, device, args, kwargs, keep, moved):
        args, kwargs = _to_device(args, device, moved), _to_device(kwargs, device, moved)
        with _Depth():
            result = self._fn(*args, **kwargs)
        if keep:
            _core._synchronize(device)  # the measured time must include the work, not just its launch
            return result
        return _to_host(result, moved)


def gpu(fn=None, *, device=None, keep: bool = False):
    """``@gpu``, ``@gpu(device=0)``, ``@gpu(keep=True)``: run a NumPy-style function on the device when the
    cost model predicts it pays (see ``get_runtime().stats()`` for what it decided and why). Arguments
    (NumPy arrays, Accelera arrays, scalars, and lists, tuples and dicts of them) move to the device as
    Accelera arrays; results come back as NumPy arrays, or stay on the device with ``keep=True``."""
    if fn is None:
        return lambda f: Offloaded(f, device, keep)
    if isinstance(fn, int) and not isinstance(fn, bool):  # @gpu(0)
        return lambda f: Offloaded(f, fn, keep)
    return Offloaded(fn, device, keep)


class OffloadedKernel:
    """A compiled user kernel called like a Numba CUDA kernel: NumPy arrays are copied to the kernel's device,
    the kernel runs over ``global_size`` work-items (default: the largest array's size), and every writable
    NumPy array argument receives the device's values afterwards (kernels write through their arguments)."""

    def __init__(self, kernel, global_size=None, local_size=None):
        if not isinstance(kernel, _core.CompiledKernel):
            raise _core.ArgumentError("@gpu_kernel wraps a CompiledKernel (from KernelManager.compile_kernel), "
                                      f"got {type(kernel).__name__}")
        self.kernel, self.global_size, self.local_size = kernel, global_size, local_size

    def __call__(self, *args, global_size=None, local_size=None):
        import accelera as acc

        device = self.kernel.device
        on_device = [acc.asarray(a, device=device) if isinstance(a, np.ndarray) else a for a in args]
        sizes = [a.size for a in args if isinstance(a, (np.ndarray, Tensor))]
        size = global_size or self.global_size or (max(sizes) if sizes else 1)
        self.kernel.launch(on_device, global_size=size, local_size=local_size or self.local_size)
        for original, tensor in zip(args, on_device):
            if isinstance(original, np.ndarray) and original.flags.writeable:
                np.copyto(original, np.asarray(tensor))
        return None


def gpu_kernel(kernel=None, *, global_size=None, local_size=None):
    """``gpu_kernel(manager.compile_kernel(...))`` or ``@gpu_kernel(global_size=n)`` over a function that
    returns a CompiledKernel: see OffloadedKernel."""
    if kernel is None:
        return lambda k: OffloadedKernel(k() if callable(k) and not isinstance(k, _core.CompiledKernel) else k,
                                         global_size, local_size)
    return OffloadedKernel(kernel, global_size, local_size)
