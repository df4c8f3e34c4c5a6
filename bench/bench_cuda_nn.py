"""The CUDA fused neural-network kernels in one run, as ratios against anchors measured in the same run:

- gelu (exact and tanh) and layer_norm / softmax forward (float32 and bfloat16) vs Accelera's device copy
  bandwidth (targets: gelu >= 0.90, layer_norm >= 0.85);
- linear_gelu (bfloat16, tanh: the cuBLASLt GELU epilogue; float32 exact: GEMM + GELU pass) vs the plain
  GEMM of the same shape, through Accelera (cuBLAS) and PyTorch (cuBLASLt) where installed (target >= 0.95);
- attention forward, bfloat16, head_dim 128, seq 4096 vs PyTorch's scaled_dot_product_attention.

    python bench/bench_cuda_nn.py [--device cuda:0] [--rows 16384] [--n 4096] [--repeat 10]

Without a CUDA device it exits with status 2 and says why.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import accelera as acc
from bench_cuda import cuda_device_info, optional, seconds, sync  # same folder: run as `python bench/bench_cuda_nn.py`

GIB = float(1 << 30)


def timed(run, repeat):
    return seconds(run, lambda out=None: sync(out) if out is not None else None, repeat)


def bandwidth_rows(device, rows, n, repeat):
    rng = np.random.default_rng(0)
    x32 = acc.asarray(rng.standard_normal((rows, n), dtype=np.float32), device=device)
    copy_bw = 2 * x32.nbytes / GIB / timed(lambda: x32.clone(), repeat)
    out = [("copy float32 (device to device)", "-", "-", f"{copy_bw:.0f} GiB/s", "1.00 (anchor)")]
    w = acc.asarray(np.ones(n, np.float32), device=device)
    b = acc.asarray(np.zeros(n, np.float32), device=device)
    for dtype in ("float32", "bfloat16"):
        x = x32.astype(dtype)
        wd, bd = w.astype(dtype), b.astype(dtype)
        cases = {
            "gelu exact": lambda: acc.gelu(x),
            "gelu tanh": lambda: acc.gelu(x, approximate="tanh"),
            "layer_norm forward": lambda: acc.layer_norm(x, wd, bd),
            "softmax": lambda: acc.softmax(x),
        }
        for name, run in cases.items():
            bw = 2 * x.nbytes / GIB / timed(run, repeat)  # one read and one write of x
            out.append((f"{name} {dtype} ({rows}x{n})", "copy bandwidth", f"{copy_bw:.0f} GiB/s", f"{bw:.0f} GiB/s",
                        f"{bw / copy_bw:.2f}"))
    return out


def linear_gelu_rows(device, repeat):
    torch = optional("torch")
    rng = np.random.default_rng(1)
    out = []
    for dtype, approx, (m, k, n) in (("bfloat16", "tanh", (8192, 4096, 4096)), ("float32", "none", (8192, 4096, 4096))):
        x = acc.asarray(rng.standard_normal((m, k), dtype=np.float32), device=device).astype(dtype)
        w = acc.asarray(rng.standard_normal((n, k), dtype=np.float32) / 64, device=device).astype(dtype)
        b = acc.asarray(rng.standard_normal(n, dtype=np.float32), device=device).astype(dtype)
        fused = timed(lambda: acc.linear_gelu(x, w, b, approximate=approx), repeat)
        tflops = 2 * m * n * k / 1e12
        anchors = {"Accelera matmul (cuBLAS)": timed(lambda: x @ w.T, repeat)}
        if torch is not None and torch.cuda.is_available():
            tdt = torch.bfloat16 if dtype == "bfloat16" else torch.float32
            tx = torch.randn(m, k, device=device, dtype=tdt)
            tw = torch.randn(n, k, device=device, dtype=tdt)
            anchors["PyTorch matmul (cuBLASLt)"] = seconds(lambda: tx @ tw.T, lambda out=None: torch.cuda.synchronize(),
                                                           repeat)
        for anchor, t in anchors.items():
            out.append((f"linear_gelu {dtype} {approx} {m}x{k}x{n}", anchor, f"{tflops / t:.0f} TFLOP/s",
                        f"{tflops / fused:.0f} TFLOP/s", f"{t / fused:.2f}"))
    return out


def attention_rows(device, repeat):
    torch = optional("torch")
    batch, heads, seq, dim = 2, 16, 4096, 128
    rng = np.random.default_rng(2)
    q, k, v = (acc.asarray(rng.standard_normal((batch, heads, seq, dim), dtype=np.float32), device=device).astype("bfloat16")
               for _ in range(3))
    out = []
    for causal in (False, True):
        flops = 4 * batch * heads * seq * seq * dim / (2 if causal else 1) / 1e12
        mine = timed(lambda: acc.attention(q, k, v, causal=causal), repeat)
        row = (f"attention bf16 b{batch} h{heads} s{seq} d{dim}{' causal' if causal else ''}",)
        if torch is not None and torch.cuda.is_available():
            tq, tk, tv = (torch.randn(batch, heads, seq, dim, device=device, dtype=torch.bfloat16) for _ in range(3))
            sdpa = torch.nn.functional.scaled_dot_product_attention
            theirs = seconds(lambda: sdpa(tq, tk, tv, is_causal=causal), lambda out=None: torch.cuda.synchronize(), repeat)
            out.append(row + ("PyTorch SDPA", f"{flops / theirs:.0f} TFLOP/s", f"{flops / mine:.0f} TFLOP/s",
                              f"{theirs / mine:.2f}"))
        else:
            out.append(row + ("(no PyTorch)", "-", f"{flops / mine:.0f} TFLOP/s", "-"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--rows", type=int, default=16384)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    info = cuda_device_info(args.device, "bench_cuda_nn")
    if info is None:
        return 2
    print(f"{args.device}: {info['name']}\n")
    print("| case | anchor | anchor rate | Accelera | ratio |\n| --- | --- | ---: | ---: | ---: |")
    for row in (bandwidth_rows(args.device, args.rows, args.n, args.repeat) + linear_gelu_rows(args.device, args.repeat)
                + attention_rows(args.device, args.repeat)):
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
