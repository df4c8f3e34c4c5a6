"""The reverse-mode engine: grad mode, graph nodes, recording and ``backward``.

Note [Autograd graph]
~~~~~~~~~~~~~~~~~~~~~
A tensor that takes part in autograd carries three attributes on its Python object (Tensor has a
``__dict__``; tensors that never take part pay nothing, since the class holds the defaults):
``_rg`` (requires grad), ``_node`` (the Node that produced it; None for a leaf) and ``grad`` (a leaf's
accumulated gradient). A Node holds the op's vector-Jacobian product as a closure over what the backward
needs, and one edge per differentiable input: the input's Node when the input was itself computed, or the
input tensor when it is a leaf. Edges hold Nodes rather than interior tensors, so an intermediate result
that no backward needs is freed as soon as the forward drops it.

``backward`` orders the Nodes reachable from the root topologically (iteratively: deep graphs such as a
long recurrence must not hit Python's recursion limit), sums the gradients flowing into each Node, calls
each vector-Jacobian product once, and adds leaf gradients into ``leaf.grad``. Gradients are fitted to
their input on the way: broadcast axes are summed away and the dtype is the input's, so rules may return
full-shape gradients for broadcasting ops. The backward runs with grad mode off (no higher-order graphs)
and frees each Node's closure unless ``retain_graph`` is set; a second backward through a freed graph is
an error, never a silent zero.
"""

from __future__ import annotations

import functools
import threading

from .. import _core
from .._core import ArgumentError, DTypeError, Tensor


class _GradMode(threading.local):
    enabled = True


_mode = _GradMode()
_RESHAPE = Tensor.reshape  # the C++ view, captured before accelera.autograd makes Tensor.reshape record


def is_grad_enabled() -> bool:
    """Whether ops on tensors that require grad are being recorded (per thread)."""
    return _mode.enabled


class set_grad_enabled:
    """Turns recording on or off for this thread: as a call, a context manager or a decorator."""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise DTypeError(f"grad mode must be a bool, got {mode!r}")
        self._previous = _mode.enabled
        self._mode = mode
        _mode.enabled = mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _mode.enabled = self._previous
        return False

    def __call__(self, fn):
        mode = self._mode
        _mode.enabled = self._previous  # used as a decorator: applies per call, not now

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            previous = _mode.enabled
            _mode.enabled = mode
            try:
                return fn(*args, **kwargs)
            finally:
                _mode.enabled = previous

        return wrapper


class no_grad(set_grad_enabled):
    """Ops inside record nothing: inference, optimizer steps, metrics."""

    def __init__(self):
        super().__init__(False)


class enable_grad(set_grad_enabled):
    """Recording on inside, also within a ``no_grad`` block."""

    def __init__(self):
        super().__init__(True)


class Node:
    """One recorded op: its name, its vector-Jacobian product and one edge per differentiable input."""

    __slots__ = ("name", "vjp", "edges", "__weakref__")

    def __init__(self, name: str, vjp, edges):
        self.name = name
        self.vjp = vjp      # grad -> sequence (or mapping) of input gradients, None where there is none
        self.edges = edges  # [(slot, Node or leaf Tensor, shape, dtype name)]

    def __repr__(self) -> str:
        return f"<accelera.autograd.Node {self.name}>"


def requires_grad(value) -> bool:
    return getattr(value, "_rg", False) is True


# Set once the first tensor is made to require grad: until then no call can need recording, and the
# wrappers skip even the argument scan (Note [Recording wrappers]).
armed = False


def any_requires_grad(args, kwargs) -> bool:
    """Whether recording is on and some tensor argument requires grad; lists of tensors (concat, stack)
    count too."""
    if not armed or not _mode.enabled:
        return False
    for a in args:
        if a.__class__ is Tensor:
            if a._rg:
                return True
        elif a.__class__ is list or a.__class__ is tuple:
            for t in a:
                if t.__class__ is Tensor and t._rg:
                    return True
    if kwargs:
        for v in kwargs.values():
            if v.__class__ is Tensor and v._rg:
                return True
    return False


def record(name: str, out: Tensor, inputs, vjp) -> Tensor:
    """Makes ``out`` the result of a Node over ``inputs`` (pairs of slot and argument; those that require
    grad become edges). Returns ``out``."""
    edges = []
    for slot, value in inputs:
        if getattr(value, "_rg", False) is True:
            edges.append((slot, value._node if value._node is not None else value, tuple(value.shape), value._dtype))
    if not edges:
        return out
    if out._dtype not in ("float32", "float64", "float16", "bfloat16"):
        return out  # an integer or bool result carries no gradient (argmax, comparisons)
    if out._node is not None or out._rg:
        raise ArgumentError(f"{name} returned a tensor that already belongs to a graph; it cannot be recorded twice")
    out._node = Node(name, vjp, edges)
    out._rg = True
    return out


def _sum_to(grad: Tensor, shape: tuple, dtype: str) -> Tensor:
    """``grad`` summed over the axes that broadcasting added to an input of ``shape``, in its dtype."""
    gshape = tuple(grad.shape)
    if gshape != shape:
        lead = len(gshape) - len(shape)
        if lead < 0 or any(g != n and n != 1 for g, n in zip(gshape[lead:], shape)):
            raise ArgumentError(f"a gradient of shape {gshape} cannot belong to an input of shape {shape}")
        axes = list(range(lead)) + [lead + i for i, n in enumerate(shape) if n == 1 and gshape[lead + i] != 1]
        if axes:
            grad = _core.sum(grad, axes, True)
        grad = _RESHAPE(grad, shape)
    if grad._dtype != dtype:
        grad = grad._astype(dtype)
    return grad


def _add(a, b):
    return b if a is None else _core.add(a, b)


def _topological_order(root: Node) -> list[Node]:
    """Nodes reachable from ``root``, each after every Node that consumes its output."""
    order, visited = [], {id(root)}
    stack = [(root, iter(root.edges))]
    while stack:
        node, edges = stack[-1]
        for _, target, _, _ in edges:
            if isinstance(target, Node) and id(target) not in visited:
                visited.add(id(target))
                stack.append((target, iter(target.edges)))
                break
        else:
            stack.pop()
            order.append(node)
    order.reverse()
    return order


def _gradients_of(node: Node, grad: Tensor):
    if node.vjp is None:
        raise ArgumentError(f"the graph through {node.name} was freed by an earlier backward(); pass "
                            "retain_graph=True to the first backward() to run backward twice")
    grads = node.vjp(grad)
    if isinstance(grads, Tensor) or grads is None:
        grads = (grads,)
    return grads


def _pick(grads, slot):
    if isinstance(grads, dict):
        return grads.get(slot)
    return grads[slot] if isinstance(slot, int) and slot < len(grads) else None


def backward(tensor: Tensor, gradient=None, retain_graph: bool = False, *, _into: dict | None = None) -> None:
    """Adds d(tensor)/d(leaf) (times ``gradient``) into ``leaf.grad`` of every leaf that requires grad.

    ``gradient`` defaults to 1 for a one-element tensor; any other tensor needs one of its shape. With
    ``_into`` (a dict keyed by id(leaf), for :func:`grad`) only those leaves' gradients are summed there."""
    if not requires_grad(tensor):
        raise ArgumentError("backward() of a tensor that does not require grad: no input it depends on has "
                            "requires_grad=True (or it was computed under no_grad)")
    if gradient is None:
        if tensor.size != 1:
            raise ArgumentError(f"backward() of a tensor of shape {tuple(tensor.shape)} needs a gradient of that "
                                "shape; only a one-element tensor defaults to 1")
        gradient = _core._full(list(tensor.shape), 1.0, tensor._dtype, tensor.device)
    elif not isinstance(gradient, Tensor):
        from .._convert import asarray
        gradient = asarray(gradient, dtype=tensor.dtype, device=tensor.device)
    if tuple(gradient.shape) != tuple(tensor.shape):
        raise ArgumentError(f"the gradient has shape {tuple(gradient.shape)}, the tensor {tuple(tensor.shape)}")
    if tensor._node is None:  # a leaf: its gradient is the seed itself
        _accumulate_leaf(tensor, gradient, _into)
        return
    previous = _mode.enabled
    _mode.enabled = False
    try:
        _run(tensor._node, gradient, retain_graph, _into)
    finally:
        _mode.enabled = previous


def _accumulate_leaf(leaf: Tensor, grad: Tensor, into: dict | None) -> None:
    if into is not None:
        if id(leaf) in into:
            into[id(leaf)] = _add(into[id(leaf)], grad)
        return
    if not grad.is_contiguous():
        grad = grad.contiguous()  # broadcast views (stride 0) must not become a parameter's .grad
    leaf.grad = grad if leaf.grad is None else _core.add(leaf.grad, grad)


def _run(root: Node, seed: Tensor, retain_graph: bool, into: dict | None) -> None:
    pending = {id(root): seed}
    for node in _topological_order(root):
        grad = pending.pop(id(node), None)
        if grad is None:
            continue  # no gradient reached this node (every path to it carried None)
        grads = _gradients_of(node, grad)
        for slot, target, shape, dtype in node.edges:
            g = _pick(grads, slot)
            if g is None:
                continue
            g = _sum_to(g, shape, dtype)
            if isinstance(target, Node):
                pending[id(target)] = _add(pending.get(id(target)), g)
            else:
                _accumulate_leaf(target, g, into)
        if not retain_graph:
            node.vjp = None
