"""Accelera: large matrix and neural-network computations on any CPU or GPU.

Tensors live on a device ("cpu", "cuda:0", "opencl:0"); ops follow NumPy's semantics; memory is
managed by a caching allocator with a budget per device. See ``accelera info`` for what this build has.
"""

from __future__ import annotations

import atexit
import math
import os

# Note [OpenMP wait policy] (cli/main.cpp): OpenMP workers spin briefly after a parallel region, then
# sleep; libgomp reads this when it is loaded, which is when _core is imported just below. A policy or a
# spin count the user set is kept.
if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["GOMP_SPINCOUNT"] = "2000"

import numpy  # noqa: E402,F401  (NumPy loads its own BLAS first, choosing its kernels for itself)

from . import _openblas_core  # noqa: E402

_openblas_coretype = _openblas_core.choose()  # Note [OpenBLAS core type]: read when _core loads OpenBLAS
_openblas_timeout = _openblas_core.set_thread_timeout()  # Note [OpenBLAS thread timeout] (cli/main.cpp)
from . import _args, _core, _dtypes  # noqa: E402

_openblas_core.loaded(_openblas_coretype, _core.cpu_blas_info)
_openblas_core.unset(_openblas_core.TIMEOUT_VARIABLE, _openblas_timeout)
del _openblas_coretype, _openblas_timeout

# Kernels still queued when the interpreter ends would run while the drivers are torn down: wait for them
# first (Note [Work queued at exit] in src/core/registry.cpp). Python's atexit functions run before the C
# runtime's exit handlers.
atexit.register(_core._finish_queued_work)

from ._core import (
    ArgumentError,
    CancelledError,
    CompiledKernel,
    DeviceError,
    DTypeError,
    Error,
    IndexOutOfBoundsError,
    InternalError,
    KernelManager,
    NotSupportedError,
    OutOfMemoryError,
    OutOfRangeError,
    ShapeError,
    Tensor,
    __version__,
    absent_backends,
    allow_tf32,
    compiled_backends,
    cpu_parallel_grain,
    cpu_simd_info,
    default_device,
)
from . import _tensor  # noqa: F401  (installs Tensor's Python methods)
from ._convert import device_or_default, from_dlpack
from . import chunking  # noqa: F401
from .engine import Matrix, MatrixEngine
from .memory_manager import MemoryManager
from ._dtypes import (DType, bfloat16, bool_, complex64, complex128, dtype, float16, float32, float64, int8, int16,
                      int32, int64, uint8, uint16, uint32, uint64)
from ._nn import (
    attention,
    attention_backward,
    bias_gelu,
    col2im,
    conv,
    conv_backward,
    gelu,
    gelu_backward,
    im2col,
    layer_norm,
    layer_norm_backward,
    linear_gelu,
    log_softmax,
    log_softmax_backward,
    gru_cell,
    gru_cell_backward,
    lstm_cell,
    lstm_cell_backward,
    lstm_sequence,
    lstm_sequence_backward,
    gru_sequence,
    gru_sequence_backward,
    max_pool,
    max_pool_backward,
    softmax,
    softmax_backward,
)
from ._ops import (
    abs,
    add,
    divide,
    exp,
    log,
    matmul,
    max,
    maximum,
    mean,
    minimum,
    multiply,
    negative,
    relu,
    sigmoid,
    sqrt,
    square,
    subtract,
    sum,
    tanh,
)
from ._statistics import (  # noqa: A004
    all, any, argmax, argmin, count_nonzero, cumulative_prod, cumulative_sum, diff, min, nonzero, prod, std, var)
from ._ops import take, take_along_axis  # noqa: E402
from ._sorting import (  # noqa: E402
    argsort, isin, searchsorted, sort, unique_all, unique_counts, unique_inverse, unique_values)
from . import random  # noqa: E402  (accelera.random: Philox generators)


from . import backends  # noqa: E402  (after the core names it uses)
from ._blas import cpu_blas_info, use_cpu_blas  # noqa: E402
from . import _blas  # noqa: E402
# The array API standard's namespace (docs/array-api.md).
from ._creation import (  # noqa: E402
    arange, asarray, empty, empty_like, eye, full, full_like, linspace, meshgrid, ones, ones_like, tril, triu, zeros,
    zeros_like)
from ._dtype_functions import astype, can_cast, finfo, iinfo, isdtype, result_type  # noqa: E402
from ._manipulation import (  # noqa: E402
    AxisError, broadcast_arrays, broadcast_shapes, broadcast_to, concat, expand_dims, flip, matrix_transpose, moveaxis,
    permute_dims, repeat, reshape, roll, squeeze, stack, tile, unstack)
from ._namespace_info import __array_api_version__, __array_namespace_info__, install_tensor_attributes  # noqa: E402

install_tensor_attributes()
from ._setitem import install as _install_setitem  # noqa: E402

_install_setitem()
from ._getitem import install as _install_getitem  # noqa: E402

_install_getitem()

_blas.choose_at_import()


def devices() -> list[dict]:
    """Every device that answers now (CPU first): device, kind, index, name, total and free memory."""
    return _core.devices()


def memory_stats(device=None) -> dict:
    """Allocator statistics of a device (default: the default device), in bytes and counts."""
    return _core.memory_stats(device_or_default(device))


def empty_cache(device=None) -> None:
    """Return a device's cached free blocks to the device."""
    _core.empty_cache(device_or_default(device))


def set_memory_budget(device, budget) -> None:
    """Cap what Accelera reserves on a device: bytes (int) or a fraction (0 < float <= 1) of its memory."""
    device = device_or_default(device)
    if isinstance(budget, float):
        if not 0.0 < budget <= 1.0:
            raise ArgumentError(f"a fractional memory budget must be in (0, 1], got {budget}")
        budget = int(budget * _core._device_total_memory(device))
    _core.set_memory_budget(device, _args.integer(budget, "budget"))


def set_allow_tf32(allow: bool) -> None:
    """Let float32 matmul on CUDA use TF32 tensor cores (Note [TF32]); off by default."""
    _core.set_allow_tf32(_args.flag(allow, "allow"))


def set_log_level(level: str) -> None:
    """The library's log level: trace, debug, info, warn, error, critical or off."""
    _core.set_log_level(_args.text(level, "level"))


def op_table() -> list[dict]:
    """Which ops this build runs on which device kinds, in which dtypes: one dict per (op, device kind)
    with ``op``, ``device_kind`` and ``dtypes`` (``accelera info --ops`` prints the same)."""
    return _core._op_table()


def supports(device, op: str, dtype) -> bool:
    """Whether ``op`` (its name in :func:`op_table`) has a kernel on ``device`` for ``dtype`` (False for an
    absent device). Element-wise functions, reductions, argmax/argmin and scans also take float16 and
    bfloat16 where this is False for them and True for float32: they compute in float32 and round once.
    Other ops called where this is False raise NotSupportedError naming the op, device and dtype."""
    return _core._supports(device_or_default(device), op, _dtypes.dtype(dtype).name)


__all__ = [
    "ArgumentError", "CancelledError", "CompiledKernel", "DType", "DTypeError", "DeviceError", "Error",
    "InternalError", "KernelManager", "Matrix", "MatrixEngine", "MemoryManager", "NotSupportedError", "OutOfMemoryError",
    "OutOfRangeError",
    "ShapeError", "Tensor", "__version__", "abs", "absent_backends", "add", "allow_tf32", "asarray", "bfloat16", "bool_",
    "chunking", "compiled_backends", "complex64", "complex128", "cpu_blas_info", "cpu_parallel_grain", "cpu_simd_info", "default_device", "devices", "divide", "dtype", "empty_cache", "exp",
    "float16", "float32", "float64", "from_dlpack", "full", "int8", "int16", "int32", "int64", "log", "matmul", "max", "maximum", "mean", "minimum",
    "memory_stats", "multiply", "negative", "ones", "op_table", "relu", "set_allow_tf32", "set_log_level",
    "set_memory_budget", "sigmoid", "sqrt", "square", "subtract", "sum", "supports", "tanh", "uint8", "uint16", "uint32", "uint64", "use_cpu_blas", "zeros",
    # fused neural-network ops
    "attention", "attention_backward", "backends", "bias_gelu", "col2im", "conv", "conv_backward", "gelu", "gelu_backward", "im2col", "layer_norm",
    "layer_norm_backward", "linear_gelu", "log_softmax", "log_softmax_backward", "lstm_cell", "lstm_cell_backward", "gru_cell", "gru_cell_backward", "lstm_sequence", "lstm_sequence_backward", "gru_sequence", "gru_sequence_backward", "max_pool", "max_pool_backward", "softmax", "softmax_backward",
    # reductions and statistics
    "all", "any", "argmax", "argmin", "count_nonzero", "cumulative_prod", "cumulative_sum", "diff", "min", "nonzero", "prod", "std", "var",
    # the array API standard's namespace (docs/array-api.md)
    "__array_api_version__", "__array_namespace_info__", "arange", "astype", "AxisError", "broadcast_arrays",
    "broadcast_shapes", "broadcast_to", "can_cast", "concat", "empty", "empty_like", "expand_dims", "eye", "finfo",
    "flip", "full_like", "iinfo", "isdtype", "linspace", "matrix_transpose", "meshgrid", "moveaxis", "ones_like",
    "permute_dims", "repeat", "reshape", "result_type", "roll", "squeeze", "stack", "tile", "tril", "triu", "unstack",
    "zeros_like", "e", "inf", "nan", "newaxis", "pi",
    # random numbers and gathers
    "IndexOutOfBoundsError", "random", "take", "take_along_axis",
    # sorting, searching and sets
    "argsort", "isin", "searchsorted", "sort", "unique_all", "unique_counts", "unique_inverse", "unique_values",
]

# The array API's constants.
e, inf, nan, pi = math.e, math.inf, math.nan, math.pi
newaxis = None

# The array API's element-wise functions (and NumPy's names for them).
from . import _elementwise  # noqa: E402
from ._elementwise import *  # noqa: E402,F401,F403

__all__ += _elementwise.__all__

# Linear algebra: tensordot, vecdot and the array API's linalg extension (docs/array-api.md).
from . import linalg  # noqa: E402
from .linalg import LinAlgError, tensordot, vecdot  # noqa: E402

__all__ += ["LinAlgError", "linalg", "tensordot", "vecdot"]
# Fourier transforms: the array API's fft extension.
from . import fft  # noqa: E402

__all__ += ["fft"]

# The offload runtime: @gpu, par_iter, Config (accelera.offload).
from . import offload  # noqa: E402
from .offload import Config, get_runtime, gpu, gpu_kernel, init, par_iter  # noqa: E402

__all__ += ["Config", "get_runtime", "gpu", "gpu_kernel", "init", "offload", "par_iter"]

# Reverse-mode autograd (accelera.autograd): installed last, over every function above.
from . import autograd  # noqa: E402
from .autograd import _install as _autograd_install  # noqa: E402

_autograd_install.install()
__all__ += ["autograd"]

# Mixed precision (accelera.amp): autocast and dynamic loss scaling.
from . import amp  # noqa: E402

__all__ += ["amp"]

# The array API names the boolean dtype `bool`; bound last, since it hides the builtin inside this module.
bool = bool_  # noqa: A001
__all__ += ["bool"]
