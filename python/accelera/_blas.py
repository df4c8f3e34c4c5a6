"""Which BLAS the CPU backend runs matrix products on (Notes [oneDNN products] and [Sharing NumPy's BLAS] in
src/backends/cpu/blas.cpp). A build with oneDNN runs float32 products on oneDNN's sgemm, on the OpenMP pool
that every other CPU kernel (convolutions included) runs on, so the library's own work never fights a
second pool for the cores. Without oneDNN, NumPy's own OpenBLAS when NumPy carries one, so that code which
alternates between ``np.matmul`` and ``accelera.matmul`` keeps one thread pool busy instead of two.
``ACCELERA_CPU_BLAS`` chooses at import: ``auto`` (the default: oneDNN when built with it, else NumPy's if
it has its own, else the linked OpenBLAS), ``onednn``, ``numpy`` (NumPy's, or an error), ``builtin`` (the
linked OpenBLAS) or a library's path.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy

from . import _args, _core


def numpy_blas_library() -> str | None:
    """The path of the OpenBLAS that NumPy's wheel carries (in ``numpy.libs`` or ``numpy/.dylibs``), or None
    when NumPy uses a BLAS of the system (then it is usually the same library as Accelera's own)."""
    package = Path(numpy.__file__).resolve().parent
    folders = (package.parent / "numpy.libs", package / ".dylibs")
    found = sorted(p for folder in folders if folder.is_dir() for p in folder.glob("lib*openblas*"))
    return str(found[0]) if found else None


def cpu_blas_info() -> dict:
    """The BLAS that CPU matrix products run on: ``library`` (its path), ``symbols`` (the sgemm entry point),
    ``config`` (OpenBLAS's build line), ``core`` (OpenBLAS's kernel family), ``suggested_core`` (set when
    OpenBLAS fell back to kernels below this CPU's: the OPENBLAS_CORETYPE value that fixes it, read when the
    library loads), ``integer_bits`` (32 or 64), ``threads``, ``one_thread_below_flops`` (float32 products on
    oneDNN smaller than this run on one thread: Note [Small products on one thread], measured on first use),
    ``spin_log2_cycles`` (OpenBLAS's workers spin 2^this cycles after a product: 20 for the linked library as
    the package loads it, 28 for OpenBLAS's default; 0 when not OpenBLAS) and ``builtin`` (True for the
    OpenBLAS that Accelera was built with)."""
    return _core.cpu_blas_info()


def use_cpu_blas(library: str) -> None:
    """Run CPU matrix products on ``library``: ``"onednn"`` (float32 products on oneDNN's sgemm, float64 on
    the built-in OpenBLAS), ``"numpy"`` (NumPy's own OpenBLAS), ``"builtin"`` (the one Accelera was built
    with) or the path of a shared library with CBLAS ``sgemm`` and ``dgemm``. Raises
    ArgumentError when the library cannot be used; the choice is unchanged then."""
    library = _args.text(library, "library")
    if library == "numpy":
        path = numpy_blas_library()
        if path is None:
            raise _core.ArgumentError(
                "use_cpu_blas('numpy'): this NumPy carries no OpenBLAS of its own (it uses the system's BLAS); "
                "use 'builtin' or a library's path")
        library = path
    _core.use_cpu_blas(library)


def choose_at_import() -> None:
    """Apply ACCELERA_CPU_BLAS (default ``auto``)."""
    setting = os.environ.get("ACCELERA_CPU_BLAS", "auto").strip()
    if setting == "auto":
        if _core.cpu_blas_has_onednn():
            _core.use_cpu_blas("onednn")
            return
        path = numpy_blas_library()
        if path is not None:
            _core.use_cpu_blas(path)
        return
    if not setting:
        raise _core.ArgumentError("ACCELERA_CPU_BLAS is empty: expected auto, onednn, numpy, builtin or a library's path")
    use_cpu_blas(setting)
