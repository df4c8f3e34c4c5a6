"""The offload runtime's cost model against fixed rules, on a mixed workload, in one run.

    python bench/bench_offload.py [--quick] [--par-iter 100x1000] [--markdown] [--devices opencl:0,cpu]
                                  [--repeat 4]

For each offload target (every CUDA and OpenCL device present, and "cpu": Accelera's own CPU kernels as
the target, against NumPy), the same sequence of decorated calls runs under four policies:

- calibrated: the cost model (Note [Offload decisions]), starting from an empty history: its first call of
  every size is a traced CPU run;
- always-cpu: ``Config.builder().gpu(False)``, NumPy as written (plus the decorator's bookkeeping);
- always-device: ``min_offload_bytes(0)``;
- 1 MB rule: ``min_offload_bytes(1_000_000)``, the VedaRT guide's rule.

The workload has 200+ calls of matmul (float32 and float64), element-wise chains (one transcendental:
softplus), reductions and the guide's examples (standardised Gram matrix, a least-squares gradient step,
a Monte-Carlo estimate), from 1 KB to 1 GB of input. After a warm-up pass of NumPy and one of the device
(whose allocator's first page faults would otherwise fall on whichever policy ran first), totals are
medians over ``--repeat`` rounds, the policies interleaved in a balanced order (over every 4 rounds each
policy runs once in each place and right after each other policy); the spread is the largest total over
the smallest. The calibrated policy's median prediction error is also the median over its rounds (each
starts from an empty history), with its range. Also measured: ``par_iter(matrices).gpu_map(f)`` against ``[gpu(f)(m) for m in matrices]``,
and the decorator's own cost on a call it keeps on the CPU.

Each policy alone: the interleaved rounds let one policy's memory use shape the next one's (on a VM that
hands freed guest pages back to its host, NumPy's large temporaries fault slowly after device rounds:
a 1 GB chain() took 4.6 s there against 0.37 s after NumPy rounds), while a program runs one policy. So every
policy also runs in a process of its own, ``--repeat`` rounds after one warm-up pass of itself, in one runtime
(the calibrated policy keeps what it learnt: a program's steady state), and the second table gives those
medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

import numpy as np

import accelera as acc


def matmul(a, b):
    return a @ b


def chain(a):
    return np.sqrt(a * a + 1.0) * 0.5 - a


def softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)


def reduce_columns(x):
    return x.sum(axis=0), x.std(axis=0)


def standardise_gram(X):
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    normalized = (X - mean) / std
    return normalized @ normalized.T


def train_step(X, y, weights):
    predictions = X @ weights
    loss = ((predictions - y) ** 2).mean()
    grad = 2 * X.T @ (predictions - y) / len(y)
    return loss, grad


def monte_carlo(x, y):
    inside = (x ** 2 + y ** 2) <= 1.0
    return 4.0 * inside.sum() / x.shape[0]


FUNCTIONS = {f.__name__: f for f in (matmul, chain, softplus, reduce_columns, standardise_gram, train_step,
                                      monte_carlo)}


def par_iter_size(text: str) -> tuple[int, int]:
    """'COUNTxN' as (COUNT, N), both positive."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"expected COUNTxN, e.g. 100x1000; got {text!r}")
    return int(parts[0]), int(parts[1])


def workload(quick: bool) -> list[tuple[str, tuple]]:
    """(function name, arguments) in a fixed shuffled order; each case repeats so the model can learn it."""
    rng = np.random.default_rng(0)
    big = 1 << (24 if quick else 27)  # float64 elements of the largest chain input: 128 MiB or 1 GiB
    cases = []  # (function, args, repetitions)
    for n, dtype, reps in ((16, np.float64, 20), (96, np.float64, 20), (384, np.float64, 12), (384, np.float32, 12),
                           (1024 if not quick else 512, np.float64, 6)):
        a, b = rng.random((n, n)).astype(dtype), rng.random((n, n)).astype(dtype)
        cases.append(("matmul", (a, b), reps))
    for elements, reps in ((128, 20), (1 << 14, 16), (1 << 20, 12), (1 << 23, 6), (big, 2)):
        cases.append(("chain", (rng.random(elements),), reps))
    for elements, reps in ((1 << 12, 16), (1 << 20, 12), (1 << 23, 8)):
        cases.append(("softplus", (rng.standard_normal(elements),), reps))
    for rows, reps in ((64, 16), (1 << 14, 8), (1 << 17, 4)):
        cases.append(("reduce_columns", (rng.random((rows, 64)),), reps))
    for rows, cols, reps in ((200, 30, 16), (2000, 64, 8)):
        cases.append(("standardise_gram", (rng.random((rows, cols)),), reps))
    for rows, reps in ((200, 16), (1 << 16, 8)):
        cases.append(("train_step", (rng.random((rows, 32)), rng.random(rows), rng.random(32)), reps))
    for n, reps in ((1000, 16), (1 << 22, 6)):
        cases.append(("monte_carlo", (rng.random(n), rng.random(n)), reps))
    calls = [(name, args) for name, args, reps in cases for _ in range(reps)]
    order = rng.permutation(len(calls))
    return [calls[i] for i in order]


POLICIES = {
    "calibrated": lambda b: b,
    "always-cpu": lambda b: b.gpu(False),
    "always-device": lambda b: b.min_offload_bytes(0),
    "1 MB rule": lambda b: b.min_offload_bytes(1_000_000),
}


def balanced_order(items: list, round_: int) -> list:
    """Round ``round_`` of a Williams design: over len(items) rounds (an even count), every item runs once in
    each place and right after every other item once."""
    n = len(items)
    first = [0] + [(k + 1) // 2 if k % 2 else n - k // 2 for k in range(1, n)]
    return [items[(i + round_) % n] for i in first]


def start_policy(policy: str, device: str):
    """A fresh runtime (an empty history) running ``policy``."""
    runtime = acc.init(POLICIES[policy](acc.Config.builder().device(device)).build())
    if policy == "calibrated":
        runtime.calibration(device)  # measured once per machine and cached: not part of the workload
    return runtime


def run_policy(policy: str, device: str, calls, runtime=None) -> tuple[float, dict]:
    """One pass over ``calls``: in a fresh runtime, or in ``runtime`` with what it learnt so far (its stats reset)."""
    if runtime is None:
        runtime = start_policy(policy, device)
    else:
        runtime.reset_stats()
    decorated = {name: acc.gpu(f) for name, f in FUNCTIONS.items()}
    start = time.perf_counter()
    for name, args in calls:
        decorated[name](*args)
    return time.perf_counter() - start, runtime.stats()


def gpu_map_rows(device: str, count: int, n: int, repeat: int) -> tuple[float, float, float, float]:
    rng = np.random.default_rng(1)
    matrices = [rng.random((n, n)) for _ in range(count)]
    acc.init(acc.Config.builder().device(device).build())
    f = acc.gpu(standardise_gram)
    piped, looped = [], []
    [f(m) for m in matrices]  # warm-up: the traced first call, and first touches of the results' memory

    def time_piped():
        start = time.perf_counter()
        acc.par_iter(matrices).gpu_map(f).collect()
        piped.append(time.perf_counter() - start)

    def time_looped():
        start = time.perf_counter()
        [f(m) for m in matrices]
        looped.append(time.perf_counter() - start)

    for round_ in range(repeat):  # interleaved, the order swapped every other round
        for run in ((time_piped, time_looped) if round_ % 2 == 0 else (time_looped, time_piped)):
            run()
    return statistics.median(piped), statistics.median(looped), min(piped), max(piped)


def overhead_us(repeat: int = 5) -> tuple[float, float]:
    acc.init(acc.Config.builder().gpu(False).build())

    def identity(x):
        return x

    decorated, x = acc.gpu(identity), np.ones(10)
    rounds = []
    for _ in range(repeat):
        plain = min(timeit.repeat(lambda: identity(x), number=20000, repeat=3)) / 20000
        wrapped = min(timeit.repeat(lambda: decorated(x), number=20000, repeat=3)) / 20000
        rounds.append((wrapped - plain) * 1e6)
    return statistics.median(rounds), max(rounds) - min(rounds)


def model_overhead_us(device: str, repeat: int = 5) -> float:
    """The decorator's cost when the cost model decides (CPU) for a call it has seen before."""
    runtime = acc.init(acc.Config.builder().device(device).build())
    runtime.calibration(device)

    def identity(x):
        return x

    decorated, x = acc.gpu(identity), np.ones(10)
    for _ in range(50):
        decorated(x)
    rounds = []
    for _ in range(repeat):
        plain = min(timeit.repeat(lambda: identity(x), number=20000, repeat=3)) / 20000
        wrapped = min(timeit.repeat(lambda: decorated(x), number=20000, repeat=3)) / 20000
        rounds.append((wrapped - plain) * 1e6)
    return statistics.median(rounds)


def alone_worker(policy: str, device: str, rounds: int, quick: bool) -> None:
    """Runs in a process of its own: one warm-up pass, then ``rounds`` timed ones of ``policy``; prints JSON."""
    calls = workload(quick)
    runtime = start_policy(policy, device)
    run_policy(policy, device, calls, runtime)
    totals, errors = [], []
    for _ in range(rounds):
        seconds, stats = run_policy(policy, device, calls, runtime)
        totals.append(seconds)
        errors.append(stats["median_prediction_error"])
    print(json.dumps({"totals": totals, "errors": errors}))


def each_policy_alone(device: str, rounds: int, quick: bool) -> dict:
    """Policy -> {"totals", "errors"} of its timed rounds, each policy in a process of its own (one after
    another)."""
    results = {}
    for policy in POLICIES:
        command = [sys.executable, __file__, "--alone-worker", policy, "--devices", device, "--repeat", str(rounds)]
        out = subprocess.run(command + (["--quick"] if quick else []), capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"the {policy} process on {device} failed:\n{out.stderr}")
        results[policy] = json.loads(out.stdout.strip().splitlines()[-1])
    return results


def print_alone(results: dict) -> None:
    print("\nEach policy in a process of its own, one runtime (medians of its rounds after a warm-up pass):\n")
    print("| policy | total s (median) | spread | vs calibrated |")
    print("| --- | ---: | ---: | ---: |")
    best = statistics.median(results["calibrated"]["totals"])
    for policy, r in results.items():
        med = statistics.median(r["totals"])
        print(f"| {policy} | {med:.2f} | {max(r['totals']) / min(r['totals']):.2f}x | {med / best:.2f}x |")
    errors = results["calibrated"]["errors"]
    print(f"\ncalibrated alone: median prediction error {100 * statistics.median(errors):.1f}% "
          f"({100 * min(errors):.1f}-{100 * max(errors):.1f}%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (largest input 128 MiB)")
    parser.add_argument("--par-iter", type=par_iter_size, default=None, metavar="COUNTxN",
                        help="par_iter's matrices (default 100x1000, 20x500 with --quick)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--devices", default=None, help="offload targets (default: every device present, and cpu)")
    parser.add_argument("--repeat", type=int, default=4, help="rounds (4: one whole balanced design)")
    parser.add_argument("--alone-worker", choices=list(POLICIES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.alone_worker:
        alone_worker(args.alone_worker, args.devices, args.repeat, args.quick)
        return
    present = [d["device"] for d in acc.devices() if d["device"] != "cpu"]
    targets = args.devices.split(",") if args.devices else present + ["cpu"]
    calls = workload(args.quick)
    sizes = [sum(a.nbytes for a in c[1]) for c in calls]
    print(f"# {len(calls)} calls, inputs {min(sizes) / 1e3:.1f} KB to {max(sizes) / 1e9:.2f} GB; "
          f"CPU: {acc.devices()[0]['name']}, {os.cpu_count()} threads; numpy {np.__version__}; "
          f"python {sys.version.split()[0]}", flush=True)
    for device in targets:
        totals = {p: [] for p in POLICIES}
        last, errors = {}, []
        # Warm-up: first touches of the inputs, of NumPy's temporaries and of the device allocator's pool (1.5 s
        # of page faults on the cpu target: whichever policy ran first paid them).
        run_policy("always-cpu", device, calls)
        run_policy("always-device", device, calls)
        for round_ in range(args.repeat):
            order = balanced_order(list(POLICIES), round_)
            for policy in order:
                seconds, stats = run_policy(policy, device, calls)
                totals[policy].append(seconds)
                last[policy] = stats
                if policy == "calibrated":
                    errors.append(stats["median_prediction_error"])
        print(f"\n## target {device}\n")
        print("| policy | total s (median) | spread | vs calibrated | offloaded | kept on CPU |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        best = statistics.median(totals["calibrated"])
        for policy, values in totals.items():
            med = statistics.median(values)
            s = last[policy]
            print(f"| {policy} | {med:.2f} | {max(values) / min(values):.2f}x | {med / best:.2f}x | "
                  f"{s['offloaded']} | {s['kept_on_cpu']} |")
        s = last["calibrated"]
        print(f"\ncalibrated: median prediction error {100 * statistics.median(errors):.1f}% (median of "
              f"{len(errors)} rounds, {100 * min(errors):.1f}-{100 * max(errors):.1f}%) over "
              f"{s['predicted_calls']} predicted calls a round; {s['traced_calls']} traced first calls; "
              f"calibration: {s['calibration']}")
        print_alone(each_policy_alone(device, args.repeat, args.quick))
        count, n = args.par_iter or ((20, 500) if args.quick else (100, 1000))
        piped, looped, lo, hi = gpu_map_rows(device, count, n, args.repeat)
        print(f"par_iter({count} matrices {n}x{n}).gpu_map(standardise_gram): {piped:.2f} s vs "
              f"[gpu(f)(m) ...] {looped:.2f} s: {looped / piped:.2f}x (gpu_map spread {hi / lo:.2f}x)")
        print(f"@gpu overhead when the model keeps a seen call on the CPU: {model_overhead_us(device):.1f} us")
    forced, spread = overhead_us()
    print(f"\n@gpu overhead with the CPU forced: {forced:.1f} us (spread {spread:.1f} us)")


if __name__ == "__main__":
    main()
