"""Recording what a NumPy function does, so the cost model can price it on another device.

Note [Tracing a call]
The first call of a decorated function at a new input size runs on the CPU with its arrays wrapped in
``Traced``, an ndarray subclass. NumPy hands every ufunc (operators, ``.sum()``, ``.mean()``) to
``__array_ufunc__`` and every other function (``np.linalg.*``, ``np.concatenate``) to ``__array_function__``;
both compute with plain NumPy and append an ``Op`` (its class, dtype, bytes moved, FLOPs) to the calling
thread's trace. Ops run inside another op's implementation (``np.std`` calling ``np.add.reduce``) are not
counted twice. Each op also notes whether Accelera implements it, so a function that calls something we do
not have (``np.linalg.eigvals``) is kept on the CPU by a decision, not by a failure on the device. Where
the device computes on the CPU's own cores, products large enough to wake NumPy's BLAS threads run on
Accelera's CPU kernels instead (Note [Spinning BLAS workers]).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from .. import _protocols

# ufuncs whose cost is arithmetic, not memory traffic.
_TRANSCENDENTAL = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
                   "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
                   "power", "float_power", "logaddexp", "logaddexp2", "hypot", "cbrt", "erf"}
# numpy.linalg functions that factorise: about n^3 FLOPs per matrix.
_FACTORISATIONS = {"solve", "inv", "det", "slogdet", "cholesky", "qr", "svd", "svdvals", "eig", "eigh", "eigvals",
                   "eigvalsh", "lstsq", "pinv", "matrix_rank", "matrix_power", "cond"}


@dataclass
class Op:
    name: str
    kind: str  # "gemm", "stream", "transcendental", "factorisation"
    dtype: str
    nbytes: int
    flops: float
    elements: int
    supported: bool  # whether Accelera's namespace implements it
    out_bytes: int = 0  # of the arrays it returned (newly allocated unless written into ``out=``)
    vector: bool = False  # a matrix-vector product (BLAS runs those in parallel from other sizes than GEMMs)


@dataclass
class Trace:
    ops: list = field(default_factory=list)
    output_bytes: int = 0

    @property
    def unsupported(self) -> list:
        return sorted({op.name for op in self.ops if not op.supported})

    def scaled(self, ratio: float) -> "Trace":
        """This trace for inputs ``ratio`` times as large: bytes and elements grow with the data, FLOPs of
        matrix-matrix products and factorisations as its 3/2 power (n^3 work over n^2 data)."""
        def op(o: Op) -> Op:
            power = 1.5 if o.kind in ("gemm", "factorisation") and not o.vector else 1.0
            return Op(o.name, o.kind, o.dtype, int(o.nbytes * ratio), o.flops * ratio ** power,
                      int(o.elements * ratio), o.supported, int(o.out_bytes * ratio), o.vector)

        return Trace([op(o) for o in self.ops], int(self.output_bytes * ratio))


_state = threading.local()


def _arrays(values):
    for v in values:
        if isinstance(v, np.ndarray):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _arrays(v)


def _plain(value):
    if isinstance(value, Traced):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _wrapped(value):
    if type(value) is np.ndarray:
        return value.view(Traced)
    if isinstance(value, tuple):
        return tuple(_wrapped(v) for v in value)
    return value


def _dtype_of(arrays, result) -> str:
    for a in list(arrays) + list(_arrays([result])):
        if a.dtype.kind in "fc":
            return a.dtype.name
    return "float64"


def _record(name: str, supported: bool, inputs, result, kind_hint: str | None = None) -> None:
    trace = getattr(_state, "trace", None)
    if trace is None or getattr(_state, "depth", 0) > 0:
        return
    ins = list(_arrays(inputs))
    outs = list(_arrays([result]))
    nbytes = sum(a.nbytes for a in ins) + sum(a.nbytes for a in outs)
    elements = max([a.size for a in ins + outs] or [0])
    flops = float(elements)
    kind = kind_hint or ("transcendental" if name in _TRANSCENDENTAL else "stream")
    vector = False
    if name == "matmul" and len(ins) >= 2:
        a, b = ins[0], ins[1]
        k = a.shape[-1] if a.ndim else 1
        out_size = outs[0].size if outs else 1
        flops, kind, vector = 2.0 * out_size * k, "gemm", a.ndim <= 1 or b.ndim <= 1
    elif kind == "factorisation" and ins:
        n = ins[0].shape[-1] if ins[0].ndim else 1
        flops = float(ins[0].size) * n  # batch * n^2 * n
    trace.ops.append(Op(name, kind, _dtype_of(ins, result), nbytes, flops, elements, supported,
                        sum(a.nbytes for a in outs), vector))


def _product_off_numpy(inputs) -> np.ndarray | None:
    """``a @ b`` on Accelera's CPU kernels when the trace is recorded for a device on the CPU's cores and
    NumPy's BLAS would run it on threads left spinning there (Note [Spinning BLAS workers]); None to
    leave it to NumPy (other dtypes, shapes, or sizes its BLAS runs on one thread)."""
    spin = getattr(_state, "spin", None)
    if spin is None or len(inputs) != 2:
        return None
    a, b = inputs
    if type(a) is not np.ndarray or type(b) is not np.ndarray or a.dtype != b.dtype or a.dtype.char not in "fd":
        return None
    if not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2) or a.ndim == b.ndim == 1 or a.shape[-1] != b.shape[0]:
        return None
    rows, inner, columns = (a.shape[0] if a.ndim == 2 else 1), a.shape[-1], (b.shape[1] if b.ndim == 2 else 1)
    if not spin.product_wakes_workers(2.0 * rows * inner * columns, a.ndim == 1 or b.ndim == 1):
        return None
    import accelera as acc

    return np.asarray(acc.matmul(acc.asarray(a), acc.asarray(b)))


class _Inside:
    """Marks the thread as inside an op's implementation, whose own ops are not recorded."""

    def __enter__(self):
        _state.depth = getattr(_state, "depth", 0) + 1

    def __exit__(self, *exc):
        _state.depth -= 1


class Traced(np.ndarray):
    """A NumPy array that records the ops computed on it (Note [Tracing a call])."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            kwargs["out"] = _plain(kwargs["out"])
        plain_inputs = _plain(inputs)
        result = None
        if ufunc is np.matmul and method == "__call__" and not kwargs:
            result = _product_off_numpy(plain_inputs)
        if result is None:
            with _Inside():
                result = getattr(ufunc, method)(*plain_inputs, **kwargs)
        name = ufunc.__name__
        if method == "__call__":
            supported = _protocols._target(name) is not None
        else:
            supported = method == "reduce" and name in _protocols._REDUCTIONS
        _record(name, supported, plain_inputs, result)
        return _wrapped(result)

    def __array_function__(self, func, types, args, kwargs):
        plain_args, plain_kwargs = _plain(args), {k: _plain(v) for k, v in kwargs.items()}
        result = _product_off_numpy(plain_args) if func is np.dot and not plain_kwargs else None
        if result is None:
            with _Inside():
                result = func(*plain_args, **plain_kwargs)
        module = getattr(func, "__module__", "numpy") or "numpy"
        name = func.__name__
        supported = module.startswith("numpy") and (
            (module == "numpy" and name in _protocols._ADAPTERS) or _protocols._target(name, module) is not None)
        kind = "factorisation" if module == "numpy.linalg" and name in _FACTORISATIONS else None
        if name in ("dot", "matmul", "tensordot", "vecdot", "inner", "einsum"):
            display = "matmul"
        else:
            display = name if module == "numpy" else f"{module}.{name}"
        _record(display, supported, plain_args, result, kind)
        return _wrapped(result)


def wrap(value):
    """``value`` with its NumPy arrays (in lists, tuples and dicts) viewed as Traced."""
    if type(value) is np.ndarray:
        return value.view(Traced)
    if isinstance(value, (list, tuple)):
        return type(value)(wrap(v) for v in value)
    if isinstance(value, dict):
        return {k: wrap(v) for k, v in value.items()}
    return value


def unwrap(value):
    """The inverse of ``wrap``, for results handed back to the caller."""
    if isinstance(value, Traced):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    return value


class recording:
    """``with recording() as trace:`` collects the ops of Traced arrays computed in this thread. ``spin``
    (a Spin, for a device on the CPU's cores): products it says wake NumPy's BLAS threads run on
    Accelera's CPU kernels instead."""

    def __init__(self, spin=None):
        self._spin = spin

    def __enter__(self) -> Trace:
        self._outer = getattr(_state, "trace", None), getattr(_state, "depth", 0), getattr(_state, "spin", None)
        _state.trace, _state.depth, _state.spin = Trace(), 0, self._spin
        return _state.trace

    def __exit__(self, *exc):
        _state.trace, _state.depth, _state.spin = self._outer
