"""accelera.datasets: the strict IDX reader on small synthetic files, the real Fashion-MNIST files of
Debian's dataset-fashion-mnist package (skipped where that is not installed), digits and one_hot."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

import accelera as ac
from accelera import datasets

DEBIAN_DIR = Path(datasets.FASHION_MNIST_DIR)
NAMES = {
    ("train", "images"): "train-images-idx3-ubyte", ("train", "labels"): "train-labels-idx1-ubyte",
    ("t10k", "images"): "t10k-images-idx3-ubyte", ("t10k", "labels"): "t10k-labels-idx1-ubyte",
}


def idx_bytes(array: np.ndarray, magic: int | None = None) -> bytes:
    array = np.asarray(array, dtype=np.uint8)
    magic = (0x0800 | array.ndim) if magic is None else magic
    header = magic.to_bytes(4, "big") + b"".join(d.to_bytes(4, "big") for d in array.shape)
    return header + array.tobytes()


def write_set(root: Path, n_train=5, n_test=3, compress=True, seed=0) -> dict:
    """A tiny Fashion-MNIST look-alike in root; returns the arrays written."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for split, n in (("train", n_train), ("t10k", n_test)):
        arrays[split, "images"] = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        arrays[split, "labels"] = rng.integers(0, 10, n, dtype=np.uint8)
    root.mkdir(parents=True, exist_ok=True)
    for key, array in arrays.items():
        data = idx_bytes(array)
        if compress:
            (root / f"{NAMES[key]}.gz").write_bytes(gzip.compress(data))
        else:
            (root / NAMES[key]).write_bytes(data)
    return arrays


def replace(root: Path, key, data: bytes) -> None:
    (root / f"{NAMES[key]}.gz").write_bytes(gzip.compress(data))


# --- the IDX reader, on synthetic files ---------------------------------------------------------------

@pytest.mark.parametrize("compress", [True, False], ids=["gz", "raw"])
def test_synthetic_files_round_trip(tmp_path, compress):
    arrays = write_set(tmp_path, compress=compress)
    (x_train, y_train), (x_test, y_test) = datasets.fashion_mnist(tmp_path, flatten=False, normalize=False)
    assert x_train.dtype == np.uint8 and x_train.shape == (5, 28, 28)
    np.testing.assert_array_equal(x_train, arrays["train", "images"])
    np.testing.assert_array_equal(x_test, arrays["t10k", "images"])
    assert y_train.dtype == np.int64 and y_test.dtype == np.int64
    np.testing.assert_array_equal(y_train, arrays["train", "labels"])
    np.testing.assert_array_equal(y_test, arrays["t10k", "labels"])

    (x_train, _), (x_test, _) = datasets.fashion_mnist(tmp_path)
    assert x_train.dtype == np.float32 and x_train.shape == (5, 784) and x_test.shape == (3, 784)
    np.testing.assert_allclose(x_train, arrays["train", "images"].reshape(5, -1) / 255, rtol=1e-6)


def test_results_are_fresh_writable_arrays(tmp_path):
    write_set(tmp_path)
    for normalize in (True, False):
        (x, y), _ = datasets.fashion_mnist(tmp_path, normalize=normalize)
        assert x.flags.writeable and y.flags.writeable
        x[...] = 0
        (again, _), _ = datasets.fashion_mnist(tmp_path, normalize=normalize)
        assert again.any()  # the cached parse was not touched


def test_env_var_names_the_directory(tmp_path, monkeypatch):
    arrays = write_set(tmp_path / "fm")
    monkeypatch.setenv("ACCELERA_FASHION_MNIST_DIR", str(tmp_path / "fm"))
    (_, y_train), _ = datasets.fashion_mnist()
    np.testing.assert_array_equal(y_train, arrays["train", "labels"])


def test_gz_is_preferred_and_raw_is_a_fallback(tmp_path):
    arrays = write_set(tmp_path, compress=True)
    (tmp_path / NAMES["train", "labels"]).write_bytes(b"not read")  # the .gz next to it wins
    (_, y_train), _ = datasets.fashion_mnist(tmp_path)
    np.testing.assert_array_equal(y_train, arrays["train", "labels"])


def labels_of(n=4):
    return np.arange(n, dtype=np.uint8)


@pytest.mark.parametrize("data, message", [
    (b"", "shorter than the 4-byte magic"),
    (b"\x00\x00", "shorter than the 4-byte magic"),
    (idx_bytes(labels_of(), magic=0x12340801), "magic number 0x12340801"),
    (idx_bytes(labels_of(), magic=0x00000D01), "dtype byte 0x0D"),
    (idx_bytes(labels_of().reshape(2, 2), magic=0x00000802), "2 dimensions"),
    (idx_bytes(labels_of())[:6], "shorter than the 8-byte header"),
    (idx_bytes(labels_of())[:-1], "payload of 3 bytes"),
    (idx_bytes(labels_of()) + b"\x00", "payload of 5 bytes"),
    (idx_bytes(np.array([1, 2, 10, 3])), "label 10"),
], ids=["empty", "short-magic", "bad-magic", "dtype", "ndim", "short-header", "truncated", "trailing", "label"])
def test_corrupt_labels_file_raises_argument_error(tmp_path, data, message):
    write_set(tmp_path, n_train=4)
    replace(tmp_path, ("train", "labels"), data)
    with pytest.raises(ac.ArgumentError, match=message) as info:
        datasets.fashion_mnist(tmp_path)
    assert "train-labels-idx1-ubyte.gz" in str(info.value)


def test_wrong_image_shape_and_count_mismatch(tmp_path):
    write_set(tmp_path, n_train=4)
    replace(tmp_path, ("train", "images"), idx_bytes(np.zeros((4, 28, 27))))
    with pytest.raises(ac.ArgumentError, match=r"train-images.*items of shape \(28, 27\)"):
        datasets.fashion_mnist(tmp_path)
    replace(tmp_path, ("train", "images"), idx_bytes(np.zeros((3, 28, 28))))
    with pytest.raises(ac.ArgumentError, match="3 images but .*4 labels"):
        datasets.fashion_mnist(tmp_path)
    replace(tmp_path, ("train", "images"), idx_bytes(np.zeros(784)))  # a labels-style file in the wrong place
    with pytest.raises(ac.ArgumentError, match="1 dimensions"):
        datasets.fashion_mnist(tmp_path)


def test_corrupt_gzip_raises_argument_error(tmp_path):
    write_set(tmp_path)
    path = tmp_path / f"{NAMES['t10k', 'images']}.gz"
    path.write_bytes(path.read_bytes()[:-20])  # cut inside the deflate stream
    with pytest.raises(ac.ArgumentError, match="t10k-images-idx3-ubyte.gz.*corrupt gzip"):
        datasets.fashion_mnist(tmp_path)


def test_truncated_raw_file_raises_argument_error(tmp_path):
    write_set(tmp_path, compress=False)
    path = tmp_path / NAMES["train", "images"]
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(ac.ArgumentError, match="train-images-idx3-ubyte: .*payload of 3919 bytes"):
        datasets.fashion_mnist(tmp_path)


def test_missing_directory_and_file_name_the_package(tmp_path):
    with pytest.raises(FileNotFoundError, match="apt-get install dataset-fashion-mnist") as info:
        datasets.fashion_mnist(tmp_path / "absent")
    assert "ACCELERA_FASHION_MNIST_DIR" in str(info.value) and "absent" in str(info.value)

    write_set(tmp_path)
    (tmp_path / f"{NAMES['t10k', 'labels']}.gz").unlink()
    with pytest.raises(FileNotFoundError, match="t10k-labels-idx1-ubyte.*apt-get install dataset-fashion-mnist"):
        datasets.fashion_mnist(tmp_path)


def test_flags_are_checked(tmp_path):
    write_set(tmp_path)
    with pytest.raises(ac.DTypeError, match="flatten"):
        datasets.fashion_mnist(tmp_path, flatten="yes")


# --- the real files -----------------------------------------------------------------------------------

needs_debian_copy = pytest.mark.skipif(
    not all((DEBIAN_DIR / f"{name}.gz").is_file() for name in NAMES.values()),
    reason=f"Fashion-MNIST not installed in {DEBIAN_DIR} (apt-get install dataset-fashion-mnist)",
)


@needs_debian_copy
def test_real_fashion_mnist():
    (x_train, y_train), (x_test, y_test) = datasets.fashion_mnist(DEBIAN_DIR)
    assert x_train.shape == (60000, 784) and x_test.shape == (10000, 784)
    assert x_train.dtype == np.float32 and x_test.dtype == np.float32
    assert 0 <= x_train.min() and x_train.max() == 1 and 0 <= x_test.min() and x_test.max() == 1
    assert y_train.shape == (60000,) and y_test.shape == (10000,)
    assert y_train.dtype == np.int64 and y_test.dtype == np.int64
    np.testing.assert_array_equal(np.bincount(y_train, minlength=10), [6000] * 10)
    np.testing.assert_array_equal(np.bincount(y_test, minlength=10), [1000] * 10)

    (raw_train, _), (raw_test, raw_y_test) = datasets.fashion_mnist(DEBIAN_DIR, flatten=False, normalize=False)
    assert raw_train.shape == (60000, 28, 28) and raw_train.dtype == np.uint8 and raw_test.shape == (10000, 28, 28)
    np.testing.assert_array_equal(raw_train.reshape(60000, -1) / np.float32(255), x_train)
    np.testing.assert_array_equal(raw_y_test, y_test)


def test_class_names():
    assert datasets.FASHION_MNIST_CLASSES == (
        "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
    )


# --- digits ---------------------------------------------------------------------------------------------

def test_digits_shapes_and_split():
    pytest.importorskip("sklearn", reason="digits needs scikit-learn")
    (x_train, y_train), (x_test, y_test) = datasets.digits()
    assert x_train.shape == (1438, 64) and x_test.shape == (359, 64)
    assert x_train.dtype == np.float32 and y_train.dtype == np.int64 and y_test.dtype == np.int64
    assert 0 <= x_train.min() and x_train.max() == 1
    assert set(np.unique(y_test)) == set(range(10))

    from sklearn.datasets import load_digits
    y_all = load_digits().target

    # Stratified: each digit gives about test_fraction of its samples.
    share = np.bincount(y_test, minlength=10) / np.bincount(y_all, minlength=10)
    assert np.all(np.abs(share - 0.2) < 0.01)


def test_digits_split_indices_are_disjoint():
    # The pixels of a few digits repeat, so check disjointness on the indices behind the split:
    # test_fraction and the seed fix it, and the union must be all of 0..1796 exactly once.
    pytest.importorskip("sklearn", reason="digits needs scikit-learn")
    from sklearn.datasets import load_digits
    x_all = load_digits().data.astype(np.float32) / 16
    (x_train, _), (x_test, _) = datasets.digits(seed=3)
    rows = {row.tobytes(): [] for row in x_all}
    for i, row in enumerate(x_all):
        rows[row.tobytes()].append(i)
    counts = {}
    for row in np.concatenate([x_train, x_test]):
        counts[row.tobytes()] = counts.get(row.tobytes(), 0) + 1
    assert counts == {key: len(ids) for key, ids in rows.items()}
    assert len(x_train) + len(x_test) == 1797


def test_digits_determinism_and_options():
    pytest.importorskip("sklearn", reason="digits needs scikit-learn")
    a, b, c = datasets.digits(seed=7), datasets.digits(seed=7), datasets.digits(seed=8)
    for (xa, ya), (xb, yb) in zip(a, b):
        np.testing.assert_array_equal(xa, xb)
        np.testing.assert_array_equal(ya, yb)
    assert not np.array_equal(a[1][1], c[1][1])

    (x_train, _), (x_test, _) = datasets.digits(test_fraction=0.5, normalize=False)
    assert len(x_train) + len(x_test) == 1797 and abs(len(x_test) - 898.5) <= 0.5
    assert x_train.dtype == np.float32 and x_train.max() == 16


@pytest.mark.parametrize("fraction", [0, 1, -0.1, 1.5, float("nan")])
def test_digits_bad_test_fraction(fraction):
    with pytest.raises(ac.ArgumentError, match="test_fraction"):
        datasets.digits(test_fraction=fraction)


# --- one_hot ---------------------------------------------------------------------------------------------

def test_one_hot_values():
    out = datasets.one_hot([2, 0, 3], 4)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1]])
    out = datasets.one_hot(np.array([[1], [0]], dtype=np.uint8), 2, dtype=np.int64)
    assert out.shape == (2, 1, 2) and out.dtype == np.int64
    np.testing.assert_array_equal(out, [[[0, 1]], [[1, 0]]])
    assert datasets.one_hot(np.array([], dtype=np.int64), 3).shape == (0, 3)


def test_one_hot_errors():
    with pytest.raises(ac.ArgumentError, match="label 5 .*outside \\[0, 5\\)"):
        datasets.one_hot([0, 5, 1], 5)
    with pytest.raises(ac.ArgumentError, match="label -1"):
        datasets.one_hot([-1], 3)
    with pytest.raises(ac.ArgumentError, match="classes"):
        datasets.one_hot([0], 0)
    with pytest.raises(ac.DTypeError, match="integer labels"):
        datasets.one_hot([0.5, 1.0], 2)
