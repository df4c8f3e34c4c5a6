"""NumPy's dispatch protocols for Tensors (CuPy's model).

Note [NumPy protocols]
``np.mean(t)``, ``np.exp(t)``, ``np.add(t, u)``, ``np.concatenate([t, u])`` ... on Accelera tensors run
accelera's function of the same name (or of the array API name where NumPy's differs: concatenate is
concat, power is pow) on the tensors' device, looked up on the accelera module at call time, so a function
added to the namespace is dispatched to without a change here. What accelera does not implement (a
function, an argument such as ``out=`` or ``order="F"``, a ufunc method such as ``accumulate``) raises
NotSupportedError naming the NumPy call: a device tensor is never copied to the host behind the caller's
back. ``np.asarray(t)`` and ``t.__array__()`` are the explicit conversions and stay as they are.
"""

from __future__ import annotations

import inspect

import numpy as np

from ._core import NotSupportedError, Tensor

# NumPy name -> array API (accelera) name, where they differ.
_RENAMED = {
    "absolute": "abs", "power": "pow", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift", "conjugate": "conj",
    "concatenate": "concat", "amax": "max", "amin": "min",
}
# NumPy argument name -> the array API's, where they differ (np.clip's a_min, np.std's ddof).
_ARGUMENT_NAMES = {"a_min": "min", "a_max": "max", "ddof": "correction"}
# ufunc.reduce -> the reduction that computes it.
_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min", "logical_and": "all",
               "logical_or": "any"}
# Arguments accelera does not take, dropped when they hold NumPy's default (anything else is refused).
_DEFAULTS = {"out": (None,), "dtype": (None,), "where": (True,), "order": ("C", "K", "A", None),
             "subok": (True, False), "casting": ("same_kind", "safe"), "copy": (True,), "sparse": (False,),
             "initial": (np._NoValue,), "keepdims": (np._NoValue,), "shape": (None,),
             "kind": (None, "stable", "mergesort", "quicksort")}  # accelera sorts stably: a valid order of every kind


def _accelera():
    import accelera

    return accelera


def _unsupported(what: str) -> NotSupportedError:
    return NotSupportedError(f"{what} is not supported for accelera Tensors (convert explicitly with "
                             "np.asarray(tensor) to compute it with NumPy on the host)")


def _target(numpy_name: str, module: str = "numpy"):
    """accelera's function for a NumPy function of ``module``, or None."""
    namespace = _accelera()
    for part in module.split(".")[1:]:  # numpy.linalg -> accelera.linalg
        namespace = getattr(namespace, part, None)
        if namespace is None:
            return None
    name = _RENAMED.get(numpy_name, numpy_name)
    target = getattr(namespace, name, None)
    return target if callable(target) and not isinstance(target, type) else None


def _kept_kwargs(what: str, kwargs: dict, accepted) -> dict:
    kept = {}
    for key, value in kwargs.items():
        if key not in accepted and _ARGUMENT_NAMES.get(key) in accepted:
            key = _ARGUMENT_NAMES[key]
        if key in accepted:
            kept[key] = value
        elif not any(value is d or (type(value) is type(d) and value == d) for d in _DEFAULTS.get(key, ())):
            raise _unsupported(f"{what}({key}={value!r})")
    return kept


def _transpose(a, axes=None):
    xp = _accelera()
    return xp.permute_dims(a, tuple(reversed(range(a.ndim))) if axes is None else axes)


def _reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise _unsupported(f"numpy.reshape(order={order!r})")
    return _accelera().reshape(a, newshape if shape is None else shape, copy=copy)


# NumPy functions whose signature the array API function does not share.
_ADAPTERS = {"transpose": _transpose, "permute_dims": _transpose, "reshape": _reshape}


def _call(target, what: str, numpy_signature, args: tuple, kwargs: dict):
    """Calls ``target`` with a NumPy call's arguments: the leading positional-only parameters of the target
    take NumPy's leading arguments (at least the first, the array); the others go by name."""
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):  # a compiled function without a signature: pass the call through
        return target(*args, **kwargs)
    if numpy_signature is None:
        return target(*args, **kwargs)
    bound = numpy_signature.bind(*args, **kwargs).arguments
    params = list(signature.parameters.values())
    if params and params[0].kind is inspect.Parameter.VAR_POSITIONAL:
        first = next(iter(bound))
        rest = {k: v for k, v in bound.items() if k != first}
        return target(*bound[first], **_kept_kwargs(what, rest, signature.parameters))
    n_positional = max(1, sum(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in params))
    numpy_names = list(numpy_signature.parameters)[:n_positional]
    positional = [bound[n] for n in numpy_names if n in bound]
    rest = {k: v for k, v in bound.items() if k not in numpy_names}
    accepted = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return target(*positional, **_kept_kwargs(what, rest, accepted))


def _known(types) -> bool:
    return all(issubclass(t, (Tensor, np.ndarray)) for t in types)


def array_function(self, func, types, args, kwargs):
    if not _known(types):
        return NotImplemented
    module = getattr(func, "__module__", "numpy") or "numpy"
    what = f"{module}.{func.__name__}"
    if module == "numpy" and func.__name__ in _ADAPTERS:
        return _ADAPTERS[func.__name__](*args, **kwargs)
    target = _target(func.__name__, module) if module.startswith("numpy") else None
    if target is None:
        raise _unsupported(what)
    try:
        numpy_signature = inspect.signature(func)
    except (TypeError, ValueError):
        numpy_signature = None
    return _call(target, what, numpy_signature, args, kwargs)


def _foreign(x) -> bool:
    """An operand of another array library, which gets its own turn through NotImplemented."""
    return hasattr(type(x), "__array_ufunc__") and not isinstance(x, (Tensor, np.ndarray, np.generic))


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if any(_foreign(x) for x in inputs):
        return NotImplemented
    what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    if method == "__call__":
        target = _target(ufunc.__name__)
        if target is None:
            raise _unsupported(what)
        return target(*inputs, **_kept_kwargs(what, kwargs, ()))
    if method == "reduce" and ufunc.__name__ in _REDUCTIONS:
        target = _target(_REDUCTIONS[ufunc.__name__])
        if target is not None:
            (x,) = inputs
            axis = kwargs.pop("axis", 0)  # ufunc.reduce reduces axis 0 unless told
            keepdims = kwargs.pop("keepdims", False)
            return target(x, axis=axis, keepdims=keepdims, **_kept_kwargs(what, kwargs, ()))
    raise _unsupported(what)


def install_numpy_protocols(tensor_class) -> None:
    tensor_class.__array_function__ = array_function
    tensor_class.__array_ufunc__ = array_ufunc
