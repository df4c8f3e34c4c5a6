"""The OpenCL kernel manager: the programs (kernels/<name>.cl) built on the first OpenCL device."""

from __future__ import annotations

from ._kernel_manager import KernelManager


def get_opencl_kernel_manager() -> KernelManager:
    """The manager of the OpenCL backend's kernels on opencl:0; ``reason`` says why when unavailable."""
    return KernelManager("opencl")
