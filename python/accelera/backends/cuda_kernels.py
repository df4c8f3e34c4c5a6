"""The CUDA kernel manager (the seed's ``get_cuda_kernel_manager``)."""

from __future__ import annotations

from ._kernel_manager import KernelManager


def get_cuda_kernel_manager() -> KernelManager:
    """The manager of the CUDA backend's kernels. On a build or machine without CUDA, ``is_available()`` is
    False and ``reason`` says why ("built without CUDA support", "no CUDA device found")."""
    return KernelManager("cuda")
