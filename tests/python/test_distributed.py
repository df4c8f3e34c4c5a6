"""accelera.distributed under mpirun with 1, 2, 3 and 4 ranks: scatter and gather round trips, each rank's
local blocks where ScaLAPACK puts them, products against NumPy in float64 and float32 on every grid shape,
and errors raised on every rank (none left waiting)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import accelera as acc

CHILD = textwrap.dedent("""
    import json
    import numpy as np
    from mpi4py import MPI
    import accelera as acc
    import accelera.distributed as dist

    comm = MPI.COMM_WORLD
    size = comm.Get_size()
    report = {"rank": comm.Get_rank(), "checks": 0, "errors": {}}
    rng = np.random.default_rng(7)  # every rank draws the same matrices; only the root's are read

    def owner_rows(n, nb, p, nprocs):
        return [i for i in range(n) if (i // nb) % nprocs == p]

    shapes = [(r, size // r) for r in range(1, size + 1) if size % r == 0]
    for shape in shapes:
        grid = dist.ProcessGrid(comm, shape)
        row, col = grid.coords
        for dtype, tol in (("float64", 1e-12), ("float32", 2e-5)):
            for (m, k, n), (mb, kb, nb) in [((37, 29, 23), (5, 7, 3)), ((1, 1, 1), (1, 1, 1)),
                                            ((64, 300, 40), (16, 64, 8)), ((0, 4, 3), (2, 2, 2))]:
                a = rng.standard_normal((m, k)).astype(dtype)
                b = rng.standard_normal((k, n)).astype(dtype)
                root = size - 1
                A = dist.DistributedMatrix.scatter(a if grid.rank == root else None, grid, (mb, kb), root=root)
                B = dist.DistributedMatrix.scatter(b if grid.rank == root else None, grid, (kb, nb), root=root)
                assert A.shape == (m, k) and A.dtype.name == dtype and A.block == (mb, kb)
                # This rank's blocks are the ones block-cyclic dealing gives it, column-major.
                mine = a[np.ix_(owner_rows(m, mb, row, shape[0]), owner_rows(k, kb, col, shape[1]))]
                assert A.local.shape == mine.shape and np.array_equal(A.local, mine), (A.local, mine)
                assert A.descriptor[2:6] == (m, k, mb, kb)
                overlap = dtype == "float64"  # float32 runs without, so both paths run on every grid
                C = A.matmul(B, overlap=overlap, schedule="summa")
                # mpi4py initialises MPI_THREAD_MULTIPLE: overlap runs wherever there are two panels or more.
                stats = C.last_stats
                assert stats["overlapped"] == (overlap and stats["panels"] > 1), stats
                report["overlapped"] = report.get("overlapped", 0) + stats["overlapped"]
                # By default the helper runs where it can pay: a GPU, or ranks on several nodes (not here).
                auto = A.matmul(B, schedule="summa").last_stats
                assert auto["overlapped"] == (auto["device"] != "cpu" and auto["panels"] > 1), auto
                # Split K gives the same product; left to choose, this shape takes whichever the model says.
                S = A.matmul(B, schedule="split_k")
                assert S.last_stats["schedule"] == ("split_k" if 0 not in (m, n, k) else "summa"), S.last_stats
                assert A.matmul(B).last_stats["schedule"] in ("summa", "split_k")
                s = S.gather(root=root)
                if grid.rank == root:
                    assert np.all(np.abs(s - a.astype(np.float64) @ b.astype(np.float64)) <= tol * (
                        np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64) + 1))
                c = C.gather(root=root)
                if grid.rank == root:
                    ref = a.astype(np.float64) @ b.astype(np.float64)
                    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
                    assert c.dtype == np.dtype(dtype) and c.shape == (m, n)
                    assert np.all(np.abs(c - ref) <= tol * (scale + 1)), float(np.abs(c - ref).max())
                else:
                    assert c is None
                report["checks"] += 1
        # Writing into the local view writes the matrix.
        Z = dist.DistributedMatrix.zeros((9, 7), grid, block=2)
        Z.local[:] = 1.0
        z = Z.gather()
        assert grid.rank != 0 or (z == 1.0).all()

    grid = dist.ProcessGrid(comm)
    def error_of(f):
        try:
            f()
        except acc.Error as e:
            return type(e).__name__ + ": " + str(e)
        return None
    x = np.ones((8, 8))
    report["errors"]["no_array"] = error_of(lambda: dist.DistributedMatrix.scatter(None, grid, 4))
    report["errors"]["three_d"] = error_of(
        lambda: dist.DistributedMatrix.scatter(np.ones((2, 2, 2)) if grid.rank == 0 else None, grid, 4))
    report["errors"]["ints"] = error_of(
        lambda: dist.DistributedMatrix.scatter(np.ones((2, 2), int) if grid.rank == 0 else None, grid, 4))
    A = dist.DistributedMatrix.scatter(x, grid, 4)
    report["errors"]["shapes"] = error_of(lambda: A @ dist.DistributedMatrix.zeros((7, 8), grid, 4))
    # B's row blocks (2) differ from A's column blocks (4): B is redistributed first, and the product is right.
    y = np.arange(64, dtype=np.float64).reshape(8, 8) - 20
    mixed = A @ dist.DistributedMatrix.scatter(y if grid.rank == 0 else None, grid, (2, 4))
    product = mixed.gather()
    report["mixed_blocks"] = {"redistributed": mixed.last_stats["redistributed"],
                              "right": bool(grid.rank != 0 or np.array_equal(product, x @ y))}
    report["errors"]["dtype"] = error_of(lambda: A @ dist.DistributedMatrix.zeros((8, 8), grid, 4, "float32"))
    report["errors"]["overlap"] = error_of(lambda: A.matmul(A, overlap="yes"))
    report["errors"]["schedule"] = error_of(lambda: A.matmul(A, schedule="cannon"))
    report["errors"]["grid"] = error_of(lambda: dist.ProcessGrid(comm, (size + 1, 1)))
    reports = comm.gather(report)
    if comm.Get_rank() == 0:
        print(json.dumps(reports))
""")


def _mpirun():
    return shutil.which("mpirun")


def _has_distributed():
    try:
        import mpi4py  # noqa: F401

        from accelera import _dist  # noqa: F401
    except ImportError:
        return False
    return True


needs_mpi = pytest.mark.skipif(_mpirun() is None or not _has_distributed(),
                               reason="needs mpirun, mpi4py and Accelera built with MPI (scripts/install-deps.sh)")


@needs_mpi
@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_distributed_matrices_under_mpirun(ranks, tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run([_mpirun(), "-np", str(ranks), "--oversubscribe", sys.executable, str(script)],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:] + proc.stdout[-2000:]
    reports = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [r["rank"] for r in reports] == list(range(ranks))
    grids = sum(1 for r in range(1, ranks + 1) if ranks % r == 0)
    for r in reports:
        assert r["checks"] == grids * 2 * 4
        assert r["overlapped"] >= 1  # the 300-deep products have several panels
        e = r["errors"]
        assert e["no_array"] == "ArgumentError: scatter: the root (rank 0) has no array"
        assert e["three_d"].startswith("ShapeError: scatter: a distributed matrix is 2-D")
        assert e["overlap"] == "ArgumentError: overlap must be True, False or None, got 'yes'"
        assert e["schedule"] == "ArgumentError: schedule must be 'summa', 'split_k' or None, got 'cannon'"
        assert e["ints"].startswith("DTypeError: scatter: distributed matrices are float64 or float32")
        assert e["shapes"] == "ShapeError: matmul: A is 8 x 8 but B is 7 x 8"
        assert r["mixed_blocks"] == {"redistributed": True, "right": True}, r["mixed_blocks"]
        assert e["dtype"] == "DTypeError: matmul: A is float64 but B is float32"
        assert e["grid"].startswith("ArgumentError: a ") and "process grid needs" in e["grid"], e["grid"]
    # Every rank raised the same errors.
    assert all(r["errors"] == reports[0]["errors"] for r in reports)


def test_without_mpi_the_module_says_what_is_missing():
    import accelera.distributed as dist
    if dist._dist is not None:
        pytest.skip("this build has MPI")
    with pytest.raises(acc.NotSupportedError, match="built with MPI"):
        dist.ProcessGrid()
