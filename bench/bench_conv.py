"""One convolution layer, accelera against PyTorch on the CPU: forward, and forward + backward.

    python bench/bench_conv.py [--rounds 3] [--batch 128]

The two layers of the Fashion-MNIST CNN (``accelera train --model cnn``): (N, 1, 28, 28) -> 32 channels,
whose input needs no gradient (the data), and (N, 32, 14, 14) -> 64 channels, 3x3, padding 1, float32.
accelera.conv and accelera.conv_backward against torch.nn.functional.conv2d and torch.autograd.grad on
the same thread count; medians of 15 calls per round, rounds interleaved. PyTorch runs its own oneDNN, so
this measures our layer around oneDNN (reorders, plans, the op layer) against theirs.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import accelera as acc

LAYERS = [(1, 28, 32, False), (32, 14, 64, True)]  # C_in, side, C_out, input gradient wanted


def median_ms(fn, calls: int = 15) -> float:
    fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[calls // 2] * 1e3


def main() -> None:
    import torch
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=128)
    args = parser.parse_args()
    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)
    print(f"threads {os.cpu_count()}, torch {torch.__version__}, CPU BLAS {acc.cpu_blas_info()['symbols']}")
    print("| layer | round | accelera forward | torch forward | accelera fwd+bwd | torch fwd+bwd |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for c_in, side, c_out, wants_x in LAYERS:
        x = rng.standard_normal((args.batch, c_in, side, side)).astype(np.float32)
        w = (rng.standard_normal((c_out, c_in, 3, 3)) * 0.1).astype(np.float32)
        b = np.zeros(c_out, np.float32)
        g = rng.standard_normal((args.batch, c_out, side, side)).astype(np.float32)
        ax, aw, ab, ag = (acc.asarray(v) for v in (x, w, b, g))
        tx = torch.from_numpy(x).requires_grad_(wants_x)
        tw, tb = torch.from_numpy(w).requires_grad_(), torch.from_numpy(b).requires_grad_()
        tg = torch.from_numpy(g)

        def accelera_both():
            acc.conv(ax, aw, ab, 1, 1)
            acc.conv_backward(ag, ax, aw, 1, 1, input_grad=wants_x)

        def torch_both():
            y = torch.nn.functional.conv2d(tx, tw, tb, padding=1)
            torch.autograd.grad(y, [tx, tw, tb] if wants_x else [tw, tb], tg)

        for rnd in range(args.rounds):
            fa = median_ms(lambda: acc.conv(ax, aw, ab, 1, 1))
            ft = median_ms(lambda: torch.nn.functional.conv2d(tx, tw, tb, padding=1))
            ba, bt = median_ms(accelera_both), median_ms(torch_both)
            print(f"| ({args.batch}, {c_in}, {side}, {side}) -> {c_out} | {rnd + 1} | {fa:.2f} ms | {ft:.2f} ms | "
                  f"{ba:.2f} ms | {bt:.2f} ms |")


if __name__ == "__main__":
    main()
