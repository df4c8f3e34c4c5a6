"""accelera.torch operators (torch.ops.accelera.*): float64 references, autograd, opcheck, bad input."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import accelera as ac

torch = pytest.importorskip("torch", reason="the PyTorch integration tests need torch (scripts/install-deps.sh)")
at = pytest.importorskip("accelera.torch")

DEVICES = ["cpu"] + (["opencl:0"] if any(d["device"] == "opencl:0" for d in ac.devices()) else [])
TOL = {torch.float64: 1e-12, torch.float32: 2e-5, torch.float16: 2e-2, torch.bfloat16: 5e-2}


def poisoned_random(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def assert_close(got, want, dtype):
    assert got.dtype == dtype
    assert tuple(got.shape) == tuple(want.shape)
    scale = max(1.0, float(want.abs().max())) if want.numel() else 1.0
    err = float((got.double() - want).abs().max()) if want.numel() else 0.0
    assert err <= TOL[dtype] * scale * 10, f"max error {err} (scale {scale}) for {dtype}"


@pytest.fixture(autouse=True)
def fresh_stats():
    at.reset_stats()
    yield


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 13, 5), (31, 1, 17), (64, 33, 65)])
def test_mm_matches_float64(device, dtype, m, k, n):
    a, b = poisoned_random((m, k), dtype, 1), poisoned_random((k, n), dtype, 2)
    a_before, b_before = a.clone(), b.clone()
    got = at.mm(a, b, device)
    assert_close(got, a.double() @ b.double(), dtype)
    assert torch.equal(a, a_before) and torch.equal(b, b_before)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shapes", [((5,), (5,)), ((5,), (5, 3)), ((4, 5), (5,)), ((2, 3, 4, 5), (5, 6)),
                                    ((3, 1, 4, 5), (2, 5, 3)), ((1, 4, 5), (7, 5, 2)), ((6,), (2, 6, 3))])
def test_matmul_broadcasts_like_torch(device, shapes):
    a, b = poisoned_random(shapes[0], torch.float64, 3), poisoned_random(shapes[1], torch.float64, 4)
    assert_close(at.matmul(a, b, device), torch.matmul(a, b), torch.float64)


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_and_transposed_operands(device):
    a = poisoned_random((40, 30), torch.float32, 5)
    b = poisoned_random((50, 40), torch.float32, 6)
    assert_close(at.mm(a.T, b.T, device), a.T.double() @ b.T.double(), torch.float32)
    c = poisoned_random((30, 50), torch.float32, 12)
    assert_close(at.mm(a[::2, 1::3], c[::3, ::4], device), a[::2, 1::3].double() @ c[::3, ::4].double(),
                 torch.float32)
    batch = poisoned_random((3, 20, 9), torch.float64, 7)
    assert_close(at.bmm(batch.mT, batch, device), batch.mT @ batch, torch.float64)


@pytest.mark.parametrize("device", DEVICES)
def test_addmm_linear_add_mul(device):
    bias, a, b = (poisoned_random(s, torch.float64, i) for i, s in enumerate([(1, 6), (4, 5), (5, 6)]))
    assert_close(at.addmm(bias, a, b, 0.5, 2.0, device), torch.addmm(bias, a, b, beta=0.5, alpha=2.0), torch.float64)
    nan_bias = torch.full((4, 6), float("nan"), dtype=torch.float64)
    assert_close(at.addmm(nan_bias, a, b, 0.0, 1.0, device), a @ b, torch.float64)  # beta 0 ignores self
    x, w, c = poisoned_random((2, 3, 5), torch.float64, 8), poisoned_random((7, 5), torch.float64, 9), \
        poisoned_random((7,), torch.float64, 10)
    assert_close(at.linear(x, w, c, device), torch.nn.functional.linear(x, w, c), torch.float64)
    assert_close(at.linear(x[0, 0], w, None, device), torch.nn.functional.linear(x[0, 0], w), torch.float64)
    assert_close(at.add(x, c[:5], 3.0, device), torch.add(x, c[:5], alpha=3.0), torch.float64)
    assert_close(at.mul(x, x[:1], device), x * x[:1], torch.float64)


def test_empty_and_zero_depth_products():
    assert torch.equal(at.mm(torch.ones(3, 0), torch.ones(0, 4)), torch.zeros(3, 4))
    assert at.mm(torch.ones(0, 5), torch.ones(5, 4)).shape == (0, 4)


OPERATOR_CASES = {
    "mm": lambda r: (at.mm, (r(3, 5), r(5, 2))),
    "bmm": lambda r: (at.bmm, (r(2, 3, 5), r(2, 5, 2))),
    "matmul": lambda r: (at.matmul, (r(2, 1, 3, 4), r(3, 4, 2))),
    "matmul_vector": lambda r: (at.matmul, (r(4), r(2, 4, 3))),
    "addmm": lambda r: (at.addmm, (r(1, 2), r(3, 5), r(5, 2), 0.5, 2.0)),
    "linear": lambda r: (at.linear, (r(2, 3, 5), r(4, 5), r(4))),
    "add": lambda r: (at.add, (r(3, 4), r(4), 2.0)),
    "mul": lambda r: (at.mul, (r(3, 1), r(1, 4))),
}


def _grad_inputs():
    g = torch.Generator().manual_seed(11)
    return lambda *shape: torch.randn(shape, generator=g, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("case", sorted(OPERATOR_CASES))
def test_gradcheck_and_opcheck(case):
    op, args = OPERATOR_CASES[case](_grad_inputs())
    assert torch.autograd.gradcheck(op, args)
    assert torch.autograd.gradgradcheck(op, args)
    result = torch.library.opcheck(op, args)
    assert all(v == "SUCCESS" for v in result.values()), result


@pytest.mark.skipif("opencl:0" not in DEVICES, reason="needs an OpenCL device")
@pytest.mark.parametrize("case", ["mm", "linear", "matmul"])
def test_gradcheck_on_opencl(case):
    op, args = OPERATOR_CASES[case](_grad_inputs())
    extra = (None,) if case == "linear" and len(args) == 2 else ()
    assert torch.autograd.gradcheck(lambda *xs: op(*xs, *extra, device="opencl:0"), args)


def test_backward_runs_through_accelera():
    x = torch.randn(8, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    at.linear(x, w).sum().backward()
    assert at.stats()["accelera_ops"] == 3  # the forward, then the input's and the weight's gradients
    torch.testing.assert_close(x.grad, torch.ones(8, 3, dtype=torch.float64) @ w.detach())


@pytest.mark.parametrize("call, error", [
    (lambda: at.mm(torch.ones(2, 3), torch.ones(4, 2)), ac.ShapeError),
    (lambda: at.mm(torch.ones(2, 3, 1), torch.ones(1, 2)), ac.ShapeError),
    (lambda: at.bmm(torch.ones(2, 3, 4), torch.ones(3, 4, 2)), ac.ShapeError),
    (lambda: at.matmul(torch.ones(2, 3), torch.ones(3, 2, dtype=torch.float64)), ac.DTypeError),
    (lambda: at.matmul(torch.ones(2, 3, dtype=torch.int64), torch.ones(3, 2, dtype=torch.int64)), ac.DTypeError),
    (lambda: at.linear(torch.ones(2, 3), torch.ones(4, 5)), ac.ShapeError),
    (lambda: at.addmm(torch.ones(5, 5), torch.ones(2, 3), torch.ones(3, 2)), ac.ShapeError),
    (lambda: at.add(torch.ones(2, 3), torch.ones(4)), ac.ShapeError),
    (lambda: at.mm(torch.ones(2, 3), torch.ones(3, 2), "nowhere:0"), ac.Error),
])
def test_bad_input_is_a_typed_error_and_leaves_inputs_alone(call, error):
    with pytest.raises(error):
        call()


def test_bad_input_leaves_operands_unchanged():
    a, b = torch.randn(2, 3), torch.randn(4, 2)
    a0, b0 = a.clone(), b.clone()
    with pytest.raises(ac.ShapeError):
        at.mm(a, b)
    assert torch.equal(a, a0) and torch.equal(b, b0)


def test_dlpack_is_zero_copy_both_ways():
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    x = at.to_accelera(t)
    assert np.asarray(x).ctypes.data == t.data_ptr()
    back = at.to_torch(x)
    assert back.data_ptr() == t.data_ptr()
    for dtype in (torch.float16, torch.bfloat16):
        assert at.to_accelera(torch.ones(2, dtype=dtype)).dtype.name == str(dtype).split(".")[1]


def test_import_without_torch_is_a_clear_import_error():
    code = "import sys; sys.modules['torch'] = None\ntry:\n import accelera.torch\nexcept ImportError as e:\n print(e)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "accelera.torch needs PyTorch: pip install torch" in out
