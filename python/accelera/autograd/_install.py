"""Makes the namespace differentiable: wraps each function that has a rule so that it records, guards
the others, and gives Tensor its autograd attributes and recording methods.

Note [Recording wrappers]
~~~~~~~~~~~~~~~~~~~~~~~~~
The wrappers are also where accelera.profiler times ops (Note [Profiling cost]): one flag read when off.

A wrapped function first asks whether grad mode is on and some argument requires grad (a few attribute
reads); when not, it calls the plain function and nothing else happens, so code that never uses autograd
pays about 0.2 us per call. When it records, the plain function runs with grad mode off (its inner calls
must not record a second graph) and the rule's vector-Jacobian product becomes the result's Node.

A function of the namespace without a rule is guarded instead: should it return a floating-point tensor
that is not connected to the graph although an argument requires grad, it raises NotSupportedError naming
itself. A gradient is never silently dropped. Functions built from recording functions (stack, unstack,
tensordot through matmul...) connect by themselves and pass the guard.
"""

from __future__ import annotations

import functools
import inspect

from .. import _core, profiler as _profiler
from .._core import ArgumentError, NotSupportedError, Tensor
from . import _engine, _rules
from ._engine import any_requires_grad, no_grad, record

_FLOATING = ("float32", "float64", "float16", "bfloat16")

# Constructors and metadata: their results are new constants, never functions of their arguments.
_UNGUARDED = {
    "asarray", "empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "eye",
    "arange", "linspace", "meshgrid", "from_dlpack", "result_type", "can_cast", "isdtype", "finfo", "iinfo",
    "broadcast_shapes", "devices", "memory_stats", "default_device", "supports", "op_table",
    # the explicit backward kernels are the rules' building blocks; they run under no_grad in a backward
    "gelu_backward", "layer_norm_backward", "softmax_backward", "log_softmax_backward", "attention_backward",
    "max_pool_backward", "conv_backward", "lstm_cell_backward", "gru_cell_backward", "lstm_sequence_backward",
    "gru_sequence_backward",
}


def _positional_names(fn) -> list[str]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _inputs(names, args, kwargs):
    """(slot, value) for every argument; keyword arguments take their parameter's position as slot."""
    pairs = list(enumerate(args))
    for key, value in kwargs.items():
        if key in names:
            pairs.append((names.index(key), value))
    return pairs


def _connect_sequences(inputs):
    """A list argument of tensors (concat, stack) becomes one edge per element: slot (i, j)."""
    out = []
    for slot, value in inputs:
        if isinstance(value, (list, tuple)):
            out.extend(((slot, j), v) for j, v in enumerate(value))
        else:
            out.append((slot, value))
    return out


def _flatten_sequence_grads(grads):
    """Rules return a list of gradients for a list argument; the engine picks them by (slot, j)."""
    flat = {}
    for i, g in enumerate(grads):
        if isinstance(g, list):
            flat.update({(i, j): gj for j, gj in enumerate(g)})
        else:
            flat[i] = g
    return flat


def differentiable(name: str, fn):
    """``fn`` recording ``name``'s rule whenever an argument requires grad (Note [Recording wrappers])."""
    names = _positional_names(fn)
    make_vjp = _rules.VJP.get(name)
    run_forward = _rules.FORWARD.get(name)
    if make_vjp is None and run_forward is None:
        raise ArgumentError(f"no gradient rule named {name}")

    def call(*args, **kwargs):
        if not any_requires_grad(args, kwargs):
            return fn(*args, **kwargs)
        with no_grad():
            if run_forward is not None:
                result, out, vjp = run_forward(fn, *args, **kwargs)
            else:
                result = out = fn(*args, **kwargs)
                vjp = make_vjp(out, *args, **kwargs)
        if any(out is a for a in args):
            return result  # the function returned its argument itself: nothing to record
        inputs = _connect_sequences(_inputs(names, args, kwargs))
        if any(isinstance(slot, tuple) for slot, _ in inputs):
            plain = vjp
            vjp = lambda g: _flatten_sequence_grads(plain(g))  # noqa: E731
        record(name, out, inputs, vjp)
        return result

    return _entry_point(name, fn, call)


def _entry_point(name: str, fn, call):
    """The function the namespace exposes: ``call``, timed by accelera.profiler while it records."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _profiler.hooks_on:
            return _profiler.timed_call(name, call, args, kwargs)
        return call(*args, **kwargs)

    wrapper.__wrapped_plain__ = fn
    return wrapper


def _disconnected(result) -> bool:
    results = result if isinstance(result, (tuple, list)) else (result,)
    return any(isinstance(r, Tensor) and r._dtype in _FLOATING and not r._rg for r in results)


def guarded(name: str, fn):
    """``fn`` raising NotSupportedError when it would silently cut the graph (Note [Recording wrappers])."""

    def call(*args, **kwargs):
        if not any_requires_grad(args, kwargs):
            return fn(*args, **kwargs)
        result = fn(*args, **kwargs)
        if _disconnected(result):
            raise NotSupportedError(f"{name} has no gradient: an argument requires grad, so its result would be "
                                    f"cut from the graph. Call it under accelera.autograd.no_grad() or on .detach()ed "
                                    "tensors if no gradient is wanted")
        return result

    return _entry_point(name, fn, call)


def _wrap_modules(namespace, modules) -> dict:
    """Replaces every function with a rule in ``modules`` (and each alias of it in ``namespace``)."""
    replaced = {}
    for module in modules:
        for attr, value in list(vars(module).items()):
            if not callable(value) or attr.startswith("_") or not inspect.isfunction(value):
                continue
            if getattr(value, "__module__", None) != module.__name__:
                continue  # imported helpers are wrapped where they are defined
            rule_name = value.__name__
            if rule_name in _rules.VJP or rule_name in _rules.FORWARD:
                wrapped = replaced.get(id(value)) or differentiable(rule_name, value)
            elif rule_name in _UNGUARDED or attr in _UNGUARDED:
                continue
            else:
                wrapped = replaced.get(id(value)) or guarded(rule_name, value)
            replaced[id(value)] = wrapped
            setattr(module, attr, wrapped)
    for attr, value in list(vars(namespace).items()):
        if id(value) in replaced:
            setattr(namespace, attr, replaced[id(value)])
    return replaced


def _method(name: str, raw):
    """A Tensor method that records ``name`` (the plain one when nothing requires grad)."""
    return differentiable(name, lambda self, *args, **kwargs: raw(self, *args, **kwargs))


def _refuse_in_place(what: str):
    def check(tensor: Tensor):
        if tensor._rg and _engine._mode.enabled:
            raise ArgumentError(f"{what} would change a tensor that requires grad in place, which the recorded "
                                "graph depends on; do it under accelera.autograd.no_grad() (an optimizer step) "
                                "or on a .detach()ed copy")
    return check


def _getitem_recording(raw_getitem):
    from .._getitem import is_advanced
    plain = differentiable("getitem", raw_getitem)

    def getitem(self, key):
        if self._rg and _engine._mode.enabled and is_advanced(key) and not _boolean_key(key):
            raise NotSupportedError("indexing a tensor that requires grad with integer arrays: a repeated index "
                                    "would lose gradient; use accelera.take(x, indices, axis), whose gradient "
                                    "adds repeats up")
        return plain(self, key)
    return getitem


def _boolean_key(key) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    arrays = [k for k in items if hasattr(k, "dtype") and not isinstance(k, (int, slice))]
    return bool(arrays) and all(str(getattr(k, "dtype", "")) in ("bool", "bool_") for k in arrays)


def _install_tensor(tensor_operators) -> None:
    t = Tensor
    t._rg = False
    t._node = None
    t.grad = None
    t.requires_grad = property(_get_requires_grad, _set_requires_grad,
                               doc="Whether gradients flow to this tensor (set it on leaves, e.g. weights).")
    t.is_leaf = property(lambda self: self._node is None, doc="Whether no recorded op produced this tensor.")
    t.grad_fn = property(lambda self: self._node, doc="The Node that produced this tensor (None for a leaf).")
    t.backward = lambda self, gradient=None, retain_graph=False: _engine.backward(self, gradient, retain_graph)
    t.backward.__doc__ = _engine.backward.__doc__
    t.requires_grad_ = _requires_grad_
    t.detach = _detach

    raw_transpose, raw_reshape = t.transpose, t.reshape
    raw_t = t.__dict__["T"]
    t.reshape = _method("reshape", raw_reshape)
    t.transpose = _transpose_method(raw_transpose)
    t.T = property(differentiable("T", lambda self: raw_t.__get__(self, t)), doc="The axes reversed (a view).")
    t.contiguous = _method("contiguous", t.contiguous)
    t.clone = _method("clone", t.clone)
    t.__getitem__ = _getitem_recording(t.__getitem__)
    raw_setitem = t.__setitem__
    check = _refuse_in_place("item assignment")

    def setitem(self, key, value):
        check(self)
        raw_setitem(self, key, value)
    t.__setitem__ = setitem
    tensor_operators(t)


def _transpose_method(raw):
    plain = differentiable("transpose", lambda self, axes: raw(self, axes))

    def transpose(self, *axes):
        if not axes:
            return self.T
        axes = tuple(axes[0]) if len(axes) == 1 and isinstance(axes[0], (list, tuple)) else tuple(axes)
        return plain(self, axes)
    return transpose


def _get_requires_grad(self) -> bool:
    return self._rg


def _set_requires_grad(self, value) -> None:
    if not isinstance(value, bool):
        raise _core.DTypeError(f"requires_grad must be a bool, got {value!r}")
    if self._node is not None:
        if not value:
            raise ArgumentError("requires_grad cannot be turned off on a computed tensor; use .detach()")
        return
    if value and self._dtype not in _FLOATING:
        raise _core.DTypeError(f"only floating-point tensors can require grad, this one is {self._dtype}")
    _engine.armed = _engine.armed or value
    self._rg = value


def _requires_grad_(self, requires_grad: bool = True) -> Tensor:
    """Sets :attr:`requires_grad` in place and returns the tensor (for chaining)."""
    _set_requires_grad(self, requires_grad)
    return self


_IDENTITY_VIEW = Tensor.transpose


def _detach(self) -> Tensor:
    """A new tensor sharing this one's memory, outside any graph (requires_grad False)."""
    return _IDENTITY_VIEW(self, list(range(self.ndim))) if self.ndim else _IDENTITY_VIEW(self, [])


def install() -> None:
    import accelera
    from .. import (_creation, _dtype_functions, _elementwise, _manipulation, _nn, _ops, _statistics, _tensor,
                    linalg)

    _wrap_modules(accelera, [_ops, _elementwise, _nn, _statistics, _manipulation, _dtype_functions, _creation,
                             linalg, accelera])
    # Tensor.astype and Tensor.to are Python methods over the plain ones: make them record too.
    raw_astype, raw_to = _tensor._astype, _tensor._to
    _tensor._astype = differentiable("astype", raw_astype)
    _tensor._to = differentiable("to", raw_to)
    check = _refuse_in_place("an in-place operator")
    plain_inplace = _tensor._inplace

    def inplace(fn):
        op = plain_inplace(fn)

        def run(a, b):
            check(a)
            return op(a, b)
        return run
    _tensor._inplace = inplace
    _install_tensor(_tensor._install_operators)
    Tensor.astype = _tensor._astype
    Tensor.to = _tensor._to
