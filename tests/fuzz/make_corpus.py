"""Writes the fuzzers' seed corpus: .npy files as numpy.save writes them (both dtypes, both orders, every
format version, empty and non-2-D arrays) and damaged ones (the reader's past mistakes and their
neighbours), in corpus/npy/; their headers alone in corpus/npy_header/. Run it again after changing it:
python3 tests/fuzz/make_corpus.py
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
F8 = "'descr': '<f8', 'fortran_order': False, "


def saved(array, version=None) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asanyarray(array), version=version, allow_pickle=False)
    return buffer.getvalue()


def hand_made(dict_text: str, data: bytes, version: int = 1, end: bytes = b"\n", misalign: int = 0) -> bytes:
    prefix = 10 if version == 1 else 12
    header = dict_text.encode("latin1")
    header += b" " * ((64 - (prefix + len(header) + 1) % 64) % 64 + misalign) + end
    length = len(header).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + data


def files() -> dict[str, bytes]:
    small = np.arange(12, dtype=np.float64).reshape(3, 4)
    out = {
        "f8-c-3x4": saved(small),
        "f4-c-3x4": saved(small.astype(np.float32)),
        "f8-f-3x4": saved(np.asfortranarray(small)),
        "f4-f-4x3": saved(np.asfortranarray(small.T.astype(np.float32))),
        "f8-v2": saved(small, (2, 0)),
        "f8-v3": saved(small, (3, 0)),
        "f8-0x5": saved(np.zeros((0, 5))),
        "f8-1x1": saved(np.ones((1, 1))),
        "f8-1d": saved(np.ones(3)),
        "f8-3d": saved(np.ones((2, 1, 2))),
        "f8-0d": saved(np.float64(2.0)),
        "i4": saved(np.ones((2, 2), np.int32)),
        "f8-big-endian": saved(np.ones((2, 2), ">f8")),
        "trailing-bytes": saved(small) + b"garbage",
        "truncated": saved(small)[:-5],
        "negative-extent": hand_made("{" + F8 + "'shape': (-4, 3), }", bytes(96)),
        "no-closing-brace": hand_made("{" + F8 + "'shape': (4, 3), ", bytes(96)),
        "python2-longs": hand_made("{" + F8 + "'shape': (4L, 3L), }", bytes(96)),
        "extent-beyond-64-bits": hand_made("{" + F8 + "'shape': (99999999999999999999, 3), }", bytes(96)),
        "bytes-overflow": hand_made("{" + F8 + "'shape': (1, 4611686018427387904), }", bytes(64)),
        "duplicate-key": hand_made("{" + F8 + "'shape': (3, 4), 'shape': (3, 4)}", bytes(96)),
        "no-newline": hand_made("{" + F8 + "'shape': (3, 4)}", bytes(96), end=b" "),
        "header-past-end": b"\x93NUMPY\x01\x00\xff\xff{'descr'",
        "unaligned-data": hand_made("{" + F8 + "'shape': (1, 1)}", bytes(8), misalign=1),
    }
    return out


def header_of(content: bytes) -> bytes:
    if not content.startswith(b"\x93NUMPY") or len(content) < 12:
        return content
    length_bytes = 2 if content[6] == 1 else 4
    start = 8 + length_bytes
    length = int.from_bytes(content[8:start], "little")
    return content[start:start + length]


def main() -> None:
    for name in ("npy", "npy_header"):
        shutil.rmtree(HERE / "corpus" / name, ignore_errors=True)
        (HERE / "corpus" / name).mkdir(parents=True)
    for name, content in files().items():
        (HERE / "corpus" / "npy" / f"{name}.npy").write_bytes(content)
        (HERE / "corpus" / "npy_header" / f"{name}.txt").write_bytes(header_of(content))


if __name__ == "__main__":
    main()
