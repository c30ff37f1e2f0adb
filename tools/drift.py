"""The suite against the newest releases of the dependencies: is the lock still the world?

``python tools/drift.py`` (``make drift``; ``.ci/run`` runs it after the pinned run) creates a
scratch virtual environment (``.venv-drift``), installs the package with its ``test`` extra
*without* ``requirements/constraints.txt``, so pip picks the newest release of each
dependency that pyproject.toml allows, runs the whole suite there (``pytest -n auto``, the
quick ``dev`` hypothesis profile, no optional extras: the pinned run covers those) and
prints one line per package whose newest release differs from its pin::

    drift: ml_dtypes 0.7.0 -> 0.8.0 (pinned 0.7.0): suite passed
    warning: drift: ml_dtypes 0.7.0 -> 0.8.0 (pinned 0.7.0): suite failed

then one line with the suite's counts (and, on failure, the failing tests). When nothing
differs from the lock the suite is not run again (it would repeat the pinned run) and the
line says so.

A drift is news, not a failure: the exit status is 0 whatever the suite does (the pinned run
is CI's gate), unless ``--strict`` is given, when a failing drift run (or one that could not
install) exits 1. What to do on a ``suite failed`` line: fix the code for the new release (or
cap it in pyproject.toml, with the reason), then ``make lock``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "constraints.txt"
#: The dependencies each drift line is about first: the package's own (pyproject.toml's
#: ``dependencies``) and the test runner's; any other package that moved is named after them.
CORE = ["sympy", "numpy", "mpmath", "ml_dtypes", "python-flint", "hypothesis", "pytest", "pytest-xdist"]


def canonical(name: str) -> str:
    """PEP 503 normalized name: ``ML_Dtypes`` -> ``ml-dtypes``.

    >>> canonical("ML_Dtypes"), canonical("python.flint")
    ('ml-dtypes', 'python-flint')
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(text: str) -> dict[str, str]:
    """``{canonical name: version}`` of a constraints file's ``name==version`` lines.

    >>> read_pins("# c\\nml_dtypes==0.7.0\\nNumPy==2.4.6  # why\\n")
    {'ml-dtypes': '0.7.0', 'numpy': '2.4.6'}
    """
    pins = {}
    for line in text.splitlines():
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;#]+)", line)
        if m:
            pins[canonical(m.group(1))] = m.group(2)
    return pins


def drifted(pins: dict[str, str], installed: dict[str, str]) -> list[tuple[str, str | None, str]]:
    """``(name, pinned version or None, installed version)`` of each installed package whose
    version is not its pin: the :data:`CORE` ones first in that order, then the rest by name.
    Packages absent from the drift venv are not drift (the lock also pins the extras').

    >>> drifted({"numpy": "2.4.6", "sympy": "1.14.0", "attrs": "25.1.0", "torch": "2.13.0"},
    ...         {"numpy": "2.5.0", "sympy": "1.14.0", "attrs": "26.1.0", "new-dep": "1.0"})
    [('numpy', '2.4.6', '2.5.0'), ('attrs', '25.1.0', '26.1.0'), ('new-dep', None, '1.0')]
    """
    core = [canonical(n) for n in CORE]
    names = [n for n in core if n in installed] + sorted(n for n in installed if n not in core)
    return [(n, pins.get(n), installed[n]) for n in names if pins.get(n) != installed[n]]


def drift_lines(moved: list[tuple[str, str | None, str]], outcome: str, failed: bool) -> list[str]:
    """One line per moved package, ``warning:``-prefixed when the suite failed.

    >>> drift_lines([("ml-dtypes", "0.7.0", "0.8.0"), ("new-dep", None, "1.0")], "suite passed", False)
    ['drift: ml-dtypes 0.7.0 -> 0.8.0 (pinned 0.7.0): suite passed', 'drift: new-dep 1.0 (not in the lock): suite passed']
    >>> drift_lines([("numpy", "2.4.6", "2.5.0")], "suite failed", True)
    ['warning: drift: numpy 2.4.6 -> 2.5.0 (pinned 2.4.6): suite failed']
    """
    prefix = "warning: drift:" if failed else "drift:"
    out = []
    for name, pin, new in moved:
        what = f"{new} (not in the lock)" if pin is None else f"{pin} -> {new} (pinned {pin})"
        out.append(f"{prefix} {name} {what}: {outcome}")
    return out


def summary_line(log: str) -> str:
    """pytest's closing counts (``3135 passed, 371 skipped in 301.2s``) from its output.

    >>> summary_line("x\\n==== 2 failed, 10 passed, 1 skipped in 3.04s ====\\ntrailer\\n")
    '2 failed, 10 passed, 1 skipped in 3.04s'
    >>> summary_line("no summary")
    ''
    """
    found = ""
    for line in log.splitlines():
        m = re.fullmatch(r"=*\s*(\d+ (?:passed|failed|error|errors|skipped|xfailed|xpassed|deselected|warnings?)\b.*? in [\d.]+s(?: \([^)]*\))?)\s*=*",
                         line.strip())
        if m:
            found = m.group(1)
    return found


def failures(log: str) -> list[str]:
    """The node ids of pytest's ``FAILED``/``ERROR`` short-summary lines.

    >>> failures("FAILED tests/test_a.py::test_x - AssertionError\\nERROR tests/b.py\\nPASSED x")
    ['tests/test_a.py::test_x', 'tests/b.py']
    """
    return [m.group(2) for m in re.finditer(r"^(FAILED|ERROR) (\S+)", log, re.MULTILINE)]


def _pip(py: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([py, "-m", "pip", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv-drift", help="scratch venv (removed first)")
    parser.add_argument("--lock", type=Path, default=LOCK, help="the constraints file to compare with")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the drift run fails or cannot install")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds the suite may run (default 1800)")
    parser.add_argument("pytest_args", nargs="*", help="instead of the whole suite (after --)")
    args = parser.parse_args(argv)
    bad = 1 if args.strict else 0

    shutil.rmtree(args.venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(args.venv)], check=True)
    py = str(args.venv / "bin" / "python")
    _pip(py, "install", "--quiet", "--upgrade", "pip")
    inst = _pip(py, "install", "--quiet", "--upgrade", "-e", f"{ROOT}[test]")
    if inst.returncode != 0:
        print(inst.stdout[-3000:])
        print("warning: drift: the newest releases could not be installed (pip's output above): drift run skipped")
        return bad
    listed = _pip(py, "list", "--format=json", "--exclude-editable")
    dists = [d for d in json.loads(listed.stdout) if canonical(d["name"]) not in {"pip", "setuptools", "wheel"}]
    installed = {canonical(d["name"]): d["version"] for d in dists}
    shown = {canonical(d["name"]): d["name"] for d in dists}  # as the project spells itself
    moved = [(shown[n], pin, new) for n, pin, new in
             drifted(read_pins(args.lock.read_text(encoding="utf-8")), installed)]
    newest = ", ".join(f"{shown[canonical(n)]} {installed[canonical(n)]}" for n in CORE if canonical(n) in installed)
    if not moved:
        print(f"drift: none: the newest releases ({newest}, and their dependencies) are the pinned ones; "
              "suite not run again")
        return 0

    log_path = args.venv / "pytest.log"
    cmd = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "auto", "--dist", "loadfile", *args.pytest_args]
    env = {**os.environ, "HYPOTHESIS_PROFILE": "dev"}
    print("drift: running", " ".join(cmd[1:]), f"against {newest} (log: {log_path})", flush=True)
    start = time.monotonic()
    try:
        run = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=args.timeout)
        log, code = run.stdout, run.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        log, code = (out.decode() if isinstance(out, bytes) else out), -1
    log_path.write_text(log, encoding="utf-8")
    counts = summary_line(log) or f"no summary; exit {code} after {time.monotonic() - start:.0f} s"
    failed = code != 0
    outcome = "suite failed" if failed else "suite passed"
    for line in drift_lines(moved, outcome, failed):
        print(line)
    print(f"{'warning: ' if failed else ''}drift: the suite with the newest releases: {outcome} "
          f"({counts})")
    if failed:
        for node in failures(log)[:30]:
            print(f"warning: drift: failed with the newest releases: {node}")
    return bad if failed else 0


if __name__ == "__main__":
    sys.exit(main())
