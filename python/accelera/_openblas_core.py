"""Note [OpenBLAS core type] (src/backends/cpu/blas.cpp), in Python: OpenBLAS picks its kernels from the CPU
model when it is loaded, and on a model it does not know falls back to generic SSE3 kernels ("Prescott"),
about 5x slower on an AVX-512 machine (a float64 product of n = 512 took 16.1 ms on an Emerald Rapids VM,
2.9 ms with OPENBLAS_CORETYPE=SkylakeX). The `accelera` program sets that variable and starts itself again;
Python cannot start again, so the package asks once per machine, in a child process, which kernels the
linked OpenBLAS chose and which it should have chosen, keeps the answer in the user's cache, and sets
OPENBLAS_CORETYPE just before it loads the library (and removes it just after, so that libraries loaded
later, NumPy's among them, choose for themselves). A value the user set is kept, and so is the choice of a
process that loaded the linked OpenBLAS before Accelera (a warning says so when its kernels are the slow
ones).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import platform
import subprocess
import sys

from ._files import user_cache_file, write_json

_log = logging.getLogger("accelera")
VARIABLE = "OPENBLAS_CORETYPE"
TIMEOUT_VARIABLE = "OPENBLAS_THREAD_TIMEOUT"
THREAD_TIMEOUT = "20"  # the C++ program's value (cli/main.cpp): 2^20 cycles of spinning, about half a millisecond
_IN_PROBE = "_ACCELERA_OPENBLAS_PROBE"  # set in the child, which must not probe again
_PROBE = ("import json, accelera\n"
          "info = accelera._core.cpu_blas_info()\n"
          "print(json.dumps({'core': info['core'], 'suggested_core': info['suggested_core']}))\n")


def cache_path() -> str:
    return user_cache_file("openblas-core.json")


def _cpu_signature() -> str:
    """The CPU as OpenBLAS tells models apart (vendor, family, model) and what it runs (flags)."""
    try:
        with open("/proc/cpuinfo") as f:
            first = f.read().split("\n\n", 1)[0]
    except OSError:
        return platform.processor()
    wanted = ("vendor_id", "cpu family", "model", "model name", "flags")
    return "\n".join(line for line in first.splitlines() if line.split(":", 1)[0].strip() in wanted)


def _key() -> str | None:
    """What an answer depends on: the CPU and the installed extension (a rebuild may link another library)."""
    spec = importlib.util.find_spec("accelera._core")
    if spec is None or not spec.origin:
        return None
    stat = os.stat(spec.origin)
    text = f"{_cpu_signature()}\n{spec.origin}\n{stat.st_mtime_ns}\n{stat.st_size}"
    return hashlib.sha256(text.encode()).hexdigest()


def _read(path: str) -> dict:
    try:
        with open(path) as f:
            entries = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        _log.info("ignoring the unreadable OpenBLAS core cache %s (%s); asking again", path, exc)
        return {}
    return entries if isinstance(entries, dict) else {}


def _write(path: str, entries: dict) -> None:
    try:
        write_json(path, entries)
    except OSError as exc:
        _log.debug("cannot keep the OpenBLAS core choice in %s (%s); it will be asked again", path, exc)


def _probe() -> dict:
    """The linked OpenBLAS's own choice, and the better one, from a child that loads it untouched."""
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    env.update({_IN_PROBE: "1", "ACCELERA_CPU_BLAS": "builtin"})
    done = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"the child exited with {done.returncode}: {done.stderr.strip()[-500:]}")
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return {"core": str(answer["core"]), "suggested_core": str(answer["suggested_core"])}


def choose() -> str | None:
    """Sets OPENBLAS_CORETYPE for the linked OpenBLAS where its own choice is the slow one; returns the value
    set (None when nothing was set). Call just before the extension is loaded, then :func:`loaded`."""
    if VARIABLE in os.environ or os.environ.get(_IN_PROBE) or sys.platform != "linux":
        return None
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None  # OpenBLAS's fallback on other architectures is not the slow SSE3 one
    if getattr(sys, "frozen", False) or not os.path.basename(sys.executable or "").startswith("python"):
        # An embedding program (a frozen application, a server) may not be a Python that runs "-c"; then the
        # library keeps its own choice, and `accelera info` or cpu_blas_info() says whether it is the slow one.
        _log.debug("not asking which kernels the linked OpenBLAS picks: %r is not a Python interpreter", sys.executable)
        return None
    key = _key()
    if key is None:
        return None
    path = cache_path()
    entries = _read(path)
    answer = entries.get(key)
    if not (isinstance(answer, dict) and isinstance(answer.get("suggested_core"), str)):
        try:
            answer = _probe()
        except (OSError, RuntimeError, ValueError, KeyError, subprocess.TimeoutExpired) as exc:
            _log.warning("could not ask which kernels the linked OpenBLAS chooses (%s); float64 products may run "
                         "its generic ones: `accelera info` tells, and %s=<core> chooses", exc, VARIABLE)
            return None
        entries[key] = answer
        _write(path, entries)
    suggested = answer["suggested_core"]
    if not suggested:
        return None
    os.environ[VARIABLE] = suggested
    return suggested


def set_thread_timeout() -> str | None:
    """Sets OPENBLAS_THREAD_TIMEOUT for the linked OpenBLAS (Note [OpenBLAS thread timeout] in cli/main.cpp)
    unless the user set it; returns the value set. NumPy's own OpenBLAS, loaded before, keeps its own; so
    does every library loaded after, once :func:`unset` has removed the variable."""
    if TIMEOUT_VARIABLE in os.environ:
        return None
    os.environ[TIMEOUT_VARIABLE] = THREAD_TIMEOUT
    return THREAD_TIMEOUT


def unset(variable: str, value: str | None) -> None:
    """Removes ``variable`` if it still holds the ``value`` this module set (None: it set nothing)."""
    if value is not None and os.environ.get(variable) == value:
        del os.environ[variable]


def loaded(chosen: str | None, blas_info) -> None:
    """After the extension is loaded: removes what :func:`choose` set, and warns when the linked OpenBLAS still
    runs kernels below this CPU's (it was loaded before, with its own choice)."""
    unset(VARIABLE, chosen)
    if os.environ.get(_IN_PROBE) or VARIABLE in os.environ:
        return  # the probe itself, or the user's own choice
    info = blas_info()
    if info["suggested_core"]:
        _log.warning("the linked OpenBLAS runs its %s kernels on this CPU (float64 products about 5x slower); it "
                     "was loaded before Accelera could choose: set %s=%s before Python starts",
                     info["core"], VARIABLE, info["suggested_core"])
