"""accelera.simulate: the engine's plans and the distributed schedules replayed on models of machines that are
not here, to predict their time.

Note [Simulator]
~~~~~~~~~~~~~~~~
A machine is a set of device models (a GEMM rate per dtype that depends on the product's smallest extent, a
per-call cost, host->device and device->host bandwidth and latency, one or two copy engines, the host's
packing rate) and, between processes, a network model (broadcast bandwidth and latency, all-to-all
bandwidth). Models come from measurements on the machine at hand (:func:`calibrate_device`,
:func:`calibrate_rank_gemm`, :func:`calibrate_network`) or from stated figures (:func:`h100_pcie`).
Calibrations take the fastest of several runs, interleaved across the shapes they time, and products long
enough (a millisecond or more) for a timer to resolve: the models have no operating-system noise, and on a
shared VM noise only ever adds time. A rank's GEMM is measured while the other ranks' processes compute
too, since they share the caches and the memory bandwidth.

:func:`simulate_engine` takes the engine's own plan (:func:`plan`, the C++ planner with the given budgets)
and replays the executor step by step: for each tile and K step the host packs the panels not already
resident (waiting until the slot's previous upload is done), the upload engine copies them (after the last
GEMM that read the slot), the device multiplies, and after the last K step the download engine brings the
tile back, which the host unpacks when it reuses the output buffer (Note [Streamed execution]). Several
devices each run such a pipeline on their own host thread and take tiles as the work-stealing scheduler
hands them out (Note [Work stealing]), the next tile going to the device whose host thread asks first.
Devices that compute on the host's own cores (the CPU, PoCL) share them: each runs its GEMMs at the rate
divided by how many such devices take part. Such a device with a bus of its own (PoCL) has no copy engines:
its copies are memcpy calls on the cores its GEMMs keep busy, as is the host's packing, so its pipeline
takes one step at a time (at n = 4096 on PoCL, 0.1 s of copies and packing next to 2.1 s of GEMMs, which
the model had hidden behind them).

:func:`simulate_summa` replays accelera::dist's SUMMA (Note [Distributed matmul]) on the process that holds
the most blocks: per panel, A's broadcast along the process row and B's down the column (a pipelined
broadcast: latency x ceil(log2 P) + bytes / bandwidth), the packing, the upload of both panels when the
rank computes on a device, and the local GEMM. With ``overlap`` (the implementation's default) and a
network whose transfers need no CPU (``NetworkModel.offloaded``), panel p + 1's broadcasts run while panel p
is multiplied, so each step costs the slower of the two. Ranks that oversubscribe one machine's cores get
``share`` of a core each, for their products and their packing alike.

:func:`simulate_split_k` does the same for the split-K schedule (Note [Split K]): the all-to-all of each
rank's share of A and B (with the redistribution's packing, runs of 64 elements gathered by index, at the
gather rate measured for that pattern: 4.6 GB/s here against a bulk copy's 10.3), its product, and the
reduce-scatter of the partial products.

What it leaves out: the host's memory bandwidth shared by several devices' copies (unless a machine model
caps it, ``host_bandwidth``), contention on the network beyond one link per rank, and operating-system
noise. Validated against measurements here in ``bench/bench_simulate.py`` (docs/benchmarks.md).
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from . import _core

__all__ = ["GemmModel", "DeviceModel", "NetworkModel", "plan", "simulate_engine", "simulate_summa",
           "simulate_split_k", "calibrate_device", "calibrate_rank_gemm", "calibrate_network", "h100_pcie",
           "infiniband_ndr200"]


@dataclasses.dataclass(frozen=True)
class GemmModel:
    """A product of m x k by k x n takes call_seconds + 2mnk / rate, the rate a function of its smallest extent
    s. Measured models carry their rates at measured extents (``table``: (extent, FLOP/s) pairs, interpolated
    in log(extent), flat beyond the ends), for products whose short side is K (an outer-product shape: the
    engine's tiles, SUMMA's panels), and optionally ``long_k_table`` for products whose K is the long side (a
    small C over a long K: split K's partial products, which BLAS runs slower at the same smallest extent);
    stated ones use rate(s) = peak x s / (s + half_edge)."""

    peak: float          # FLOP/s
    half_edge: float     # the smallest extent at which the rate is half of peak
    call_seconds: float  # fixed cost of one call
    table: tuple = ()
    long_k_table: tuple = ()

    @staticmethod
    def _interpolate(table, s: int) -> float:
        edges = np.log([e for e, _ in table])
        return float(np.interp(math.log(s), edges, [r for _, r in table]))

    def rate(self, s: int, long_k: bool = False) -> float:
        if long_k and self.long_k_table:
            return self._interpolate(self.long_k_table, s)
        if self.table:
            return self._interpolate(self.table, s)
        return self.peak * s / (s + self.half_edge)

    def seconds(self, m: int, n: int, k: int, share: float = 1.0) -> float:
        if m * n * k == 0:
            return 0.0
        s = min(m, n, k)
        return self.call_seconds + 2.0 * m * n * k / (self.rate(s, long_k=k > max(m, n)) * share)


@dataclasses.dataclass(frozen=True)
class DeviceModel:
    name: str
    gemm: dict                    # dtype name -> GemmModel
    upload: float = 0.0           # bytes/s host -> device; 0: no bus (the CPU device)
    download: float = 0.0         # bytes/s device -> host
    latency: float = 0.0          # seconds per copy
    pack: float = 5e9             # bytes/s the host packs panels into staging and unpacks tiles
    gather: float = 0.0           # bytes/s gathered in runs of 64 elements (the redistribution's packing);
    # 0: half of pack (pack counts a copy's reads and writes, gather the bytes that arrive)
    copy_engines: int = 2         # 1: uploads and downloads share one engine
    shares_host: bool = False     # computes on the host's cores (the CPU device, PoCL)
    memory: int = 0               # bytes the engine may use on it

    @property
    def has_bus(self) -> bool:
        return self.upload > 0


@dataclasses.dataclass(frozen=True)
class NetworkModel:
    bandwidth: float  # bytes/s per rank's link
    latency: float    # seconds per message
    # Transfers run without the rank's cores (RDMA): SUMMA's helper thread then broadcasts the next panel
    # while the rank multiplies. Over shared memory the copies are the rank's own core's work, and overlap
    # hides nothing.
    offloaded: bool = False
    # Bytes/s one rank sends while every rank exchanges with every other (an all-to-all); 0: ``bandwidth``.
    # Over shared memory each rank's core copies both what it sends and what it receives, so this is well
    # below a broadcast's rate (2.4-3.7 GB/s against 10.5 on a 2-vCPU VM).
    exchange_bandwidth: float = 0.0

    @property
    def exchange(self) -> float:
        return self.exchange_bandwidth or self.bandwidth


def plan(m: int, n: int, k: int, dtype: str, budgets, strategy: str = "adaptive") -> dict:
    """The engine's plan for devices with these budgets (bytes): accelera's own planner, no device needed."""
    return _core._plan_streamed_matmul(int(m), int(n), int(k), np.dtype(dtype).name, [int(b) for b in budgets],
                                       strategy)


# ---- the out-of-core engine -------------------------------------------------------------------------------

class _Pipeline:
    """One device's executor timeline (Note [Streamed execution]): host thread, copy engines, compute."""

    def __init__(self, model: DeviceModel, gemm: GemmModel, itemsize: int, share: float):
        self.model, self.gemm, self.e, self.share = model, gemm, itemsize, share
        self.host = self.up = self.down = self.compute = 0.0
        # A device on the host's cores with a bus of its own (PoCL) has no copy engines: its copies, and the
        # host's packing, run on the cores its GEMMs keep busy, so they take turns (Note [Simulator]).
        self.serial = model.shares_host and model.has_bus
        self.slots = {"a": [dict(key=None, uploaded=0.0, read=0.0, used=-1) for _ in range(2)],
                      "b": [dict(key=None, uploaded=0.0, read=0.0, used=-1) for _ in range(2)]}
        self.out = [dict(pending=None, done=0.0) for _ in range(2)]
        self.taken = self.step = self.tiles = 0
        self.busy = 0.0
        self.bytes_in = 0

    def _copy(self, engine: str, ready: float, nbytes: int, bandwidth: float) -> float:
        if self.model.copy_engines == 1:
            engine = "up"
        start = max(getattr(self, engine), ready)
        end = start + self.model.latency + nbytes / bandwidth
        setattr(self, engine, end)
        self._take_turns()
        return end

    def _take_turns(self) -> None:
        """On a serial device, what the host, the copies and the GEMMs did so far holds every one of them."""
        if self.serial:
            self.host = self.up = self.down = self.compute = max(self.host, self.up, self.down, self.compute)

    def _load(self, which: str, key, rows: int, cols: int) -> dict:
        slots = self.slots[which]
        for slot in slots:
            if slot["key"] == key:
                slot["used"] = self.step
                return slot
        slot = min(slots, key=lambda s: s["used"])
        nbytes = rows * cols * self.e
        if self.model.has_bus:
            self._take_turns()
            self.host = max(self.host, slot["uploaded"]) + nbytes / self.model.pack
            slot["uploaded"] = self._copy("up", max(self.host, slot["read"]), nbytes, self.model.upload)
            self.bytes_in += nbytes
        else:
            self.host += nbytes / self.model.pack
            slot["uploaded"] = self.host
        slot["key"], slot["used"] = key, self.step
        return slot

    def _finish(self, slot: dict) -> None:
        rows, cols = slot["pending"]
        self._take_turns()
        self.host = max(self.host, slot["done"]) + rows * cols * self.e / self.model.pack
        self._take_turns()
        slot["pending"] = None

    def run_tile(self, tile, k: int, tile_k: int) -> None:
        row0, rows, col0, cols = tile
        start = self.host
        out = self.out[self.taken % 2]
        self.taken += 1
        if out["pending"] is not None:
            self._finish(out)
        computed = self.host
        for k0 in range(0, k, tile_k):
            kk = min(tile_k, k - k0)
            a = self._load("a", (row0, rows, k0, kk), rows, kk)
            b = self._load("b", (k0, kk, col0, cols), kk, cols)
            seconds = self.gemm.seconds(rows, cols, kk, self.share)
            if self.model.has_bus:
                begin = max(self.compute, a["uploaded"], b["uploaded"], self.host)
                self.compute = begin + seconds
                self._take_turns()
            else:  # the CPU device multiplies on the host thread itself
                begin = max(self.host, a["uploaded"], b["uploaded"])
                self.compute = self.host = begin + seconds
            a["read"] = b["read"] = computed = self.compute
            self.step += 1
        if self.model.has_bus:
            out["done"] = self._copy("down", computed, rows * cols * self.e, self.model.download)
            out["pending"] = (rows, cols)
        else:
            self.host += rows * cols * self.e / self.model.pack
        self.tiles += 1
        self.busy += max(self.host, self.compute) - start

    def drain(self) -> float:
        for slot in sorted((s for s in self.out if s["pending"] is not None), key=lambda s: s["done"]):
            self._finish(slot)
        return max(self.host, self.compute, self.up, self.down)


class _Scheduler:
    """Note [Work stealing]: contiguous runs, the back half of the longest run stolen when one is empty."""

    def __init__(self, tiles: int, devices: int):
        self.runs, start = [], 0
        for d in range(devices):
            count = tiles // devices + (1 if d < tiles % devices else 0)
            self.runs.append(list(range(start, start + count)))
            start += count

    def take(self, d: int):
        if not self.runs[d]:
            victim = max(self.runs, key=len)
            if not victim:
                return None
            half = (len(victim) + 1) // 2
            self.runs[d] = victim[len(victim) - half:]
            del victim[len(victim) - half:]
        return self.runs[d].pop(0)


def simulate_engine(m: int, n: int, k: int, dtype: str, devices, strategy: str = "adaptive") -> dict:
    """Predicted seconds of MatrixEngine.matmul of host operands over ``devices`` (DeviceModel s, each with its
    ``memory`` as budget), with the tiles each device takes. Products that fit one device's budget run in core
    (operands up, one GEMM, result down)."""
    devices = list(devices)
    e = np.dtype(dtype).itemsize
    if len(devices) == 1 and (m * k + k * n + m * n) * e <= devices[0].memory:
        d = devices[0]
        g = d.gemm[np.dtype(dtype).name].seconds(m, n, k)
        copies = ((m * k + k * n) * e / d.upload + m * n * e / d.download + 3 * d.latency) if d.has_bus else 0.0
        return {"seconds": g + copies, "tiles": [1], "plan": None, "in_core": True}
    p = plan(m, n, k, dtype, [d.memory for d in devices], strategy)
    tiles, tile_k = p["tiles"], p["tile_shape"][2]
    shared = sum(1 for d in devices if d.shares_host)
    pipes = [_Pipeline(d, d.gemm[np.dtype(dtype).name], e, 1.0 / shared if d.shares_host and shared > 1 else 1.0)
             for d in devices]
    scheduler = _Scheduler(len(tiles), len(devices))
    active = set(range(len(devices)))
    while active:
        d = min(active, key=lambda i: pipes[i].host)
        t = scheduler.take(d)
        if t is None:
            active.discard(d)
            continue
        pipes[d].run_tile(tiles[t], k, tile_k)
    end = max(pipe.drain() for pipe in pipes)
    return {"seconds": end, "tiles": [pipe.tiles for pipe in pipes], "busy": [pipe.busy for pipe in pipes],
            "plan": p, "in_core": False}


# ---- accelera::dist -------------------------------------------------------------------------------------

def _local_extent(n: int, nb: int, iproc: int, nprocs: int) -> int:
    blocks, extent = n // nb, (n // nb // nprocs) * nb
    extra = blocks % nprocs
    if iproc < extra:
        extent += nb
    elif iproc == extra:
        extent += n % nb
    return extent


def _broadcast(nbytes: float, procs: int, network: NetworkModel) -> float:
    if procs <= 1:
        return 0.0
    return math.ceil(math.log2(procs)) * network.latency + nbytes / network.bandwidth


def _panel_width(mloc: int, nloc: int, k: int) -> int:
    """GemmOptions::panel_width = 0's choice (Note [Distributed matmul]): at least 256 columns, wider for a
    small local C, up to 2 Mi elements of both panels and a quarter of K."""
    return max(256, min((1 << 21) // max(1, mloc + nloc), k // 4))


def simulate_summa(m: int, n: int, k: int, dtype: str, nprow: int, npcol: int, device: DeviceModel,
                   network: NetworkModel, block: int = 64, panel_width: int = 0, share: float = 1.0,
                   c_resident: bool = True, overlap: bool = True) -> dict:
    """Predicted seconds of accelera::dist::gemm by SUMMA for an m x n x k product on an nprow x npcol grid
    with block x block blocks, each rank computing on ``device`` at ``share`` of its GEMM rate (ranks that
    oversubscribe one host's cores get less than all of it); ``overlap`` and ``panel_width`` (0: as the
    library chooses) as in GemmOptions."""
    e = np.dtype(dtype).itemsize
    gemm = device.gemm[np.dtype(dtype).name]
    mloc, nloc = _local_extent(m, block, 0, nprow), _local_extent(n, block, 0, npcol)
    group = max(1, (panel_width or _panel_width(mloc, nloc, k)) // block)
    width_max = min(k, group * block)
    bcast = compute = 0.0
    steps = []  # (broadcast, compute) seconds of each panel
    for first in range(0, k, width_max):
        w = min(width_max, k - first)
        a_bytes, b_bytes = mloc * w * e, w * nloc * e
        blocks = math.ceil(w / block)
        t_b = sum(_broadcast(a_bytes / blocks, npcol, network) + _broadcast(b_bytes / blocks, nprow, network)
                  for _ in range(blocks))
        # A process column (row) of one multiplies views of its own A (B): nothing to pack.
        packed = (a_bytes if npcol > 1 else 0) + (2 * b_bytes if nprow > 1 else 0)
        t_c = packed / (device.pack * share) + gemm.seconds(mloc, nloc, w, share)
        if device.has_bus:
            t_c += (a_bytes + b_bytes) / device.upload + 2 * device.latency
        bcast += t_b
        compute += t_c
        steps.append((t_b, t_c))
    if overlap and network.offloaded and steps:
        # The first panel's broadcast alone, then each product alongside the next panel's broadcast.
        total = steps[0][0] + sum(max(t_c, steps[i + 1][0] if i + 1 < len(steps) else 0.0)
                                  for i, (_, t_c) in enumerate(steps))
    else:
        total = bcast + compute
    if device.has_bus and c_resident:
        total += 2 * mloc * nloc * e / device.upload
    return {"seconds": total, "broadcast_seconds": bcast, "compute_seconds": compute,
            "local_shape": (mloc, nloc)}


def simulate_split_k(m: int, n: int, k: int, dtype: str, nprow: int, npcol: int, device: DeviceModel,
                     network: NetworkModel, block: int = 64, share: float = 1.0) -> dict:
    """Predicted seconds of accelera::dist::gemm by split K (Note [Split K]) on the rank with the largest
    share of K: its share of A (from the other process rows) and of B gathered by one all-to-all each
    (latency per peer, bytes over its link; packed into the send buffer and unpacked from the receive buffer
    whole, the rank's own part included, in runs of ``block`` elements at the gather rate (Note
    [Redistribution]); the own part copied between the two buffers by MPI), the m x n x share product (with
    uploads and the partial's download on a device with a bus), and the reduce-scatter of the partials
    (its m n / P part of every other rank's partial over its link, summed on the host)."""
    e = np.dtype(dtype).itemsize
    gemm = device.gemm[np.dtype(dtype).name]
    p = nprow * npcol
    kp = _local_extent(k, block, 0, p)
    a_bytes, b_bytes, c_bytes = m * kp * e, kp * n * e, m * n * e
    exchange = 0.0
    # The library uses A in place on one process row and B on one process column (blocks line up here).
    moved = [(a_bytes, 1 - 1 / nprow)] if nprow > 1 else []
    moved += [(b_bytes, 1 - 1 / p)] if npcol > 1 else []
    gather = device.gather or device.pack / 2
    for nbytes, fraction in moved:
        exchange += (p - 1) * network.latency + nbytes * fraction / network.exchange
        exchange += 2 * nbytes / (gather * share)  # packed by the sender, unpacked by the receiver
        exchange += 2 * nbytes * (1 - fraction) / (device.pack * share)  # MPI's copy of the own part
    compute = gemm.seconds(m, n, kp, share)
    if device.has_bus:
        compute += (a_bytes + b_bytes) / device.upload + c_bytes / device.download + 3 * device.latency
    reduce = 0.0
    if p > 1:
        part = c_bytes * (p - 1) / p
        reduce = (p - 1) * network.latency + part / network.exchange + (c_bytes + part) / (device.pack * share)
    return {"seconds": exchange + compute + reduce, "exchange_seconds": exchange, "compute_seconds": compute,
            "reduce_seconds": reduce, "share": kp}


# ---- models ---------------------------------------------------------------------------------------------

def _fastest_seconds(f, repeat: int) -> float:
    """The fastest of ``repeat`` timed runs after one untimed: the models have no operating-system noise, and
    on a shared machine noise only ever adds time, so the fastest run is the closest measure of what they
    model (the median moved by a third between runs on a 2-vCPU VM; Note [Simulator])."""
    f()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return float(min(times))


def _fit_gemm(device: str, dtypes, edges, repeat: int, long_edge: int = 1024) -> dict:
    """GemmModel per dtype from products on ``device`` (the fastest of ``repeat``), as a table of rates by the
    smallest extent s. Each product is long_edge x s times s x long_edge (square from s = long_edge on): the
    engine's tiles and SUMMA's panels multiply over a short K as well, and a product that long takes a
    millisecond or more even at s = 64, which a timer on a noisy machine resolves (a square product of 64
    takes microseconds, and its measured rate moved 5x from run to run). Below long_edge, s x 8 long_edge
    times 8 long_edge x s gives the long-K table (GemmModel)."""
    import accelera as ac

    gemms = {}
    for dt in dtypes:
        # The call cost first: a small square product, whose time is mostly that.
        small = ac.asarray(np.ones((16, 16), dt), device=device)

        def tiny():
            ac.matmul(small, small)
            _core._synchronize(device)

        call = min(_fastest_seconds(tiny, max(repeat, 5)), 1e-3)
        products = []  # (table, edge, FLOPs, A, B)
        for edge in edges:
            outer = max(edge, long_edge)
            rng = np.random.default_rng(edge)
            shapes = [("short_k", (outer, edge), (edge, outer))]
            if edge < long_edge:  # a small C over a long K
                shapes.append(("long_k", (edge, 8 * long_edge), (8 * long_edge, edge)))
            for which, sa, sb in shapes:
                a = ac.asarray(rng.uniform(-1, 1, sa).astype(dt), device=device)
                b = ac.asarray(rng.uniform(-1, 1, sb).astype(dt), device=device)
                products.append((which, edge, 2.0 * sa[0] * sa[1] * sb[1], a, b))
        # Interleaved passes over the products, the fastest pass of each kept: a burst of noise then spoils
        # one pass of every product rather than every pass of one.
        fastest = [math.inf] * len(products)
        for pass_ in range(repeat + 1):  # the first pass warms up and is not counted
            for i, (_, _, _, a, b) in enumerate(products):
                start = time.perf_counter()
                ac.matmul(a, b)
                _core._synchronize(device)
                if pass_ > 0:
                    fastest[i] = min(fastest[i], time.perf_counter() - start)
        tables = {"short_k": [], "long_k": []}
        for (which, edge, flops, _, _), seconds in zip(products, fastest):
            tables[which].append((edge, flops / max(seconds - call, 1e-9)))
        table = tuple(tables["short_k"])
        long_k = tuple(tables["long_k"]) + tuple(p for p in table if p[0] >= long_edge)
        gemms[dt] = GemmModel(peak=max(r for _, r in table), half_edge=0.0, call_seconds=call, table=table,
                              long_k_table=long_k)
    return gemms


def calibrate_device(device: str, dtypes=("float32", "float64"), edges=(64, 128, 256, 512, 1024, 2048),
                     repeat: int = 5) -> DeviceModel:
    """A model of ``device`` from measurements: GEMM rates by smallest extent (:func:`_fit_gemm`), copy rates
    host<->device of 64 MiB (each way alone: the upload is timed to the device's completion, with no copy
    back), the host's packing rate (a block of a larger matrix copied out, as panels are) and its gather rate
    (every other run of 64 float64 elements of a 64 MiB array copied out, as the redistribution packs)."""
    import accelera as ac

    info = next(d for d in ac.devices() if d["device"] == device)
    gemms = _fit_gemm(device, dtypes, edges, repeat)
    host = np.random.default_rng(0).uniform(-1, 1, (4096, 4096)).astype(np.float32)
    block = np.empty((4096, 2048), np.float32)
    pack = 2 * block.nbytes / _fastest_seconds(lambda: np.copyto(block, host[:, 1024:3072]), repeat)
    runs = host.view(np.float64).reshape(-1, 2, 64)
    gathered = np.empty((runs.shape[0], 64))
    gather = gathered.nbytes / _fastest_seconds(lambda: np.copyto(gathered, runs[:, 0, :]), repeat)
    upload = download = 0.0
    if device != "cpu":
        on_device = ac.asarray(host, device=device)

        def up():
            ac.asarray(host, device=device)
            _core._synchronize(device)

        upload = host.nbytes / _fastest_seconds(up, repeat)
        download = host.nbytes / _fastest_seconds(lambda: on_device.numpy(), repeat)
    return DeviceModel(name=device, gemm=gemms, upload=upload, download=download, latency=20e-6, pack=pack,
                       gather=gather, copy_engines=2, shares_host=not info["is_accelerator"],
                       memory=int(info["total_memory"] * 0.9))


def calibrate_rank_gemm(threads: int, dtypes=("float32", "float64"), edges=(64, 128, 256, 512, 1024, 2048),
                        blas: str = "builtin", ranks: int = 1) -> dict:
    """GemmModel s of the CPU as one of ``ranks`` MPI ranks on this machine sees it: measured in ``ranks``
    child processes at once (each with ``threads`` BLAS and OpenMP threads and the BLAS that C++ programs
    use, ACCELERA_CPU_BLAS=builtin), released together once all have started, so that each product shares
    the cores, caches and memory bandwidth as a rank's does while the others compute; per extent, the median
    of the ranks' rates. (One process alone measured 1.4x the per-rank rate that two ranks on two vCPUs
    reached.)"""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, ACCELERA_CPU_BLAS=blas, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    code = ("import json, sys\nfrom accelera import simulate as s\n"
            "print('ready', flush=True)\nsys.stdin.readline()\n"
            f"g = s._fit_gemm('cpu', {tuple(dtypes)!r}, {tuple(edges)!r}, 5)\n"
            "print(json.dumps({k: [v.peak, v.half_edge, v.call_seconds, v.table, v.long_k_table] "
            "for k, v in g.items()}))\n")
    children = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env) for _ in range(max(1, ranks))]
    try:
        for child in children:
            line = child.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"a GEMM calibration process did not start: {child.stderr.read()[-500:]}")
        for child in children:
            child.stdin.write("go\n")
            child.stdin.flush()
        answers = []
        for child in children:
            out, err = child.communicate(timeout=600)
            if child.returncode != 0:
                raise RuntimeError(f"a GEMM calibration process exited with {child.returncode}: {err[-500:]}")
            answers.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    models = {}
    for dt in answers[0]:
        def median_table(index):
            tables = [a[dt][index] for a in answers]
            return tuple((edge, float(np.median([t[i][1] for t in tables]))) for i, (edge, _) in enumerate(tables[0]))

        table = median_table(3)
        call = float(np.median([a[dt][2] for a in answers]))
        models[dt] = GemmModel(max(r for _, r in table), 0.0, call, table, median_table(4))
    return models


def calibrate_network(sizes=(1 << 10, 1 << 16, 1 << 20, 1 << 24), ranks: int = 2) -> NetworkModel:
    """Broadcast bandwidth and latency, and all-to-all bandwidth, between ``ranks`` MPI processes on this
    machine (mpirun, mpi4py): the fastest of 7 per size, a line fitted through the sizes."""
    import json
    import os
    import subprocess
    import sys
    import tempfile

    script = (
        "import json, time\nimport numpy as np\nfrom mpi4py import MPI\ncomm = MPI.COMM_WORLD\n"
        "p = comm.Get_size()\nout = {'bcast': [], 'alltoall': []}\n"
        "def fastest(f):\n    f(); times = []\n    for _ in range(7):\n"
        "        comm.Barrier(); start = time.perf_counter(); f()\n"
        "        comm.Barrier(); times.append(time.perf_counter() - start)\n    return min(times)\n"
        f"for size in {list(sizes)}:\n"
        "    buf = np.ones(size // 8)\n    out['bcast'].append((size, fastest(lambda: comm.Bcast(buf))))\n"
        "    send, recv = np.ones(p * (size // 8)), np.empty(p * (size // 8))\n"
        "    out['alltoall'].append((size * (p - 1), fastest(lambda: comm.Alltoall(send, recv))))\n"
        "if comm.Get_rank() == 0: print(json.dumps(out))\n")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(script)
    try:
        proc = subprocess.run(["mpirun", "-np", str(ranks), "--oversubscribe", sys.executable, f.name],
                              capture_output=True, text=True, timeout=300, env=env, check=True)
    finally:
        os.unlink(f.name)
    measured = json.loads(proc.stdout.strip().splitlines()[-1])

    def fit(points):
        slope, intercept = np.polyfit([float(s) for s, _ in points], [t for _, t in points], 1)
        return 1.0 / max(slope, 1e-15), intercept

    bandwidth, intercept = fit(measured["bcast"])
    exchange, _ = fit(measured["alltoall"])
    hops = math.ceil(math.log2(ranks))
    return NetworkModel(bandwidth=bandwidth, latency=max(intercept / hops, 1e-7), exchange_bandwidth=exchange)


def h100_pcie(count_in_host: int = 1) -> DeviceModel:
    """An NVIDIA H100 (SXM) as the simulator's predictions assume it: float32 at 50 TFLOP/s (SIMT, TF32
    off, as accelera's default), float64 at 55 TFLOP/s (tensor cores), 512-edge half rate; PCIe 5.0 x16 at
    50 GB/s each way with two copy engines; 80 GB of which 72 GB for the engine; the host packs at 20 GB/s
    per device, shared when ``count_in_host`` devices pack at once (one host: about 150 GB/s in all)."""
    pack = min(20e9, 150e9 / count_in_host)
    link = min(50e9, 150e9 / count_in_host)
    return DeviceModel(name="h100", gemm={"float32": GemmModel(50e12, 512, 10e-6),
                                          "float64": GemmModel(55e12, 512, 10e-6)},
                       upload=link, download=link, latency=10e-6, pack=pack, copy_engines=2,
                       shares_host=False, memory=72 * 10 ** 9)


def infiniband_ndr200() -> NetworkModel:
    """One 200 Gb/s InfiniBand link per node: 23 GB/s achieved, 3 microseconds per message."""
    return NetworkModel(bandwidth=23e9, latency=3e-6, offloaded=True)
