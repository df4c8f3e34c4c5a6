"""Accelera's fused neural-network kernels on the CPU vs oneDNN and NumPy, in one run, as ratios.

    python bench/bench_nn.py [--quick] [--markdown]

Element-wise and row ops (gelu, layer_norm, softmax; float32) are timed against oneDNN's CPU primitives
(bench/nn_onednn.cpp, built here when libdnnl-dev is installed: `apt-get install libdnnl-dev`) and NumPy,
and their bandwidth (bytes read + written / time) against a measured copy (the machine's limit for a
one-in, one-out op). Attention is timed against a NumPy reference that materialises the score matrix,
with the peak memory of each. Every time is the best of several runs after a warm-up.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import tracemalloc
from pathlib import Path

import numpy as np

import accelera as acc
from bench_numpy import best_time, cpu_name  # same folder: run as `python bench/bench_nn.py`

ROOT = Path(__file__).resolve().parent.parent
ONEDNN_SRC = ROOT / "bench" / "nn_onednn.cpp"
ONEDNN_BIN = ROOT / "build" / "bench" / "nn_onednn"
GIB = 1024**3


def onednn_binary() -> Path | None:
    """The oneDNN timing program, built on first use; None when oneDNN's headers are not installed."""
    if not Path("/usr/include/oneapi/dnnl/dnnl.hpp").exists() or shutil.which("c++") is None:
        return None
    if not ONEDNN_BIN.exists() or ONEDNN_BIN.stat().st_mtime < ONEDNN_SRC.stat().st_mtime:
        ONEDNN_BIN.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["c++", "-O2", "-std=c++17", str(ONEDNN_SRC), "-ldnnl", "-o", str(ONEDNN_BIN)], check=True)
    return ONEDNN_BIN


def onednn_time(binary: Path | None, op: str, rows: int, n: int, repeat: int) -> float | None:
    if binary is None:
        return None
    out = subprocess.run([str(binary), op, str(rows), str(n), str(repeat)], check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def copy_bandwidth(nbytes: int, repeat: int) -> float:
    """GiB/s of a copy counted as read + write, with Accelera's copy (a fresh output from its cache)."""
    x = acc.asarray(np.ones(nbytes // 4, dtype=np.float32))
    return 2 * nbytes / best_time(lambda: x.clone(), repeat) / GIB


def numpy_gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.float32(math.sqrt(2 / math.pi)) * (x + np.float32(0.044715) * x**3)))


def numpy_layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def numpy_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def numpy_attention(q, k, v, causal):
    s = q @ np.swapaxes(k, -1, -2) * np.float32(1 / math.sqrt(q.shape[-1]))
    if causal:
        lq, lk = s.shape[-2:]
        s = np.where(np.arange(lk)[None, :] <= np.arange(lq)[:, None] + (lk - lq), s, -np.inf)
    return numpy_softmax(s) @ v


def row_ops(args, binary, bandwidth, rows_out):
    rng = np.random.default_rng(0)
    shapes = [(4096, 1024)] if args.quick else [(16384, 1024), (4096, 4096), (65536, 256)]
    repeat = 3 if args.quick else 5
    for r, n in shapes:
        x = rng.uniform(-4, 4, (r, n)).astype(np.float32)
        w = rng.uniform(0.5, 2, n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        tx, tw, tb = acc.asarray(x), acc.asarray(w), acc.asarray(b)
        nbytes = 2 * x.nbytes  # read x, write the result
        cases = [
            ("gelu (erf)", lambda: acc.gelu(tx), "gelu_erf", None),
            ("gelu (tanh)", lambda: acc.gelu(tx, approximate="tanh"), "gelu_tanh", lambda: numpy_gelu_tanh(x)),
            ("layer_norm", lambda: acc.layer_norm(tx, tw, tb), "layer_norm", lambda: numpy_layer_norm(x, w, b)),
            ("softmax", lambda: acc.softmax(tx), "softmax", lambda: numpy_softmax(x)),
        ]
        for name, ours, dnnl_op, numpy_fn in cases:
            # Interleaved rounds, best of each: load from other processes on a shared machine comes and goes.
            t_acc = t_dnnl = math.inf
            for _ in range(3):
                t_acc = min(t_acc, best_time(ours, repeat))
                t_other = onednn_time(binary, dnnl_op, r, n, repeat)
                t_dnnl = min(t_dnnl, t_other) if t_other is not None else None
            t_np = best_time(numpy_fn, max(2, repeat // 2)) if numpy_fn else None
            gib_s = nbytes / t_acc / GIB
            rows_out.append((f"{name} {r}x{n}", f"{t_acc * 1e3:.2f} ms", f"{gib_s:.1f} GiB/s",
                             f"{gib_s / bandwidth:.0%}",
                             f"{t_dnnl / t_acc:.2f}x" if t_dnnl else "n/a (no libdnnl-dev)",
                             f"{t_np / t_acc:.1f}x" if t_np else "-"))


def linear_gelu_rows(args, rows_out):
    rng = np.random.default_rng(1)
    m, k, n = (512, 512, 512) if args.quick else (2048, 1024, 4096)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((n, k)) / math.sqrt(k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    tx, tw, tb = acc.asarray(x), acc.asarray(w), acc.asarray(b)
    repeat = 3 if args.quick else 5
    t_fused = best_time(lambda: acc.linear_gelu(tx, tw, tb, approximate="tanh"), repeat)
    t_gemm = best_time(lambda: acc.matmul(tx, tw.T), repeat)
    t_np = best_time(lambda: numpy_gelu_tanh(x @ w.T + b), repeat)
    gflop = 2 * m * n * k / 1e9
    rows_out.append((f"linear_gelu {m}x{k} @ {k}x{n}", f"{t_fused * 1e3:.2f} ms", f"{gflop / t_fused:.0f} GFLOP/s",
                     f"GEMM alone takes {t_gemm / t_fused:.0%} of this", "-", f"{t_np / t_fused:.1f}x"))


def attention_rows(args, rows_out):
    rng = np.random.default_rng(2)
    cases = [(1, 4, 1024, 64)] if args.quick else [(1, 8, 1024, 64), (1, 4, 4096, 64), (1, 2, 4096, 128)]
    for b, h, s, d in cases:
        q, k, v = (rng.standard_normal((b, h, s, d)).astype(np.float32) for _ in range(3))
        tq, tk, tv = acc.asarray(q), acc.asarray(k), acc.asarray(v)
        for causal in (False, True):
            repeat = 2 if s >= 4096 else 3
            t_acc = best_time(lambda: acc.attention(tq, tk, tv, causal=causal), repeat)  # noqa: B023
            acc._core.reset_peak_memory("cpu")
            base = acc.memory_stats("cpu")["current_bytes"]
            acc.attention(tq, tk, tv, causal=causal)
            peak_acc = acc.memory_stats("cpu")["peak_bytes"] - base
            t_np = best_time(lambda: numpy_attention(q, k, v, causal), 1)  # noqa: B023
            tracemalloc.start()
            numpy_attention(q, k, v, causal)
            peak_np = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            flop = 4 * b * h * s * s * d * (0.5 if causal else 1.0)
            rows_out.append((f"attention b{b} h{h} s{s} d{d}{' causal' if causal else ''}", f"{t_acc * 1e3:.1f} ms",
                             f"{flop / t_acc / 1e9:.0f} GFLOP/s",
                             f"peak {peak_acc / 2**20:.0f} MiB vs NumPy {peak_np / 2**20:.0f} MiB", "-",
                             f"{t_np / t_acc:.1f}x"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    binary = onednn_binary()
    bandwidth = copy_bandwidth(64 * 2**20 if args.quick else 256 * 2**20, 5)
    rows: list[tuple] = []
    row_ops(args, binary, bandwidth, rows)
    linear_gelu_rows(args, rows)
    attention_rows(args, rows)
    header = ("case", "Accelera", "throughput", "of copy bandwidth / note", "vs oneDNN (its time / ours)",
              "vs NumPy (its time / ours)")
    print(f"{cpu_name()}, {os.cpu_count()} CPUs; copy bandwidth {bandwidth:.1f} GiB/s (read + write); "
          f"oneDNN: {'yes' if binary else 'not installed'}")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in rows:
            print("  ".join(f"{c:>28}" if i else f"{c:<40}" for i, c in enumerate(r)))


if __name__ == "__main__":
    main()
