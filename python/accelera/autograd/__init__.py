"""Reverse-mode automatic differentiation on accelera Tensors (Note [Autograd graph]).

Set ``requires_grad`` on the leaves (weights), compute with the namespace's functions and operators, call
``backward()`` on a scalar result and read each leaf's ``grad``::

    w = acc.asarray(np.random.rand(3, 2)).requires_grad_()
    loss = acc.sum(acc.tanh(x @ w) ** 2)
    loss.backward()
    w.grad          # d loss / d w, w's shape

Every differentiable function of the namespace records a vector-Jacobian product (``_rules.py``); one
without a gradient raises ``NotSupportedError`` rather than cut the graph silently. ``no_grad()`` turns
recording off (inference, optimizer updates); :class:`Function` defines new differentiable operations.
"""

from __future__ import annotations

from ._engine import Node, backward, enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ._function import Function, grad

__all__ = ["Function", "Node", "backward", "enable_grad", "grad", "is_grad_enabled", "no_grad", "set_grad_enabled"]
