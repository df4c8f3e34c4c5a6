"""cuBLASXt: NVIDIA's out-of-core GEMM on host matrices, the anchor for MatrixEngine.matmul on CUDA.

    python bench/bench_cublasxt.py [--device cuda:0] [--sizes 8192 16384] [--block-dims 512 1024 ... 16384]

cublasXtSgemm / cublasXtDgemm through ctypes (libcublas from the CUDA toolkit: $CUDA_HOME/lib64,
/usr/local/cuda/lib64, or the nvidia-cublas wheel), on host matrices pinned with cudaHostRegister, the block
size tuned with cublasXtSetBlockDim over the given sizes between n/16 and n/2. Every product is checked on
sampled entries against float64. Prints GFLOP/s per size and block size. bench_engine.py --anchor cublasxt
uses the same functions on its own matrices. Without a CUDA device or libcublas it exits with status 2 and
says why.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import os
import sys
import time

import numpy as np

CUBLAS_OP_N = 0
CUBLASXT_PINNING_DISABLED = 0
CUDA_HOST_REGISTER_PORTABLE = 1


class Unavailable(RuntimeError):
    """cuBLASXt cannot run here (no library, no device): the message says why."""


def _library(stem: str) -> ctypes.CDLL:
    """libcublas / libcudart: the CUDA toolkit's first, then the nvidia-* wheels'."""
    folders = []
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            folders += [os.path.join(root, "lib64"), os.path.join(root, "targets", "x86_64-linux", "lib")]
    for path in sys.path:
        folders += glob.glob(os.path.join(path, "nvidia", "*", "lib"))
    tried = []
    for folder in folders:
        for lib in sorted(glob.glob(os.path.join(folder, f"{stem}.so*")), key=len):
            try:
                return ctypes.CDLL(lib)
            except OSError as err:
                tried.append(f"{lib}: {err}")
    raise Unavailable(f"{stem}.so not found (looked in {', '.join(folders) or 'nothing'}){'; ' if tried else ''}"
                      + "; ".join(tried))


class CublasXt:
    """One cuBLASXt handle on one device."""

    def __init__(self, device: int = 0):
        self.lib = _library("libcublas")
        self.rt = _library("libcudart")
        for name in ("cublasXtSgemm", "cublasXtDgemm"):
            getattr(self.lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_size_t,
                                                ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p,
                                                ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                                ctypes.c_void_p, ctypes.c_size_t]
        self.rt.cudaHostRegister.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
        self.rt.cudaHostUnregister.argtypes = [ctypes.c_void_p]
        self.rt.cudaGetErrorString.restype = ctypes.c_char_p
        self.handle = ctypes.c_void_p()
        # cuBLASXt is not asked to select a device that does not answer (it crashes rather than fail then).
        count = ctypes.c_int(0)
        err = self.rt.cudaGetDeviceCount(ctypes.byref(count))
        if err != 0:
            raise Unavailable(f"no CUDA device: {self.rt.cudaGetErrorString(err).decode()} (CUDA error {err})")
        if not 0 <= device < count.value:
            raise Unavailable(f"no CUDA device {device}: this machine has {count.value}")
        self._check(self.lib.cublasXtCreate(ctypes.byref(self.handle)), "cublasXtCreate")
        devices = (ctypes.c_int * 1)(device)
        self._check(self.lib.cublasXtDeviceSelect(self.handle, 1, devices), "cublasXtDeviceSelect")
        # The matrices are pinned once, up front (pin()): cuBLASXt need not pin them on every call.
        self._check(self.lib.cublasXtSetPinningMemMode(self.handle, CUBLASXT_PINNING_DISABLED),
                    "cublasXtSetPinningMemMode")
        self.pinned: list[int] = []

    @staticmethod
    def _check(status: int, what: str) -> None:
        if status != 0:
            raise Unavailable(f"{what} failed with cuBLAS status {status}")

    def set_block_dim(self, block: int) -> None:
        self._check(self.lib.cublasXtSetBlockDim(self.handle, block), "cublasXtSetBlockDim")

    def pin(self, *arrays: np.ndarray) -> None:
        for a in arrays:
            err = self.rt.cudaHostRegister(a.ctypes.data, a.nbytes, CUDA_HOST_REGISTER_PORTABLE)
            if err != 0:
                raise Unavailable(f"cudaHostRegister of {a.nbytes >> 20} MiB failed with CUDA error {err}")
            self.pinned.append(a.ctypes.data)

    def unpin(self) -> None:
        for ptr in self.pinned:
            self.rt.cudaHostUnregister(ptr)
        self.pinned.clear()

    def matmul(self, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
        """c = a @ b for C-ordered float32/float64 host matrices (column-major cuBLAS: c^T = b^T a^T)."""
        m, k = a.shape
        n = b.shape[1]
        assert a.dtype == b.dtype == c.dtype and a.flags.c_contiguous and b.flags.c_contiguous and c.flags.c_contiguous
        ctype = ctypes.c_float if a.dtype == np.float32 else ctypes.c_double
        gemm = self.lib.cublasXtSgemm if a.dtype == np.float32 else self.lib.cublasXtDgemm
        alpha, beta = ctype(1.0), ctype(0.0)
        self._check(gemm(self.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, ctypes.byref(alpha), b.ctypes.data, n,
                         a.ctypes.data, k, ctypes.byref(beta), c.ctypes.data, n), "cublasXtGemm")

    def close(self) -> None:
        self.unpin()
        if self.handle:
            self.lib.cublasXtDestroy(self.handle)
            self.handle = ctypes.c_void_p()


def sampled_error(a: np.ndarray, b: np.ndarray, c: np.ndarray, samples: int = 16, seed: int = 5) -> float:
    """Largest |c - a @ b| / (|a| @ |b|) over sampled entries, the reference in float64."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    for i, j in zip(rng.integers(0, c.shape[0], samples), rng.integers(0, c.shape[1], samples)):
        row, col = a[i].astype(np.float64), b[:, j].astype(np.float64)
        worst = max(worst, abs(float(c[i, j]) - row @ col) / max(np.abs(row) @ np.abs(col), 1e-300))
    return worst


def time_matmul(xt: CublasXt, a, b, c, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        xt.matmul(a, b, c)
        best = min(best, time.perf_counter() - start)
    return best


def candidates(n: int, block_dims) -> list[int]:
    """The block sizes worth trying for n x n matrices: n/16 to n/2 (smaller ones move the operands many more
    times, larger ones leave no copies to overlap with the products), else the one nearest to that range."""
    within = [bd for bd in block_dims if n / 16 <= bd <= n / 2]
    return within or [min(block_dims, key=lambda bd: abs(bd - n / 4))]


def tune(xt: CublasXt, a, b, c, block_dims, repeat: int = 1) -> tuple[int, dict[int, float]]:
    """The fastest block size for these matrices (after one warm-up product), and each one's seconds."""
    dims = candidates(a.shape[0], block_dims)
    xt.set_block_dim(dims[-1])
    xt.matmul(a, b, c)
    times = {}
    for bd in dims:
        xt.set_block_dim(bd)
        times[bd] = time_matmul(xt, a, b, c, repeat)
    best = min(times, key=times.get)
    xt.set_block_dim(best)
    return best, times


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--sizes", type=int, nargs="+", default=[8192, 16384])
    parser.add_argument("--block-dims", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    try:
        xt = CublasXt(int(args.device.split(":")[1]))
    except Unavailable as err:
        print(f"bench_cublasxt: {err}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(0)
    print("| n | block | GFLOP/s | sampled error |\n| ---: | ---: | ---: | ---: |")
    try:
        for n in args.sizes:
            a = rng.uniform(-1, 1, (n, n)).astype(args.dtype)
            b = rng.uniform(-1, 1, (n, n)).astype(args.dtype)
            c = np.empty((n, n), args.dtype)
            xt.pin(a, b, c)
            best, times = tune(xt, a, b, c, args.block_dims, args.repeat)
            err = sampled_error(a, b, c)
            for bd, t in times.items():
                mark = " (best)" if bd == best else ""
                print(f"| {n} | {bd}{mark} | {2 * n**3 / t / 1e9:.0f} | {err:.1e} |", flush=True)
            xt.unpin()
    finally:
        xt.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
