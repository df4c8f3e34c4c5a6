"""Module: the imperative building block (parameters, buffers, sub-modules, train/eval, devices, state).

A parameter is a leaf Tensor that requires grad, made by :func:`Parameter`; assigning one (or a Module) to
an attribute of a Module registers it, so ``parameters()`` finds it, in assignment order. Buffers are
tensors that are state without gradients (BatchNorm's running statistics), registered explicitly.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .._convert import asarray, device_or_default
from .._core import ArgumentError, ShapeError, Tensor


def Parameter(data, *, device=None, dtype=None) -> Tensor:  # noqa: N802 - the conventional name
    """A trainable tensor: a leaf that requires grad, registered by the Module it is assigned to."""
    t = asarray(data, device=device, dtype=dtype)
    if t is data:
        t = t.detach()  # a new leaf: the caller's tensor keeps its own requires_grad
    t.requires_grad = True
    t._parameter = True
    return t


def is_parameter(value) -> bool:
    return isinstance(value, Tensor) and getattr(value, "_parameter", False) is True


class Module:
    """Base class of layers and models: subclasses set parameters and sub-modules in ``__init__`` and
    compute in ``forward``; calling the module calls ``forward``."""

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise ArgumentError(f"{type(self).__name__}.__init__ must call super().__init__() before setting "
                                "attributes")
        for registry in (self._parameters, self._buffers, self._modules):
            registry.pop(name, None)
        if is_parameter(value):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def register_buffer(self, name: str, tensor: Tensor) -> None:
        """State saved with the module and moved with it, without gradients (running statistics)."""
        object.__setattr__(self, name, tensor)
        self._buffers[name] = tensor

    def _set_buffer(self, name: str, tensor: Tensor) -> None:
        self._buffers[name] = tensor
        object.__setattr__(self, name, tensor)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} defines no forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    # ---- traversal --------------------------------------------------------------------------------
    def named_modules(self, prefix: str = ""):
        yield prefix, self
        for name, module in self._modules.items():
            yield from module.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self):
        return (m for _, m in self.named_modules())

    def children(self):
        return iter(self._modules.values())

    def named_parameters(self):
        for prefix, module in self.named_modules():
            for name, p in module._parameters.items():
                yield (f"{prefix}.{name}" if prefix else name), p

    def parameters(self) -> list[Tensor]:
        return [p for _, p in self.named_parameters()]

    def named_buffers(self):
        for prefix, module in self.named_modules():
            for name, b in module._buffers.items():
                yield (f"{prefix}.{name}" if prefix else name), b

    def num_parameters(self) -> int:
        return sum(p.size for p in self.parameters())

    # ---- modes, gradients, devices ----------------------------------------------------------------
    def train(self, mode: bool = True) -> "Module":
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = None

    @property
    def device(self) -> str:
        params = self.parameters()
        return params[0].device if params else "cpu"

    def to(self, device) -> "Module":
        """Moves every parameter and buffer to ``device`` (in place; returns the module)."""
        device = device_or_default(device)
        for module in self.modules():
            for name, p in list(module._parameters.items()):
                if p.device != device:
                    setattr(module, name, Parameter(p.detach().to(device)))
            for name, b in list(module._buffers.items()):
                if b.device != device:
                    module._set_buffer(name, b.to(device))
        return self

    # ---- state ------------------------------------------------------------------------------------
    def state_dict(self) -> "OrderedDict[str, Tensor]":
        """Every parameter and buffer by dotted name (the tensors themselves, not copies)."""
        state = OrderedDict(self.named_parameters())
        state.update(self.named_buffers())
        return state

    def load_state_dict(self, state) -> None:
        """Copies ``state`` (name -> tensor or array) into this module's parameters and buffers; names and
        shapes must match exactly."""
        own = self.state_dict()
        missing, unexpected = sorted(set(own) - set(state)), sorted(set(state) - set(own))
        if missing or unexpected:
            raise ArgumentError(f"state does not match {type(self).__name__}: missing {missing}, unexpected "
                                f"{unexpected}")
        for name, target in own.items():
            value = state[name]
            shape = tuple(value.shape) if hasattr(value, "shape") else np.shape(value)
            if shape != tuple(target.shape):
                raise ShapeError(f"{name}: the state has shape {shape}, the module {tuple(target.shape)}")
        from .._core import _copy_into
        from ..autograd import no_grad
        with no_grad():
            for name, target in own.items():
                _copy_into(asarray(state[name], dtype=target.dtype, device=target.device), target)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        for name, module in self._modules.items():
            child = repr(module).replace("\n", "\n  ")
            lines.append(f"  ({name}): {child}")
        return "\n".join(lines) + ("\n)" if self._modules else ")")


class Sequential(Module):
    """Modules applied in order."""

    def __init__(self, *modules: Module):
        super().__init__()
        for i, m in enumerate(modules):
            if not isinstance(m, Module):
                raise ArgumentError(f"Sequential takes Modules, argument {i} is {type(m).__name__}")
            setattr(self, str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __len__(self) -> int:
        return len(self._modules)

    def __getitem__(self, i: int) -> Module:
        return list(self._modules.values())[i]

    def __iter__(self):
        return iter(self._modules.values())
