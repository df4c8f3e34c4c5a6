"""The seed guides' examples as tests: devices for the examples that need a GPU, and the run's summary
(examples total, passing, and which open issue the others wait on). See seed_harness.py for the marks."""

from __future__ import annotations

import collections

import pytest

from seed_harness import accelerator_devices

_WAITING_PREFIX = "waiting on: "
_examples: dict[str, dict] = {}  # nodeid -> guide, section, example key, issue waited on (or None)
_outcomes: dict[str, str] = {}  # nodeid -> passed | waiting | failed | skipped


def pytest_configure(config):
    config.addinivalue_line("markers", "seed_example(guide, section): the seed guide example a test runs")


def pytest_generate_tests(metafunc):
    if "gpu_device" in metafunc.fixturenames:
        metafunc.parametrize("gpu_device", accelerator_devices())


def pytest_collection_modifyitems(config, items):
    for item in items:
        mark = item.get_closest_marker("seed_example")
        if mark is None:
            if "seed_examples" in str(item.path):
                raise pytest.UsageError(f"{item.nodeid} is not marked with @example(guide, section)")
            continue
        xfail = item.get_closest_marker("xfail")
        reason = xfail.kwargs.get("reason", "") if xfail else ""
        _examples[item.nodeid] = {
            "guide": mark.kwargs["guide"],
            "section": mark.kwargs["section"],
            "key": (item.path.name, item.originalname),
            "issue": reason[len(_WAITING_PREFIX):] if reason.startswith(_WAITING_PREFIX) else None,
        }


def pytest_runtest_logreport(report):
    if report.nodeid not in _examples:
        return
    if report.failed:
        _outcomes[report.nodeid] = "failed"  # a strict XPASS lands here too
    elif report.skipped:  # an expected failure may happen in a fixture (setup) or in the test itself
        _outcomes[report.nodeid] = "waiting" if hasattr(report, "wasxfail") else "skipped"
    elif report.when == "call":
        _outcomes[report.nodeid] = "passed"


def _example_outcome(outcomes: list[str]) -> str:
    for worst in ("failed", "skipped", "waiting"):
        if worst in outcomes:
            return worst
    return "passed"


def pytest_terminal_summary(terminalreporter):
    if not _outcomes:
        return
    runs = collections.defaultdict(list)  # example key -> outcomes of its runs (one per device)
    info = {}
    for nodeid, outcome in _outcomes.items():
        example = _examples[nodeid]
        runs[example["key"]].append(outcome)
        info[example["key"]] = example
    per_guide = collections.defaultdict(collections.Counter)
    per_issue = collections.Counter()
    total = collections.Counter()
    for key, outcomes in runs.items():
        outcome = _example_outcome(outcomes)
        total[outcome] += 1
        per_guide[info[key]["guide"]][outcome] += 1
        if outcome == "waiting":
            per_issue[info[key]["issue"]] += 1

    def counts(c: collections.Counter) -> str:
        parts = [f"{c['passed']} passing", f"{c['waiting']} waiting"]
        parts += [f"{c[o]} {o}" for o in ("failed", "skipped") if c[o]]
        return ", ".join(parts)

    write = terminalreporter.write_line
    terminalreporter.section("seed guide examples")
    write(f"{sum(total.values())} examples ({len(_outcomes)} runs): {counts(total)}")
    for guide, c in sorted(per_guide.items()):
        write(f"  {guide}: {sum(c.values())} examples, {counts(c)}")
    if per_issue:
        write("waiting on:")
        for issue, n in per_issue.most_common():
            write(f"  {n:3d}  {issue}")
