"""The array API standard's inspection namespace (``accelera.__array_namespace_info__()``) and the Tensor
attributes the standard asks for beyond those of the C++ class: to_device, mT, __array_namespace__."""

from __future__ import annotations

from . import _core
from ._convert import device_or_default
from ._core import ArgumentError, NotSupportedError, Tensor
from ._dtype_functions import isdtype
from ._dtypes import _BY_NAME, int64

__array_api_version__ = "2024.12"


class Info:
    """What this build offers: devices, default dtypes, dtypes per device, capabilities."""

    def capabilities(self) -> dict:
        # Boolean masks index (read and write), and nonzero and the unique functions return shapes that depend
        # on the data: each reads one count back from the device.
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self) -> str:
        return _core.default_device()

    def devices(self) -> list[str]:
        return [d["device"] for d in _core.devices()]

    def default_dtypes(self, *, device=None) -> dict:
        from ._creation import DEFAULT_COMPLEX, DEFAULT_FLOAT, DEFAULT_INT

        device_or_default(device)
        return {"real floating": DEFAULT_FLOAT, "complex floating": DEFAULT_COMPLEX, "integral": DEFAULT_INT,
                "indexing": int64}

    def dtypes(self, *, device=None, kind=None) -> dict:
        """The dtypes tensors on ``device`` can hold (those its copy kernel handles), of ``kind`` if given."""
        device = device_or_default(device)
        found = {}
        for name, dt in _BY_NAME.items():
            # Complex tensors are copied as their real parts (Note [Complex copies]).
            stored = {"complex64": "float32", "complex128": "float64"}.get(name, name)
            if _core._supports(device, "copy", stored) and (kind is None or isdtype(dt, kind)):
                found[name] = dt
        return found


def __array_namespace_info__() -> Info:  # noqa: N807 - the standard's name
    return Info()


def _array_namespace(self: Tensor, /, *, api_version=None):
    if api_version is not None and api_version != __array_api_version__:
        raise ArgumentError(f"accelera implements the array API standard {__array_api_version__}, "
                            f"not {api_version!r}")
    import accelera

    return accelera


def _to_device(self: Tensor, device, /, *, stream=None) -> Tensor:
    """This tensor on ``device``: itself if already there, else a copy (synchronous)."""
    if stream is not None:
        raise NotSupportedError("to_device: streams are not supported; copies are synchronous")
    return self._to(device_or_default(device))


def _matrix_transpose(self: Tensor) -> Tensor:
    from ._manipulation import matrix_transpose

    return matrix_transpose(self)


def install_tensor_attributes() -> None:
    Tensor.__array_namespace__ = _array_namespace
    Tensor.to_device = _to_device
    Tensor.mT = property(_matrix_transpose, doc="The last two axes swapped (a view); rank >= 2.")
