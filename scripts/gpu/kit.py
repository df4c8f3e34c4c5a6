"""Helpers of scripts/gpu/check.sh (Python 3.9+, standard library only).

    kit.py unpack TARBALL PREFIX        unpack the kit into a private prefix and relocate its /usr paths there
    kit.py libcheck PREFIX              every shared library of the kit resolves on this machine (ldd)
    kit.py probe ACCELERA_CLI JSON      CUDA devices that Accelera sees (exit 0), or why there are none (exit 2)
    kit.py tests STATE                  verdict on the test phase from the JUnit files in STATE
    kit.py sanitizer STATE TOOL RC      verdict on one compute-sanitizer run from its logs in STATE
    kit.py report STATE OUT             report.md and the logs, at most 8 flat files, into OUT
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

# Skips that are not a missing device: the test needs a second GPU. Everything else that skips a CUDA test
# (or a test labelled gpu) fails the test phase.
EXPECTED_SKIPS = [
    re.compile(r"^one CUDA device: no device-to-device copy to test"),  # CudaMemory.PeerOrStagedCopiesBetweenDevices
    re.compile(r"^a CUDA device answers here$"),  # the Python tests of what happens *without* a CUDA device
]
# A skip that names CUDA, or the absence of any device, is a skip for lack of a device.
DEVICE_SKIP = re.compile(r"cuda|no device other than the CPU", re.IGNORECASE)


def _expected(reason: str) -> bool:
    return any(p.search(reason.strip()) for p in EXPECTED_SKIPS)


# ---- unpack / libcheck --------------------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _relocate(prefix: Path) -> list[str]:
    """Points the absolute /usr paths of pkg-config and CMake package files at prefix/usr. Returns leftovers."""
    usr = str(prefix / "usr")
    # /usr as a whole path component, after the start of a line, a quote, a separator or -I / -L.
    usr_re = re.compile(r"(^|[=\s'\"();]|-I|-L)/usr(?=[/\s'\"();]|$)", re.MULTILINE)
    left = []
    for path in sorted(prefix.rglob("*")):
        if path.is_symlink() or not path.is_file() or path.suffix not in (".pc", ".cmake"):
            continue
        text = path.read_text()
        new = usr_re.sub(lambda m: m.group(1) + usr, text)
        if new != text:
            path.write_text(new)
        for n, line in enumerate(new.splitlines(), 1):
            if re.search(r"(?<![\w.-])/usr/", line.replace(usr, "")) and not line.lstrip().startswith("#"):
                left.append(f"{path.relative_to(prefix)}:{n}: {line.strip()}")
    return left


def cmd_unpack(tarball: str, prefix: str) -> int:
    tar, root = Path(tarball), Path(prefix).resolve()
    if not tar.is_file():
        print(f"error: no kit at {tar}: run scripts/gpu/prepare.sh on a Debian 12 machine and take .gpu-kit "
              "along with the working tree", file=sys.stderr)
        return 1
    digest = _sha256(tar)
    stamp = root / ".kit-sha256"
    if stamp.is_file() and stamp.read_text().strip() == digest and (root / "usr").is_dir():
        print(f"kit: {root} is up to date")
        return 0
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    start = time.time()
    with tarfile.open(tar, "r:xz") as t:
        if hasattr(tarfile, "data_filter"):
            t.extractall(root, filter="data")
        else:
            t.extractall(root)  # Python < 3.11.4: the kit comes from prepare.sh, relative links only
    left = _relocate(root)
    if left:
        print("error: absolute /usr paths left in the kit's pkg-config/CMake files (extend kit.py _relocate):",
              *left, sep="\n  ", file=sys.stderr)
        return 1
    stamp.write_text(digest + "\n")
    n = sum(1 for _ in root.rglob("*"))
    print(f"kit: unpacked {n} files into {root} in {time.time() - start:.1f} s")
    return 0


def cmd_libcheck(prefix: str) -> int:
    """ldd on every shared library of the kit (LD_LIBRARY_PATH set by the caller): nothing may be missing."""
    problems, count = [], 0
    for lib in sorted(Path(prefix).rglob("*.so*")):
        if lib.is_symlink() or not lib.is_file():
            continue
        with open(lib, "rb") as f:
            if f.read(4) != b"\x7fELF":
                continue
        count += 1
        out = subprocess.run(["ldd", str(lib)], capture_output=True, text=True, check=False)
        for line in (out.stdout + out.stderr).splitlines():
            if "not found" in line:
                problems.append(f"{lib.relative_to(prefix)}: {line.strip()}")
    if problems:
        print("error: the kit's libraries do not load on this machine:", *problems, sep="\n  ", file=sys.stderr)
        return 1
    print(f"kit: all {count} shared libraries resolve on this machine")
    return 0


# ---- probe ----------------------------------------------------------------------------------------------------


def cmd_probe(cli: str, out_json: str) -> int:
    proc = subprocess.run([cli, "info", "--json"], capture_output=True, text=True, check=False, timeout=300)
    result: dict = {"cuda_devices": [], "reason": ""}
    if proc.returncode != 0:
        result["reason"] = f"'{cli} info --json' failed ({proc.returncode}): {proc.stderr.strip()[-500:]}"
    else:
        info = json.loads(proc.stdout)
        result["info"] = info
        result["cuda_devices"] = [d for d in info.get("devices") or [] if d["device"].startswith("cuda")]
        if not result["cuda_devices"]:
            result["reason"] = info.get("absent_backends", {}).get("cuda", "Accelera lists no cuda device")
    Path(out_json).write_text(json.dumps(result, indent=2))
    for d in result["cuda_devices"]:
        print(f"{d['device']}: {d['name']}, {d['total_memory'] / 2**30:.0f} GiB")
    return 0 if result["cuda_devices"] else 2


# ---- tests ------------------------------------------------------------------------------------------------------


def _gtest_skip_reason(out: str) -> str:
    m = re.search(r": Skipped\n(.*?)\n*\[  SKIPPED \]", out, re.DOTALL)
    return m.group(1).strip() if m else "(no reason printed)"


def _ctest_cases(path: Path) -> list[dict]:
    cases = []
    for tc in ET.parse(path).getroot().iter("testcase"):
        name = tc.get("name", "").split("  #")[0]
        status = tc.get("status", "")
        out = tc.findtext("system-out") or ""
        if tc.find("skipped") is not None or status == "notrun":
            cases.append({"name": name, "result": "skipped", "reason": _gtest_skip_reason(out)})
        elif tc.find("failure") is not None or status == "fail":
            failure = tc.find("failure")
            cases.append({"name": name, "result": "failed", "reason": "" if failure is None else failure.get("message", "")})
        else:
            cases.append({"name": name, "result": "passed", "reason": ""})
    return cases


def _pytest_cases(path: Path) -> list[dict]:
    cases = []
    for tc in ET.parse(path).getroot().iter("testcase"):
        name = f"{tc.get('classname', '')}::{tc.get('name', '')}"
        props = {p.get("name"): p.get("value") for p in tc.iter("property")}
        on_gpu = int(props.get("cuda_allocations") or 0) > 0  # pytest_cuda_usage.py
        skipped = tc.find("skipped")
        bad = tc.find("failure") if tc.find("failure") is not None else tc.find("error")
        if bad is not None:
            cases.append({"name": name, "result": "failed", "reason": (bad.get("message") or "")[:300]})
        elif skipped is not None:
            reason = skipped.get("message") or ""
            result = "xfailed" if skipped.get("type") == "pytest.xfail" else "skipped"
            cases.append({"name": name, "result": result, "reason": reason})
        else:
            cases.append({"name": name, "result": "passed", "reason": "", "on_gpu": on_gpu})
    return cases


def _count(cases, result):
    return sum(1 for c in cases if c["result"] == result)


def cmd_tests(state: str) -> int:
    st = Path(state)
    groups = {}  # title -> (cases, is_gpu_group)
    for title, file, gpu in (("C++ (ctest), label gpu", "ctest-gpu.xml", True),
                             ("C++ (ctest), other tests", "ctest-other.xml", False),
                             ("Python (pytest)", "pytest.xml", None)):
        path = st / file
        groups[title] = (_ctest_cases(path) if file.startswith("ctest") else _pytest_cases(path)) if path.is_file() else None, gpu
    problems, lines = [], []
    lines.append("| tests | passed | failed | skipped | of which expected |")
    lines.append("| --- | ---: | ---: | ---: | ---: |")
    bad_skips, ok_skips, other_skips = [], [], []
    for title, (cases, gpu) in groups.items():
        if cases is None:
            problems.append(f"{title}: no results (the run did not finish)")
            lines.append(f"| {title} | - | - | - | - |")
            continue
        expected = 0
        for c in cases:
            if c["result"] != "skipped":
                continue
            is_cuda = gpu or DEVICE_SKIP.search(c["name"]) or DEVICE_SKIP.search(c["reason"])
            if _expected(c["reason"]):
                expected += 1
                ok_skips.append(c)
            elif is_cuda:
                bad_skips.append(c)
            else:
                other_skips.append(c)
        lines.append(f"| {title} | {_count(cases, 'passed')} | {_count(cases, 'failed')} | {_count(cases, 'skipped')} "
                     f"| {expected} |")
        for c in cases:
            if c["result"] == "failed":
                problems.append(f"FAILED {c['name']}" + (f": {c['reason']}" if c["reason"] else ""))
    gpu_cases = groups["C++ (ctest), label gpu"][0] or []
    py_cases = groups["Python (pytest)"][0] or []
    gpu_passed = _count(gpu_cases, "passed")
    py_cuda_passed = sum(1 for c in py_cases if c["result"] == "passed" and c.get("on_gpu"))
    if gpu_passed == 0:
        problems.append("no C++ test labelled gpu passed")
    if py_cuda_passed == 0:
        problems.append("no Python test that allocated on a CUDA device passed")
    for c in bad_skips:
        problems.append(f"SKIPPED for lack of a device: {c['name']}: {c['reason']}")
    lines.append("")
    lines.append(f"GPU tests passed: {gpu_passed} C++ (label gpu), {py_cuda_passed} Python (tests that allocated on "
                 "a CUDA device).")
    if ok_skips:
        lines.append("")
        lines.append("Expected skips (not a missing device):")
        lines += [f"- {c['name']}: {c['reason']}" for c in ok_skips]
    if other_skips:
        lines.append("")
        lines.append("Other skips (no CUDA involved):")
        lines += [f"- {c['name']}: {c['reason']}" for c in other_skips[:40]]
        if len(other_skips) > 40:
            lines.append(f"- ... and {len(other_skips) - 40} more")
    if problems:
        lines.append("")
        lines.append("Problems:")
        lines += [f"- {p}" for p in problems[:200]]
    status = "FAIL" if problems else "PASS"
    (st / "test.md").write_text("\n".join(lines) + "\n")
    (st / "test.status").write_text(status + "\n")
    print("\n".join(lines))
    return 0 if status == "PASS" else 1


# ---- sanitizer ----------------------------------------------------------------------------------------------------

FINDING_RE = re.compile(r"^========= (?!ERROR SUMMARY|RACECHECK SUMMARY|COMPUTE-SANITIZER|LEAK SUMMARY|"
                        r"Error: process didn't terminate successfully|Target application returned an error)"
                        r"((?:Invalid|Race|Barrier|Uninitialized|Unused|Program hit|Error|Warning|Malloc|Cuda|"
                        r"Leaked|Potential|Hardware|Misaligned|Address|Out-of-range|Detected)[^\n]*)$",
                        re.MULTILINE)


def cmd_sanitizer(state: str, tool: str, rc: str) -> int:
    st = Path(state)
    log = (st / f"sanitize-{tool}.log").read_text(errors="replace") if (st / f"sanitize-{tool}.log").is_file() else ""
    out = (st / f"sanitize-{tool}.out").read_text(errors="replace") if (st / f"sanitize-{tool}.out").is_file() else ""
    code = int(rc)
    summaries = [int(n) for n in re.findall(r"ERROR SUMMARY: (\d+) errors?", log)]
    race = [tuple(map(int, r)) for r in
            re.findall(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", log)]
    # Racecheck's warnings (hazards it is less sure of) count as findings too.
    if summaries:
        errors = sum(summaries) + sum(w for _, _, w in race)
    else:
        errors = sum(e + w for _, e, w in race)
    has_summary = bool(summaries or race)
    headlines: dict[str, int] = {}  # a finding's first line (and where, for memcheck/initcheck) -> count
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = FINDING_RE.match(line)
        if not m:
            continue
        key = m.group(1).strip()
        where = next((re.sub(r"^=+\s+at \S+ in ", "", nxt).strip() for nxt in lines[i + 1:i + 3]
                      if re.match(r"^=+\s+at \S+ in ", nxt)), "")
        if where:
            key += f" at {where}"
        key = re.sub(r"0x[0-9a-f]+", "0x…", key)
        headlines[key] = headlines.get(key, 0) + 1
    ran = len(re.findall(r"^\[       OK \]", out, re.MULTILINE))
    failed_tests = sorted(set(re.findall(r"^\[  FAILED  \] (\S+)", out, re.MULTILINE)))
    timed_out = code in (124, 137)
    if timed_out:
        status = "INCOMPLETE"
    elif errors or headlines:
        status = "FINDINGS"
    elif not has_summary:
        status = "NO SUMMARY"
    elif failed_tests or code != 0:
        status = "TESTS FAILED"
    elif ran == 0:
        status = "NO TEST PASSED"
    else:
        status = "CLEAN"
    result = {"tool": tool, "status": status, "rc": code, "errors": errors, "tests_passed": ran,
              "tests_failed": failed_tests, "findings": headlines}
    (st / f"sanitize-{tool}.json").write_text(json.dumps(result, indent=2))
    print(f"{tool}: {status} ({errors} errors, {ran} tests passed, exit {code})")
    for k, v in list(headlines.items())[:20]:
        print(f"  {v} x {k}")
    return 0 if status == "CLEAN" else 1


def sanitizer_markdown(st: Path) -> tuple[str, list[str], list[str]]:
    settings = json.loads((st / "sanitize-settings.json").read_text()) if (st / "sanitize-settings.json").is_file() else {}
    lines = ["| tool | tests (gtest filter) | result | errors | tests passed | seconds |",
             "| --- | --- | --- | ---: | ---: | ---: |"]
    findings = []
    for tool in ("memcheck", "racecheck", "synccheck", "initcheck"):
        p = st / f"sanitize-{tool}.json"
        s = settings.get(tool, {})
        if not p.is_file():
            if s:
                lines.append(f"| {tool} | `{s.get('filter', '')}` | not run | - | - | - |")
            continue
        r = json.loads(p.read_text())
        lines.append(f"| {tool} | `{s.get('filter', '')}` | {r['status']} | {r['errors']} | {r['tests_passed']} | "
                     f"{s.get('seconds', '-')} |")
        for k, v in r["findings"].items():
            findings.append(f"- {tool}: {v} x {k}")
        for t in r["tests_failed"]:
            findings.append(f"- {tool}: test failed under the tool: {t}")
        if r["status"] == "NO TEST PASSED":
            findings.append(f"- {tool}: no test passed under the tool (the filter matched none, or all skipped)")
        if r["status"] == "NO SUMMARY":
            findings.append(f"- {tool}: the tool wrote no summary (it did not start or crashed; see sanitize.log)")
        if r["status"] == "INCOMPLETE":
            findings.append(f"- {tool}: stopped at its time limit ({s.get('limit', '?')} s) after {r['tests_passed']} "
                            "tests: narrow its filter or raise its limit (check.sh --help)")
    return "\n".join(lines), findings, settings.get("notes", [])


# ---- report ---------------------------------------------------------------------------------------------------------

PHASES = ("build", "test", "sanitize", "bench", "goals")


def _read(p: Path) -> str:
    return p.read_text(errors="replace") if p.is_file() else ""


def _ship_log(src: Path, out: Path, name: str, budget: int = 15 << 20) -> str | None:
    """Copies a log into out, gzipped when over 4 MiB, keeping its end when even that is too large."""
    if not src.is_file() or src.stat().st_size == 0:
        return None
    data = src.read_bytes()
    if len(data) <= 4 << 20:
        (out / name).write_bytes(data)
        return name
    packed = gzip.compress(data, 6)
    while len(packed) > budget:
        data = b"[... start of the log cut to fit ...]\n" + data[len(data) // 2:]
        packed = gzip.compress(data, 6)
    (out / (name + ".gz")).write_bytes(packed)
    return name + ".gz"


def cmd_report(state: str, out: str) -> int:
    st, od = Path(state), Path(out)
    od.mkdir(parents=True, exist_ok=True)
    for old in od.iterdir():  # the report and its logs only: at most 8 files
        if old.is_file() and (old.name == "report.md" or old.name.endswith((".log", ".log.gz"))):
            old.unlink()
    md = ["# Accelera on a GPU: check report", ""]
    md.append(_read(st / "system.md").rstrip())
    md.append("")
    no_gpu = _read(st / "no-gpu.txt").strip()
    if no_gpu:
        md += [f"**{no_gpu}**", ""]
    md += ["## Phases", "", "| phase | result | seconds | when (UTC) |", "| --- | --- | ---: | --- |"]
    for ph in PHASES:
        status = _read(st / f"{ph}.status").strip() or "not run"
        meta = json.loads(_read(st / f"{ph}.json") or "{}")
        md.append(f"| {ph} | {status} | {meta.get('seconds', '-')} | {meta.get('when', '-')} |")
    md.append("")
    if (st / "build.md").is_file():
        md += ["## Build", "", _read(st / "build.md").rstrip(), ""]
    if (st / "test.md").is_file():
        md += ["## Tests", "", _read(st / "test.md").rstrip(), ""]
    if any(st.glob("sanitize-*.json")) or (st / "sanitize-settings.json").is_file():
        table, findings, notes = sanitizer_markdown(st)
        md += ["## Sanitizers (compute-sanitizer)", "", table, ""]
        md += (["Findings:", ""] + findings if findings else ["No findings."]) + [""]
        md += [f"- {n}" for n in notes] + [""]
    if (st / "bench.md").is_file():
        md += ["## Benchmarks", "", "Every figure is set against its anchor, measured in the same run on the same GPU.", "",
               _read(st / "bench.md").rstrip(), ""]
    if (st / "goals.md").is_file():
        md += ["## Goals of the open issues that need a GPU", "", _read(st / "goals.md").rstrip(), ""]
    files = ["report.md"]
    for ph in ("console",) + PHASES:
        shipped = _ship_log(st / f"{ph}.log", od, f"{ph}.log")
        if shipped:
            files.append(shipped)
    md += ["## Files", "", *[f"- {f}" for f in files], ""]
    (od / "report.md").write_text("\n".join(md))
    assert len(files) <= 8
    print(f"report: {od / 'report.md'} ({len(files)} files in {od})")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 1
    cmd, args = argv[1], argv[2:]
    commands = {"unpack": (cmd_unpack, 2), "libcheck": (cmd_libcheck, 1), "probe": (cmd_probe, 2),
                "tests": (cmd_tests, 1), "sanitizer": (cmd_sanitizer, 3), "report": (cmd_report, 2)}
    if cmd not in commands or len(args) != commands[cmd][1]:
        print(__doc__, file=sys.stderr)
        return 1
    return commands[cmd][0](*args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
