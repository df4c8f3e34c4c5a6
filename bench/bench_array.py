"""The array namespace against NumPy, in one run: element-wise functions, reductions, random numbers, and
an ordinary NumPy program run unchanged on Accelera arrays.

    python bench/bench_array.py [--quick] [--markdown] [--devices cpu,opencl:0] [--only sort|complex|reduce|math]

Rows on "cpu" give NumPy's time / Accelera's (> 1: Accelera is faster), each the best of several runs after
a warm-up, NumPy and Accelera interleaved. Every row also gives Accelera's throughput (bytes read and
written / time) as a share of a copy of the same size on the same device: the physical limit of a
memory-bound op. The program rows time `numpy_program` (standardised columns, pairwise distances, a
Monte-Carlo estimate of pi) written against NumPy and called with Accelera arrays through NumPy's
protocols, against the same function on NumPy arrays. The sort rows (``--only sort`` runs them alone) time
sort, argsort and unique_values of float32 against NumPy's default sort (an AVX-512/AVX2 quicksort, not
stable) and its stable sort (kind="stable"); Accelera's sort is always stable. ``--only complex`` times
complex64 functions and products and the Fourier transforms against NumPy. ``--only reduce`` times the
reductions (sum, min, argmax, std, over everything, rows and columns) and the copy anchor alone; ``--only
math`` the trigonometric, hyperbolic and logarithmic functions beyond exp and sin, pow and hypot, in
float32 and float64 (4 Mi elements).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import accelera as acc

GIB = 2**30


def best_time(fn, repeat: int) -> float:
    fn()  # warm-up: first-touch page faults, kernel compilation, thread pools
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def sync(result):
    """Results of device ops are ready when read; a scalar read is enough to wait for the queue."""
    if isinstance(result, acc.Tensor) and result.device != "cpu":
        result.reshape(-1)[0:1].numpy()
    return result


def numpy_program(X, pts, xs, ys):
    """Ordinary NumPy code: nothing here knows about Accelera."""
    mean = np.mean(X, axis=0)
    std = np.std(X, axis=0)
    Z = (X - mean) / std
    sq = np.sum(pts * pts, axis=1)
    gram = np.matmul(pts, np.transpose(pts))
    d2 = np.maximum(np.reshape(sq, (-1, 1)) + np.reshape(sq, (1, -1)) - 2 * gram, 0.0)
    dist = np.sqrt(d2)
    inside = xs**2 + ys**2 <= 1.0
    pi = 4.0 * np.sum(inside) / xs.shape[0]
    return Z, dist, pi


def sort_rows(device: str, repeat: int, quick: bool, copy_of) -> list[tuple[str, ...]]:
    """Rows of sort, argsort and unique_values (float32; on the CPU also sorts of int32, uint64 and float64):
    best of interleaved rounds, against NumPy."""
    rng = np.random.default_rng(1)
    sizes = [(1_000_000,), (1000, 1000)] + ([] if quick or device != "cpu" else [(10_000_000,), (100, 100_000)])
    rows = []
    for shape in sizes:
        x = rng.standard_normal(shape).astype(np.float32)
        t = acc.asarray(x, device=device)
        label = "x".join(str(d) for d in shape)
        copy_time = copy_of(t)
        cases = [
            (f"sort ({label} float32)", lambda: np.sort(x, axis=-1), lambda: np.sort(x, axis=-1, kind="stable"),
             lambda: acc.sort(t, axis=-1), copy_time),
            (f"argsort ({label} float32)", lambda: np.argsort(x, axis=-1),
             lambda: np.argsort(x, axis=-1, kind="stable"), lambda: acc.argsort(t, axis=-1), copy_time),
        ]
        if len(shape) == 1:
            xi = rng.integers(0, shape[0] // 10, shape).astype(np.float32)  # about 10 repeats of each value
            ti = acc.asarray(xi, device=device)
            cases.append((f"unique_values (~10% distinct) ({label} float32)", lambda: np.unique(xi), None,
                          lambda: acc.unique_values(ti), copy_time))
        if len(shape) == 1 and shape[0] == 1_000_000 and not quick and device == "cpu":
            # Other key widths: 4 Mi elements uniform over the type's range (float64: standard normal).
            for dt in ("int32", "uint64", "float64"):
                if dt == "float64":
                    xw = rng.standard_normal(4 << 20)
                else:
                    info = np.iinfo(dt)
                    xw = rng.integers(info.min, info.max, 4 << 20, dtype=dt, endpoint=True)
                tw = acc.asarray(xw, device=device)
                cases.append((f"sort (4 Mi {dt})", lambda xw=xw: np.sort(xw), lambda xw=xw: np.sort(xw, kind="stable"),
                              lambda tw=tw: acc.sort(tw), copy_of(tw)))
        for case, np_default, np_stable, acc_fn, case_copy_time in cases:
            t_acc = t_def = t_stab = float("inf")
            for _ in range(3):  # interleaved rounds
                t_acc = min(t_acc, best_time(lambda: sync(acc_fn()), repeat))
                if device == "cpu":
                    t_def = min(t_def, best_time(np_default, repeat))
                    if np_stable:
                        t_stab = min(t_stab, best_time(np_stable, repeat))
            ratio = "-"
            if device == "cpu":
                ratio = f"{t_def / t_acc:.2f}x default" + (f", {t_stab / t_acc:.2f}x stable" if np_stable else "")
            rows.append((device, case, f"{t_acc * 1e3:.2f} ms", f"{case_copy_time / t_acc:.0%}", ratio))
    return rows


def complex_rows(device: str, repeat: int, quick: bool) -> list[tuple[str, ...]]:
    """Rows of complex64 element-wise functions, reductions and products, and of the Fourier transforms
    (accelera.fft against numpy.fft, both pocketfft on the CPU): best of interleaved rounds."""
    rng = np.random.default_rng(2)
    n = 1 << (20 if quick else 22)
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    w = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    tz, tw = acc.asarray(z, device=device), acc.asarray(w, device=device)
    copy_time = best_time(lambda: sync(tz.clone()), 2 * repeat)
    side = 512 if quick else 1024
    a = (rng.standard_normal((side, side)) + 1j * rng.standard_normal((side, side))).astype(np.complex64)
    ta = acc.asarray(a, device=device)
    x = rng.standard_normal(n).astype(np.float32)
    tx = acc.asarray(x, device=device)
    batch = z.reshape(-1, 1024)
    tbatch = tz.reshape(-1, 1024)
    square = z[: (1 << 20)].reshape(1024, 1024)
    tsquare = acc.asarray(square, device=device)
    mi = n // 2**20
    cases = [  # name, NumPy, Accelera, bytes moved (x z.nbytes) or None for compute-bound rows
        (f"multiply ({mi} Mi complex64)", lambda: z * w, lambda: tz * tw, 3),
        (f"divide ({mi} Mi complex64)", lambda: z / w, lambda: tz / tw, 3),
        (f"add ({mi} Mi complex64)", lambda: z + w, lambda: tz + tw, 3),
        (f"abs ({mi} Mi complex64)", lambda: np.abs(z), lambda: acc.abs(tz), 1.5),
        (f"exp ({mi} Mi complex64)", lambda: np.exp(z), lambda: acc.exp(tz), 2),
        (f"sum ({mi} Mi complex64)", lambda: np.sum(z), lambda: acc.sum(tz), 1),
        (f"matmul ({side}^2 complex64)", lambda: a @ a, lambda: ta @ ta, None),
        (f"fft ({mi} Mi complex64, one transform)", lambda: np.fft.fft(z), lambda: acc.fft.fft(tz), None),
        (f"fft ({n // 1024} x 1024 complex64, batched)", lambda: np.fft.fft(batch), lambda: acc.fft.fft(tbatch), None),
        (f"rfft ({mi} Mi float32)", lambda: np.fft.rfft(x), lambda: acc.fft.rfft(tx), None),
        ("fft2 (1024 x 1024 complex64)", lambda: np.fft.fft2(square), lambda: acc.fft.fftn(tsquare), None),
    ]
    rows = []
    for name, numpy_fn, acc_fn, traffic in cases:
        t_acc = t_np = float("inf")
        for _ in range(3):  # interleaved rounds
            t_acc = min(t_acc, best_time(lambda: sync(acc_fn()), repeat))
            if device == "cpu":
                t_np = min(t_np, best_time(numpy_fn, repeat))
        share = f"{traffic * copy_time / 2 / t_acc:.0%}" if traffic else "-"
        rows.append((device, name, f"{t_acc * 1e3:.2f} ms", share, f"{t_np / t_acc:.2f}x" if device == "cpu" else "-"))
    return rows


MATH_FUNCTIONS = [  # name, input domain: "any", "unit" (-1, 1), "above one" [1, inf)
    ("tan", "any"), ("asin", "unit"), ("acos", "unit"), ("atan", "any"), ("sinh", "any"), ("cosh", "any"),
    ("asinh", "any"), ("acosh", "above one"), ("atanh", "unit"), ("log2", "above one"), ("log10", "above one"),
    ("atan2", "any"), ("pow", "above one"), ("hypot", "any"),
]


def math_rows(device: str, repeat: int, quick: bool) -> list[tuple[str, ...]]:
    """Rows of the trigonometric, hyperbolic and logarithmic functions beyond exp and sin, float32 and
    float64, against NumPy's (np.arcsin for asin and so on): best of interleaved rounds."""
    rng = np.random.default_rng(3)
    n = 1 << (20 if quick else 22)
    rows = []
    for dtype in ("float32", "float64"):
        normal = rng.standard_normal(n).astype(dtype)
        inputs = {"any": normal, "unit": np.tanh(normal), "above one": np.abs(normal) + 1}
        other = (np.abs(rng.standard_normal(n)) + 0.5).astype(dtype)
        on_device = {k: acc.asarray(v, device=device) for k, v in inputs.items()}
        t_other = acc.asarray(other, device=device)
        copy_time = best_time(lambda: sync(on_device["any"].clone()), 2 * repeat)
        for name, domain in MATH_FUNCTIONS:
            x, tx = inputs[domain], on_device[domain]
            numpy_fn = getattr(np, {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                                    "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2",
                                    "pow": "power"}.get(name, name))
            acc_fn = getattr(acc, name)
            binary = name in ("atan2", "pow", "hypot")
            t_acc = t_np = float("inf")
            for _ in range(2):  # interleaved rounds
                t_acc = min(t_acc, best_time(lambda: sync(acc_fn(tx, t_other) if binary else acc_fn(tx)), repeat))
                if device == "cpu":
                    t_np = min(t_np, best_time(lambda: numpy_fn(x, other) if binary else numpy_fn(x), repeat))
            traffic = 3 if binary else 2
            rows.append((device, f"{name} ({n >> 20} Mi {dtype})", f"{t_acc * 1e3:.2f} ms",
                         f"{traffic * copy_time / 2 / t_acc:.0%}", f"{t_np / t_acc:.2f}x" if device == "cpu" else "-"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--devices", default=",".join(d["device"] for d in acc.devices()))
    parser.add_argument("--only", choices=["sort", "complex", "reduce", "math"], help="run only these rows")
    args = parser.parse_args()
    separate_rows = {"complex": complex_rows, "math": math_rows}
    if args.only in separate_rows:
        rows = []
        for device in args.devices.split(","):
            rows += separate_rows[args.only](device, 3 if args.quick else 5, args.quick)
        print_rows(rows, args.markdown)
        return
    if args.only == "sort":
        rows = []
        for device in args.devices.split(","):
            rows += sort_rows(device, 3 if args.quick else 5, args.quick,
                              lambda t: best_time(lambda: sync(t.clone()), 5))
        print_rows(rows, args.markdown)
        return
    n = 1 << (22 if args.quick else 24)
    repeat = 3 if args.quick else 5
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    m = a.reshape(4096, -1)
    nbytes = a.nbytes
    cases = [  # name, NumPy function, Accelera function, bytes read + written (x a.nbytes)
        ("add", lambda x, y, xm: np.add(x, y), lambda x, y, xm: acc.add(x, y), 3),
        ("multiply", lambda x, y, xm: x * y, lambda x, y, xm: x * y, 3),
        ("less", lambda x, y, xm: x < y, lambda x, y, xm: x < y, 2.5),
        ("where", lambda x, y, xm: np.where(x > 0, x, y), lambda x, y, xm: acc.where(x > 0, x, y), 3.5),
        ("exp", lambda x, y, xm: np.exp(x), lambda x, y, xm: acc.exp(x), 2),
        ("sin", lambda x, y, xm: np.sin(x), lambda x, y, xm: acc.sin(x), 2),
        ("sum", lambda x, y, xm: np.sum(x), lambda x, y, xm: acc.sum(x), 1),
        ("min", lambda x, y, xm: np.min(x), lambda x, y, xm: acc.min(x), 1),
        ("argmax", lambda x, y, xm: np.argmax(x), lambda x, y, xm: acc.argmax(x), 1),
        ("std", lambda x, y, xm: np.std(x), lambda x, y, xm: acc.std(x), 1),
        ("sum over rows", lambda x, y, xm: np.sum(xm, axis=1), lambda x, y, xm: acc.sum(xm, axis=1), 1),
        ("std over columns", lambda x, y, xm: np.std(xm, axis=0), lambda x, y, xm: acc.std(xm, axis=0), 1),
        ("cumulative_sum", lambda x, y, xm: np.cumsum(x), lambda x, y, xm: acc.cumulative_sum(x), 2),
        ("cumulative_sum over columns", lambda x, y, xm: np.cumsum(xm, axis=0),
         lambda x, y, xm: acc.cumulative_sum(xm, axis=0), 2),
        # Read x, write the half of it that is positive: the traffic NumPy's boolean indexing needs at least.
        ("x[x > 0]", lambda x, y, xm: x[x > 0], lambda x, y, xm: x[x > 0], 1.5),
        ("sum over columns", lambda x, y, xm: np.sum(xm, axis=0), lambda x, y, xm: acc.sum(xm, axis=0), 1),
    ]
    if args.only == "reduce":
        reductions = {"sum", "min", "argmax", "std", "sum over rows", "sum over columns", "std over columns"}
        cases = [case for case in cases if case[0] in reductions]
    rows = []
    for device in args.devices.split(","):
        ta, tb = acc.asarray(a, device=device), acc.asarray(b, device=device)
        tm = ta.reshape(4096, -1)
        # The anchor of bench_nn.py: the device copy kernel (read + write) into a fresh tensor from the cache.
        t_copy = best_time(lambda: sync(ta.clone()), 2 * repeat)
        copy_bw = 2 * nbytes / t_copy / GIB
        for name, numpy_fn, acc_fn, traffic in cases:
            t_acc = t_np = float("inf")
            for _ in range(2):  # interleaved rounds
                t_acc = min(t_acc, best_time(lambda: sync(acc_fn(ta, tb, tm)), repeat))
                if device == "cpu":
                    t_np = min(t_np, best_time(lambda: numpy_fn(a, b, m), repeat))
            bw = traffic * nbytes / t_acc / GIB
            ratio = f"{t_np / t_acc:.2f}x" if device == "cpu" else "-"
            rows.append((device, f"{name} ({n // 2**20} Mi float32)", f"{t_acc * 1e3:.2f} ms", f"{bw / copy_bw:.0%}",
                         ratio))
        if args.only == "reduce":
            rows.append((device, "copy (the bandwidth anchor)", f"{t_copy * 1e3:.2f} ms", f"{copy_bw:.1f} GiB/s", "-"))
            continue
        gen = acc.random.default_rng(0)
        t_rand = best_time(lambda: sync(gen.random(n, dtype="float32", device=device)), repeat)
        t_np_rand = best_time(lambda: rng.random(n, dtype=np.float32), repeat) if device == "cpu" else None
        rows.append((device, f"random ({n // 2**20} Mi float32)", f"{t_rand * 1e3:.2f} ms",
                     f"{nbytes / t_rand / GIB / copy_bw * 2:.0%}", f"{t_np_rand / t_rand:.2f}x" if t_np_rand else "-"))

        X = rng.standard_normal((100_000, 16)).astype(np.float32)
        pts = rng.standard_normal((1500, 3)).astype(np.float32)
        xs, ys = rng.random(n // 4, dtype=np.float32), rng.random(n // 4, dtype=np.float32)
        args_dev = [acc.asarray(v, device=device) for v in (X, pts, xs, ys)]
        want = numpy_program(X, pts, xs, ys)
        got = numpy_program(*args_dev)
        assert all(isinstance(g, acc.Tensor) and g.device == device for g in got), "the program left the device"
        np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(np.asarray(got[1]), want[1], rtol=1e-3, atol=1e-2)
        assert abs(float(np.asarray(got[2])) - want[2]) < 1e-6
        t_prog = best_time(lambda: [sync(r) for r in numpy_program(*args_dev)], repeat)
        t_np_prog = best_time(lambda: numpy_program(X, pts, xs, ys), repeat) if device == "cpu" else None
        rows.append((device, "NumPy program, unchanged", f"{t_prog * 1e3:.2f} ms", "-",
                     f"{t_np_prog / t_prog:.2f}x" if t_np_prog else "-"))
        rows += sort_rows(device, repeat, args.quick, lambda t: best_time(lambda: sync(t.clone()), 2 * repeat))
        rows.append((device, "copy (the bandwidth anchor)", f"{t_copy * 1e3:.2f} ms", f"{copy_bw:.1f} GiB/s", "-"))

    print_rows(rows, args.markdown)


def print_rows(rows, markdown: bool) -> None:
    header = ("device", "case", "Accelera", "of copy bandwidth", "vs NumPy (its time / ours)")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("| --- | --- | ---: | ---: | ---: |")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in rows:
            print("  ".join(f"{c:>28}" if i else f"{c:<10}" for i, c in enumerate(r)))


if __name__ == "__main__":
    main()
