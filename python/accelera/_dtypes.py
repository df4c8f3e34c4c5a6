"""Accelera's dtypes: strings with an itemsize that compare equal to NumPy's dtypes and scalar types."""

from __future__ import annotations

import numpy as np

from ._core import DTypeError

_ITEMSIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int8": 1, "int16": 2, "int32": 4,
             "int64": 8, "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8, "bool": 1, "complex64": 8, "complex128": 16}
_ALIASES = {"f32": "float32", "f64": "float64", "f16": "float16", "half": "float16", "bf16": "bfloat16",
            "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16",
            "u32": "uint32", "u64": "uint64", "c64": "complex64", "c128": "complex128", "float": "float64", "double": "float64", "int": "int64"}


class DType(str):
    """A dtype Accelera stores. ``accelera.float32 == "float32" == np.float32 == np.dtype("float32")``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return str.__str__(self)

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self.name]

    @property
    def is_floating(self) -> bool:
        """Real floating (complex dtypes are not)."""
        return self.name.startswith(("float", "bfloat"))

    @property
    def is_complex(self) -> bool:
        return self.name.startswith("complex")

    def __eq__(self, other: object) -> bool:
        return _name_or_none(other) == self.name

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return f"accelera.{self.name}"


float32 = DType("float32")
float64 = DType("float64")
float16 = DType("float16")
bfloat16 = DType("bfloat16")
int8 = DType("int8")
int16 = DType("int16")
int32 = DType("int32")
int64 = DType("int64")
uint8 = DType("uint8")
uint16 = DType("uint16")
uint32 = DType("uint32")
uint64 = DType("uint64")
bool_ = DType("bool")
complex64 = DType("complex64")
complex128 = DType("complex128")
_BY_NAME = {d.name: d for d in (float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, uint16,
                                uint32, uint64, bool_, complex64, complex128)}


def _name_or_none(obj: object) -> str | None:
    if isinstance(obj, str):
        name = _ALIASES.get(str.__str__(obj), str.__str__(obj))
        return name if name in _BY_NAME else None
    if obj is bool:
        return "bool"
    try:
        name = np.dtype(obj).name  # NumPy dtypes, scalar types, Python float/int, ml_dtypes' bfloat16
    except TypeError:
        return None
    return name if name in _BY_NAME else None


def dtype(obj: object) -> DType:
    """Normalise a dtype given as an Accelera dtype, a name, a NumPy dtype or a type."""
    name = _name_or_none(obj)
    if name is None:
        raise DTypeError(f"unsupported dtype {obj!r}: Accelera stores {', '.join(_BY_NAME)}")
    return _BY_NAME[name]
