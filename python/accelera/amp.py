"""Mixed precision: ``autocast`` runs the matrix products of a forward pass in bfloat16 or float16 while the
weights stay float32, and ``GradScaler`` keeps float16 gradients out of underflow by dynamic loss scaling.

    scaler = accelera.amp.GradScaler()
    for xb, yb in batches:
        with accelera.amp.autocast("float16"):
            loss = F.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)        # unscales, and skips the step if a gradient is inf or nan
        scaler.update()               # halves the scale after an overflow, doubles it after a calm stretch

Note [Autocast policy]
Inside ``autocast(dtype)`` the functions of ``accelera.nn.functional`` that are matrix products (linear,
conv1d/2d/3d, attention) cast their float32 operands to ``dtype``; those whose accuracy needs float32
(softmax, log_softmax, layer_norm, batch_norm and every loss) cast half operands up to float32; every
other op runs in the dtype it is given. The casts are recorded ops, so the gradient that reaches a float32
weight is float32 (its "master" copy), and the optimizer updates it in float32. Half tensors are stored as
such on every device and computed in float32 where a device has no half kernels (docs/ops.md), so the
saving is memory and bandwidth on those, and arithmetic too on GPUs with half tensor cores. bfloat16 has
float32's exponent range and needs no loss scaling; float16 does (its smallest normal is 6e-5).
"""

from __future__ import annotations

import functools
import math
import threading

from . import _ops as O
from . import _statistics as S
from ._core import ArgumentError, DTypeError, Tensor
from ._core import _supports as _core_supports
from ._dtypes import dtype as _dtype
from ._elementwise import isfinite, logical_and

__all__ = ["GradScaler", "autocast", "get_autocast_dtype", "is_autocast_enabled"]

_HALF = ("float16", "bfloat16")


class _State(threading.local):
    dtype: str | None = None  # the autocast dtype in effect on this thread, None outside autocast


_state = _State()


def is_autocast_enabled() -> bool:
    """Whether this thread is inside an enabled ``autocast`` region."""
    return _state.dtype is not None


def get_autocast_dtype() -> str | None:
    """The dtype matrix products are cast to on this thread ("float16" or "bfloat16"), None outside."""
    return _state.dtype


class autocast:
    """Runs the matrix products inside in ``dtype`` (Note [Autocast policy]): a context manager or a
    decorator; per thread; nests (the innermost wins); ``enabled=False`` turns it off inside."""

    def __init__(self, dtype="bfloat16", *, enabled: bool = True):
        if not isinstance(enabled, bool):
            raise DTypeError(f"autocast enabled must be a bool, got {enabled!r}")
        name = _dtype(dtype).name
        if name not in _HALF:
            raise DTypeError(f"autocast computes in float16 or bfloat16, not {name}")
        self.dtype, self.enabled = name, enabled
        self._previous: list[str | None] = []

    def __enter__(self):
        self._previous.append(_state.dtype)
        _state.dtype = self.dtype if self.enabled else None
        return self

    def __exit__(self, *exc):
        _state.dtype = self._previous.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.dtype, enabled=self.enabled):
                return fn(*args, **kwargs)

        return wrapper


def lower(*tensors):
    """The operands of a matrix product under autocast: float32 tensors cast to the autocast dtype."""
    target = _state.dtype
    if target is None:
        return tensors
    return tuple(t.astype(target) if isinstance(t, Tensor) and t.dtype.name == "float32" else t for t in tensors)


def full(*tensors):
    """The operands of a precision-sensitive function under autocast: half tensors cast up to float32."""
    if _state.dtype is None:
        return tensors
    return tuple(t.astype("float32") if isinstance(t, Tensor) and t.dtype.name in _HALF else t for t in tensors)


def _cast_args(args, kwargs, cast):
    return cast(*args), {k: cast(v)[0] for k, v in kwargs.items()}


def _casting(fn, cast):
    """fn with its tensor arguments passed through ``cast`` under autocast, untouched outside."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _state.dtype is None:
            return fn(*args, **kwargs)
        args, kwargs = _cast_args(args, kwargs, cast)
        return fn(*args, **kwargs)

    return wrapper


def in_autocast_dtype(fn):
    """Marks a matrix product: under autocast its float32 tensor arguments are cast to the autocast dtype."""
    return _casting(fn, lower)


def in_float32(fn):
    """Marks a precision-sensitive function: under autocast its half tensor arguments are cast to float32."""
    return _casting(fn, full)


def in_kernel_dtype(op: str, *, lowered: bool):
    """Marks a fused kernel: under autocast it runs in the autocast dtype (``lowered``: float32 operands
    are cast down first) where its device has a kernel for that dtype, and in float32 where it has not
    (the CPU and OpenCL backends have no half fused kernels: docs/ops.md)."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            target = _state.dtype
            if target is None:
                return fn(*args, **kwargs)
            first = next((a for a in args if isinstance(a, Tensor)), None)
            if first is not None and _core_supports(first.device, op, target):
                cast = lower if lowered else (lambda *ts: ts)
            else:
                cast = full
            args, kwargs = _cast_args(args, kwargs, cast)
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def _positive(value, what: str, *, above_one: bool = False, below_one: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ArgumentError(f"GradScaler {what} must be a positive finite number, got {value!r}")
    if above_one and value <= 1:
        raise ArgumentError(f"GradScaler {what} must be > 1, got {value!r}")
    if below_one and value >= 1:
        raise ArgumentError(f"GradScaler {what} must be < 1, got {value!r}")
    return float(value)


class GradScaler:
    """Dynamic loss scaling: ``scale(loss)`` multiplies the loss by the scale before ``backward()``;
    ``step(optimizer)`` divides the gradients by it and runs the step unless one of them holds an inf or a
    nan (an overflow: the step is skipped); ``update()`` multiplies the scale by ``backoff_factor`` after an
    overflow and by ``growth_factor`` after ``growth_interval`` steps in a row without one. The same names
    and defaults as ``torch.amp.GradScaler``."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        if not isinstance(enabled, bool):
            raise DTypeError(f"GradScaler enabled must be a bool, got {enabled!r}")
        if isinstance(growth_interval, bool) or not isinstance(growth_interval, int) or growth_interval < 1:
            raise ArgumentError(f"GradScaler growth_interval must be a positive integer, got {growth_interval!r}")
        self._scale = _positive(init_scale, "init_scale")
        self.growth_factor = _positive(growth_factor, "growth_factor", above_one=True)
        self.backoff_factor = _positive(backoff_factor, "backoff_factor", below_one=True)
        self.growth_interval = growth_interval
        self.enabled = enabled
        self._growth_tracker = 0
        self._found_inf: bool | None = None  # per step: None until unscale_, then whether a grad overflowed
        self.skipped_steps = 0

    def is_enabled(self) -> bool:
        return self.enabled

    def get_scale(self) -> float:
        return self._scale if self.enabled else 1.0

    def scale(self, loss: Tensor) -> Tensor:
        """loss times the current scale (recorded, so backward() gives scaled gradients)."""
        if not isinstance(loss, Tensor):
            raise DTypeError(f"GradScaler.scale takes a Tensor, got {type(loss).__name__}")
        if not self.enabled:
            return loss
        return O.multiply(loss.astype("float32") if loss.dtype.name in _HALF else loss, self._scale)

    def unscale_(self, optimizer) -> None:
        """Divides every gradient of ``optimizer`` by the scale (in place of the old gradient) and notes
        whether any holds an inf or a nan. Once per step; ``step`` calls it when it was not called."""
        if not self.enabled:
            return
        if self._found_inf is not None:
            raise ArgumentError("GradScaler.unscale_ was already called since the last update()")
        inverse = 1.0 / self._scale
        finite = None
        for p in optimizer.params:
            g = p.grad
            if g is None:
                continue
            p.grad = O.multiply(g, inverse)
            ok = S.all(isfinite(p.grad))
            finite = ok if finite is None else logical_and(finite, ok)
        # One transfer for the whole model, not one per parameter.
        self._found_inf = finite is not None and not bool(finite.item())

    def step(self, optimizer) -> bool:
        """Unscales (unless ``unscale_`` was called) and runs ``optimizer.step()`` when every gradient is
        finite. Returns whether the step ran."""
        if not self.enabled:
            optimizer.step()
            return True
        if self._found_inf is None:
            self.unscale_(optimizer)
        if self._found_inf:
            self.skipped_steps += 1
            return False
        optimizer.step()
        return True

    def update(self) -> None:
        """Adjusts the scale after a step: backoff after an overflow, growth after a calm stretch."""
        if not self.enabled:
            return
        if self._found_inf is None:
            raise ArgumentError("GradScaler.update needs a step (or unscale_) since the last update()")
        if self._found_inf:
            self._scale *= self.backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self.growth_interval:
                self._scale *= self.growth_factor
                self._growth_tracker = 0
        self._found_inf = None

    def state_dict(self) -> dict:
        return {"scale": self._scale, "growth_factor": self.growth_factor, "backoff_factor": self.backoff_factor,
                "growth_interval": self.growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state: dict) -> None:
        self._scale = _positive(state["scale"], "scale")
        self.growth_factor = _positive(state["growth_factor"], "growth_factor", above_one=True)
        self.backoff_factor = _positive(state["backoff_factor"], "backoff_factor", below_one=True)
        self.growth_interval = int(state["growth_interval"])
        self._growth_tracker = int(state["_growth_tracker"])
