"""The safetensors file format: an 8-byte little-endian header length, a JSON header (dtype, shape and
byte range of each tensor, plus string ``__metadata__``), then the raw little-endian tensor bytes. Files
written here open in the ``safetensors`` package, PyTorch and JAX, and theirs open here.

Writing goes to a temporary file in the same directory, renamed into place on success: an interrupted
save never leaves a truncated file under the final name.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
from pathlib import Path

import numpy as np

from .._convert import asarray
from .._files import new_file_mode
from .._core import ArgumentError, Tensor

_CODES = {"float64": "F64", "float32": "F32", "float16": "F16", "int64": "I64", "int32": "I32", "bool": "BOOL",
          "uint8": "U8", "int8": "I8", "int16": "I16"}
_NUMPY = {code: np.dtype(name) for name, code in _CODES.items()}
_MAX_HEADER = 100 * 1024 * 1024


def _host(value) -> np.ndarray:
    if isinstance(value, Tensor):
        if value._dtype == "bfloat16":
            raise ArgumentError("bfloat16 tensors are saved as float32: convert with .astype('float32') first")
        value = value.to("cpu").numpy()
    array = np.ascontiguousarray(value)
    if array.dtype.name not in _CODES:
        raise ArgumentError(f"safetensors cannot store dtype {array.dtype}")
    return array.astype(array.dtype.newbyteorder("<"), copy=False)


def save_file(tensors: dict, path, metadata: dict | None = None) -> None:
    """Writes ``tensors`` (name -> Tensor or array) to ``path`` atomically."""
    header: dict = {}
    if metadata:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise ArgumentError("safetensors metadata maps strings to strings")
        header["__metadata__"] = dict(metadata)
    arrays, offset = [], 0
    for name in sorted(tensors):
        array = _host(tensors[name])
        header[name] = {"dtype": _CODES[array.dtype.name], "shape": list(array.shape),
                        "data_offsets": [offset, offset + array.nbytes]}
        arrays.append(array)
        offset += array.nbytes
    encoded = json.dumps(header, separators=(",", ":")).encode()
    encoded += b" " * (-len(encoded) % 8)  # the format aligns the data to 8 bytes
    path = Path(path)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(encoded)))
            f.write(encoded)
            for array in arrays:
                f.write(array.tobytes())
            f.flush()
            os.fchmod(f.fileno(), new_file_mode())
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def load_file(path, device=None) -> tuple[dict, dict]:
    """``(tensors, metadata)`` of a safetensors file; tensors on ``device`` (default: the host, as NumPy
    arrays when device is None)."""
    path = Path(path)
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ArgumentError(f"{path}: not a safetensors file (shorter than its header length)")
    (length,) = struct.unpack("<Q", raw[:8])
    if length > min(_MAX_HEADER, len(raw) - 8):
        raise ArgumentError(f"{path}: header length {length} exceeds the file")
    try:
        header = json.loads(raw[8:8 + length])
    except ValueError as e:
        raise ArgumentError(f"{path}: the header is not JSON ({e})") from None
    metadata = header.pop("__metadata__", {}) or {}
    data = memoryview(raw)[8 + length:]
    tensors = {}
    for name, entry in header.items():
        try:
            dtype = _NUMPY[entry["dtype"]]
            shape = tuple(int(n) for n in entry["shape"])
            start, stop = (int(n) for n in entry["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise ArgumentError(f"{path}: bad header entry for {name!r}: {entry!r}") from None
        count = int(np.prod(shape, dtype=np.int64))
        if not 0 <= start <= stop <= len(data) or stop - start != count * dtype.itemsize:
            raise ArgumentError(f"{path}: {name!r} claims bytes [{start}, {stop}) for {count} {dtype} values in "
                                f"{len(data)} bytes of data")
        array = np.frombuffer(data[start:stop], dtype=dtype.newbyteorder("<")).reshape(shape).astype(dtype)
        tensors[name] = array if device is None else asarray(array, device=device)
    return tensors, metadata
