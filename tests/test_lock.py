"""The lock (requirements/constraints.txt) and the tools that write it and compare with it.

The lock must pin every dependency that pyproject.toml names for what ``make test`` and CI
install, at a version pyproject allows: a floor raised, or a dependency added, without
``make lock`` fails here rather than on a fresh machine. tools/lock.py and tools/drift.py are
checked through their doctests (the parsing, the drift lines CI prints).
"""

from __future__ import annotations

import doctest
import importlib.util
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "constraints.txt"


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(f"_tools_{name}", ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["lock", "drift"])
def test_tool_doctests(name: str) -> None:
    result = doctest.testmod(_tool(name))
    assert result.attempted > 0 and result.failed == 0


def _pins() -> dict[str, str]:
    return _tool("drift").read_pins(LOCK.read_text(encoding="utf-8"))


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = _tool("lock").EXTRAS.split(",")
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        reqs += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return reqs + [Requirement(r) for r in _tool("lock").OTHERS]


def test_lock_pins_every_dependency_at_a_version_pyproject_allows() -> None:
    canonical = _tool("drift").canonical
    pins = _pins()
    missing, outside = [], []
    for req in _requirements():
        pin = pins.get(canonical(req.name))
        if pin is None:
            missing.append(req.name)
        elif not req.specifier.contains(pin, prereleases=True):
            outside.append(f"{req.name}=={pin} (pyproject asks {req.specifier})")
    assert not missing, f"not in {LOCK.name} (run `make lock`): {missing}"
    assert not outside, f"pins outside pyproject's ranges (run `make lock`): {outside}"


def test_lock_lines_are_exact_pins() -> None:
    lines = [ln for ln in LOCK.read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#")]
    bad = [ln for ln in lines if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==[0-9][^\s+;]*", ln)]
    assert not bad, f"not a plain name==version line (no local labels, no markers): {bad}"
    names = [_tool("drift").canonical(ln.split("==")[0]) for ln in lines]
    assert len(names) == len(set(names)), "a package pinned twice"


def test_every_install_of_make_goes_through_the_lock() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    installs = [ln for ln in makefile.splitlines() if "pip install" in ln or "$(PIP)" in ln]
    assert installs
    assert all("$(PIP)" in ln or "-c $(LOCK)" in ln for ln in installs), installs
    assert re.search(r"^PIP\s*:=.*-c \$\(LOCK\)", makefile, re.MULTILINE)


def test_the_readme_states_the_tested_ranges() -> None:
    """README's "Supported versions" table: pyproject's range, the oldest tested (the pin of
    requirements/oldest.txt, else the lock's) and the newest tested (the lock's) of each row."""
    canonical = _tool("drift").canonical
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Supported versions", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([A-Za-z][\w-]*)(?: \(extra `\w+`\))? \| (\S+) \| (\S+) \| (\S+) \|$", section, re.MULTILINE)
    assert len(rows) >= 6, section
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = {}
    for req in [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]:
        specs.setdefault(canonical(Requirement(req).name), str(Requirement(req).specifier))
    pins = _pins()
    oldest = _tool("drift").read_pins((ROOT / "requirements" / "oldest.txt").read_text(encoding="utf-8"))
    for name, allowed, low, high in rows:
        key = canonical(name)
        assert allowed == specs[key], (name, allowed, specs[key])
        assert high == pins[key], f"{name}: the README says newest tested {high}, the lock pins {pins[key]}"
        assert low == oldest.get(key, pins[key]), f"{name}: the README says oldest tested {low}"
    core = {canonical(Requirement(r).name) for r in project["dependencies"]}
    assert core <= {canonical(n) for n, *_ in rows}, "a dependency of pyproject missing from the table"
