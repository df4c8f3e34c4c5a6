"""The .npy files ``accelera matmul`` reads: whatever numpy.save writes for 2-D float32/float64 arrays (both
orders, every format version), and a clear, typed error naming the file for anything else."""

from __future__ import annotations

import io

import numpy as np
import pytest

from test_cli import _run


def _npy(dict_text: str, data: bytes, version: int = 1, end: bytes = b"\n") -> bytes:
    """A .npy file with a hand-written header dictionary, padded as numpy.save pads it."""
    prefix = 10 if version == 1 else 12
    header = dict_text.encode("latin1")
    header += b" " * ((64 - (prefix + len(header) + 1) % 64) % 64) + end
    length = len(header).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + data


def _matmul(directory, a_name="a.npy", b_name="b.npy"):
    return _run("matmul", a_name, b_name, "-o", "c.npy", "--device", "cpu", "--budget", "8KB", "-q", cwd=directory)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (1, 9), (9, 1), (0, 4), (4, 0), (33, 17)], ids=str)
def test_reads_what_numpy_save_writes(tmp_path, dtype, order, shape):
    rng = np.random.default_rng(11)
    a = np.asarray(rng.uniform(-1, 1, shape).astype(dtype), order=order)
    b = rng.uniform(-1, 1, (shape[1], 3)).astype(dtype)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    proc = _matmul(tmp_path)
    assert proc.returncode == 0, proc.stderr
    c = np.load(tmp_path / "c.npy")
    assert c.dtype == dtype and c.shape == (shape[0], 3)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)], ids=lambda v: f"{v[0]}.{v[1]}")
def test_reads_every_format_version(tmp_path, version):
    a = np.arange(12.0).reshape(3, 4)
    with open(tmp_path / "a.npy", "wb") as f:
        np.lib.format.write_array(f, a, version=version)
    np.save(tmp_path / "b.npy", np.eye(4))
    proc = _matmul(tmp_path)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "c.npy"), a)


def test_trailing_bytes_are_ignored_as_numpy_load_does_with_a_warning(tmp_path):
    a = np.arange(6.0).reshape(2, 3)
    np.save(tmp_path / "a.npy", a)
    with open(tmp_path / "a.npy", "ab") as f:
        f.write(b"garbage")
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), a)  # NumPy reads it
    np.save(tmp_path / "b.npy", np.eye(3))
    proc = _matmul(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "a.npy has 7 bytes after its data; they are ignored" in proc.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "c.npy"), a)


F8 = "'descr': '<f8', 'fortran_order': False, "
DATA = bytes(40 * 30 * 8)

# (file bytes, what the message must say): every one must fail with the file named and nothing written.
INVALID = {
    "negative-extent": (_npy("{" + F8 + "'shape': (-40, 30), }", DATA), "'shape' has a negative extent"),
    "no-closing-brace": (_npy("{" + F8 + "'shape': (40, 30), ", DATA), "the header ends before its closing '}'"),
    "python2-longs": (_npy("{" + F8 + "'shape': (40L, 30L), }", DATA), "Python 2 long literal"),
    "extent-beyond-64-bits": (_npy("{" + F8 + "'shape': (99999999999999999999, 30), }", DATA), "is too large"),
    "bytes-overflow": (_npy("{" + F8 + "'shape': (1, 4611686018427387904), }", bytes(4800)),
                       "needs more than 2^63 - 1 bytes"),
    "truncated-data": (_npy("{" + F8 + "'shape': (40, 30), }", DATA[:-1]), "shorter than its shape says"),
    "header-past-end": (b"\x93NUMPY\x01\x00\xff\xff{'descr'", "header says it is 65535 bytes long"),
    "version-4": (b"\x93NUMPY\x04\x00" + bytes(200), "version 4.0 is not supported"),
    "not-npy": (b"PK\x03\x04 a zip archive", "is not a .npy file"),
    "empty-file": (b"", "is not a .npy file (it is empty)"),
    "missing-key": (_npy("{'descr': '<f8', 'shape': (40, 30), }", DATA), "the key 'fortran_order' is missing"),
    "extra-key": (_npy("{" + F8 + "'shape': (40, 30), 'x': 1}", DATA), "unexpected key 'x'"),
    "duplicate-key": (_npy("{" + F8 + "'shape': (40, 30), 'shape': (40, 30)}", DATA), "appears twice"),
    "shape-list": (_npy("{" + F8 + "'shape': [40, 30]}", DATA), "not a list"),
    "hex-extent": (_npy("{" + F8 + "'shape': (0x28, 30)}", DATA), "decimal integers"),
    "fortran-order-int": (_npy("{'descr': '<f8', 'fortran_order': 0, 'shape': (40, 30)}", DATA), "True or False"),
    "no-newline": (_npy("{" + F8 + "'shape': (40, 30)}", DATA, end=b" "), "must end with a newline"),
    "text-after": (_npy("{" + F8 + "'shape': (40, 30)} # c", DATA), "after the closing '}'"),
}


@pytest.mark.parametrize("case", INVALID, ids=list(INVALID))
def test_malformed_files_are_refused_with_the_reason(tmp_path, case):
    content, needle = INVALID[case]
    (tmp_path / "a.npy").write_bytes(content)
    np.save(tmp_path / "b.npy", np.ones((30, 2)))
    proc = _matmul(tmp_path)
    assert proc.returncode == 1
    assert "accelera: error: a.npy" in proc.stderr, proc.stderr
    assert needle in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and "stoll" not in proc.stderr
    assert not (tmp_path / "c.npy").exists()


def _save(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


UNSUPPORTED = {
    "int32": (np.ones((3, 4), np.int32), "dtype '<i4' is not supported"),
    "float16": (np.ones((3, 4), np.float16), "dtype '<f2' is not supported"),
    "complex64": (np.ones((3, 4), np.complex64), "dtype '<c8' is not supported"),
    "big-endian": (np.ones((3, 4), ">f8"), "big-endian data ('>f8') is not supported"),
    "structured": (np.ones(3, [("a", "<f8")]), "structured dtypes"),
    "object": (np.array([[None, 1]], dtype=object), "dtype '|O' is not supported"),
    "1-d": (np.ones(4), "must be 2-D, got shape (4,)"),
    "3-d": (np.ones((2, 3, 4)), "must be 2-D, got shape (2, 3, 4)"),
    "0-d": (np.float64(1.0), "must be 2-D, got shape ()"),
}


@pytest.mark.parametrize("case", UNSUPPORTED, ids=list(UNSUPPORTED))
def test_unsupported_arrays_say_what_is_supported(tmp_path, case):
    array, needle = UNSUPPORTED[case]
    (tmp_path / "a.npy").write_bytes(_save(array))
    np.save(tmp_path / "b.npy", np.ones((4, 2)))
    proc = _matmul(tmp_path)
    assert proc.returncode == 1
    assert "accelera: error: a.npy" in proc.stderr and needle in proc.stderr, proc.stderr
    assert not (tmp_path / "c.npy").exists()
