"""Recurrent layers: LSTM and GRU over (length, batch, features) sequences ((batch, length, features) with
``batch_first=True``), stacked and bidirectional, with PyTorch's parameter names, shapes and gate order, so
that weights move between the two libraries unchanged.

Note [A recurrent layer as one recorded op]: each (layer, direction) runs as one autograd Function over
the whole sequence. The input's share of every gate at every step is one GEMM over all length x batch rows
before the loop; the loop does the (batch, hidden) x (hidden, gates) GEMM and the gate arithmetic of each
step. Backward through time runs the loop in reverse, keeps the gates' gradients of every step, and makes
the weights' and the input's gradients as three GEMMs over all steps at the end. The autograd graph holds
one node per layer and direction, where recording each step's ops would hold a dozen per step. Where the
device has it, each step's element-wise part is one fused kernel each way (accelera.lstm_cell and
accelera.gru_cell, Notes [Fused LSTM cell] and [Fused GRU cell]). Where the device runs a whole layer
in one kernel (Note [Recurrent sequence kernels]: oneDNN's RNN primitive on the CPU, float32), the Function
hands it the sequence both ways instead of looping here.
"""

from __future__ import annotations

import math

from .. import _core
from .. import _manipulation as M
from .. import _nn as N
from .. import _ops as O
from .._convert import asarray, device_or_default
from .._core import ArgumentError, ShapeError, Tensor
from .._creation import zeros
from .._dtypes import dtype as _dtype
from ..autograd import Function
from ..autograd._engine import requires_grad
from . import functional as F
from ._layers import _positive, _rng
from ._module import Module, Parameter


def _has_fused_cell(x, op: str = "lstm_cell") -> bool:
    """Whether x's device runs the fused cell (op: "lstm_cell" or "gru_cell") in x's dtype (every backend
    does in float32 and float64; elsewhere the step's element-wise part is composed of namespace ops)."""
    from .. import supports
    return supports(x.device, op, x.dtype)


def _has_sequence_kernel(x, op: str) -> bool:
    """Whether x's device runs a whole layer in one kernel (op: "lstm_sequence" or "gru_sequence") in x's
    dtype (Note [Recurrent sequence kernels]: oneDNN's RNN primitives on the CPU, float32)."""
    from .. import supports
    return supports(x.device, op, x.dtype)


def _steps(length: int, reverse: bool) -> range:
    return range(length - 1, -1, -1) if reverse else range(length)


def _input_projection(x, w_ih, b_ih, b_hh=None):
    """x (T, B, I) @ w_ih.T + biases, as one GEMM over all T * B rows: (T, B, G)."""
    length, batch, features = x.shape
    xw = O.matmul(M.reshape(x, (length * batch, features)), w_ih.T)
    for b in (b_ih, b_hh):
        if b is not None:
            xw = O.add(xw, b)
    return M.reshape(xw, (length, batch, w_ih.shape[0]))


def _previous_states(h0, hs, reverse: bool):
    """The state each step started from, in step order: h0 then the outputs, shifted by one step."""
    length = len(hs)
    return [h0 if t == (length - 1 if reverse else 0) else hs[t + 1 if reverse else t - 1] for t in range(length)]


def _weight_gradients(ctx, d_input_gates, d_hidden_gates, h_prev):
    """The GEMMs over all steps (Note [A recurrent layer as one recorded op]): gradients of x, w_ih, w_hh and
    the two biases from the gates' gradients (T, B, G) on the input side and on the hidden side."""
    x, w_ih, w_hh, b_ih, b_hh = ctx.inputs
    length, batch, features = x.shape
    gx = M.reshape(d_input_gates, (length * batch, -1))
    gh = gx if d_hidden_gates is d_input_gates else M.reshape(d_hidden_gates, (length * batch, -1))
    dx = M.reshape(O.matmul(gx, w_ih), (length, batch, features)) if ctx.needs_dx else None
    dw_ih = O.matmul(gx.T, M.reshape(x, (length * batch, features)))
    dw_hh = O.matmul(gh.T, M.reshape(M.stack(h_prev, 0), (length * batch, -1)))
    db_ih = None if b_ih is None else O.sum(gx, 0)
    db_hh = None if b_hh is None else O.sum(gh, 0)
    return dx, dw_ih, dw_hh, db_ih, db_hh


class _LSTMDirection(Function):
    """One LSTM layer in one direction over the whole sequence. Returns (T + 1, B, H): the hidden state of
    every step, then the last cell state (one tensor, so that both carry gradients back)."""

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse):
        ctx.needs_dx = requires_grad(x)
        ctx.sequence = None
        if _has_sequence_kernel(x, "lstm_sequence"):  # the whole loop, both ways, in one kernel each
            bias = b_ih if b_hh is None else (b_hh if b_ih is None else O.add(b_ih, b_hh))
            # hs and c_last come as the two parts of one (T + 1, B, H) tensor: this Function's output as it is
            packed, *forward = _core._lstm_sequence_packed(x, h0, c0, w_ih, w_hh, bias, bool(reverse))
            ctx.sequence = (x, h0, c0, w_ih, w_hh, b_ih, b_hh, bias, reverse, tuple(forward))
            return packed
        hidden = w_hh.shape[1]
        xw = _input_projection(x, w_ih, b_ih, b_hh)
        w_hh_t = w_hh.T
        h, c = h0, c0
        hs, saved = [None] * x.shape[0], [None] * x.shape[0]
        ctx.fused = _has_fused_cell(x)
        for t in _steps(x.shape[0], reverse):
            gates = O.add(xw[t], O.matmul(h, w_hh_t))
            if ctx.fused:  # Note [Fused LSTM cell]: one kernel for the step's element-wise part
                h, c_next, act = N.lstm_cell(gates, c)
                saved[t] = (act, c, c_next)
                hs[t], c = h, c_next
                continue
            s = O.sigmoid(gates)  # i, f and o; the g quarter is recomputed through tanh below
            g = O.tanh(gates[:, 2 * hidden:3 * hidden])
            c_next = O.add(O.multiply(s[:, hidden:2 * hidden], c), O.multiply(s[:, :hidden], g))
            tanh_c = O.tanh(c_next)
            h = O.multiply(s[:, 3 * hidden:], tanh_c)
            saved[t] = (s, g, c, tanh_c)
            hs[t] = h
            c = c_next
        ctx.inputs = (x, w_ih, w_hh, b_ih, b_hh)
        ctx.state = (h0, hs, saved, reverse)
        return M.concat([M.stack(hs, 0), M.expand_dims(c, 0)], 0)

    @staticmethod
    def backward(ctx, grad):
        if ctx.sequence is not None:
            x, h0, c0, w_ih, w_hh, b_ih, b_hh, bias, reverse, forward = ctx.sequence
            length = x.shape[0]
            dx, dh0, dc0, dw_ih, dw_hh, db = N.lstm_sequence_backward(
                grad[:length], grad[length], x, h0, c0, w_ih, w_hh, bias, reverse, forward, ctx.needs_dx)
            # The summed bias's gradient is each bias's; the second gets its own copy (gradients are updated
            # in place, by clipping for one).
            db_ih = db if b_ih is not None else None
            db_hh = None if b_hh is None else (db.clone() if b_ih is not None else db)
            return dx, dh0, dc0, dw_ih, dw_hh, db_ih, db_hh, None
        h0, hs, saved, reverse = ctx.state
        w_hh, hidden, length = ctx.inputs[2], ctx.inputs[2].shape[1], len(hs)
        dh_carry, dc = None, grad[length]
        d_gates = [None] * length
        for t in _steps(length, not reverse):
            if ctx.fused:
                act, c_prev, c_t = saved[t]
                dh = grad[t] if dh_carry is None else O.add(grad[t], dh_carry)
                d_gates[t], dc = N.lstm_cell_backward(dh, dc, act, c_prev, c_t)
                dh_carry = O.matmul(d_gates[t], w_hh)
                continue
            s, g, c_prev, tanh_c = saved[t]
            i, f, o = s[:, :hidden], s[:, hidden:2 * hidden], s[:, 3 * hidden:]
            dh = grad[t] if dh_carry is None else O.add(grad[t], dh_carry)
            dc = O.add(dc, O.multiply(O.multiply(dh, o), O.subtract(1.0, O.square(tanh_c))))
            ds = O.multiply(s, O.subtract(1.0, s))  # sigmoid' for i, f, o
            di = O.multiply(O.multiply(dc, g), ds[:, :hidden])
            df = O.multiply(O.multiply(dc, c_prev), ds[:, hidden:2 * hidden])
            dg = O.multiply(O.multiply(dc, i), O.subtract(1.0, O.square(g)))
            do = O.multiply(O.multiply(dh, tanh_c), ds[:, 3 * hidden:])
            d_gates[t] = M.concat([di, df, dg, do], 1)
            dh_carry = O.matmul(d_gates[t], w_hh)
            dc = O.multiply(dc, f)
        stacked = M.stack(d_gates, 0)
        dx, dw_ih, dw_hh, db_ih, db_hh = _weight_gradients(ctx, stacked, stacked,
                                                           _previous_states(h0, hs, reverse))
        return dx, dh_carry, dc, dw_ih, dw_hh, db_ih, db_hh, None


class _GRUDirection(Function):
    """One GRU layer in one direction over the whole sequence: (T, B, H), the hidden state of every step.
    n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), h' = (1 - z) * n + z * h, as in PyTorch."""

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, reverse):
        ctx.needs_dx = requires_grad(x)
        ctx.sequence = None
        if _has_sequence_kernel(x, "gru_sequence"):  # the whole loop, both ways, in one kernel each
            forward = N.gru_sequence(x, h0, w_ih, w_hh, b_ih, b_hh, reverse)
            ctx.sequence = (x, h0, w_ih, w_hh, b_ih, b_hh, reverse, forward)
            return forward[0]
        hidden = w_hh.shape[1]
        xw = _input_projection(x, w_ih, b_ih)
        w_hh_t = w_hh.T
        h = h0
        hs, saved = [None] * x.shape[0], [None] * x.shape[0]
        ctx.fused = _has_fused_cell(x, "gru_cell")
        for t in _steps(x.shape[0], reverse):
            gh = O.matmul(h, w_hh_t)
            if b_hh is not None:
                gh = O.add(gh, b_hh)
            gx = xw[t]
            if ctx.fused:  # Note [Fused GRU cell]: one kernel for the step's element-wise part
                h_next, act = N.gru_cell(gx, gh, h)
                saved[t] = (act, gh, h)
                hs[t] = h = h_next
                continue
            rz = O.sigmoid(O.add(gx[:, :2 * hidden], gh[:, :2 * hidden]))
            gh_n = gh[:, 2 * hidden:]
            n = O.tanh(O.add(gx[:, 2 * hidden:], O.multiply(rz[:, :hidden], gh_n)))
            h_next = O.add(n, O.multiply(rz[:, hidden:], O.subtract(h, n)))
            saved[t] = (rz, n, gh_n, h)
            hs[t] = h = h_next
        ctx.inputs = (x, w_ih, w_hh, b_ih, b_hh)
        ctx.state = (h0, hs, saved, reverse)
        return M.stack(hs, 0)

    @staticmethod
    def backward(ctx, grad):
        if ctx.sequence is not None:
            x, h0, w_ih, w_hh, b_ih, b_hh, reverse, forward = ctx.sequence
            dx, dh0, dw_ih, dw_hh, db_ih, db_hh = N.gru_sequence_backward(grad, x, h0, w_ih, w_hh, b_ih, b_hh, reverse,
                                                                          forward, ctx.needs_dx)
            return dx, dh0, dw_ih, dw_hh, db_ih, db_hh, None
        h0, hs, saved, reverse = ctx.state
        w_hh, hidden, length = ctx.inputs[2], ctx.inputs[2].shape[1], len(hs)
        dh_carry = None
        d_input_gates, d_hidden_gates = [None] * length, [None] * length
        for t in _steps(length, not reverse):
            dh = grad[t] if dh_carry is None else O.add(grad[t], dh_carry)
            if ctx.fused:
                act, gh, h_prev = saved[t]
                d_input_gates[t], d_hidden_gates[t], dh_direct = N.gru_cell_backward(dh, act, gh, h_prev)
                dh_carry = O.add(dh_direct, O.matmul(d_hidden_gates[t], w_hh))
                continue
            rz, n, gh_n, h_prev = saved[t]
            r, z = rz[:, :hidden], rz[:, hidden:]
            dn = O.multiply(O.multiply(dh, O.subtract(1.0, z)), O.subtract(1.0, O.square(n)))
            drz = O.multiply(rz, O.subtract(1.0, rz))  # sigmoid' for r and z
            dr = O.multiply(O.multiply(dn, gh_n), drz[:, :hidden])
            dz = O.multiply(O.multiply(dh, O.subtract(h_prev, n)), drz[:, hidden:])
            d_input_gates[t] = M.concat([dr, dz, dn], 1)
            d_hidden_gates[t] = M.concat([dr, dz, O.multiply(dn, r)], 1)
            dh_carry = O.add(O.multiply(dh, z), O.matmul(d_hidden_gates[t], w_hh))
        dx, dw_ih, dw_hh, db_ih, db_hh = _weight_gradients(
            ctx, M.stack(d_input_gates, 0), M.stack(d_hidden_gates, 0), _previous_states(h0, hs, reverse))
        return dx, dh_carry, dw_ih, dw_hh, db_ih, db_hh, None


class _Recurrent(Module):
    """What LSTM and GRU share: parameters per layer and direction, shapes, stacking, directions, dropout."""

    gates = 0

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, *, device=None,
                 dtype="float32", seed=None):
        super().__init__()
        name = type(self).__name__
        self.input_size = _positive(input_size, f"{name} input_size")
        self.hidden_size = _positive(hidden_size, f"{name} hidden_size")
        self.num_layers = _positive(num_layers, f"{name} num_layers")
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0.0 <= dropout < 1.0:
            raise ArgumentError(f"{name} dropout must be a probability in [0, 1), got {dropout!r}")
        self.bias, self.batch_first, self.bidirectional = bool(bias), bool(batch_first), bool(bidirectional)
        self.dropout = float(dropout)
        self.directions = 2 if self.bidirectional else 1
        device = device_or_default(device)
        dt = _dtype(dtype).name
        rng = _rng(seed)
        bound = 1.0 / math.sqrt(hidden_size)  # PyTorch's initialisation: U(-1/sqrt(H), 1/sqrt(H)) for all

        def uniform(*shape):
            return Parameter(asarray(rng.uniform(-bound, bound, shape).astype(dt), device=device))

        rows = self.gates * hidden_size
        for layer in range(self.num_layers):
            features = input_size if layer == 0 else hidden_size * self.directions
            for suffix in self._suffixes(layer):
                setattr(self, f"weight_ih{suffix}", uniform(rows, features))
                setattr(self, f"weight_hh{suffix}", uniform(rows, hidden_size))
                if self.bias:
                    setattr(self, f"bias_ih{suffix}", uniform(rows))
                    setattr(self, f"bias_hh{suffix}", uniform(rows))
        from .. import random
        self._generator = random.default_rng(seed)

    def _suffixes(self, layer: int):
        return [f"_l{layer}"] + ([f"_l{layer}_reverse"] if self.bidirectional else [])

    def _weights(self, suffix: str):
        get = self.__dict__.get
        return (get(f"weight_ih{suffix}"), get(f"weight_hh{suffix}"), get(f"bias_ih{suffix}"),
                get(f"bias_hh{suffix}"))

    def _describe(self) -> str:
        return f"{type(self).__name__}({self.input_size}, {self.hidden_size})"

    def _sequence(self, x):
        """x as (T, B, I) and whether it had a batch axis."""
        if not isinstance(x, Tensor):
            raise ArgumentError(f"{self._describe()} takes a Tensor, got {type(x).__name__}")
        layout = "(batch, length, features)" if self.batch_first else "(length, batch, features)"
        if x.ndim not in (2, 3) or x.shape[-1] != self.input_size:
            raise ShapeError(f"{self._describe()} expects {layout} or (length, features) inputs with "
                             f"{self.input_size} features, got shape {tuple(x.shape)}")
        batched = x.ndim == 3
        if not batched:
            x = M.expand_dims(x, axis=1)
        elif self.batch_first:
            x = M.permute_dims(x, (1, 0, 2))
        if x.shape[0] == 0 or x.shape[1] == 0:
            raise ShapeError(f"{self._describe()} needs at least one step and one sequence, got shape "
                             f"{tuple(x.shape)}")
        return x, batched

    def _initial(self, state, what: str, batch: int, batched: bool, x: Tensor):
        expected = (self.num_layers * self.directions, batch, self.hidden_size)
        if state is None:
            return zeros(expected, dtype=x.dtype, device=x.device)
        if not isinstance(state, Tensor):
            raise ArgumentError(f"{self._describe()}: {what} must be a Tensor, got {type(state).__name__}")
        if not batched and state.ndim == 2:
            state = M.expand_dims(state, axis=1)
        if tuple(state.shape) != expected:
            shown = expected if batched else (expected[0], expected[2])
            raise ShapeError(f"{self._describe()}: {what} must have shape {shown}, got {tuple(state.shape)}")
        return state

    def _initial_states(self, hx, batch: int, batched: bool, x: Tensor) -> list:
        raise NotImplementedError

    def _run_direction(self, x, states, suffix: str, reverse: bool):
        """(the (T, B, H) outputs, the final states) of one layer in one direction."""
        raise NotImplementedError

    def forward(self, x, hx=None):
        x, batched = self._sequence(x)
        states = self._initial_states(hx, x.shape[1], batched, x)
        finals = [[] for _ in states]
        for layer in range(self.num_layers):
            outputs = []
            for direction, suffix in enumerate(self._suffixes(layer)):
                index = layer * self.directions + direction
                sequence, last = self._run_direction(x, [s[index] for s in states], suffix, direction == 1)
                outputs.append(sequence)
                for kept, value in zip(finals, last):
                    kept.append(value)
            x = outputs[0] if len(outputs) == 1 else M.concat(outputs, 2)
            if self.dropout and self.training and layer + 1 < self.num_layers:  # between layers, as PyTorch
                x = F.dropout(x, self.dropout, True, self._generator)
        # One layer and direction: a view, not a copy
        finals = [M.expand_dims(kept[0], 0) if len(kept) == 1 else M.stack(kept, 0) for kept in finals]
        if not batched:
            x = M.squeeze(x, axis=1)
            finals = [M.squeeze(f, axis=1) for f in finals]
        elif self.batch_first:
            x = M.permute_dims(x, (1, 0, 2))
        return x, self._pack_finals(finals)

    def extra_repr(self) -> str:
        extras = [f"{self.input_size}, {self.hidden_size}"]
        for name, default in (("num_layers", 1), ("bias", True), ("batch_first", False), ("dropout", 0.0),
                              ("bidirectional", False)):
            if getattr(self, name) != default:
                extras.append(f"{name}={getattr(self, name)}")
        return ", ".join(extras)


class LSTM(_Recurrent):
    """Long short-term memory: ``output, (h_n, c_n) = lstm(x, (h_0, c_0))`` with x (T, B, input_size)
    (or (B, T, input_size) with ``batch_first``, or (T, input_size)), output (T, B, D * hidden_size) and
    h_n, c_n (num_layers * D, B, hidden_size), D = 2 when bidirectional. Gates i, f, g, o in that order in
    ``weight_ih_l{k}`` (4 * hidden_size, features) and ``weight_hh_l{k}`` (4 * hidden_size, hidden_size)."""

    gates = 4

    def _initial_states(self, hx, batch, batched, x):
        if hx is None:
            hx = (None, None)
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise ArgumentError(f"{self._describe()}: the initial state is a pair (h_0, c_0), got "
                                f"{type(hx).__name__}")
        return [self._initial(hx[0], "h_0", batch, batched, x), self._initial(hx[1], "c_0", batch, batched, x)]

    def _run_direction(self, x, states, suffix, reverse):
        length = x.shape[0]
        packed = _LSTMDirection.apply(x, states[0], states[1], *self._weights(suffix), reverse)
        return packed[:length], (packed[0 if reverse else length - 1], packed[length])

    @staticmethod
    def _pack_finals(finals):
        return tuple(finals)


class GRU(_Recurrent):
    """Gated recurrent unit: ``output, h_n = gru(x, h_0)``, shapes as in :class:`LSTM`; gates r, z, n in
    that order in ``weight_ih_l{k}`` (3 * hidden_size, features) and ``weight_hh_l{k}``."""

    gates = 3

    def _initial_states(self, hx, batch, batched, x):
        return [self._initial(hx, "h_0", batch, batched, x)]

    def _run_direction(self, x, states, suffix, reverse):
        hs = _GRUDirection.apply(x, states[0], *self._weights(suffix), reverse)
        return hs, (hs[0 if reverse else -1],)

    @staticmethod
    def _pack_finals(finals):
        return finals[0]


class SequenceLayer(Module):
    """The builder's recurrent layer (``LayerBuilder.lstm`` / ``.gru``): (batch, length, features) in; the
    last step's hidden state (batch, units) out, or every step's (batch, length, units) with
    ``return_sequences``."""

    def __init__(self, kind: str, features: int, units: int, return_sequences: bool, *, device=None, dtype="float32",
                 seed=None):
        super().__init__()
        self.return_sequences = bool(return_sequences)
        self.rnn = {"lstm": LSTM, "gru": GRU}[kind](features, units, batch_first=True, device=device, dtype=dtype,
                                                    seed=seed)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out if self.return_sequences else out[:, -1, :]
