"""accelera.torch's router (intercept / enable): what it routes, what it passes through, streaming,
autograd, torch.compile, nesting and the environment switches."""

from __future__ import annotations

import pytest

import accelera as ac

torch = pytest.importorskip("torch", reason="the PyTorch integration tests need torch (scripts/install-deps.sh)")
at = pytest.importorskip("accelera.torch")
F = torch.nn.functional

DEVICES = ["cpu"] + (["opencl:0"] if any(d["device"] == "opencl:0" for d in ac.devices()) else [])
HAS_OPENCL = "opencl:0" in DEVICES


@pytest.fixture(autouse=True)
def fresh_stats():
    at.disable()
    at.reset_stats()
    yield
    at.disable()


def rand(*shape, dtype=torch.float64, seed=0, grad=False):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(shape, generator=g, dtype=dtype).requires_grad_(grad)


ENTRY_POINTS = {
    "torch.matmul": lambda a, b, c: torch.matmul(a, b),
    "@": lambda a, b, c: a @ b,
    "__rmatmul__": lambda a, b, c: b.__rmatmul__(a),
    "Tensor.matmul": lambda a, b, c: a.matmul(b),
    "torch.mm": lambda a, b, c: torch.mm(a, b),
    "Tensor.mm": lambda a, b, c: a.mm(b),
    "torch.bmm": lambda a, b, c: torch.bmm(a.unsqueeze(0).expand(2, -1, -1), b.unsqueeze(0).expand(2, -1, -1)),
    "torch.addmm": lambda a, b, c: torch.addmm(c, a, b, beta=0.5, alpha=2),
    "Tensor.addmm": lambda a, b, c: c.addmm(a, b),
    "F.linear": lambda a, b, c: F.linear(a, b.T, c[0]),
    "F.linear without bias": lambda a, b, c: F.linear(a, b.T),
    "torch.add": lambda a, b, c: torch.add(c, c, alpha=3),
    "Tensor.add": lambda a, b, c: c.add(c[:1]),
    "+": lambda a, b, c: c + c,
    "torch.mul": lambda a, b, c: torch.mul(c, c),
    "*": lambda a, b, c: c * c[:, :1],
    "scalar *": lambda a, b, c: 2.5 * c,
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_every_entry_point_is_routed_and_exact(device, name):
    a, b, c = rand(9, 7), rand(7, 5), rand(9, 5)
    want = ENTRY_POINTS[name](a, b, c)
    with at.intercept(min_bytes=0, device=device):
        got = ENTRY_POINTS[name](a, b, c)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    stats = at.stats()
    elementwise = name.split()[-1] in ("torch.add", "Tensor.add", "+", "torch.mul", "*") or name == "scalar *"
    if elementwise and device != "cpu":  # host element-wise ops are never sent over the bus
        assert stats["routed"] == 0 and stats["pass_reasons"] == {"element-wise op away from the target device": 1}
    else:
        assert stats["routed"] == 1 and stats["accelera_ops"] >= 1, stats


def test_nn_linear_forward_and_backward_are_routed():
    layer = torch.nn.Linear(6, 4).double()
    x = rand(5, 3, 6, grad=True)
    ref_layer = torch.nn.Linear(6, 4).double()
    ref_layer.load_state_dict(layer.state_dict())
    x_ref = x.detach().clone().requires_grad_(True)
    ref_layer(x_ref).square().sum().backward()
    with at.intercept(min_bytes=0, device="cpu"):
        layer(x).square().sum().backward()
    assert at.stats()["routed"] >= 1
    for got, want in [(x.grad, x_ref.grad), (layer.weight.grad, ref_layer.weight.grad),
                      (layer.bias.grad, ref_layer.bias.grad)]:
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("grad_side", ["left", "right", "both"])
def test_requires_grad_on_either_side(device, grad_side):
    a = rand(4, 3, 8, 5, grad=grad_side in ("left", "both"))
    b = rand(3, 5, 2, grad=grad_side in ("right", "both"))
    a_ref = a.detach().clone().requires_grad_(a.requires_grad)
    b_ref = b.detach().clone().requires_grad_(b.requires_grad)
    (a_ref @ b_ref).sin().sum().backward()
    with at.intercept(min_bytes=0, device=device):
        (a @ b).sin().sum().backward()
    for got, want in [(a.grad, a_ref.grad), (b.grad, b_ref.grad)]:
        if want is None:
            assert got is None
        else:
            torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("device", DEVICES)
def test_batched_broadcast_transposed_and_strided_operands(device):
    a, b = rand(2, 1, 6, 9), rand(3, 9, 4)
    s = rand(20, 30)
    cases = [lambda: a @ b, lambda: a.mT.mT @ b, lambda: s[::2, ::3] @ s[::2, ::3].T, lambda: rand(9) @ b,
             lambda: a @ rand(9)]
    wants = [case() for case in cases]
    with at.intercept(min_bytes=0, device=device):
        gots = [case() for case in cases]
    for got, want in zip(gots, wants):
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    assert at.stats()["routed"] == len(cases)


def test_half_precision_results_keep_the_callers_dtype():
    for dtype in (torch.float16, torch.bfloat16):
        a, b = rand(16, 8, dtype=dtype), rand(8, 4, dtype=dtype)
        with at.intercept(min_bytes=0, device="cpu"):
            got = a @ b
        assert got.dtype == dtype
        torch.testing.assert_close(got.double(), a.double() @ b.double(), rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize("call, reason", [
    (lambda: rand(2, 3) @ rand(3, 2), "small"),
    (lambda: torch.mm(rand(64, 64, dtype=torch.float32), rand(64, 64)), "mixed dtypes"),
    (lambda: rand(64, 64).long() @ rand(64, 64).long(), "dtype"),
    (lambda: torch.mm(rand(64, 64), rand(64, 64), out=torch.empty(64, 64, dtype=torch.float64)), "arguments"),
])
def test_calls_that_pass_through_behave_as_pytorch(call, reason):
    try:
        want, want_error = call(), None
    except RuntimeError as err:
        want, want_error = None, type(err)
    with at.intercept(min_bytes=1000, device="cpu"):
        if want_error is not None:
            with pytest.raises(want_error):
                call()
        else:
            torch.testing.assert_close(call(), want)
    assert at.stats()["routed"] == 0
    assert at.stats()["pass_reasons"] == {reason: 1}


def test_mismatched_shapes_raise_pytorchs_own_error():
    a, b = rand(64, 30), rand(31, 64)
    with pytest.raises(RuntimeError) as plain:
        a @ b
    with at.intercept(min_bytes=0, device="cpu"):
        with pytest.raises(RuntimeError) as routed:
            a @ b
    assert str(routed.value) == str(plain.value)
    assert at.stats()["pass_reasons"] == {"shapes": 1}


def test_mixed_devices_pass_through_to_pytorch():
    a, b = rand(64, 64), torch.empty(64, 64, dtype=torch.float64, device="meta")
    want = torch.mm(a, b)  # whatever PyTorch makes of it, the router leaves it to PyTorch
    with at.intercept(min_bytes=0, device="cpu"):
        got = torch.mm(a, b)
    assert (got.device, got.shape) == (want.device, want.shape)
    assert at.stats()["pass_reasons"] == {"mixed devices": 1}


class Tagged(torch.Tensor):
    """A subclass with its own __torch_function__: it keeps its semantics under the router."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


def test_tensor_subclasses_pass_through():
    a = rand(32, 32).as_subclass(Tagged)
    with at.intercept(min_bytes=0, device="cpu"):
        out = a @ a
    assert type(out) is Tagged
    assert at.stats()["pass_reasons"] == {"tensor subclass": 1}


@pytest.mark.skipif(not HAS_OPENCL, reason="needs an OpenCL device")
def test_operands_eight_times_the_device_budget_stream():
    original = ac.memory_stats("opencl:0")["budget_bytes"]
    a, b = rand(600, 500, dtype=torch.float32), rand(500, 400, dtype=torch.float32)
    operand_bytes = 4 * (a.numel() + b.numel() + 600 * 400)
    try:
        # room for an eighth of the operands beside whatever earlier tests left alive on the device
        ac.set_memory_budget("opencl:0", ac.memory_stats("opencl:0")["current_bytes"] + operand_bytes // 8)
        with pytest.raises(ac.OutOfMemoryError):
            at.matmul(a, b, "opencl:0", False)  # a plain device run does not fit
        assert torch.equal(a, rand(600, 500, dtype=torch.float32))
        with at.intercept(min_bytes=0, device="opencl:0"):
            got = a @ b
        stats = at.stats()
        assert stats["routed"] == 1 and stats["streamed"] == 1, stats
        assert stats["bytes_to_device"] >= 4 * (a.numel() + b.numel())
        torch.testing.assert_close(got.double(), a.double() @ b.double(), rtol=1e-4, atol=1e-4)
        with at.intercept(min_bytes=0, device="opencl:0", out_of_core=False):
            a @ b
        assert at.stats()["pass_reasons"] == {"too large for the device": 1}
    finally:
        ac.set_memory_budget("opencl:0", original)


@pytest.mark.skipif(not HAS_OPENCL, reason="needs an OpenCL device")
def test_backward_of_a_streamed_linear_streams_too():
    original = ac.memory_stats("opencl:0")["budget_bytes"]
    layer = torch.nn.Linear(300, 200)
    x = rand(400, 300, dtype=torch.float32, grad=True)
    ref = torch.nn.Linear(300, 200)
    ref.load_state_dict(layer.state_dict())
    x_ref = x.detach().clone().requires_grad_(True)
    ref(x_ref).sum().backward()
    try:
        ac.set_memory_budget("opencl:0", ac.memory_stats("opencl:0")["current_bytes"] + 300_000)
        with at.intercept(min_bytes=0, device="opencl:0"):
            layer(x).sum().backward()
    finally:
        ac.set_memory_budget("opencl:0", original)
    assert at.stats()["streamed"] == 3  # the forward, and both gradients of the product
    torch.testing.assert_close(layer.weight.grad, ref.weight.grad, rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(x.grad, x_ref.grad, rtol=1e-4, atol=1e-4)


def test_torch_compile_of_a_module_under_interception():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    x = torch.randn(8, 32)
    want = model(x)
    compiled = torch.compile(model)
    with at.intercept(min_bytes=0, device="cpu"):
        got = compiled(x)
        again = compiled(x)
        got.sum().backward()
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(again, want, rtol=1e-5, atol=1e-6)
    assert at.stats()["accelera_ops"] >= 4  # two products per call ran on Accelera, and the backward


def test_compiled_graph_of_accelera_operators():
    def f(a, b, c):
        return torch.ops.accelera.linear(a, b, c).relu().sum()
    a, b, c = rand(8, 6, grad=True), rand(5, 6, grad=True), rand(5, grad=True)
    want = f(a, b, c)
    got = torch.compile(f, fullgraph=True)(a, b, c)
    torch.testing.assert_close(got, want)


def test_nesting_sees_the_innermost_mode_first():
    a = rand(40, 40)
    outer, inner = at.intercept(min_bytes=0, device="cpu"), at.intercept(min_bytes=1 << 30, device="cpu")
    with outer:
        with inner:
            a @ a  # the inner router passes it through; the outer one routes it
    stats = at.stats()
    assert stats["routed"] == 1 and stats["pass_reasons"] == {"small": 1}


def test_the_same_router_can_be_entered_again():
    router = at.intercept(min_bytes=0, device="cpu")
    a = rand(16, 16)
    with router:
        with router:
            a @ a
        a @ a
    a @ a
    assert at.stats()["routed"] == 2


def test_enable_disable_is_enabled():
    a = rand(16, 16)
    assert not at.is_enabled()
    at.enable(min_bytes=0, device="cpu")
    assert at.is_enabled()
    a @ a
    at.enable(min_bytes=1 << 30, device="cpu")  # enabling again replaces the settings
    a @ a
    at.disable()
    assert not at.is_enabled()
    a @ a
    stats = at.stats()
    assert stats["routed"] == 1 and stats["pass_reasons"] == {"small": 1}


def test_disable_under_another_mode_is_refused():
    at.enable(min_bytes=0, device="cpu")
    with at.intercept():
        with pytest.raises(RuntimeError, match="another TorchFunctionMode"):
            at.disable()
    assert at.is_enabled()


def test_training_step_is_the_same_with_interception():
    def losses(intercepting: bool) -> list[float]:
        torch.manual_seed(1)
        model = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.Tanh(), torch.nn.Linear(32, 3))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(64, 20), torch.randint(0, 3, (64,))
        out = []
        for _ in range(20):
            opt.zero_grad()
            if intercepting:
                with at.intercept(min_bytes=0, device="cpu"):
                    loss = F.cross_entropy(model(x), y)
                    loss.backward()
            else:
                loss = F.cross_entropy(model(x), y)
                loss.backward()
            opt.step()
            out.append(loss.item())
        return out
    plain, routed = losses(False), losses(True)
    assert at.stats()["routed"] > 0
    for p, r in zip(plain, routed):
        assert abs(p - r) <= 1e-5 * abs(p)


def test_environment_switches(monkeypatch):
    monkeypatch.setenv("ACCELERA_TORCH_MIN_BYTES", "64MB")
    monkeypatch.setenv("ACCELERA_TORCH_DEVICE", "cpu")
    monkeypatch.setenv("ACCELERA_TORCH_OUT_OF_CORE", "off")
    s = at.intercept().settings
    assert (s.min_bytes, s.device, s.out_of_core) == (64_000_000, "cpu", False)
    assert at.intercept(min_bytes=5).settings.min_bytes == 5
    monkeypatch.setenv("ACCELERA_TORCH_OUT_OF_CORE", "maybe")
    with pytest.raises(ac.ArgumentError, match="ACCELERA_TORCH_OUT_OF_CORE"):
        at.intercept()


@pytest.mark.parametrize("kwargs, error", [({"min_bytes": -1}, ac.ArgumentError), ({"min_bytes": "lots"}, ac.Error),
                                           ({"device": 3}, ac.ArgumentError), ({"out_of_core": "yes"}, ac.DTypeError)])
def test_bad_settings_are_typed_errors(kwargs, error):
    with pytest.raises(error):
        at.intercept(**kwargs)
