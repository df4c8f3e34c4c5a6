"""DistributedTraining: a Network trained data-parallel over several devices (seed rnn-gpu-guide.md).

Note [Data-parallel training]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The network itself is the replica on the first device and holds the only optimizer; every other device gets
a replica built from the same architecture and loaded with the same weights. Each batch of the global
batch size is split into contiguous shards, one per device (their sizes differ by at most one row). Each
replica runs forward and backward on its shard with its loss weighted by its share of the batch's rows, so
the shards' gradients sum to the full batch's. The gradients are summed on the first device (a copy across
the bus for each other device's), the optimizer steps there (clipping and loss scaling included), and the
new weights and buffers are copied back to every replica.
Stepping once and sending the weights keeps the replicas identical even where devices round differently,
which an optimizer step on each replica would not guarantee; it moves as many bytes as sending the summed
gradients back would. So training follows one device's loss curve at the same global batch size, up to
rounding, except for what is per shard by nature: batch norm's batch statistics (as in PyTorch's
DistributedDataParallel without SyncBatchNorm; running statistics come from the first shard) and dropout's
masks. Replicas are driven from one thread: CUDA queues kernels asynchronously, so GPUs overlap; the CPU
and PoCL devices compute as ops are issued.

Over MPI (``comm``, an mpi4py communicator), every rank runs the above on its own devices for its share
of each batch: the batch is split into (ranks x devices) shards, rank r taking the r-th group. After the
local sum, one Allreduce of all gradients (in one host buffer) gives every rank the batch's full gradient,
and every rank takes the same optimizer step from it. Rank 0's initial weights are broadcast first, so all
ranks start alike; they stay alike as long as their devices round alike (ranks on different kinds of device
may drift apart by rounding, as with PyTorch's DistributedDataParallel). Buffers (batch norm's running
statistics, which each rank gathers from its own shard) are rank 0's, broadcast after every step, as
DistributedDataParallel does. Every rank passes the same x and y (the usual SPMD program) and gets the same
History.
"""

from __future__ import annotations

import numpy as np

from .. import _creation as C
from .. import _ops as O
from .._convert import asarray
from .._core import ArgumentError, _engine_devices
from ._gpu import DeviceInfo
from ._network import History, Network, TrainingConfig, _OneDevice


def _device_names(devices, include_cpu: bool) -> list[str]:
    if isinstance(devices, str):
        return _engine_devices(devices, bool(include_cpu))
    if not isinstance(devices, (list, tuple)):
        raise ArgumentError(f"devices must be 'all' or a list of device names or DeviceInfo, got {devices!r}")
    names = []
    for d in devices:
        if isinstance(d, DeviceInfo):
            names.append(d.device)
        elif isinstance(d, str):
            names.append(d)
        else:
            raise ArgumentError(f"devices must be 'all' or a list of device names or DeviceInfo, got {d!r}")
    return _engine_devices(",".join(names), bool(include_cpu))


class DistributedTraining:
    """Data-parallel training over ``devices`` (Note [Data-parallel training]): 'all' (every GPU and
    OpenCL device, with the CPU when ``include_cpu``), a list of device names, or the :class:`DeviceInfo` s of
    :meth:`GpuManager.devices`. ``train(network, x, y, config)`` moves the network to the first device,
    trains it there with replicas on the others, and returns the :class:`History`; ``config.batch_size`` is
    the global batch, shared among the devices. With ``comm`` (an mpi4py communicator, e.g.
    ``MPI.COMM_WORLD``) the batch is shared among every rank's devices too, gradients summed over MPI."""

    def __init__(self, devices="all", *, include_cpu: bool = False, comm=None):
        self._devices = _device_names(devices, include_cpu)
        if comm is not None and not all(hasattr(comm, name) for name in ("Allreduce", "Bcast", "Get_rank")):
            raise ArgumentError(f"comm must be an mpi4py communicator, got {type(comm).__name__}")
        self._comm = comm

    @staticmethod
    def new(devices) -> "DistributedTraining":
        """The seed's constructor: ``DistributedTraining.new(gpu_manager.devices())``."""
        return DistributedTraining(devices)

    @property
    def devices(self) -> list[str]:
        return list(self._devices)

    def __repr__(self) -> str:
        ranks = "" if self._comm is None else f", ranks={self._comm.Get_size()}"
        return f"DistributedTraining(devices={self._devices}{ranks})"

    def train(self, network: Network, x, y, config: TrainingConfig | None = None) -> History:
        if not isinstance(network, Network):
            raise ArgumentError(f"DistributedTraining.train takes a Network, got {type(network).__name__}")
        if network.device != self._devices[0]:
            network.to(self._devices[0])
        return network._fit(x, y, config, lambda net, xs, ys: _Replicas(net, xs, ys, self._devices, self._comm))

    fit = train


class _Replicas:
    """Each batch's shards on every device (of every rank), gradients summed on the first device (and over
    the ranks), weights sent back."""

    def __init__(self, network: Network, x: np.ndarray, y: np.ndarray, devices: list[str], comm=None):
        self.master, self.comm = network, comm
        self.rank, self.ranks = (0, 1) if comm is None else (comm.Get_rank(), comm.Get_size())
        if comm is not None:
            self._broadcast_weights()
        self.shards = [_OneDevice(network, x, y)]
        for device in devices[1:]:
            replica = Network(network.spec, device)
            replica.load_state_dict(network.state_dict())
            replica.model.train()
            self.shards.append(_OneDevice(replica, x, y))

    def epoch(self, order: np.ndarray) -> None:
        for shard in self.shards:
            shard.epoch(order)

    def batch(self, start: int, stop: int, autocast, scaler, update):
        rows, local = stop - start, len(self.shards)
        parts = local * self.ranks
        sizes = [rows // parts + (1 if s < rows % parts else 0) for s in range(parts)]
        offset = start + sum(sizes[:self.rank * local])
        loss_sum = hits = None
        active = []
        for i, shard in enumerate(self.shards):
            size = sizes[self.rank * local + i]
            if size == 0:
                continue
            if i > 0:
                for p in shard.network.parameters():
                    p.grad = None
            s_loss, s_hits = shard.forward_backward(offset, offset + size, autocast, scaler, size / rows)
            offset += size
            active.append(shard)
            s_loss = s_loss.to(self.master.device)
            loss_sum = s_loss if loss_sum is None else O.add(loss_sum, s_loss)
            if s_hits is not None:
                s_hits = s_hits.to(self.master.device)
                hits = s_hits if hits is None else O.add(hits, s_hits)
        self._sum_gradients(active)
        if self.comm is not None:
            self._allreduce_gradients()
        update()
        if self.comm is not None:
            # Batch norm's running statistics come from each rank's own shard: rank 0's hold for all, so that
            # every rank evaluates and saves the same network.
            self._broadcast_weights(buffers_only=True)
        for shard in self.shards[1:]:
            shard.network.load_state_dict(self.master.state_dict())
        if loss_sum is None:  # this rank had no rows of a batch smaller than the shards
            loss_sum = C.zeros((), dtype="float64", device=self.master.device)
            hits = C.zeros((), dtype="float64", device=self.master.device)
        return loss_sum, hits

    def total(self, value: float) -> float:
        if self.comm is None:
            return value
        buffer = np.array([value], dtype=np.float64)
        self.comm.Allreduce(_in_place(), buffer)
        return float(buffer[0])

    def _sum_gradients(self, active) -> None:
        """Every shard's gradient added into the first device's (a parameter without one counts as zero)."""
        device = self.master.device
        mine = list(self.master.parameters())
        for shard in active:
            if shard.network is self.master:
                continue
            for p, q in zip(mine, shard.network.parameters()):
                if q.grad is None:
                    continue
                g = q.grad.to(device)
                p.grad = g if p.grad is None else O.add(p.grad, g)

    def _allreduce_gradients(self) -> None:
        """The first device's gradients summed over every rank: one host buffer, one Allreduce."""
        params = list(self.master.parameters())
        pieces = [np.zeros(p.shape, dtype=p.dtype.name) if p.grad is None else p.grad.numpy() for p in params]
        flat = np.concatenate([piece.ravel() for piece in pieces]) if pieces else np.zeros(0)
        self.comm.Allreduce(_in_place(), flat)
        at = 0
        for p, piece in zip(params, pieces):
            p.grad = asarray(flat[at:at + piece.size].reshape(piece.shape), device=self.master.device)
            at += piece.size

    def _broadcast_weights(self, buffers_only: bool = False) -> None:
        """Rank 0's weights and buffers (or its buffers alone) on every rank."""
        buffers = {name for name, _ in self.master.model.named_buffers()}
        state = {name: t.numpy() for name, t in self.master.state_dict().items()}
        shared = sorted(name for name in state if name in buffers or not buffers_only)
        if not shared:
            return
        for name in shared:
            array = np.array(state[name], copy=True, order="C")
            self.comm.Bcast(array, root=0)
            state[name] = array
        self.master.load_state_dict(state)


def _in_place():
    from mpi4py import MPI
    return MPI.IN_PLACE
