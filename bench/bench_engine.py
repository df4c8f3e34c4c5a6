"""Streamed (out-of-core) matmul against in-core matmul on the same device, in one run.

    python bench/bench_engine.py [--device opencl:0] [--sizes 1024 2048 4096 8192] [--fraction 8] [--plot F]
                                 [--dtype float32] [--anchor cublasxt [--block-dims 512 1024 ... 16384]]

For each n: in core = operands resident on the device, one matmul (the device's own GEMM speed); streamed =
MatrixEngine.matmul of host operands with a device budget of 1/fraction of A and B. Efficiency = in-core time /
streamed time. Best of --repeat runs each.

--anchor cublasxt (CUDA devices): cuBLASXt, NVIDIA's out-of-core GEMM, on the same host matrices in the same
run (pinned, its block size tuned per n over --block-dims; see bench_cublasxt.py), and streamed / cuBLASXt;
both products are checked on sampled entries against float64. --dtype bfloat16 exits with status 3, saying
why, while MatrixEngine.matmul does not take bfloat16.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import accelera as ac


def sync(t):
    t[(0,) * t.ndim].numpy()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    parser.add_argument("--fraction", type=float, default=8.0)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--plot", default=None, help="write an efficiency-vs-size PNG here")
    parser.add_argument("--dtype", choices=["float32", "float64", "bfloat16"], default="float32")
    parser.add_argument("--anchor", choices=["cublasxt"], default=None)
    parser.add_argument("--block-dims", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    args = parser.parse_args()
    device = args.device or ac.default_device()
    info = next((d for d in ac.devices() if d["device"] == device), None)
    if info is None:
        reason = ac.absent_backends().get(device.split(":")[0], "not one of this machine's devices")
        print(f"bench_engine: no device {device}: {reason}", file=sys.stderr)
        return 2
    if args.dtype == "bfloat16":
        one = ac.asarray(np.ones((2, 2), np.float32)).astype("bfloat16")
        try:
            ac.MatrixEngine(device=device, enable_progress=False).matmul(one, one)
        except ac.DTypeError as err:
            print(f"bfloat16: not measured: {err}")
            return 3
    xt = None
    if args.anchor == "cublasxt":
        from bench_cublasxt import CublasXt, Unavailable, sampled_error, time_matmul, tune  # same folder

        if not device.startswith("cuda:") or args.dtype == "bfloat16":
            print("bench_engine: --anchor cublasxt takes a cuda device and float32 or float64", file=sys.stderr)
            return 2
        try:
            xt = CublasXt(int(device.split(":")[1]))
        except Unavailable as err:
            print(f"bench_engine: no cuBLASXt anchor: {err}", file=sys.stderr)
            return 2
    print(f"device: {device} = {info['name']}; {args.dtype}; budget = (A + B) / {args.fraction:g}\n")
    head = "| n | in core GFLOP/s | streamed GFLOP/s | efficiency | tiles | plan | H->D MB | D->H MB |"
    rule = "| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |"
    if xt is not None:
        head += " cuBLASXt GFLOP/s (block) | streamed speed / cuBLASXt | sampled error (engine, cuBLASXt) |"
        rule += " ---: | ---: | ---: |"
    print(head)
    print(rule)
    rng = np.random.default_rng(0)
    results = []
    host_dtype = np.float64 if args.dtype == "float64" else np.float32
    for n in args.sizes:
        a = rng.uniform(-1, 1, (n, n)).astype(host_dtype)
        b = rng.uniform(-1, 1, (n, n)).astype(host_dtype)
        if args.dtype == "bfloat16":  # host tensors: NumPy has no bfloat16
            a, b = ac.asarray(a).astype("bfloat16"), ac.asarray(b).astype("bfloat16")
        flop = 2.0 * n**3
        ad, bd = ac.asarray(a, device=device), ac.asarray(b, device=device)
        sync(ad @ bd)  # warm-up: kernel builds
        in_core = min(_timed(lambda: sync(ad @ bd)) for _ in range(args.repeat))
        del ad, bd
        budget = int(2 * a.nbytes / args.fraction)
        engine = ac.MatrixEngine(device=device, memory_budget=budget, enable_progress=False)
        last = {}

        def streamed_run():
            last.clear()  # one product alive at a time
            last["c"] = engine.matmul(a, b)

        streamed = min(_timed(streamed_run) for _ in range(args.repeat))
        run = engine.last_run
        eff = in_core / streamed
        results.append((n, eff))
        tm, tn, tk = run["tile_shape"]
        row = (f"| {n} | {flop / in_core / 1e9:.1f} | {flop / streamed / 1e9:.1f} | {eff:.2f} | {run['tiles']} | "
               f"{run['strategy']} {tm}x{tn}, K step {tk} | {run['bytes_host_to_device'] / 1e6:.0f} | "
               f"{run['bytes_device_to_host'] / 1e6:.0f} |")
        if xt is not None:
            c_engine = last.pop("c").numpy()
            c = np.empty_like(a)
            xt.pin(a, b, c)  # pinned for cuBLASXt only, outside the timed products
            block, _ = tune(xt, a, b, c, args.block_dims)
            anchor = time_matmul(xt, a, b, c, args.repeat)
            xt.unpin()
            row += (f" {flop / anchor / 1e9:.1f} ({block}) | {anchor / streamed:.2f} | "
                    f"{sampled_error(a, b, c_engine):.1e}, {sampled_error(a, b, c):.1e} |")
            del c, c_engine
        last.clear()
        print(row, flush=True)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot([r[0] for r in results], [r[1] for r in results], marker="o")
        ax.axhline(1.0, color="gray", linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 1.1)
        ax.set_xlabel("n (n x n float32 matrices)")
        ax.set_ylabel("streamed / in-core speed")
        ax.set_title(f"Out-of-core matmul on {device}, budget = (A+B)/{args.fraction:g}")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"\nplot: {args.plot}")
    if xt is not None:
        xt.close()
    return 0


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(main())
