"""User-defined differentiable operations (:class:`Function`) and gradients as values (:func:`grad`)."""

from __future__ import annotations

from .._core import ArgumentError, Tensor
from ._engine import any_requires_grad, backward, no_grad, record, requires_grad


class Context:
    """What a Function's forward keeps for its backward."""

    def __init__(self, needs_input_grad: tuple = ()):
        self.saved_tensors: tuple = ()
        # One bool per forward argument: whether its gradient is wanted (a backward may skip the others).
        self.needs_input_grad = needs_input_grad

    def save_for_backward(self, *tensors) -> None:
        self.saved_tensors = tensors


class Function:
    """A differentiable operation with a hand-written gradient::

        class Cube(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x * x

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 3 * x * x      # one gradient per forward argument (None for non-tensors)

        y = Cube.apply(x)

    ``forward`` runs with recording off; ``backward`` returns a gradient per positional argument of
    ``forward`` (a single tensor when there is one argument). ``ctx.needs_input_grad`` holds a bool per
    argument, as in PyTorch: a backward may return None for those that are False and skip their work."""

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("a Function subclass defines forward(ctx, *args)")

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("a Function subclass defines backward(ctx, grad)")

    @classmethod
    def apply(cls, *args):
        ctx = Context(tuple(requires_grad(a) for a in args))
        with no_grad():
            out = cls.forward(ctx, *args)
        if not isinstance(out, Tensor):
            raise ArgumentError(f"{cls.__name__}.forward must return one Tensor, got {type(out).__name__}")
        if any_requires_grad(args, {}):
            if any(out is a for a in args):
                out = out.detach()  # a forward that returns its input still needs its own node
            record(cls.__name__, out, list(enumerate(args)), lambda g: cls.backward(ctx, g))
        return out


def grad(output: Tensor, inputs, grad_output=None, retain_graph: bool = False):
    """d(output)/d(input) for each of ``inputs`` (leaves that require grad), returned as a tuple; no
    ``.grad`` anywhere changes. None for an input the output does not depend on."""
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    for x in inputs:
        if not isinstance(x, Tensor) or not x._rg or x._node is not None:
            raise ArgumentError("grad() takes leaf tensors that require grad as inputs")
    into = {id(x): None for x in inputs}
    backward(output, grad_output, retain_graph, _into=into)
    result = tuple(into[id(x)] for x in inputs)
    return result[0] if single else result
