"""The array API data-type functions: finfo, iinfo, result_type, can_cast, isdtype, astype, and the namespace
inspection object. Promotion is checked against what accelera's own ops return, and against NumPy wherever
NumPy has the dtypes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import accelera as ac
from array_api_support import DEVICES, assert_same, device, host, tensors_unchanged  # noqa: F401 (fixture)

INTEGERS = [ac.int8, ac.int16, ac.int32, ac.int64, ac.uint8, ac.uint16, ac.uint32, ac.uint64]
ALL = [ac.float16, ac.bfloat16, ac.float32, ac.float64, *INTEGERS, ac.bool_, ac.complex64, ac.complex128]
NUMPY_HAS = [d for d in ALL if d != ac.bfloat16]


@pytest.mark.parametrize("a, b", list(itertools.product(NUMPY_HAS, NUMPY_HAS)))
def test_result_type_is_numpys_for_numpys_dtypes(a, b):
    assert ac.result_type(a, b) == np.result_type(a.name, b.name)
    assert ac.can_cast(a, b) == np.can_cast(a.name, b.name, casting="safe")


@pytest.mark.parametrize("a, b", list(itertools.product(ALL, ALL)))
def test_result_type_is_what_add_returns(a, b):
    x, y = ac.zeros((2,), dtype=a, device="cpu"), ac.zeros((2,), dtype=b, device="cpu")
    promoted = ac.result_type(x, y)
    assert promoted == ac.result_type(a, y) == ac.result_type(b, a)
    if promoted != ac.bool_:  # half types compute in float32 on the CPU and keep their dtype
        assert ac.add(x, y).dtype == promoted
    else:  # add is not defined for bool: it says which dtype it was asked for
        with pytest.raises(ac.DTypeError, match=promoted.name):
            ac.add(x, y)


def test_bfloat16_promotion():
    assert ac.result_type(ac.bfloat16, ac.float16) == ac.float32
    assert ac.result_type(ac.bfloat16, ac.float32) == ac.float32
    assert ac.result_type(ac.bfloat16, ac.int32) == ac.float64
    assert ac.result_type(ac.bfloat16, ac.bool_) == ac.bfloat16
    assert ac.can_cast(ac.bfloat16, ac.float32) and not ac.can_cast(ac.float16, ac.bfloat16)


@pytest.mark.parametrize("dtype", NUMPY_HAS)
@pytest.mark.parametrize("scalar", [True, 3, -2**40, 2.5])
def test_python_scalars_are_weak(dtype, scalar):
    x = np.zeros(2, dtype.name)
    assert ac.result_type(ac.asarray(x), scalar) == np.result_type(x, scalar)
    assert ac.result_type(scalar, dtype) == np.result_type(x, scalar)


def test_result_type_of_several_and_of_numpy_arrays():
    assert ac.result_type(ac.int32, ac.float16, ac.bool_) == ac.float64
    assert ac.result_type(np.zeros(2, np.float32), ac.float16, 1) == ac.float32
    assert ac.result_type(ac.float32) == ac.float32
    assert ac.result_type(np.float64(1.0), ac.float32) == ac.float64  # a NumPy scalar is not weak
    with pytest.raises(ValueError):
        ac.result_type()
    with pytest.raises(ValueError):
        ac.result_type(1, 2.0)
    with pytest.raises(TypeError):
        ac.result_type(ac.float32, "clongdouble")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_finfo_is_numpys(dtype):
    info, want = ac.finfo(dtype), np.finfo(dtype)
    assert (info.bits, info.eps, info.max, info.min, info.smallest_normal) == (
        want.bits, float(want.eps), float(want.max), float(want.min), float(want.smallest_normal))
    assert info.dtype == dtype and isinstance(info.eps, float)
    assert ac.finfo(ac.zeros(1, dtype=dtype, device="cpu")).bits == want.bits


def test_finfo_bfloat16_matches_the_format(device):
    info = ac.finfo(ac.bfloat16)
    assert info.bits == 16 and info.dtype == ac.bfloat16
    # The limits survive a round trip through bfloat16 tensors unchanged, and one ulp past max is inf.
    values = ac.asarray(np.array([info.max, info.min, info.smallest_normal, 1 + info.eps]), device=device)
    assert host(values.astype("bfloat16")).tolist() == [info.max, info.min, info.smallest_normal, 1 + info.eps]
    assert host(ac.asarray(np.array([1 + info.eps / 4]), device=device).astype("bfloat16")).tolist() == [1.0]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_iinfo_is_numpys(dtype):
    info, want = ac.iinfo(dtype), np.iinfo(dtype)
    assert (info.bits, info.max, info.min) == (want.bits, want.max, want.min)
    assert info.dtype == dtype and isinstance(info.max, int)


def test_info_of_the_wrong_kind_is_a_type_error():
    for call in (lambda: ac.finfo(ac.int32), lambda: ac.iinfo(ac.float32), lambda: ac.iinfo(ac.bool_),
                 lambda: ac.iinfo("complex64")):
        with pytest.raises(TypeError):
            call()


KINDS = {
    "bool": {ac.bool_},
    "signed integer": {ac.int8, ac.int16, ac.int32, ac.int64},
    "unsigned integer": {ac.uint8, ac.uint16, ac.uint32, ac.uint64},
    "integral": set(INTEGERS),
    "real floating": {ac.float16, ac.bfloat16, ac.float32, ac.float64},
    "complex floating": {ac.complex64, ac.complex128},
    "numeric": {*INTEGERS, ac.float16, ac.bfloat16, ac.float32, ac.float64, ac.complex64, ac.complex128},
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_isdtype(kind):
    for dtype in ALL:
        assert ac.isdtype(dtype, kind) == (dtype in KINDS[kind])
        if dtype != ac.bfloat16:
            assert ac.isdtype(dtype, kind) == np.isdtype(np.dtype(dtype.name), kind)
    assert ac.isdtype(ac.int32, ("bool", "real floating", ac.int32))
    assert not ac.isdtype(ac.int32, (ac.int64, "bool"))
    with pytest.raises(ValueError):
        ac.isdtype(ac.int32, "integer")
    with pytest.raises(TypeError):
        ac.isdtype(object(), "bool")


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # complex to real keeps the real part
@pytest.mark.parametrize("source, target", list(itertools.product(NUMPY_HAS, NUMPY_HAS)))
def test_astype_is_numpys(device, rng, source, target):
    a = (rng.standard_normal((5, 3)) * 50).astype(source.name)
    t = ac.asarray(a, device=device)[::-1]
    with tensors_unchanged(t):
        got = ac.astype(t, target)
    assert_same(got, a[::-1].astype(target.name), device)
    assert not got.shares_memory(t)


def test_astype_copy_and_device(device):
    t = ac.asarray(np.arange(4.0), device=device)
    assert ac.astype(t, "float64", copy=False) is t
    copied = ac.astype(t, "float64")
    assert copied is not t and not copied.shares_memory(t)
    for other in DEVICES:
        moved = ac.astype(t, "float32", device=other)
        assert moved.device == other and moved.dtype == "float32"
        assert host(moved).tolist() == [0, 1, 2, 3]
        assert ac.astype(t, "int64", device=other, copy=False).device == other
    with pytest.raises(TypeError):
        ac.astype(t, "clongdouble")
    with pytest.raises(TypeError):
        ac.astype(np.arange(3), "float32")
    with pytest.raises(TypeError):
        ac.astype(t, "float32", copy=None)


# ----------------------------------------------------------------------------------------------------------
# The inspection namespace and the standard's Tensor attributes


def test_namespace_info(device):
    info = ac.__array_namespace_info__()
    assert info.devices() == DEVICES and info.default_device() in DEVICES
    assert info.capabilities()["boolean indexing"] is True
    assert info.capabilities()["data-dependent shapes"] is True
    assert info.default_dtypes(device=device) == {"real floating": ac.float32, "complex floating": ac.complex64,
                                                  "integral": ac.int64, "indexing": ac.int64}
    dtypes = info.dtypes(device=device)
    assert set(dtypes) == {d.name for d in ALL} and all(dtypes[d.name] == d for d in ALL)
    assert set(info.dtypes(device=device, kind="integral").values()) == set(INTEGERS)
    assert set(info.dtypes(device=device, kind="unsigned integer")) == {"uint8", "uint16", "uint32", "uint64"}
    assert set(info.dtypes(device=device, kind=("bool", "real floating"))) == {
        "bool", "float16", "bfloat16", "float32", "float64"}
    assert set(info.dtypes(device=device, kind="complex floating")) == (
        {"complex64", "complex128"} if ac.supports(device, "copy", "float64") else {"complex64"})
    with pytest.raises(ValueError):
        info.dtypes(device="nowhere:0")


def test_tensor_attributes(device):
    t = ac.asarray(np.arange(24.0).reshape(2, 3, 4), device=device)
    assert ac.__array_api_version__ == "2024.12"
    assert t.__array_namespace__() is ac and t.__array_namespace__(api_version="2024.12") is ac
    with pytest.raises(ValueError):
        t.__array_namespace__(api_version="2021.12")
    np.testing.assert_array_equal(t.mT.numpy(), np.arange(24.0).reshape(2, 3, 4).swapaxes(-1, -2))
    np.testing.assert_array_equal(t[0].T.numpy(), np.arange(12.0).reshape(3, 4).T)
    with pytest.raises(ValueError):
        t[0, 0].mT
    assert t.device == device and t.to_device(device).shares_memory(t)  # no copy
    for other in DEVICES:
        moved = t.to_device(other)
        assert moved.device == other
        np.testing.assert_array_equal(moved.numpy(), t.numpy())
    with pytest.raises(NotImplementedError):
        t.to_device("cpu", stream=1)
    with pytest.raises(ValueError):
        t.to_device("nowhere:0")


# Every name of the array API standard, version 2024.12: the main namespace and the linalg and fft extensions.
STANDARD_FUNCTIONS = """
    arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones ones_like tril triu zeros
    zeros_like astype can_cast finfo iinfo isdtype result_type abs acos acosh add asin asinh atan atan2 atanh
    bitwise_and bitwise_left_shift bitwise_invert bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign
    cos cosh divide equal exp expm1 floor floor_divide greater greater_equal hypot imag isfinite isinf isnan less
    less_equal log log1p log2 log10 logaddexp logical_and logical_not logical_or logical_xor maximum minimum multiply
    negative nextafter not_equal positive pow real reciprocal remainder round sign signbit sin sinh square sqrt
    subtract tan tanh trunc take take_along_axis __array_namespace_info__ matmul matrix_transpose tensordot vecdot
    broadcast_arrays broadcast_to concat expand_dims flip moveaxis permute_dims repeat reshape roll squeeze stack
    tile unstack argmax argmin count_nonzero nonzero searchsorted where unique_all unique_counts unique_inverse
    unique_values argsort sort cumulative_prod cumulative_sum max mean min prod std sum var all any diff
""".split()
STANDARD_LINALG = """
    cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power matrix_rank matrix_transpose outer
    pinv qr slogdet solve svd svdvals tensordot trace vecdot vector_norm
""".split()
STANDARD_FFT = "fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift ifftshift".split()
STANDARD_DTYPES = ("bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 "
                   "complex128").split()


def test_the_namespace_has_every_name_of_the_standard():
    missing = [n for n in STANDARD_FUNCTIONS if not callable(getattr(ac, n, None))]
    missing += [f"linalg.{n}" for n in STANDARD_LINALG if not callable(getattr(ac.linalg, n, None))]
    missing += [f"fft.{n}" for n in STANDARD_FFT if not callable(getattr(ac.fft, n, None))]
    missing += [n for n in STANDARD_DTYPES if not isinstance(getattr(ac, n, None), ac.DType)]
    assert not missing, f"not in the namespace: {missing}"
    assert ac.bool is ac.bool_ and ac.bool.name == "bool"
    assert (ac.e, ac.pi) == (math.e, math.pi) and ac.inf == math.inf and math.isnan(ac.nan)
    assert ac.newaxis is None
    t = ac.arange(3)
    assert t[ac.newaxis, :, ac.newaxis].shape == (1, 3, 1)
    assert ac.zeros(2, dtype=ac.bool).dtype == ac.bool
