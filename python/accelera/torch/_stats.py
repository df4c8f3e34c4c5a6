"""Counters of what the router saw and what Accelera ran for PyTorch (``accelera.torch.stats()``).

The router counts every call it sees, so each thread counts into its own counters (no lock on that path);
a snapshot adds up every thread's."""

from __future__ import annotations

import threading


class _Counters:
    __slots__ = ("routed", "passed", "ran")

    def __init__(self):
        self.routed = 0
        self.passed: dict[str, int] = {}  # reason -> calls passed through to PyTorch
        self.ran = [0, 0, 0, 0]  # accelera_ops, streamed, bytes_to_device, bytes_from_device


_lock = threading.Lock()
_local = threading.local()
_every_thread: list[_Counters] = []


def _mine() -> _Counters:
    try:
        return _local.counters
    except AttributeError:
        counters = _local.counters = _Counters()
        with _lock:
            _every_thread.append(counters)
        return counters


def routed() -> None:
    _mine().routed += 1


def passed(reason: str) -> None:
    table = _mine().passed
    table[reason] = table.get(reason, 0) + 1


def ran(streamed: bool, to_device: int, from_device: int) -> None:
    """One execution of an Accelera operator (forward or backward)."""
    counts = _mine().ran
    counts[0] += 1
    counts[1] += int(streamed)
    counts[2] += int(to_device)
    counts[3] += int(from_device)


def snapshot() -> dict:
    routed_calls, reasons, ran_counts = 0, {}, [0, 0, 0, 0]
    with _lock:
        threads = list(_every_thread)
    for counters in threads:
        routed_calls += counters.routed
        for reason, n in list(counters.passed.items()):
            reasons[reason] = reasons.get(reason, 0) + n
        ran_counts = [x + y for x, y in zip(ran_counts, counters.ran)]
    passed_through = sum(reasons.values())
    return {"calls": routed_calls + passed_through, "routed": routed_calls, "passed_through": passed_through,
            "accelera_ops": ran_counts[0], "streamed": ran_counts[1], "bytes_to_device": ran_counts[2],
            "bytes_from_device": ran_counts[3], "bytes_moved": ran_counts[2] + ran_counts[3],
            "pass_reasons": reasons}


def reset() -> None:
    """Zero every thread's counters (a call counted while this runs may be lost)."""
    with _lock:
        for counters in _every_thread:
            counters.routed = 0
            counters.passed = {}
            counters.ran = [0, 0, 0, 0]
