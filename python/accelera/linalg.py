"""The array API standard's ``linalg`` extension (2024.12), batched over leading axes, with
numpy.linalg's semantics (docs/array-api.md, "Linear algebra").

The factorisations (``solve``, ``inv``, ``det``, ``slogdet``, ``cholesky``, ``eigh``, ``eigvalsh``, ``svd``,
``svdvals``, ``qr``, and ``pinv``, ``matrix_rank`` and the ``nuc``/``2``/``-2`` norms built on the SVD) run on
LAPACK on the CPU, cuSOLVER on CUDA, and LAPACK on the host for OpenCL devices (a logged copy there and
back); the rest runs on the operands' device. float16 and bfloat16 are computed in float32. A matrix a
factorisation cannot take raises :class:`LinAlgError` (a ValueError, like ``numpy.linalg.LinAlgError``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import NamedTuple

from . import _core
from ._args import flag, integer, real
from ._core import ArgumentError, DTypeError, LinAlgError, Tensor
from ._ops import _axes, _tensor
from ._ops import matmul  # noqa: F401  (the extension lists it)

__all__ = [
    "LinAlgError", "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
    "tensordot", "trace", "vecdot", "vector_norm",
]


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def _pair(x1, x2) -> tuple[Tensor, Tensor]:
    return _tensor(x1), _tensor(x2)


def tensordot(x1, x2, /, *, axes=2) -> Tensor:
    """Sums products over the last ``axes`` axes of x1 and the first ``axes`` of x2, or over the axes paired
    by ``axes = (axes_of_x1, axes_of_x2)``; one matmul on the operands' device (floating dtypes)."""
    a, b = _pair(x1, x2)
    if isinstance(axes, numbers.Integral) and not isinstance(axes, bool):
        return _core.tensordot(a, b, integer(axes, "axes"))
    if isinstance(axes, Sequence) and len(axes) == 2:
        first, second = (_axes(list(x) if isinstance(x, Sequence) else x) for x in axes)
        return _core.tensordot_axes(a, b, first, second)
    raise DTypeError(f"tensordot: axes must be an integer or a pair of axis sequences, not {axes!r}")


def vecdot(x1, x2, /, *, axis=-1) -> Tensor:
    """Dot products of the vectors along ``axis`` after broadcasting; complex x1 is conjugated (the standard's rule)."""
    a, b = _pair(x1, x2)
    return _core.vecdot(a, b, integer(axis, "axis"))


def matrix_transpose(x, /) -> Tensor:
    """The last two axes swapped (a view)."""
    from ._manipulation import matrix_transpose as transpose

    return transpose(x)


def solve(x1, x2, /) -> Tensor:
    """x with x1 @ x = x2. x2 of shape (M,) is one vector (the result then has shape (..., M)); otherwise
    x2 is (..., M, K) and batch axes broadcast. A singular x1 raises LinAlgError."""
    a, b = _pair(x1, x2)
    return _core._linalg.solve(a, b)


def inv(x, /) -> Tensor:
    """The inverse of each square matrix; a singular one raises LinAlgError."""
    return _core._linalg.inv(_tensor(x))


def det(x, /) -> Tensor:
    """Determinants, from an LU factorisation (0 for an exactly singular matrix)."""
    return _core._linalg.det(_tensor(x))


def slogdet(x, /) -> SlogdetResult:
    """(sign, log|det|): sign 0 and logabsdet -inf for a singular matrix."""
    return SlogdetResult(*_core._linalg.slogdet(_tensor(x)))


def cholesky(x, /, *, upper: bool = False) -> Tensor:
    """L with x = L @ L.mT (the lower triangle of x is read), or U = L.mT with ``upper``. A matrix that is
    not positive definite raises LinAlgError."""
    return _core._linalg.cholesky(_tensor(x), flag(upper, "upper"))


def eigh(x, /) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices; the lower triangle is read."""
    return EighResult(*_core._linalg.eigh(_tensor(x)))


def eigvalsh(x, /) -> Tensor:
    """Eigenvalues (ascending) of symmetric matrices."""
    return _core._linalg.eigvalsh(_tensor(x))


def svd(x, /, *, full_matrices: bool = True) -> SVDResult:
    """U, S (descending), Vh with x = U @ diag(S) @ Vh; U and Vh square when ``full_matrices``."""
    return SVDResult(*_core._linalg.svd(_tensor(x), flag(full_matrices, "full_matrices")))


def svdvals(x, /) -> Tensor:
    """Singular values, descending."""
    return _core._linalg.svdvals(_tensor(x))


def qr(x, /, *, mode: str = "reduced") -> QRResult:
    """Q (orthonormal columns) and R (upper triangular) with x = Q @ R; ``mode`` "reduced" or "complete"."""
    if mode not in ("reduced", "complete"):
        raise ArgumentError(f"qr: mode must be 'reduced' or 'complete', not {mode!r}")
    return QRResult(*_core._linalg.qr(_tensor(x), mode))


def _rtol(rtol) -> float | None:
    if rtol is None:
        return None
    if isinstance(rtol, Tensor):
        raise _core.NotSupportedError("rtol as an array is not supported; give a Python float")
    value = real(rtol, "rtol")
    if not math.isfinite(value) or value < 0:
        raise ArgumentError(f"rtol must be a finite number >= 0, not {rtol!r}")
    return value


def pinv(x, /, *, rtol=None) -> Tensor:
    """Moore-Penrose pseudo-inverse from the SVD: singular values at most rtol * the largest count as zero;
    rtol defaults to max(M, N) * eps of the dtype (the standard's default, not NumPy's 1e-15)."""
    return _core._linalg.pinv(_tensor(x), _rtol(rtol))


def matrix_rank(x, /, *, rtol=None) -> Tensor:
    """The number of singular values above rtol * the largest (default rtol: max(M, N) * eps), as int64."""
    return _core._linalg.matrix_rank(_tensor(x), _rtol(rtol))


_MATRIX_ORDS = {1: "1", -1: "-1", 2: "2", -2: "-2", math.inf: "inf", -math.inf: "-inf"}


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro") -> Tensor:
    """Norm of each matrix: ``"fro"``, ``"nuc"``, 1, -1, 2, -2, inf or -inf (NumPy's definitions)."""
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise ArgumentError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, not {ord!r}")
        name = ord
    elif isinstance(ord, numbers.Real) and not isinstance(ord, bool) and ord in _MATRIX_ORDS:
        name = _MATRIX_ORDS[ord]
    else:
        raise ArgumentError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, not {ord!r}")
    return _core._linalg.matrix_norm(_tensor(x), name, flag(keepdims, "keepdims"))


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2) -> Tensor:
    """(sum |x|**ord)**(1/ord) over ``axis`` (None: every axis; a tuple: those); ord 0 counts nonzeros,
    inf and -inf take the largest and smallest |x|."""
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise DTypeError(f"vector_norm: ord must be a real number, not {ord!r}")
    return _core._linalg.vector_norm(_tensor(x), _axes(axis), float(ord), flag(keepdims, "keepdims"))


def matrix_power(x, n, /) -> Tensor:
    """x @ x @ ... (n times) by repeated squaring; n = 0 gives identities, n < 0 powers of inv(x)."""
    return _core._linalg.matrix_power(_tensor(x), integer(n, "n"))


def diagonal(x, /, *, offset: int = 0) -> Tensor:
    """Diagonal ``offset`` of the last two axes (above the main one when offset > 0)."""
    return _core._linalg.diagonal(_tensor(x), integer(offset, "offset"))


def trace(x, /, *, offset: int = 0, dtype=None) -> Tensor:
    """Sum of diagonal ``offset``; with ``dtype``, x is converted to it first."""
    x = _tensor(x)
    if dtype is not None:
        from ._dtype_functions import astype

        x = astype(x, dtype)
    return _core._linalg.trace(x, integer(offset, "offset"))


def outer(x1, x2, /) -> Tensor:
    """The outer product of two vectors."""
    a, b = _pair(x1, x2)
    return _core._linalg.outer(a, b)


def cross(x1, x2, /, *, axis: int = -1) -> Tensor:
    """Cross products of 3-vectors along ``axis`` (negative, counted from the end) after broadcasting."""
    a, b = _pair(x1, x2)
    return _core._linalg.cross(a, b, integer(axis, "axis"))
