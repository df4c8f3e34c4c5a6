"""One optimizer step of accelera.nn.optim (the fused optimizer_step op) against torch.optim and a NumPy
implementation, over the parameters of the MLP 784-256-128-10 of bench_train.py (235,146 float32 values in
six tensors) and of a wider 4096-4096-1024 MLP (21 M values).

    python bench/bench_optim.py [--rounds 5] [--devices cpu,opencl:0] [--markdown]

Each framework runs in its own process (thread pools never compete), ``--rounds`` interleaved rounds; per
round the median of 50 warm steps (the device synchronised after each batch of steps). Reported: medians
of the rounds, their spread (largest round over smallest), and the bandwidth the step achieves counting
each value's reads and writes once (Adam: parameter, gradient and two moments read, three written:
28 bytes per float32 value), the physical limit being the machine's memory (or cache) bandwidth.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

MODELS = {"mlp 784-256-128-10": (784, 256, 128, 10), "mlp 4096-4096-1024": (4096, 4096, 1024)}
RULES = ("adam", "sgd-momentum")
BYTES_PER_VALUE = {"adam": 28, "sgd-momentum": 20}  # float32: reads (p, g, state...) + writes (p, state...)
STEPS = 50


def shapes_of(sizes):
    out = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        out += [(fan_out, fan_in), (fan_out,)]
    return out


def timed(step, sync) -> float:
    for _ in range(5):
        step()
    sync()
    start = time.perf_counter()
    for _ in range(STEPS):
        step()
    sync()
    return (time.perf_counter() - start) / STEPS


def accelera_worker(model, rule, device):
    import accelera as acc
    from accelera import nn
    rng = np.random.default_rng(0)
    params = [nn.Parameter(acc.asarray(rng.standard_normal(s).astype(np.float32), device=device))
              for s in shapes_of(MODELS[model])]
    for p in params:
        p.grad = acc.asarray(rng.standard_normal(p.shape).astype(np.float32), device=device)
    opt = nn.optim.Adam(params, 1e-3) if rule == "adam" else nn.optim.SGD(params, 1e-3, momentum=0.9)
    return timed(opt.step, lambda: params[0][0, 0].numpy())


def torch_worker(model, rule, _device):
    import torch
    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)
    params = [torch.nn.Parameter(torch.from_numpy(rng.standard_normal(s).astype(np.float32)))
              for s in shapes_of(MODELS[model])]
    for p in params:
        p.grad = torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32))
    opt = torch.optim.Adam(params, 1e-3) if rule == "adam" else torch.optim.SGD(params, 1e-3, momentum=0.9)
    return timed(opt.step, lambda: None)


def numpy_worker(model, rule, _device):
    rng = np.random.default_rng(0)
    params = [rng.standard_normal(s).astype(np.float32) for s in shapes_of(MODELS[model])]
    grads = [rng.standard_normal(p.shape).astype(np.float32) for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = [0]

    def adam():
        t[0] += 1
        b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
        for p, g, mi, vi in zip(params, grads, m, v):
            mi *= b1
            mi += (1 - b1) * g
            vi *= b2
            vi += (1 - b2) * g * g
            p -= (lr / (1 - b1 ** t[0])) * mi / (np.sqrt(vi / (1 - b2 ** t[0])) + eps)

    def sgd():
        for p, g, b in zip(params, grads, m):
            b *= 0.9
            b += g
            p -= 1e-3 * b

    return timed(adam if rule == "adam" else sgd, lambda: None)


WORKERS = {"accelera": accelera_worker, "torch": torch_worker, "numpy": numpy_worker}


def run_worker(framework, model, rule, device) -> float:
    cmd = [sys.executable, __file__, "--worker", framework, "--model", model, "--rule", rule, "--device", device]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--devices", default="cpu,opencl:0")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--worker", choices=tuple(WORKERS))
    parser.add_argument("--model", choices=tuple(MODELS))
    parser.add_argument("--rule", choices=RULES)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps({"seconds": WORKERS[args.worker](args.model, args.rule, args.device)}))
        return
    runs = [(f"accelera {d}", "accelera", d) for d in args.devices.split(",")]
    runs += [("torch.optim cpu", "torch", "cpu"), ("numpy cpu", "numpy", "cpu")]
    bar = "|" if args.markdown else ""
    print(f"{bar} model {bar} rule {bar} run {bar} ms/step {bar} spread {bar} GB/s {bar} vs torch.optim {bar}")
    if args.markdown:
        print("| --- | --- | --- | --- | --- | --- | --- |")
    for model in MODELS:
        values = sum(int(np.prod(s)) for s in shapes_of(MODELS[model]))
        for rule in RULES:
            times = {name: [] for name, _, _ in runs}
            for _ in range(args.rounds):
                for name, framework, device in runs:
                    times[name].append(run_worker(framework, model, rule, device))
            torch_median = statistics.median(times["torch.optim cpu"])
            for name, _, _ in runs:
                med = statistics.median(times[name])
                gbs = values * BYTES_PER_VALUE[rule] / med / 1e9
                print(f"{bar} {model} {bar} {rule} {bar} {name} {bar} {med * 1e3:.3f} {bar} "
                      f"{max(times[name]) / min(times[name]):.2f}x {bar} {gbs:.1f} {bar} {torch_median / med:.2f}x {bar}")


if __name__ == "__main__":
    main()
