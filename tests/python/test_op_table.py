"""The kernel table as users see it: accelera.op_table(), accelera.supports(), ``accelera info --ops``
and docs/ops.md (generated from a build with every backend)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import accelera as ac

DOCS = Path(__file__).resolve().parents[2] / "docs" / "ops.md"


def _info_ops(*extra) -> str:
    script = Path(sys.executable).with_name("accelera")
    cmd = [str(script) if script.exists() else shutil.which("accelera"), "info", "--ops", *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_op_table_lists_every_public_op_on_the_cpu():
    cpu = {e["op"]: e["dtypes"] for e in ac.op_table() if e["device_kind"] == "cpu"}
    for op in ("add", "exp", "matmul", "sum", "gelu", "layer_norm_backward", "attention", "copy", "fill"):
        assert "float32" in cpu[op], op
    assert "float16" in cpu["exp"] and "float16" not in cpu["gelu"]


def test_supports_matches_what_runs():
    x16 = ac.asarray(np.ones((4, 4), np.float32)).astype("float16")
    # matmul has no half GEMM on the CPU: supports() says so, and the op layer rounds the float32 product once.
    assert not ac.supports("cpu", "matmul", "float16")
    assert ac.matmul(x16, x16).dtype == "float16"
    assert ac.supports("cpu", "exp", "float16") and ac.exp(x16).dtype == "float16"
    # A fused kernel without a float16 form says which op and device.
    assert not ac.supports("cpu", "gelu", "float16")
    with pytest.raises(ac.NotSupportedError, match="gelu does not compute float16 on cpu"):
        ac.gelu(x16)
    assert ac.supports("cpu", "exp", "float32")
    assert not ac.supports("cpu", "no_such_op", "float32")
    absent = [k for k in ("cuda", "opencl") if k in ac.absent_backends()]
    for kind in absent:
        assert not ac.supports(f"{kind}:0", "add", "float32")


def test_info_ops_prints_the_table():
    text = _info_ops()
    assert "layer_norm_backward" in text and "f32" in text
    for entry in ac.op_table():
        assert entry["op"] in text


@pytest.mark.skipif(not {"cuda", "opencl"} <= set(ac.compiled_backends()),
                    reason="docs/ops.md lists every backend: compare it with a build that has them all")
def test_docs_ops_md_is_the_generated_table():
    assert DOCS.read_text() == _info_ops("--markdown"), "regenerate with: accelera info --ops --markdown > docs/ops.md"
