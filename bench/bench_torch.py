"""accelera.torch in one run: the router's cost, training with interception, and streaming.

    python bench/bench_torch.py [--markdown] [--repeat 7] [--steps 100]

1. Per-call cost of the mode on a call it passes through (a 4x4 torch.mm, below min_bytes), against the
   same call with no mode and under an empty TorchFunctionMode (PyTorch's own cost): medians of
   ``--repeat`` interleaved rounds, with the spread (largest round over smallest).
2. Routed-call cost: a 64x64 float32 matmul routed to Accelera's CPU kernels against PyTorch's.
3. A two-layer MLP trained ``--steps`` steps (float32, SGD) with interception off, on (every product on
   the cpu target) and on ``opencl:0`` where present: the largest relative difference of the loss curves.
4. Streaming: ``torch.matmul`` of float32 host tensors 8x larger than a device budget set on ``opencl:0``
   (and on every CUDA device, with its whole memory as the budget, where one is present): time, tiles,
   bytes moved, against PyTorch's CPU matmul of the same operands.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch.overrides import TorchFunctionMode

import accelera as acc
import accelera.torch as at


class EmptyMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def per_call_us(fn, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def interleaved(variants: dict, calls: int, repeat: int) -> dict:
    """Median microseconds per call of each variant (name -> (context factory, fn)) and the spread."""
    rounds = {name: [] for name in variants}
    for r in range(repeat):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for name in order:
            make_context, fn = variants[name]
            with make_context():
                fn()  # warm
                rounds[name].append(per_call_us(fn, calls))
    return {name: (statistics.median(v), max(v) / min(v)) for name, v in rounds.items()}


class NoMode:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def overheads(repeat: int) -> list[str]:
    small = torch.randn(4, 4)
    medium = torch.randn(64, 64)
    passing = interleaved({
        "no mode": (NoMode, lambda: torch.mm(small, small)),
        "empty TorchFunctionMode": (EmptyMode, lambda: torch.mm(small, small)),
        "accelera.torch.intercept()": (at.intercept, lambda: torch.mm(small, small)),
    }, 20000, repeat)
    routed = interleaved({
        "no mode": (NoMode, lambda: torch.mm(medium, medium)),
        "routed to Accelera (cpu)": (lambda: at.intercept(min_bytes=0, device="cpu"), lambda: torch.mm(medium, medium)),
    }, 2000, repeat)
    base = passing["no mode"][0]
    lines = ["| call | µs per call (median) | over no mode | spread |", "| --- | ---: | ---: | ---: |"]
    for name, (us, spread) in passing.items():
        lines.append(f"| 4x4 torch.mm, {name} | {us:.2f} | {us - base:+.2f} | {spread:.2f}x |")
    base = routed["no mode"][0]
    for name, (us, spread) in routed.items():
        lines.append(f"| 64x64 torch.mm, {name} | {us:.2f} | {us - base:+.2f} | {spread:.2f}x |")
    return lines


def train(steps: int, mode) -> list[float]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(512, 256), torch.randint(0, 10, (512,))
    losses = []
    with mode():
        for _ in range(steps):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses


def training(steps: int, devices: list[str]) -> list[str]:
    start = time.perf_counter()
    plain = train(steps, NoMode)
    plain_s = time.perf_counter() - start
    lines = ["| run | seconds | routed calls | largest relative loss difference | within 1e-5 |",
             "| --- | ---: | ---: | ---: | --- |", f"| interception off | {plain_s:.2f} | 0 | - | - |"]
    for device in devices:
        at.reset_stats()
        start = time.perf_counter()
        losses = train(steps, lambda: at.intercept(min_bytes=0, device=device))
        seconds = time.perf_counter() - start
        worst = max(abs(a - b) / abs(a) for a, b in zip(plain, losses))
        lines.append(f"| interception on, {device} | {seconds:.2f} | {at.stats()['routed']} | {worst:.2e} | "
                     f"{'yes' if worst <= 1e-5 else 'NO'} |")
    return lines


def streaming(device: str, budget: int, repeat: int) -> str:
    # Operands and result together 8x the budget: square float32 matrices of n x n, 3 n^2 4 = 8 budget.
    n = int((8 * budget / 12) ** 0.5)
    a, b = torch.randn(n, n), torch.randn(n, n)
    original = acc.memory_stats(device)["budget_bytes"]
    times, cpu_times = [], []
    try:
        acc.set_memory_budget(device, budget)
        for _ in range(repeat):
            at.reset_stats()
            start = time.perf_counter()
            with at.intercept(min_bytes=0, device=device):
                got = a @ b
            times.append(time.perf_counter() - start)
            stats = at.stats()
            start = time.perf_counter()
            want = a @ b
            cpu_times.append(time.perf_counter() - start)
    finally:
        acc.set_memory_budget(device, original)
    error = float((got - want).abs().max() / want.abs().max())
    seconds, cpu_seconds = statistics.median(times), statistics.median(cpu_times)
    return (f"| {device} | {n}x{n} | {budget / 2**20:.1f} MiB | {seconds:.3f} | {max(times) / min(times):.2f}x | "
            f"{cpu_seconds:.3f} | {'yes' if stats['streamed'] else 'NO'} | {stats['bytes_moved'] / 2**20:.0f} MiB | "
            f"{error:.1e} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--markdown", action="store_true", help="(tables are markdown either way)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    present = [d["device"] for d in acc.devices()]
    print(f"torch {torch.__version__}, accelera {acc.__version__}, devices: {', '.join(present)}\n")
    print("### Router cost per call\n")
    print("\n".join(overheads(args.repeat)))
    print(f"\n### MLP training, {args.steps} steps, interception off and on\n")
    print("\n".join(training(args.steps, [d for d in ("cpu", "opencl:0") if d in present])))
    print("\n### torch.matmul of operands 8x the device budget, streamed\n")
    print("| device | matrices | budget | seconds (median) | spread | torch CPU seconds | streamed | bytes moved "
          "| max error / max |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    if "opencl:0" in present:
        print(streaming("opencl:0", 16 << 20, max(3, args.repeat // 2)))
    cuda = [d for d in present if d.startswith("cuda:")]
    for device in cuda:
        print(streaming(device, 1 << 30, 3))
    if not cuda:
        print("\nNo CUDA device: the GPU goals (3 x 40 GB host operands at >= 0.9 of in-core cuBLAS; an nn.Linear "
              "larger than GPU memory) are not measured here.")


if __name__ == "__main__":
    main()
