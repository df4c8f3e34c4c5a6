"""Automatic offload: ``@gpu`` functions, ``par_iter(...).gpu_map``, ``Config`` and the runtime's cost model.

A decorated function written against NumPy runs on the CPU as written, or on a device with its arrays moved
there, whichever the calibrated cost model predicts is faster (Note [Offload decisions] in _model.py);
``get_runtime().stats()`` shows every decision with its predicted and measured time.
"""

from ._calibration import Calibration, Link, Rates
from ._config import Config, ConfigBuilder
from ._decorator import Offloaded, OffloadedKernel, gpu, gpu_kernel
from ._gpu_info import GpuInfo
from ._par_iter import ParIter
from ._runtime import Runtime, get_runtime, init


def par_iter(items) -> ParIter:
    """A parallel iterator over ``items``: ``.map(f)``, ``.filter(pred)``, ``.gpu_map(f)``, ``.collect()``."""
    return ParIter(items)


__all__ = ["Calibration", "Config", "ConfigBuilder", "GpuInfo", "Link", "Offloaded", "OffloadedKernel", "ParIter",
           "Rates", "Runtime", "get_runtime", "gpu", "gpu_kernel", "init", "par_iter"]
