"""Refresh ``requirements/constraints.txt``: the exact versions ``make test`` and CI install.

``python tools/lock.py`` (``make lock``) creates a scratch virtual environment
(``.venv-lock``), installs into it the newest releases that pyproject.toml allows of the
package's dependencies and of every extra that ``make test``, ``make docs``,
``make downloads`` and ``.ci/run`` install (test, docs, fast, notebook, plot, jax with its
CPU jaxlib, and torch at :data:`TORCH`), and writes what ``pip freeze`` then lists, transitive
dependencies included, as a pip constraints file. ``make test`` and ``.ci/run`` install with
``pip install -c requirements/constraints.txt ...``: a fresh clone gets these versions, not
whatever was released since.

pip's own configuration still applies while resolving (a global ``constraint =`` file, an
extra index): the lock lies inside it, and ``-c`` on the command line adds to such a file
rather than replacing it. Local version labels are dropped (``torch==2.13.0+cpu`` is written
``torch==2.13.0``, which the CPU build still satisfies), so that the file also resolves
where only the plain release exists.

The versions are resolved for the Python that runs this script (CI's is 3.11); pins are plain
``==`` versions, so they hold on other CPython versions wherever those releases have wheels.
Refresh, run ``make test``, and commit the new file with the result; the drift run in CI
(``tools/drift.py``) says when a newer release than a pin exists and whether the suite
passes with it.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "requirements" / "constraints.txt"
#: The extras of pyproject.toml that ``make test``/``make docs``/``.ci/run`` install.
EXTRAS = "test,docs,fast,notebook,plot"
#: The torch that .ci/run installs: a CPU build (keep in step with .ci/run and the README).
TORCH = "torch==2.13.0"
#: What else .ci/run installs beside the extras.
OTHERS = [TORCH, "jax[cpu]"]
#: pip's build tools: not run-time dependencies of anything here (build isolation brings
#: the build backend pyproject.toml asks for), so not pinned.
UNPINNED = {"setuptools", "wheel", "distribute"}


def _run(cmd: list[str]) -> str:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout


def pins(freeze: str) -> list[str]:
    """``name==version`` lines of a ``pip freeze --all`` output, sorted case-insensitively,
    without local version labels, editable installs or :data:`UNPINNED`.

    >>> pins("torch==2.13.0+cpu\\n-e /src\\nsetuptools==65.5.0\\nNumPy==2.4.6\\n# x\\n")
    ['NumPy==2.4.6', 'torch==2.13.0']
    """
    out = []
    for line in freeze.splitlines():
        line = line.strip()
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;+]+)(\+\S+)?", line)
        if m is None:  # comments, "-e ...", "name @ file://..."
            continue
        if m.group(1).lower() in UNPINNED:
            continue
        out.append(f"{m.group(1)}=={m.group(2)}")
    return sorted(out, key=str.lower)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv-lock", help="scratch venv (removed first)")
    parser.add_argument("--out", type=Path, default=OUT, help="constraints file to write")
    args = parser.parse_args(argv)

    shutil.rmtree(args.venv, ignore_errors=True)
    _run([sys.executable, "-m", "venv", str(args.venv)])
    py = str(args.venv / "bin" / "python")
    _run([py, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    _run([py, "-m", "pip", "install", "--quiet", "--upgrade", "-e", f"{ROOT}[{EXTRAS}]", *OTHERS])
    _run([py, "-m", "pip", "check"])
    lines = pins(_run([py, "-m", "pip", "freeze", "--all"]))
    header = [
        "# The exact versions that `make test`, `make docs`, `make downloads` and CI (.ci/run)",
        "# install: pip install -c requirements/constraints.txt ... (transitive dependencies",
        f"# included). Written by `make lock` (tools/lock.py) on {datetime.date.today().isoformat()}",
        f"# for CPython {platform.python_version()} on {platform.system()} {platform.machine()}: "
        f"pyproject.toml's dependencies and",
        f"# the extras [{EXTRAS}], {', '.join(OTHERS)}. Do not edit by hand; refresh",
        "# with `make lock`, run `make test`, commit both.",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"lock: {len(lines)} packages pinned in {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
