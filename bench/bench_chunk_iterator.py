"""ChunkIterator over a memory-mapped file, against the device's measured host-to-device bandwidth, in one run.

    python bench/bench_chunk_iterator.py [--device opencl:0] [--gib 4] [--dir /tmp] [--op none touch sum]
                                         [--repeat 3]

Writes a --gib GiB float32 .npy file (1024 columns) and maps it. Reference: the host-to-device bandwidth of
the device, measured here as synchronous uploads of chunk-sized blocks from host memory (the best of
--repeat passes over the same bytes). Then ChunkIterator(memmap, 'row', memory_manager of the device) with
the caller's op on every chunk ('sum': row sums on the device; 'scale': x * 2 written back to a second
memmap; 'touch': the maximum of the chunk's last row, a light op that still needs the chunk on the device;
'none': nothing, the iterator alone), with prefetch on and off. The op's own rate on a chunk already on the
device is measured too: the loop cannot beat the slower of the bus and the op. Rate = bytes uploaded / wall time of the whole loop, ratio
= rate / reference. The op's results are checked against NumPy in float64. The file is removed at the end.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import sys
import tempfile
import time

import numpy as np

import accelera as ac
from accelera.chunking import ChunkIterator

COLUMNS = 1024


def write_file(path: pathlib.Path, rows: int) -> np.memmap:
    data = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(rows, COLUMNS))
    block = 16384
    rng = np.random.default_rng(0)
    pattern = rng.uniform(-1, 1, (block, COLUMNS)).astype(np.float32)
    for r in range(0, rows, block):
        n = min(block, rows - r)
        data[r:r + n] = pattern[:n] + np.float32(r // block % 7)
    data.flush()
    del data
    # On disk before timing starts: write-back of dirty pages would otherwise compete for the cores.
    with open(path, "rb+") as f:
        os.fsync(f.fileno())
    return np.load(path, mmap_mode="r")


def upload_bandwidth(device: str, chunk_bytes: int, total_bytes: int, repeat: int) -> float:
    """Bytes per second of synchronous uploads of chunk_bytes blocks from (resident) host memory."""
    host = np.ones(chunk_bytes // 4, np.float32)
    passes = max(1, total_bytes // chunk_bytes // 4)
    ac.asarray(host).to(device)  # warm-up: device buffers cached by the allocator
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(passes):
            ac.asarray(host).to(device)
        best = min(best, time.perf_counter() - start)
    return passes * chunk_bytes / best


def apply(op, chunk, it):
    if op == "sum":
        return ac.sum(chunk, axis=1)
    if op == "touch":
        return ac.max(chunk[-1])
    if op == "scale":
        result = ac.multiply(chunk, 2.0)
        if it is not None:
            it.write(result)
        return result
    return None


def op_rate(device: str, op: str, chunk_rows: int, repeat: int) -> float:
    """Bytes per second the op alone gets through on a chunk already on the device."""
    if op == "none":
        return float("inf")
    chunk = ac.asarray(np.ones((chunk_rows, COLUMNS), np.float32)).to(device)
    ac.asarray(apply(op, chunk, None)).numpy()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(4):
            result = apply(op, chunk, None)
        result.numpy()
        best = min(best, (time.perf_counter() - start) / 4)
    return chunk.size * 4 / best


def run_iterator(data, device, op, prefetch, out_path):
    manager = ac.MemoryManager(device)
    out = None
    if op == "scale":
        out = np.lib.format.open_memmap(out_path, mode="w+", dtype=np.float32, shape=data.shape)
    partial = []
    it = ChunkIterator(data, "row", None, manager, prefetch=prefetch, out=out)
    start = time.perf_counter()
    for chunk in it:
        result = apply(op, chunk, it)
        if op in ("sum", "touch"):
            partial.append(result)
    results = [p.numpy() for p in partial]  # waits for the device
    seconds = time.perf_counter() - start
    return it, seconds, results, out


def check(data, op, results, out, it) -> str:
    if op == "sum":
        got = np.concatenate(results).astype(np.float64)
        worst = 0.0
        for r in range(0, data.shape[0], 1 << 16):
            block = data[r:r + (1 << 16)].astype(np.float64)
            err = np.abs(got[r:r + len(block)] - block.sum(axis=1)) / np.abs(block).sum(axis=1)
            worst = max(worst, float(err.max()))
        assert worst < 1e-5, f"row sums wrong: relative error {worst}"
        return f"row sums match float64 (worst error {worst:.1e} of the sum of |x|)"
    if op == "touch":
        for (row0, rows, _, _), got in zip(it.regions, results):
            assert float(got) == float(data[row0 + rows - 1].max()), (row0, rows)
        return "every chunk's last-row maximum matches"
    if op == "scale":
        for r in (0, data.shape[0] // 2, data.shape[0] - 7):
            np.testing.assert_array_equal(out[r:r + 7], data[r:r + 7] * 2)
        return "written rows match (sampled)"
    return "no op"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="opencl:0")
    parser.add_argument("--gib", type=float, default=4.0)
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--op", choices=["sum", "scale", "touch", "none"], nargs="+", default=["none", "touch", "sum"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.device not in [d["device"] for d in ac.devices()]:
        print(f"bench_chunk_iterator: no device {args.device}", file=sys.stderr)
        return 2
    rows = int(args.gib * 2**30) // (COLUMNS * 4)
    path = pathlib.Path(args.dir) / f"accelera-chunks-{os.getpid()}.npy"
    out_path = path.with_name(path.stem + "-out.npy")
    try:
        start = time.perf_counter()
        data = write_file(path, rows)
        print(f"wrote {data.nbytes / 2**30:.2f} GiB to {path} in {time.perf_counter() - start:.1f} s")
        probe = ChunkIterator(data, "row", None, ac.MemoryManager(args.device))
        chunk_bytes = probe.chunk_size * COLUMNS * 4
        reference = upload_bandwidth(args.device, chunk_bytes, data.nbytes, args.repeat)
        run_iterator(data, args.device, "none", False, out_path)  # untimed: maps the file's pages once
        info = next(d for d in ac.devices() if d["device"] == args.device)
        print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; device "
              f"{args.device} ({info['name']})")
        print(f"chunks of {probe.chunk_size} rows ({chunk_bytes / 2**20:.0f} MiB), {len(probe)} chunks")
        print(f"host-to-device bandwidth (synchronous uploads, best of {args.repeat}): {reference / 1e9:.2f} GB/s")
        print("| op | prefetch | seconds | GB/s | of bandwidth | op alone GB/s | of the bound | staged chunks |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        verdicts = []
        for op in args.op:
            alone = op_rate(args.device, op, probe.chunk_size, args.repeat)
            bound = min(reference, alone)  # the loop cannot beat the slower of the bus and the op
            for prefetch in (True, False):
                best = None
                for _ in range(args.repeat):
                    it, seconds, results, out = run_iterator(data, args.device, op, prefetch, out_path)
                    if best is None or seconds < best[1]:
                        best = (it, seconds, results, out)
                it, seconds, results, out = best
                moved = it.stats["bytes_host_to_device"]
                assert moved == data.nbytes, (moved, data.nbytes)
                rate = moved / seconds
                alone_text = "-" if op == "none" else f"{alone / 1e9:.2f}"
                print(f"| {op} | {'on' if prefetch else 'off'} | {seconds:.2f} | {rate / 1e9:.2f} | "
                      f"{rate / reference:.0%} | {alone_text} | {rate / bound:.0%} | {it.stats['staged_chunks']} |")
            verdicts.append(f"{op}: {check(data, op, results, out, it)}")
        print("\n".join(verdicts))
    finally:
        for p in (path, out_path):
            if p.exists():
                p.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
