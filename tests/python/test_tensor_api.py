"""The Tensor API: attributes, dtype objects, views (T, transpose, reshape), conversions, len and iteration,
and basic indexing against NumPy (advanced indexing is not supported)."""

from __future__ import annotations

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import accelera as ac

# ----------------------------------------------------------------------------------------------------------
# Attributes and dtypes


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (7, 13), (2, 0, 3), (2, 3, 5, 7)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_attributes_match_numpy(shape, dtype):
    arr = np.zeros(shape, dtype=dtype)
    t = ac.asarray(arr)
    assert t.shape == arr.shape and isinstance(t.shape, tuple)
    assert t.ndim == arr.ndim
    assert t.size == arr.size
    assert t.nbytes == arr.nbytes
    assert t.itemsize == arr.itemsize
    assert t.dtype == arr.dtype
    assert t.device == "cpu"


def test_nbytes_of_strided_and_broadcast_views():
    base = np.zeros((7, 13), dtype=np.float32)
    for view in (base.T, base[::2, ::-3], np.broadcast_to(base[:1], (100, 13))):
        t = ac.asarray(view)
        assert t.nbytes == view.nbytes == view.size * 4


def test_dtype_objects():
    t = ac.asarray(np.ones(3, np.float32))
    assert t.dtype == np.float32
    assert t.dtype == np.dtype("float32")
    assert t.dtype == "float32"
    assert t.dtype == ac.float32
    assert t.dtype is ac.float32
    assert t.dtype != np.float64 and t.dtype != "float64" and t.dtype != ac.float64
    assert repr(t.dtype) == "accelera.float32"
    assert t.dtype.itemsize == 4 and t.dtype.is_floating
    assert ac.dtype("f64") == ac.float64 and ac.dtype(np.int32) == ac.int32 and ac.dtype(bool) == ac.bool_
    assert ac.asarray(np.ones(2, np.int64)).dtype == "int64"
    assert not ac.int64.is_floating
    assert hash(ac.float32) == hash("float32")
    with pytest.raises(ac.DTypeError):
        ac.dtype("int128")


def test_repr_names_shape_dtype_device():
    text = repr(ac.asarray(np.zeros((2, 3), np.float32)))
    assert "(2, 3)" in text and "float32" in text and "cpu" in text


# ----------------------------------------------------------------------------------------------------------
# Views and copies


@pytest.mark.parametrize("shape", [(), (7,), (7, 13), (2, 3, 5), (2, 1, 3, 5)], ids=str)
def test_T_reverses_axes_like_numpy(shape):
    arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    t = ac.asarray(arr)
    assert t.T.shape == arr.T.shape
    np.testing.assert_array_equal(t.T.numpy(), arr.T)
    np.testing.assert_array_equal(t.transpose().numpy(), arr.transpose())
    if arr.size:
        assert np.shares_memory(t.T.numpy(), arr)


@pytest.mark.parametrize("axes", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, 0, 1), (2, 1, 0)], ids=str)
def test_transpose_with_axes(axes):
    arr = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    t = ac.asarray(arr)
    np.testing.assert_array_equal(t.transpose(*axes).numpy(), arr.transpose(*axes))
    np.testing.assert_array_equal(t.transpose(axes).numpy(), arr.transpose(axes))
    np.testing.assert_array_equal(t.transpose(list(axes)).numpy(), arr.transpose(axes))
    assert np.shares_memory(t.transpose(*axes).numpy(), arr)


@pytest.mark.parametrize("axes", [(0,), (0, 1), (0, 1, 2, 3), (0, 0, 1), (0, 1, 3)], ids=str)
def test_transpose_bad_axes(axes):
    t = ac.asarray(np.zeros((2, 3, 5)))
    with pytest.raises(ac.ArgumentError):
        t.transpose(*axes)


@pytest.mark.parametrize(
    "new_shape", [(35, 6), (-1,), (5, -1), (2, 3, 5, 7), (210,), (1, 210, 1), (7, 1, 30)], ids=str)
def test_reshape_contiguous_is_a_view(new_shape):
    arr = np.arange(210, dtype=np.float64).reshape(6, 35)
    t = ac.asarray(arr)
    r = t.reshape(new_shape)
    np.testing.assert_array_equal(r.numpy(), arr.reshape(new_shape))
    assert np.shares_memory(r.numpy(), arr)
    np.testing.assert_array_equal(t.reshape(*new_shape).numpy(), arr.reshape(new_shape))


def test_reshape_non_contiguous_matches_numpy():
    arr = np.arange(210, dtype=np.float32).reshape(6, 35)
    for view in (arr.T, arr[::-1, ::5], np.broadcast_to(arr[:1, :7], (4, 7))):
        t = ac.asarray(view)
        for shape in ((-1,), (view.size, 1), (1, -1)):
            np.testing.assert_array_equal(t.reshape(shape).numpy(), view.reshape(shape))


def test_reshape_empty_and_0d():
    assert ac.asarray(np.zeros((0, 3))).reshape(3, 0).shape == (3, 0)
    assert ac.asarray(np.zeros((0, 3))).reshape(-1).shape == (0,)
    t = ac.asarray(np.array(5.0))
    assert t.reshape(1, 1).shape == (1, 1)
    assert ac.asarray(np.array([5.0])).reshape(()).shape == ()


@pytest.mark.parametrize("bad", [(4,), (7, 31), (-1, -1), (-2, 105)], ids=str)
def test_reshape_bad_shapes(bad):
    t = ac.asarray(np.zeros((6, 35)))
    with pytest.raises(ac.ArgumentError):  # ShapeError is an ArgumentError
        t.reshape(bad)


def test_to_cpu_keeps_values_and_device():
    arr = np.arange(6.0).reshape(2, 3)
    t = ac.asarray(arr)
    c = t.to("cpu")
    assert c.device == "cpu"
    np.testing.assert_array_equal(c.numpy(), arr)
    assert ac.asarray(arr, device="cpu").device == "cpu"


@pytest.mark.parametrize("src", [np.float32, np.float64, np.int32, np.int64, np.bool_, np.float16],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dst", [np.float32, np.float64, np.int32, np.int64, np.bool_, np.float16],
                         ids=lambda d: np.dtype(d).name)
def test_astype_matches_numpy(src, dst):
    arr = np.array([[0, 1, -2, 3], [-7, 100, 5, -1]], dtype=src) if src is not np.bool_ else \
        np.array([[True, False, True, True], [False, False, True, False]])
    t = ac.asarray(arr).T  # a strided source
    got = t.astype(dst)
    assert got.dtype == np.dtype(dst)
    np.testing.assert_array_equal(got.numpy(), arr.T.astype(dst))
    np.testing.assert_array_equal(ac.asarray(arr).astype(ac.dtype(dst)).numpy(), arr.astype(dst))


def test_astype_truncates_floats_like_numpy():
    arr = np.array([2.7, -2.7, 0.5, -0.5, 1e3], dtype=np.float64)
    np.testing.assert_array_equal(ac.asarray(arr).astype(np.int32).numpy(), arr.astype(np.int32))
    np.testing.assert_array_equal(ac.asarray(arr).astype("bool").numpy(), arr.astype(bool))
    np.testing.assert_array_equal(ac.asarray(arr).astype("float16").numpy(), arr.astype(np.float16))


def test_contiguous_and_clone():
    arr = np.arange(91, dtype=np.float64).reshape(7, 13)
    view = ac.asarray(arr[::-2, 1::3])
    assert not view.is_contiguous()
    c = view.contiguous()
    assert c.is_contiguous()
    np.testing.assert_array_equal(c.numpy(), arr[::-2, 1::3])
    assert c.numpy().flags.c_contiguous
    t = ac.asarray(arr)
    assert t.contiguous().is_contiguous()
    clone = t.clone()
    assert not np.shares_memory(clone.numpy(), arr)
    assert not clone.shares_memory(t)
    arr[0, 0] = -1.0
    assert clone.numpy()[0, 0] == 0.0
    assert t.numpy()[0, 0] == -1.0


def test_len_and_iteration():
    arr = np.arange(91, dtype=np.float32).reshape(7, 13)
    t = ac.asarray(arr)
    assert len(t) == 7
    rows = list(t)
    assert len(rows) == 7
    for row, expected in zip(rows, arr):
        assert isinstance(row, ac.Tensor)
        np.testing.assert_array_equal(row.numpy(), expected)
    assert len(ac.asarray(np.zeros((0, 4)))) == 0
    assert list(ac.asarray(np.zeros((0, 4)))) == []
    assert [float(x) for x in ac.asarray(np.array([1.0, 2.0]))] == [1.0, 2.0]


def test_len_and_iteration_of_0d_raise_type_error():
    t = ac.asarray(np.array(1.0))
    with pytest.raises(TypeError):
        len(t)
    with pytest.raises(TypeError):
        list(t)


def test_scalar_conversions():
    t = ac.asarray(np.array(2.5))
    assert float(t) == 2.5 and int(t) == 2 and bool(t) is True and t.item() == 2.5
    assert ac.asarray(np.arange(4).reshape(2, 2)).tolist() == [[0, 1], [2, 3]]


def test_zero_d_integer_tensors_are_python_indices():
    import operator

    i = ac.asarray(np.array(3, np.int16))
    assert operator.index(i) == 3 and list(range(10))[i] == 3 and len(range(i)) == 3
    assert "abcdef"[ac.asarray(np.array(-1))] == "f"
    for not_an_index in (ac.asarray(np.array(3.0)), ac.asarray(np.array(True)), ac.asarray(np.array([3]))):
        with pytest.raises(TypeError, match="only a 0-d integer tensor is an index"):
            operator.index(not_an_index)
    # NumPy still indexes with a tensor of positions as an array.
    np.testing.assert_array_equal(np.arange(10)[ac.asarray(np.array([1, 3]))], [1, 3])


# ----------------------------------------------------------------------------------------------------------
# Basic indexing

BASE = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)

KEYS = [
    0, -1, 3, -4,
    slice(None), slice(1, 3), slice(None, None, 2), slice(None, None, -1), slice(3, 0, -2), slice(-2, None),
    slice(10, 20), slice(-10, 2), slice(2, 2),
    (0, 1), (-1, -1, -1), (1, slice(None), 2), (slice(None), 0), (slice(None, None, -2), 4, slice(1, None, 2)),
    Ellipsis, (Ellipsis, 0), (0, Ellipsis), (1, Ellipsis, slice(None, None, -3)), (Ellipsis, None),
    None, (None, 0), (slice(None), None, slice(1, 2), None), (None, Ellipsis, None),
    (), (0, 0, 0), (np.int64(1), np.int32(-2)),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_indexing_matches_numpy(key):
    t = ac.asarray(BASE)
    got = t[key]
    want = np.asarray(BASE[key])
    assert isinstance(got, ac.Tensor)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    if want.size:
        assert np.shares_memory(got.numpy(), BASE)  # basic indexing gives views


def test_indexing_strided_and_0d_tensors():
    view = BASE[::-1, 1::2, ::3]
    t = ac.asarray(view)
    for key in [(0,), (slice(None, None, -1), 1), (Ellipsis, -1), (1, 0, slice(None))]:
        np.testing.assert_array_equal(t[key].numpy(), view[key])
    s = ac.asarray(np.array(3.0))
    assert s[()].shape == () and float(s[()]) == 3.0
    assert s[...].shape == ()
    assert s[None, ...].shape == (1,)


def test_index_with_bare_none_adds_an_axis():
    t = ac.asarray(BASE)
    assert t[None].shape == BASE[None].shape == (1, 4, 5, 6)
    assert ac.asarray(np.array(3.0))[None].shape == (1,)


@given(index=hnp.basic_indices(BASE.shape, allow_newaxis=True, allow_ellipsis=True))
def test_property_basic_indexing(index):
    got = ac.asarray(BASE)[index]
    want = np.asarray(BASE[index])
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), data=st.data())
def test_property_chained_indexing_then_ops(shape, data):
    arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    i1 = data.draw(hnp.basic_indices(shape, allow_newaxis=True))
    v1 = arr[i1]
    if not isinstance(v1, np.ndarray):
        return
    i2 = data.draw(hnp.basic_indices(v1.shape))
    want = np.asarray(v1[i2])
    got = ac.asarray(arr)[i1][i2]
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal((got * 2.0).numpy(), want * 2.0)


@pytest.mark.parametrize("key", [4, -5, 100, (0, 5), (0, 0, 6), (0, -7), (Ellipsis, 6)], ids=repr)
def test_out_of_range_integer_index_raises_index_error(key):
    t = ac.asarray(BASE)
    with pytest.raises(IndexError):
        BASE[key]  # NumPy's behaviour
    with pytest.raises(IndexError):
        t[key]


def test_iteration_stops_at_the_end():
    t = ac.asarray(np.arange(3.0))
    it = iter(t)
    assert [float(next(it)) for _ in range(3)] == [0.0, 1.0, 2.0]
    with pytest.raises(StopIteration):
        next(it)


@pytest.mark.parametrize("key", [(0, 0, 0, 0), (Ellipsis, Ellipsis), (0, Ellipsis, 0, 0, 0)], ids=repr)
def test_too_many_indices(key):
    with pytest.raises(IndexError):  # NumPy's and the standard's type
        ac.asarray(BASE)[key]


def test_slice_step_zero():
    with pytest.raises(ValueError):
        ac.asarray(BASE)[::0]


@pytest.mark.parametrize(
    "key",
    [[0, 1], (0, [1, 2]), [[0]], [True, False, True, False], np.array([0, 1]), np.array([[0], [1]]),
     np.array([True, False, True, False]), (0, np.array([1, 2]))],
    ids=["list", "tuple_with_list", "nested_list", "bool_list", "int_array", "int_array_2d", "bool_mask",
         "tuple_with_array"],
)
def test_advanced_indexing_with_lists_and_numpy_arrays(key):
    np.testing.assert_array_equal(ac.asarray(BASE)[key].numpy(), BASE[key])


def test_indexing_with_other_objects():
    t = ac.asarray(BASE)
    with pytest.raises(IndexError, match="integer or boolean"):
        t[t]  # a float64 index array
    # Not an index: IndexError, as NumPy and the array API standard raise.
    with pytest.raises(IndexError, match="valid indices, not float"):
        t[1.0]
    with pytest.raises(IndexError, match="valid indices, not str"):
        t["a"]
    with pytest.raises(IndexError, match="valid indices, not float"):
        t[[0, 1], 1.5]
    with pytest.raises(IndexError, match="too many indices"):
        t[(0,) * (BASE.ndim + 1)]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., 0, ...]
    # 0-d integer arrays are integers, as in NumPy.
    np.testing.assert_array_equal(t[np.array(1)].numpy(), BASE[np.array(1)])
