"""Matrices distributed over MPI ranks, and their product (C++ ``accelera::dist``).

Run under an MPI launcher with mpi4py::

    from mpi4py import MPI
    import numpy as np
    import accelera.distributed as dist

    grid = dist.ProcessGrid()                      # every rank of MPI.COMM_WORLD, as square as it goes
    a = dist.DistributedMatrix.scatter(a_np if grid.rank == 0 else None, grid, block=256)
    b = dist.DistributedMatrix.scatter(b_np if grid.rank == 0 else None, grid, block=256)
    c = a @ b                                      # SUMMA; each rank multiplies on its best device
    c_np = c.gather()                              # the whole product on rank 0, None elsewhere

A matrix is dealt block-cyclically as ScaLAPACK deals it (block (0, 0) on grid process (0, 0)); each rank
holds its blocks column-major in ``local`` (a NumPy view, writable), and ``descriptor`` is ScaLAPACK's, so
the same arrays go to ScaLAPACK routines. Every call is collective over the grid: each rank calls it with
the same global arguments (the matrix itself only on the root). An error on any rank is raised on every
rank, so none is left waiting. float64 and float32.
"""

from __future__ import annotations

import math

import numpy as np

from ._core import ArgumentError, DTypeError, NotSupportedError, ShapeError

try:
    from . import _dist
except ImportError as missing:  # a build without MPI: every use says so
    _dist = None
    _missing = missing

_MATRIX_TYPES = {"float64": "Matrix64", "float32": "Matrix32"}


def _module():
    if _dist is None:
        raise NotSupportedError(
            "accelera.distributed needs Accelera built with MPI and ScaLAPACK (Debian: openmpi-bin libopenmpi-dev "
            f"libscalapack-openmpi-dev, then reinstall Accelera; mpi4py from PyPI): {_missing}")
    return _dist


def _world():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise NotSupportedError("accelera.distributed takes its communicators from mpi4py (pip install mpi4py)") from e
    return MPI.COMM_WORLD


def _near_square(size: int) -> tuple[int, int]:
    rows = int(math.isqrt(size))
    while size % rows:
        rows -= 1
    return rows, size // rows


def _positive(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ArgumentError(f"{what} must be a positive int, got {value!r}")
    return int(value)


class ProcessGrid:
    """The ranks of an mpi4py communicator as an nprow x npcol grid, in row-major order (BLACS' default).
    ``shape`` defaults to the most square grid of the communicator's size (rows <= columns)."""

    def __init__(self, comm=None, shape=None):
        comm = _world() if comm is None else comm
        if not hasattr(comm, "py2f"):
            raise ArgumentError(f"comm must be an mpi4py communicator, got {type(comm).__name__}")
        size = comm.Get_size()
        nprow, npcol = _near_square(size) if shape is None else shape
        self.comm = comm
        self._grid = _module().ProcessGrid.of_fortran_comm(comm.py2f(), _positive(nprow, "shape[0]"),
                                                           _positive(npcol, "shape[1]"))

    @property
    def shape(self) -> tuple[int, int]:
        return self._grid.nprow, self._grid.npcol

    @property
    def coords(self) -> tuple[int, int]:
        """This rank's (row, column) in the grid."""
        return self._grid.myrow, self._grid.mycol

    @property
    def rank(self) -> int:
        return self._grid.myrow * self._grid.npcol + self._grid.mycol

    def __repr__(self) -> str:
        return f"ProcessGrid(shape={self.shape}, rank={self.rank})"


def _blocks(block, what="block") -> tuple[int, int]:
    if isinstance(block, (tuple, list)):
        if len(block) != 2:
            raise ArgumentError(f"{what} is an int or (rows, cols), got {block!r}")
        return _positive(block[0], what), _positive(block[1], what)
    b = _positive(block, what)
    return b, b


def _dtype_name(dtype) -> str:
    name = np.dtype(dtype).name
    if name not in _MATRIX_TYPES:
        raise DTypeError(f"distributed matrices are float64 or float32, got {name}")
    return name


class DistributedMatrix:
    """An m x n matrix dealt block-cyclically over a :class:`ProcessGrid` (see the module's docstring)."""

    def __init__(self, _matrix, grid: ProcessGrid, dtype: str):
        self._matrix, self.grid, self.dtype = _matrix, grid, np.dtype(dtype)
        self.last_stats: dict | None = None

    @classmethod
    def zeros(cls, shape, grid: ProcessGrid, block=64, dtype="float64") -> DistributedMatrix:
        """An m x n matrix of zeros in blocks of ``block`` (an int or (rows, cols)). Collective."""
        m, n = shape
        mb, nb = _blocks(block)
        name = _dtype_name(dtype)
        return cls(getattr(_module(), _MATRIX_TYPES[name])(grid._grid, int(m), int(n), mb, nb), grid, name)

    @classmethod
    def scatter(cls, array, grid: ProcessGrid, block=64, root: int = 0) -> DistributedMatrix:
        """The 2-D float64 or float32 array on rank ``root`` dealt to every rank of ``grid``. The other ranks
        pass None (it is not read there) and the same ``block`` (an int or (rows, cols)); the shape and dtype
        travel from the root. An error on the root is raised on every rank. Collective."""
        mb, nb = _blocks(block)
        if not isinstance(root, int) or not 0 <= root < grid.shape[0] * grid.shape[1]:
            raise ArgumentError(f"scatter: root {root!r} is not a rank of the {grid.shape} grid")
        header = None
        if grid.rank == root:
            if array is None:
                header = (ArgumentError, f"scatter: the root (rank {root}) has no array")
            else:
                array = np.asarray(array)
                if array.ndim != 2:
                    header = (ShapeError, f"scatter: a distributed matrix is 2-D, got shape {array.shape}")
                elif array.dtype.name not in _MATRIX_TYPES:
                    header = (DTypeError, f"scatter: distributed matrices are float64 or float32, got {array.dtype}")
                else:
                    header = (None, array.shape, array.dtype.name)
        error, *fields = grid.comm.bcast(header, root=root)
        if error is not None:
            raise error(fields[0])
        (m, n), name = fields
        data = np.ascontiguousarray(array) if grid.rank == root else None
        kind = getattr(_module(), _MATRIX_TYPES[name])
        return cls(kind.scatter(grid._grid, data, int(m), int(n), mb, nb, root), grid, name)

    def gather(self, root: int = 0) -> np.ndarray | None:
        """The whole matrix as a NumPy array on rank ``root``; None on the others. Collective."""
        out = np.empty(self.shape, self.dtype) if self.grid.rank == root else None
        self._matrix.gather_into(out, root)
        return out

    @property
    def shape(self) -> tuple[int, int]:
        return self._matrix.rows, self._matrix.cols

    @property
    def block(self) -> tuple[int, int]:
        return self._matrix.row_block, self._matrix.col_block

    @property
    def local(self) -> np.ndarray:
        """This rank's blocks: a writable, column-major NumPy view of (local rows, local columns)."""
        return self._matrix.local()

    @property
    def descriptor(self) -> tuple[int, ...]:
        """ScaLAPACK's nine-integer descriptor (context -1: set a BLACS context's number to use it there)."""
        return self._matrix.descriptor

    def matmul(
        self,
        other: DistributedMatrix,
        device: str | None = None,
        overlap: bool | None = None,
        schedule: str | None = None,
    ) -> DistributedMatrix:
        """self @ other over the grid, each rank multiplying on ``device`` (default: a GPU of its node, the
        node's ranks taking them round-robin, else the CPU). ``schedule``: "summa" (each rank's part of C stays
        in place and the panels of K come to it), "split_k" (each rank multiplies one share of K into a whole
        partial C, and the partials are summed into C), or None (the default): split K where the grid spans
        several nodes and a model of the traffic says it moves at most three quarters of SUMMA's (a skinny C
        with a long K). Under SUMMA a
        helper thread broadcasts the next panel while it
        multiplies this one when ``overlap`` is True; None (the default) does so where it can pay: when some
        rank computes on a GPU or the grid spans several nodes, not over one node's shared memory with the
        products on the CPU (mpi4py initialises MPI with the thread level it needs). The
        result has self's row blocks and other's column blocks; when other's row blocks are not self's column
        blocks, other is first copied into ones that are (``last_stats["redistributed"]``). ``last_stats`` of
        the result says where this rank computed, which schedule ran, how long it spent broadcasting,
        multiplying, redistributing and summing partial products, and whether broadcasts and products
        overlapped. Collective."""
        if not isinstance(other, DistributedMatrix):
            raise ArgumentError(f"matmul of a DistributedMatrix takes a DistributedMatrix, got {type(other).__name__}")
        if other.dtype != self.dtype:
            raise DTypeError(f"matmul: A is {self.dtype.name} but B is {other.dtype.name}")
        if other.grid is not self.grid:
            raise ArgumentError("matmul: A and B must share one ProcessGrid")
        if overlap is not None and not isinstance(overlap, bool):
            raise ArgumentError(f"overlap must be True, False or None, got {overlap!r}")
        if schedule not in (None, "summa", "split_k"):
            raise ArgumentError(f"schedule must be 'summa', 'split_k' or None, got {schedule!r}")
        c, stats = self._matrix.matmul(other._matrix, device, overlap, schedule)
        result = DistributedMatrix(c, self.grid, self.dtype.name)
        result.last_stats = stats
        return result

    __matmul__ = matmul

    def __repr__(self) -> str:
        return (f"DistributedMatrix(shape={self.shape}, dtype={self.dtype.name}, block={self.block}, "
                f"grid={self.grid.shape})")


__all__ = ["DistributedMatrix", "ProcessGrid"]
