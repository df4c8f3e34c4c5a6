"""pytest plugin of scripts/gpu/check.sh: records how many allocations each test made on the CUDA devices (and
on the OpenCL ones), from accelera.memory_stats' num_allocs before and after the test, as the JUnit properties
cuda_allocations and opencl_allocations.

A test that passed with cuda_allocations > 0 ran on a GPU: check.sh's test phase fails when no Python test did.
(A test name that mentions cuda proves nothing: the tests of bad device strings and absent devices mention it.)
"""

from __future__ import annotations

import pytest

KINDS = ("cuda", "opencl")


def _allocations() -> dict[str, int]:
    import accelera as ac

    counts = dict.fromkeys(KINDS, 0)
    for d in ac.devices():
        if d["kind"] in counts:
            counts[d["kind"]] += ac.memory_stats(d["device"])["num_allocs"]
    return counts


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    before = _allocations()
    yield
    after = _allocations()
    for kind in KINDS:
        item.user_properties.append((f"{kind}_allocations", after[kind] - before[kind]))
