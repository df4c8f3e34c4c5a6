"""Small data sets for examples and tests, read from local copies only: nothing is ever downloaded.

* :func:`fashion_mnist` reads the gzipped IDX files of Debian's ``dataset-fashion-mnist`` package
  (``/usr/share/datasets/fashion-mnist``; ``root=`` or ``$ACCELERA_FASHION_MNIST_DIR`` point elsewhere).
* :func:`digits` splits the 8x8 digits that scikit-learn ships inside its wheel.
* :func:`one_hot` turns integer labels into one-hot rows.

Everything is returned as NumPy arrays; move them to a device with ``accelera.asarray(x, device=...)``.
"""

from __future__ import annotations

import functools
import gzip
import math
import os
import zlib
from pathlib import Path

import numpy as np

from ._args import flag, integer, real
from ._core import ArgumentError, DTypeError

__all__ = ["FASHION_MNIST_CLASSES", "digits", "fashion_mnist", "one_hot"]

FASHION_MNIST_CLASSES = (
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
)

FASHION_MNIST_ENV = "ACCELERA_FASHION_MNIST_DIR"
FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"

_IDX_IMAGES, _IDX_LABELS = 0x00000803, 0x00000801  # unsigned bytes, 3 and 1 dimensions
_IDX_UBYTE = 0x08


def _missing(what: str, directory: Path) -> FileNotFoundError:
    return FileNotFoundError(
        f"Fashion-MNIST: {what} (looked in {directory}). Install Debian's copy with "
        f"'sudo apt-get install dataset-fashion-mnist', or set {FASHION_MNIST_ENV} (or pass root=) to a "
        "directory holding train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz "
        "and t10k-labels-idx1-ubyte.gz (uncompressed copies without .gz also do); nothing is downloaded."
    )


def _find(directory: Path, name: str) -> Path:
    # The gzipped file is what Debian ships; an uncompressed copy (e.g. gunzipped by hand) also does.
    for candidate in (directory / f"{name}.gz", directory / name):
        if candidate.is_file():
            return candidate
    raise _missing(f"no {name}.gz or {name}", directory)


def _read_bytes(path: Path) -> bytes:
    if path.suffix != ".gz":
        return path.read_bytes()
    try:
        with gzip.open(path, "rb") as f:
            return f.read()
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:  # truncated or corrupt stream, bad CRC
        raise ArgumentError(f"{path}: corrupt gzip data ({e})") from None


def _read_idx(path, magic: int, item_shape: tuple[int, ...] = ()) -> np.ndarray:
    """Parse one IDX file of unsigned bytes (gzipped when its name ends in .gz), strictly.

    ``magic`` fixes the number of dimensions (0x0801: 1, 0x0803: 3); ``item_shape`` the dimensions after
    the first. Anything unexpected (magic, dtype byte, dimensions, a payload one byte short or long) raises
    ``accelera.ArgumentError`` naming the file. The result is read-only.
    """
    path = Path(path)
    data = _read_bytes(path)

    def bad(what: str) -> ArgumentError:
        return ArgumentError(f"{path}: not a valid IDX file: {what}")

    if len(data) < 4:
        raise bad(f"{len(data)} bytes, shorter than the 4-byte magic number")
    found = int.from_bytes(data[:4], "big")
    if found >> 16:
        raise bad(f"magic number 0x{found:08X}, expected 0x{magic:08X}")
    if data[2] != _IDX_UBYTE:
        raise bad(f"dtype byte 0x{data[2]:02X}, expected 0x{_IDX_UBYTE:02X} (unsigned byte)")
    ndim = data[3]
    if found != magic:
        raise bad(f"{ndim} dimensions (magic number 0x{found:08X}), expected {magic & 0xFF} (0x{magic:08X})")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise bad(f"{len(data)} bytes, shorter than the {header}-byte header")
    dims = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    if dims[1:] != tuple(item_shape):
        raise bad(f"items of shape {dims[1:]}, expected {tuple(item_shape)}")
    expected = math.prod(dims)
    if len(data) - header != expected:
        raise bad(f"payload of {len(data) - header} bytes, but dimensions {dims} need exactly {expected}")
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(dims)


@functools.lru_cache(maxsize=8)
def _read_idx_cached(path: str, mtime_ns: int, size: int, magic: int, item_shape: tuple[int, ...]):
    # Keyed on mtime and size so that a rewritten file is read again; ~55 MB for the whole set.
    return _read_idx(path, magic, item_shape)


def _load_split(directory: Path, prefix: str) -> tuple[np.ndarray, np.ndarray]:
    parts = []
    for kind, magic, item_shape in (("images-idx3-ubyte", _IDX_IMAGES, (28, 28)),
                                    ("labels-idx1-ubyte", _IDX_LABELS, ())):
        path = _find(directory, f"{prefix}-{kind}")
        st = path.stat()
        parts.append((path, _read_idx_cached(str(path), st.st_mtime_ns, st.st_size, magic, item_shape)))
    (image_path, images), (label_path, labels) = parts
    if len(images) != len(labels):
        raise ArgumentError(f"{image_path} holds {len(images)} images but {label_path} {len(labels)} labels")
    if labels.size and labels.max() >= len(FASHION_MNIST_CLASSES):
        raise ArgumentError(f"{label_path}: label {labels.max()} is not a class in [0, 10)")
    return images, labels


def fashion_mnist(root=None, *, flatten: bool = True, normalize: bool = True):
    """Fashion-MNIST as ``(x_train, y_train), (x_test, y_test)``: 60,000 and 10,000 28x28 images.

    Images are float32 in [0, 1] (``normalize``; else uint8), of shape (n, 784) (``flatten``; else
    (n, 28, 28)); labels are int64 in [0, 10), named by ``FASHION_MNIST_CLASSES``. The files are looked
    for in ``root``, else ``$ACCELERA_FASHION_MNIST_DIR``, else Debian's ``/usr/share/datasets/fashion-mnist``.
    Every call returns fresh arrays (the parsed files are cached in-process).
    """
    flatten, normalize = flag(flatten, "flatten"), flag(normalize, "normalize")
    directory = Path(os.fspath(root) if root is not None else os.environ.get(FASHION_MNIST_ENV) or FASHION_MNIST_DIR)
    if not directory.is_dir():
        raise _missing("no such directory", directory)
    result = []
    for prefix in ("train", "t10k"):
        images, labels = _load_split(directory, prefix)
        x = images.reshape(len(images), -1) if flatten else images
        # A new array either way, so callers never write into the cache.
        x = (x.astype(np.float32) / np.float32(255)) if normalize else x.copy()
        result.append((x, labels.astype(np.int64)))
    return tuple(result)


def digits(*, test_fraction: float = 0.2, seed: int = 0, normalize: bool = True):
    """scikit-learn's 1,797 8x8 digits as ``(x_train, y_train), (x_test, y_test)``, split by ``seed``.

    Images are float32 rows of 64 pixels, in [0, 1] (``normalize``: divided by 16) or in [0, 16]; labels
    are int64 in [0, 10). The split is stratified: each digit gives ``test_fraction`` of its samples to
    the test set (rounded so that the test set holds ``round(test_fraction * 1797)``); both sides are
    shuffled. The same seed gives the same split on every machine.
    """
    fraction = real(test_fraction, "test_fraction")
    if not 0 < fraction < 1:
        raise ArgumentError(f"test_fraction must be in (0, 1), got {fraction}")
    seed = integer(seed, "seed")
    if seed < 0:
        raise ArgumentError(f"seed must be non-negative, got {seed}")
    normalize = flag(normalize, "normalize")
    try:
        from sklearn.datasets import load_digits
    except ImportError as e:
        raise ImportError("accelera.datasets.digits reads the copy of the digits bundled with scikit-learn: "
                          "pip install scikit-learn") from e
    x, y = load_digits(return_X_y=True)
    x = (x / 16 if normalize else x).astype(np.float32)
    y = y.astype(np.int64)

    rng = np.random.default_rng(seed)
    n = len(y)
    n_test = min(n - 1, max(1, round(fraction * n)))
    classes, counts = np.unique(y, return_counts=True)
    # Each class's share of n_test, rounded by largest remainder so that the shares add up to n_test.
    quota = n_test * counts / n
    take = np.floor(quota).astype(np.int64)
    take[np.argsort(take - quota, kind="stable")[: n_test - take.sum()]] += 1
    test = np.concatenate([rng.permutation(np.flatnonzero(y == c))[:k] for c, k in zip(classes, take)])
    in_test = np.zeros(n, dtype=bool)
    in_test[test] = True
    train, test = rng.permutation(np.flatnonzero(~in_test)), rng.permutation(test)
    return (x[train], y[train]), (x[test], y[test])


def one_hot(labels, classes: int, dtype=np.float32) -> np.ndarray:
    """One-hot rows for integer ``labels``: shape ``labels.shape + (classes,)``, 1 at each label."""
    classes = integer(classes, "classes")
    if classes < 1:
        raise ArgumentError(f"one_hot needs at least one class, got classes = {classes}")
    labels = np.asarray(labels)
    if labels.dtype.kind not in "iu":
        raise DTypeError(f"one_hot needs integer labels, not {labels.dtype}")
    bad = (labels < 0) | (labels >= classes)
    if bad.any():
        where = np.unravel_index(int(np.argmax(bad)), bad.shape)
        where = where[0] if len(where) == 1 else tuple(int(i) for i in where)
        raise ArgumentError(f"one_hot: label {labels[bad].flat[0]} (at index {where}) is outside [0, {classes})")
    out = np.zeros(labels.shape + (classes,), dtype=dtype)
    np.put_along_axis(out, labels[..., None].astype(np.intp), 1, axis=-1)
    return out
