"""The CUDA backend in one run, as ratios against anchors measured in the same run on the same GPU:

- matmul (float32, TF32, bfloat16; n = 4096, 8192, 16384) through Accelera vs raw cuBLAS through PyTorch and
  CuPy where installed (target: >= 0.97x);
- element-wise add and exp (float32) vs Accelera's own device-to-device copy bandwidth (target: >= 85%);
- host<->device copies through pinned staging buffers vs pageable memory.

    python bench/bench_cuda.py [--device cuda:0] [--sizes 4096 8192 16384] [--elements 268435456]

Without a CUDA device it exits with status 2 and says why: it never reports CPU figures as GPU ones.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import accelera as acc


def sync(t):
    # A one-element read drains the compute stream (kernels run in order on it).
    t[(0,) * t.ndim].numpy() if t.ndim else t.numpy()


def seconds(run, finish, repeat):
    """Best time of `repeat` rounds of run(); finish() waits for the device."""
    run()
    finish()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        finish(out)
        best = min(best, time.perf_counter() - start)
    return best


def optional(module):
    try:
        return __import__(module)
    except ImportError:
        return None


def cuda_device_info(device, program):
    """The device's entry in acc.devices(), or None after saying on stderr why there is no such device."""
    info = next((d for d in acc.devices() if d["device"] == device), None)
    if info is None:
        reason = acc.absent_backends().get("cuda", f"{device} is not one of this machine's devices")
        print(f"{program}: no CUDA device: {reason}", file=sys.stderr)
    return info


def matmul_rows(device, sizes, repeat):
    torch, cupy = optional("torch"), optional("cupy")
    rng = np.random.default_rng(0)
    rows = []
    for case in ("float32", "tf32", "bfloat16"):
        for n in sizes:
            a = rng.standard_normal((n, n), dtype=np.float32)
            dtype = "bfloat16" if case == "bfloat16" else "float32"
            acc.set_allow_tf32(case == "tf32")
            ta = acc.asarray(a, device=device).astype(dtype)
            mine = seconds(lambda: ta @ ta, lambda out=None: sync(out if out is not None else ta), repeat)
            acc.set_allow_tf32(False)
            anchors = {}
            if torch is not None and torch.cuda.is_available():
                torch.backends.cuda.matmul.allow_tf32 = case == "tf32"
                tt = torch.from_numpy(a).to(device).to(torch.bfloat16 if case == "bfloat16" else torch.float32)
                anchors["PyTorch (cuBLAS)"] = seconds(lambda: tt @ tt, lambda out=None: torch.cuda.synchronize(), repeat)
            if cupy is not None and case != "bfloat16":  # CuPy has no bfloat16 matmul
                with cupy.cuda.Device(int(device.split(":")[1])):
                    ca = cupy.asarray(a)
                    mode = cupy.cuda.cublas.CUBLAS_TF32_TENSOR_OP_MATH if case == "tf32" else 0
                    cupy.cuda.device.get_cublas_handle()
                    cupy.cuda.cublas.setMathMode(cupy.cuda.device.get_cublas_handle(), mode)
                    anchors["CuPy (cuBLAS)"] = seconds(lambda: ca @ ca, lambda out=None: cupy.cuda.Device().synchronize(), repeat)
            tflops = 2 * n**3 / 1e12
            for name, t in anchors.items():
                rows.append((f"matmul {case} {n}", name, f"{tflops / t:.1f} TFLOP/s", f"{tflops / mine:.1f} TFLOP/s", f"{t / mine:.2f}x"))
            if not anchors:
                rows.append((f"matmul {case} {n}", "(no PyTorch/CuPy)", "-", f"{tflops / mine:.1f} TFLOP/s", "-"))
    return rows


def elementwise_rows(device, elements, repeat):
    x = acc.asarray(np.random.default_rng(1).standard_normal(elements, dtype=np.float32), device=device)
    y = x + 1.0
    gib = float(1 << 30)
    nbytes = elements * 4
    copy = seconds(lambda: x.clone(), lambda out=None: sync(out if out is not None else x), repeat)
    add = seconds(lambda: x + y, lambda out=None: sync(out if out is not None else x), repeat)
    exp = seconds(lambda: acc.exp(x), lambda out=None: sync(out if out is not None else x), repeat)
    copy_bw = 2 * nbytes / gib / copy
    rows = [("copy float32 (device to device)", "-", "-", f"{copy_bw:.0f} GiB/s", "1.00 (anchor)")]
    for name, t, arrays in (("add float32", add, 3), ("exp float32", exp, 2)):
        bw = arrays * nbytes / gib / t
        rows.append((name, "copy bandwidth", f"{copy_bw:.0f} GiB/s", f"{bw:.0f} GiB/s", f"{bw / copy_bw:.2f}"))
    return rows


def transfer_rows(device, nbytes, repeat):
    gib = float(1 << 30)
    pageable = acc._core._staging_copy_seconds(device, nbytes, False, repeat)
    pinned = acc._core._staging_copy_seconds(device, nbytes, True, repeat)
    return [(f"{way} {nbytes >> 20} MiB", "pageable", f"{nbytes / gib / p:.1f} GiB/s", f"{nbytes / gib / q:.1f} GiB/s (pinned)", f"{p / q:.2f}x")
            for way, p, q in (("host->device", pageable[0], pinned[0]), ("device->host", pageable[1], pinned[1]))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192, 16384])
    parser.add_argument("--elements", type=int, default=1 << 28)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    info = cuda_device_info(args.device, "bench_cuda")
    if info is None:
        return 2
    print(f"{args.device}: {info['name']}, {info['total_memory'] / (1 << 30):.0f} GiB\n")
    print("| case | anchor | anchor rate | Accelera | ratio |\n| --- | --- | ---: | ---: | ---: |")
    for row in (matmul_rows(args.device, args.sizes, args.repeat) + elementwise_rows(args.device, args.elements, args.repeat)
                + transfer_rows(args.device, 1 << 30, args.repeat)):
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
