"""Random numbers: NumPy's ``Generator`` API over Accelera's counter-based Philox4x32-10 generator.

A generator is a 64-bit seed (Philox's key) and a counter. Every draw of n elements uses the next
ceil(n / 4) counter blocks and advances the counter past them, so successive draws differ and a seed
reproduces the whole sequence. The bits depend only on (seed, counter): uniforms and integers are the
same, bit for bit, on every device, and normals agree to a few ulp (Note [Counter-based random numbers]
in src/ops/random.hpp).

``permutation``, ``shuffle`` and ``choice`` without replacement order random 64-bit keys from the same
stream on the host (accelera::random_permutation; the keys, not the data, live there) and gather the data
on its own device with :func:`accelera.take`. ``choice`` with ``p`` draws its uniforms the same way and
inverts the cumulative probabilities on the host.

The module-level functions (``random``, ``rand``, ``randn``, ``seed``, ...) use one global generator, as
``numpy.random`` does.
"""

from __future__ import annotations

import math
import numbers
import secrets
import threading

import numpy as np

from . import _core, _dtypes
from ._args import flag, real
from ._convert import asarray, device_or_default
from ._core import ArgumentError, DTypeError, Tensor

_UINT64 = 2**64
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _seed_value(seed) -> int:
    if seed is None:
        return secrets.randbits(64)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise DTypeError(f"seed must be None or a non-negative integer, not {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed < _UINT64:
        raise ArgumentError(f"seed must be in [0, 2**64), got {seed}")
    return seed


def _shape(size) -> tuple[int, ...]:
    if isinstance(size, (bool, np.bool_)):
        raise DTypeError("size must be an integer or a tuple of integers, not bool")
    if isinstance(size, numbers.Integral):
        size = (size,)
    try:
        dims = tuple(size)
    except TypeError:
        raise DTypeError(f"size must be an integer or a tuple of integers, not {type(size).__name__}") from None
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, numbers.Integral):
            raise DTypeError(f"size must be an integer or a tuple of integers, not {size!r}")
        if d < 0:
            raise ArgumentError(f"negative dimensions are not allowed: size = {size!r}")
    return tuple(int(d) for d in dims)


def _float_dtype(dtype) -> str:
    d = _dtypes.dtype(dtype)
    if not d.is_floating:
        raise DTypeError(f"dtype must be a floating dtype (float16, bfloat16, float32, float64), not {d.name}")
    return d.name


def _integer_dtype(dtype) -> str:
    d = _dtypes.dtype(dtype)
    if d.name not in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        raise DTypeError(f"dtype must be an integer dtype, not {d.name}")
    return d.name


def _bound(value, name: str) -> int:
    """An integer bound (NumPy accepts integral floats such as 10.0 too)."""
    if isinstance(value, (bool, np.bool_)):
        raise DTypeError(f"{name} must be an integer, not bool")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and float(value).is_integer():
        return int(value)
    raise DTypeError(f"{name} must be an integer, not {value!r}")


def _scalar(t: Tensor):
    return t.numpy().reshape(()).item()


def _splitmix64(x: int) -> int:
    """A 64-bit mixing function (Steele et al.): spawned generators' keys."""
    x = (x + 0x9E3779B97F4A7C15) % _UINT64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) % _UINT64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) % _UINT64
    return x ^ (x >> 31)


class Generator:
    """Draws random tensors from Philox4x32-10 with a 64-bit key (the seed) and a counter.

    Methods follow ``numpy.random.Generator``; each takes ``dtype`` and ``device`` (default: the
    default device). ``size=None`` gives a Python scalar, as in NumPy.
    """

    def __init__(self, seed=None, *, counter: int = 0):
        self._seed = _seed_value(seed)
        if isinstance(counter, bool) or not isinstance(counter, numbers.Integral) or not 0 <= counter < _UINT64:
            raise ArgumentError(f"counter must be an integer in [0, 2**64), got {counter!r}")
        self._counter = int(counter)
        self._spawned = 0
        self._lock = threading.Lock()

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def counter(self) -> int:
        """The first counter block of the next draw."""
        return self._counter

    def __repr__(self) -> str:
        return f"Generator(Philox4x32-10, seed={self._seed}, counter={self._counter})"

    def _take_counters(self, numel: int) -> int:
        """Reserves the counter blocks of a draw of ``numel`` elements; returns the first."""
        blocks = (numel + 3) // 4
        with self._lock:
            first = self._counter
            if first + blocks > _UINT64:
                raise ArgumentError("this generator has used all 2**64 counters: seed a new one")
            self._counter = first + blocks
        return first

    # ---- draws ----------------------------------------------------------------------------------

    def random(self, size=None, dtype=_dtypes.float64, device=None):
        """Uniform floats in [0, 1)."""
        return self.uniform(0.0, 1.0, size, dtype, device)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=_dtypes.float64, device=None):
        """Uniform floats in [low, high) (high itself may appear through rounding, as in NumPy)."""
        low, high = real(low, "low"), real(high, "high")
        if not (math.isfinite(low) and math.isfinite(high) and low <= high):
            raise ArgumentError(f"uniform needs finite bounds with low <= high, got low = {low} and high = {high}")
        name, dev, shape = _float_dtype(dtype), device_or_default(device), _shape(() if size is None else size)
        offset = self._take_counters(math.prod(shape))
        t = _core._random_uniform(list(shape), name, dev, self._seed, offset, low, high)
        return _scalar(t) if size is None else t

    def standard_normal(self, size=None, dtype=_dtypes.float64, device=None):
        """Standard normal floats (Box-Muller)."""
        return self.normal(0.0, 1.0, size, dtype, device)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=_dtypes.float64, device=None):
        """Normal floats of mean ``loc`` and standard deviation ``scale`` (>= 0)."""
        loc, scale = real(loc, "loc"), real(scale, "scale")
        if not (math.isfinite(loc) and math.isfinite(scale) and scale >= 0):
            raise ArgumentError(f"normal needs a finite loc and a finite scale >= 0, got {loc} and {scale}")
        name, dev, shape = _float_dtype(dtype), device_or_default(device), _shape(() if size is None else size)
        offset = self._take_counters(math.prod(shape))
        t = _core._random_normal(list(shape), name, dev, self._seed, offset, loc, scale)
        return _scalar(t) if size is None else t

    def integers(self, low, high=None, size=None, dtype=_dtypes.int64, endpoint: bool = False, device=None):
        """Uniform integers in [low, high), or [low, high] with ``endpoint``; [0, low) when high is None.

        Unbiased to within 2**-32 (int32) or 2**-64 (int64) of each value's probability, relatively.
        """
        low = _bound(low, "low")
        if high is None:
            low, high = 0, low
        high = _bound(high, "high")
        name, dev, shape = _integer_dtype(dtype), device_or_default(device), _shape(() if size is None else size)
        endpoint = flag(endpoint, "endpoint")
        info = np.iinfo(name)
        if low < info.min or (high > info.max if endpoint else high > info.max + 1):
            raise ArgumentError(f"bounds [{low}, {high}{']' if endpoint else ')'} are out of range for {name}")
        if (high < low) if endpoint else (high <= low):
            raise ArgumentError(f"low >= high: the interval [{low}, {high}{']' if endpoint else ')'} is empty")
        # [low, 2**63) for int64 without endpoint is [low, 2**63 - 1] with it.
        if not endpoint and high == _INT64_MAX + 1:
            high, endpoint = _INT64_MAX, True
        offset = self._take_counters(math.prod(shape))
        t = _core._random_integers(list(shape), name, dev, low, high, endpoint, self._seed, offset)
        return _scalar(t) if size is None else t

    # ---- permutations and sampling ---------------------------------------------------------------

    def _random_order(self, n: int, device: str = "cpu") -> Tensor:
        """A uniformly random permutation of range(n), int64 on ``device`` (accelera::random_permutation:
        the stable order of n random 64-bit keys from this generator's stream)."""
        return _core._random_permutation(n, device, self._seed, self._take_counters(n))

    def permutation(self, x, axis: int = 0, device=None):
        """A permuted ``range(x)`` for an integer x (int64), else a copy of x with its rows along
        ``axis`` permuted."""
        if isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)):
            n = int(x)
            if n < 0:
                raise ArgumentError(f"permutation of a negative length {n}")
            return self._random_order(n, device_or_default(device))
        t = x if isinstance(x, Tensor) else asarray(x, device=device)
        if t.ndim == 0:
            raise ArgumentError("x must be an integer or an array of at least one dimension")
        axis = _axis(axis, t.ndim)
        return _core.take(t, self._random_order(t.shape[axis], t.device), axis)

    def shuffle(self, x, axis: int = 0) -> None:
        """Permutes a Tensor's rows along ``axis`` in place."""
        if not isinstance(x, Tensor):
            raise DTypeError(f"shuffle works in place on an accelera.Tensor, not {type(x).__name__}")
        if x.ndim == 0:
            raise ArgumentError("shuffle needs an array of at least one dimension")
        axis = _axis(axis, x.ndim)
        _core._copy_into(_core.take(x, self._random_order(x.shape[axis], x.device), axis), x)

    def choice(self, a, size=None, replace: bool = True, p=None, axis: int = 0, shuffle: bool = True, device=None):
        """Random samples of ``a`` (an array, or range(a) for an integer) along ``axis``.

        ``p`` gives each entry's probability (entries with p = 0 are never chosen). Without replacement,
        ``size`` may not exceed the entries available (non-zero ones with ``p``).
        """
        replace, shuffle = flag(replace, "replace"), flag(shuffle, "shuffle")
        if isinstance(a, numbers.Integral) and not isinstance(a, (bool, np.bool_)):
            population, n = None, int(a)
            if n < 0:
                raise ArgumentError(f"a must be a non-negative integer or an array, got {n}")
            dev = device_or_default(device)
        else:
            population = a if isinstance(a, Tensor) else asarray(a, device=device)
            if population.ndim == 0:
                raise ArgumentError("a must be an integer or an array of at least one dimension")
            axis = _axis(axis, population.ndim)
            n, dev = population.shape[axis], population.device
        shape = _shape(() if size is None else size)
        k = math.prod(shape)
        probabilities = None if p is None else _probabilities(p, n)
        if k > 0 and n == 0:
            raise ArgumentError("a cannot be empty unless no samples are taken")
        if replace:
            if probabilities is None:
                idx = self.integers(0, max(n, 1), size=k, device="cpu").numpy()
            else:
                cdf = np.cumsum(probabilities)
                cdf /= cdf[-1]
                u = self.random(size=k, device="cpu").numpy()
                idx = np.searchsorted(cdf, u, side="right")
                # Rounding can leave u at or past the last cumulative value: the last entry with p > 0.
                idx = np.minimum(idx, np.flatnonzero(probabilities)[-1]).astype(np.int64)
        else:
            available = n if probabilities is None else int(np.count_nonzero(probabilities))
            if k > available:
                raise ArgumentError(f"cannot take {k} samples without replacement from {available} "
                                    f"{'entries' if probabilities is None else 'entries with p > 0'}")
            if probabilities is None:
                idx = self._sample_without_replacement(n, k)
            else:
                # Weighted sampling without replacement (Efraimidis and Spirakis): the k smallest E / p,
                # E exponential; p = 0 gives an infinite key, never among the first `available`.
                u = self.random(size=n, device="cpu").numpy()
                with np.errstate(divide="ignore"):
                    keys = -np.log1p(-u) / probabilities
                idx = np.argsort(keys, kind="stable")[:k]
                if not shuffle:
                    idx = np.sort(idx)
        indices = asarray(np.asarray(idx, dtype=np.int64).reshape(shape), device=dev)
        if population is None:
            return _scalar(indices) if size is None else indices
        return _core.take(population, indices, axis)

    def _sample_without_replacement(self, n: int, k: int) -> np.ndarray:
        """k distinct positions of range(n) in uniformly random order. A few (k <= n / 64 and at most
        _SPARSE_SAMPLE) come from a partial Fisher-Yates shuffle over a dictionary of the swapped places,
        each step a 64-bit draw scaled to its range (Lemire's multiply-shift): O(k), where the first k of a
        full permutation cost O(n log n) (1000 of 4 Mi: 97 ms)."""
        if k > _SPARSE_SAMPLE or k * 64 > n:
            return self._random_order(n).numpy()[:k]
        lowest, highest = np.iinfo(np.int64).min, np.iinfo(np.int64).max
        words = self.integers(lowest, highest, size=k, endpoint=True, device="cpu").numpy().view(np.uint64)
        swapped: dict[int, int] = {}
        picked = np.empty(k, dtype=np.int64)
        for i, word in enumerate(words.tolist()):
            j = i + ((word * (n - i)) >> 64)  # uniform in [i, n)
            picked[i] = swapped.get(j, j)
            swapped[j] = swapped.get(i, i)
        return picked

    def spawn(self, n_children: int) -> list[Generator]:
        """``n_children`` new generators with their own keys, derived from this one's seed and spawn count:
        reproducible, and independent of this generator's draws."""
        if isinstance(n_children, bool) or not isinstance(n_children, numbers.Integral) or n_children < 0:
            raise ArgumentError(f"n_children must be a non-negative integer, got {n_children!r}")
        with self._lock:
            first = self._spawned
            self._spawned += int(n_children)
        return [Generator(_splitmix64(_splitmix64(self._seed) ^ (first + i + 1))) for i in range(int(n_children))]


# The largest sample without replacement drawn by the sparse shuffle (a Python loop of k steps).
_SPARSE_SAMPLE = 1 << 16


def _axis(axis, ndim: int) -> int:
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise DTypeError(f"axis must be an integer, not {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise ArgumentError(f"axis {axis} is out of range for {ndim} dimensions")
    return int(axis) % ndim


def _probabilities(p, n: int) -> np.ndarray:
    probs = np.asarray(p.numpy() if isinstance(p, Tensor) else p, dtype=np.float64)
    if probs.ndim != 1 or probs.shape[0] != n:
        raise ArgumentError(f"p must be 1-D with one probability per entry ({n}), got shape {probs.shape}")
    if not np.all(np.isfinite(probs)) or np.any(probs < 0):
        raise ArgumentError("probabilities must be finite and non-negative")
    if n > 0 and abs(probs.sum() - 1.0) > math.sqrt(np.finfo(np.float64).eps):
        raise ArgumentError(f"probabilities do not sum to 1 (sum = {probs.sum()!r})")
    return probs


def default_rng(seed=None) -> Generator:
    """A new Generator seeded with ``seed`` (an integer in [0, 2**64)); fresh entropy when None. A Generator
    is returned as it is, as NumPy does."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


# ---- numpy.random's module-level functions, on one global generator ----------------------------------

_global = Generator()
_global_lock = threading.Lock()


def seed(seed=None) -> None:
    """Reseeds the global generator (fresh entropy when None)."""
    global _global
    with _global_lock:
        _global = Generator(seed)


def get_state() -> dict:
    """The global generator's seed and counter."""
    return {"seed": _global.seed, "counter": _global.counter}


def random(size=None, dtype=_dtypes.float64, device=None):
    """Uniform floats in [0, 1) (``numpy.random.random``)."""
    return _global.random(size, dtype, device)


random_sample = random


def rand(*dims, dtype=_dtypes.float64, device=None):
    """Uniform floats in [0, 1) of shape ``dims`` (a scalar when none)."""
    return _global.random(dims if dims else None, dtype, device)


def randn(*dims, dtype=_dtypes.float64, device=None):
    """Standard normal floats of shape ``dims`` (a scalar when none)."""
    return _global.standard_normal(dims if dims else None, dtype, device)


def standard_normal(size=None, dtype=_dtypes.float64, device=None):
    return _global.standard_normal(size, dtype, device)


def normal(loc=0.0, scale=1.0, size=None, dtype=_dtypes.float64, device=None):
    return _global.normal(loc, scale, size, dtype, device)


def uniform(low=0.0, high=1.0, size=None, dtype=_dtypes.float64, device=None):
    return _global.uniform(low, high, size, dtype, device)


def randint(low, high=None, size=None, dtype=_dtypes.int64, device=None):
    """Integers in [low, high), or [0, low) (``numpy.random.randint``)."""
    return _global.integers(low, high, size, dtype, False, device)


def integers(low, high=None, size=None, dtype=_dtypes.int64, endpoint: bool = False, device=None):
    return _global.integers(low, high, size, dtype, endpoint, device)


def permutation(x, device=None):
    return _global.permutation(x, device=device)


def shuffle(x) -> None:
    _global.shuffle(x)


def choice(a, size=None, replace: bool = True, p=None, device=None):
    return _global.choice(a, size, replace, p, device=device)


__all__ = [
    "Generator", "choice", "default_rng", "get_state", "integers", "normal", "permutation", "rand", "randint",
    "randn", "random", "random_sample", "seed", "shuffle", "standard_normal", "uniform",
]
