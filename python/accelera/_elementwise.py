"""The array API standard's element-wise functions (and NumPy's names for them) over Tensors, array-likes
and Python scalars. Each is one kernel per device (Note [Element-wise functions] in src/ops/elementwise.hpp);
dtype rules follow NumPy: float functions of integers compute in float64, comparisons and the logical
functions return bool, bitwise functions take integers and bools."""

from __future__ import annotations

from . import _core
from ._convert import _INTEGER_BOUNDS, _is_python_scalar, asarray, coerce_pair
from ._core import DTypeError, Tensor

__all__ = [
    "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "asin", "asinh",
    "atan", "atan2", "atanh", "conj", "imag", "real", "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "ceil", "copysign", "cos", "cosh", "equal", "expm1", "floor",
    "floor_divide", "greater", "greater_equal", "hypot", "invert", "isfinite", "isinf", "isnan", "left_shift",
    "less", "less_equal", "log10", "log1p", "log2", "logaddexp", "logical_and", "logical_not", "logical_or",
    "logical_xor", "mod", "nextafter", "not_equal", "positive", "pow", "power", "reciprocal", "remainder",
    "right_shift", "round", "sign", "signbit", "sin", "sinh", "tan", "trunc",
]


def _tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else asarray(x)


def _unary(name: str, doc: str):
    kernel = getattr(_core, name)

    def function(x) -> Tensor:
        return kernel(_tensor(x))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _binary(name: str, doc: str):
    kernel = getattr(_core, name)

    def function(x1, x2) -> Tensor:
        return kernel(*coerce_pair(x1, x2))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


sin = _unary("sin", "Sine, element-wise (radians); integers compute in float64.")
cos = _unary("cos", "Cosine, element-wise (radians).")
tan = _unary("tan", "Tangent, element-wise (radians).")
asin = _unary("asin", "Inverse sine; nan outside [-1, 1].")
acos = _unary("acos", "Inverse cosine; nan outside [-1, 1].")
atan = _unary("atan", "Inverse tangent.")
sinh = _unary("sinh", "Hyperbolic sine.")
cosh = _unary("cosh", "Hyperbolic cosine.")
asinh = _unary("asinh", "Inverse hyperbolic sine.")
acosh = _unary("acosh", "Inverse hyperbolic cosine; nan below 1.")
atanh = _unary("atanh", "Inverse hyperbolic tangent; +-inf at +-1, nan outside [-1, 1].")
expm1 = _unary("expm1", "exp(x) - 1, accurate near 0.")
real = _unary("real", "The real parts of a complex x, in its real dtype (a real x: a copy).")
imag = _unary("imag", "The imaginary parts of a complex x, in its real dtype (a real x: zeros).")
conj = _unary("conj", "The complex conjugate (a real x: a copy).")
log1p = _unary("log1p", "log(1 + x), accurate near 0.")
log2 = _unary("log2", "Base-2 logarithm.")
log10 = _unary("log10", "Base-10 logarithm.")
reciprocal = _unary("reciprocal", "1 / x; integers compute in float64.")
floor = _unary("floor", "The largest integral value <= x; integers are returned unchanged.")
ceil = _unary("ceil", "The smallest integral value >= x; integers are returned unchanged.")
trunc = _unary("trunc", "x rounded towards zero; integers are returned unchanged.")
round = _unary("round", "x rounded to the nearest integral value, halves to even; integers unchanged.")  # noqa: A001
sign = _unary("sign", "-1, 0 or 1 by the sign of x; nan for nan.")
positive = _unary("positive", "+x (a new tensor).")
isnan = _unary("isnan", "Whether x is nan (bool); integers never are.")
isinf = _unary("isinf", "Whether x is +-inf (bool).")
isfinite = _unary("isfinite", "Whether x is neither nan nor infinite (bool).")
signbit = _unary("signbit", "Whether x's sign bit is set (bool): True for -0.0 and negative values.")
logical_not = _unary("logical_not", "not x, with x converted to bool.")
bitwise_invert = _unary("bitwise_invert", "~x of integers; not x of bools.")

_general_pow = _binary("pow", "")


def pow(x1, x2) -> Tensor:  # noqa: A001 - the standard's name
    """x1 ** x2; integers raise integers (wrapping), a negative integer exponent gives the truncated
    1 / x1 ** -x2 where NumPy raises. A Python scalar exponent of 2, 0.5 or -1 runs as square, sqrt or
    reciprocal (in float64 for integers raised to a float), as NumPy's does: correctly rounded, and without
    the general power's cost."""
    if isinstance(x1, Tensor) and isinstance(x2, (int, float)) and not isinstance(x2, bool) and x1.dtype != "bool":
        if x1.dtype.is_floating or isinstance(x2, float):
            base = x1 if x1.dtype.is_floating else x1.astype("float64")  # integers ** a float give float64
            if x2 == 2:
                return _core.square(base)
            if x2 == 0.5:
                return _core.sqrt(base)
            if x2 == -1:
                return _core.reciprocal(base)
        elif x2 == 2:
            return _core.square(x1)  # integers stay integers (wrapping)
    return _general_pow(x1, x2)


atan2 = _binary("atan2", "The angle of the point (x2, x1), quadrant-aware.")
hypot = _binary("hypot", "sqrt(x1**2 + x2**2) without overflow.")
logaddexp = _binary("logaddexp", "log(exp(x1) + exp(x2)) without overflow.")
copysign = _binary("copysign", "|x1| with the sign of x2.")
nextafter = _binary("nextafter", "The next representable value after x1 towards x2, in x1's dtype.")
remainder = _binary("remainder", "x1 - floor_divide(x1, x2) * x2: the remainder has the divisor's sign (Python's "
                    "%); integer x % 0 is 0 as in NumPy.")
floor_divide = _binary("floor_divide", "floor(x1 / x2) (Python's //); integer x // 0 is 0 as in NumPy.")
equal = _binary("equal", "x1 == x2 (bool), after type promotion; nan is unequal to everything.")
not_equal = _binary("not_equal", "x1 != x2 (bool).")
less = _binary("less", "x1 < x2 (bool).")
less_equal = _binary("less_equal", "x1 <= x2 (bool).")
greater = _binary("greater", "x1 > x2 (bool).")
greater_equal = _binary("greater_equal", "x1 >= x2 (bool).")
logical_and = _binary("logical_and", "x1 and x2, with the operands converted to bool.")
logical_or = _binary("logical_or", "x1 or x2, with the operands converted to bool.")
logical_xor = _binary("logical_xor", "x1 xor x2, with the operands converted to bool.")
bitwise_and = _binary("bitwise_and", "x1 & x2 of integers or bools.")
bitwise_or = _binary("bitwise_or", "x1 | x2 of integers or bools.")
bitwise_xor = _binary("bitwise_xor", "x1 ^ x2 of integers or bools.")
bitwise_left_shift = _binary("bitwise_left_shift", "x1 << x2 of integers; counts past the width give 0.")
bitwise_right_shift = _binary("bitwise_right_shift", "x1 >> x2 of integers (arithmetic); counts past the "
                              "width give 0 or -1.")

# NumPy's names for the same functions.
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
arcsinh, arccosh, arctanh = asinh, acosh, atanh
power, mod = pow, remainder
invert = bitwise_not = bitwise_invert
left_shift, right_shift = bitwise_left_shift, bitwise_right_shift


def where(condition, x1, x2) -> Tensor:
    """x1 where ``condition`` (converted to bool) holds, else x2: the three broadcast together, x1 and x2
    promote (Python scalars take the other operand's dtype). The condition joins x1's device when it is
    not a Tensor yet."""
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor) and isinstance(condition, Tensor):
        x1 = asarray(x1, device=condition.device)
    x1, x2 = coerce_pair(x1, x2)
    if not isinstance(condition, Tensor):
        condition = asarray(condition, device=x1.device)
    return _core.where(condition, x1, x2)


__all__.append("where")


def _clip_bound(bound, x: Tensor, name: str):
    """A bound of clip as the operand of maximum/minimum: a Tensor (array-likes join x's device) or a Python
    scalar, integers clamped to x's integer range (a bound past it leaves that side unclipped)."""
    integer_x = x._dtype in _INTEGER_BOUNDS
    if _is_python_scalar(bound):
        if isinstance(bound, (bool, complex)):
            raise DTypeError(f"clip: {name} must be an int, a float, a Tensor or None, not {bound!r}")
        if integer_x and isinstance(bound, float):
            raise DTypeError(f"clip: {name}={bound!r} is a float but x is {x.dtype}: integer x needs integer bounds")
        if integer_x:
            low, high = _INTEGER_BOUNDS[x._dtype]
            return low if bound < low else high if bound > high else bound
        return bound
    bound = bound if isinstance(bound, Tensor) else asarray(bound, device=x.device)
    kind = bound._dtype
    if kind == "bool" or kind.startswith("complex"):
        raise DTypeError(f"clip: {name} must have a real numeric dtype, not {kind}")
    if integer_x and kind not in _INTEGER_BOUNDS:
        raise DTypeError(f"clip: {name} is {kind} but x is {x.dtype}: integer x needs integer bounds")
    return bound


def clip(x, /, min=None, max=None) -> Tensor:  # noqa: A002  (the standard's parameter names)
    """x limited to [min, max] element-wise, in x's dtype (the array API's clip). ``min`` and ``max`` are
    Tensors or Python scalars that broadcast with x, or None for no bound on that side. A nan in x or in a
    bound gives nan. Where min > max the result is max (NumPy's order: the maximum with min first)."""
    x = _tensor(x)
    if x._dtype == "bool" or x._dtype.startswith("complex"):
        raise DTypeError(f"clip needs a real numeric x, not {x._dtype}")
    if min is None and max is None:
        return x.clone()
    result = x
    if min is not None:
        result = _core.maximum(*coerce_pair(result, _clip_bound(min, x, "min")))
    if max is not None:
        result = _core.minimum(*coerce_pair(result, _clip_bound(max, x, "max")))
    # A bound of a wider dtype promoted the result; the standard keeps x's dtype.
    return result if result._dtype == x._dtype else result.astype(x._dtype)


__all__.append("clip")
