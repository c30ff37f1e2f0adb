"""The checkout's door to the tutorials' helpers (:mod:`pe_symbolic.tutorial`).

Every script in this folder tries to import this module **first** (a downloaded copy,
without this file next to it, goes on with the installed package). On import it makes the
script run from a plain checkout, installed or not:

* the checkout's own ``pe_symbolic`` (the folder next to this one) goes first on
  ``sys.path``, so a script always shows the code it sits next to;
* if Python is older than 3.11, or SymPy, NumPy or mpmath is missing, it prints one line
  saying what to install and exits with status 2 (no traceback).

Then a script records what it shows in a :class:`Report`, and ends with
:meth:`Report.finish`: the summary, then the exit status -- 0 when every result is the
expected one (claims proved; article claims that a numeric certificate is *meant* to
refute, refuted), 1 otherwise, 2 for bad options (``argparse``) or a missing package.

The same scripts are the examples of the documentation's sphinx-gallery (and its
downloadable notebooks). There the text cells are the prose; :func:`figure` draws (on the
command line only with ``--plot``: a derivation never needs matplotlib otherwise); and
:meth:`Report.finish` raises instead of exiting, so a result that is not as expected fails
the docs build.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: What the package needs at run time (``pyproject.toml``, ``[project] dependencies``).
REQUIRES = ("sympy", "numpy", "mpmath", "ml_dtypes", "flint")


def _here(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it, else absolute."""
    rel = os.path.relpath(path)
    return str(path) if rel.startswith("..") else rel


def _cannot_run(why: str, fix: str | None = None) -> None:
    """Print ``why`` and how to fix it as one line on stderr; exit with status 2."""
    script = Path(sys.argv[0] if sys.argv and sys.argv[0] else HERE / "kernes.py").resolve()
    venv = ROOT / ".venv" / "bin" / "python"
    if fix is None and not (ROOT / "pyproject.toml").is_file():
        fix = "`pip install pe_symbolic` (this copy of the script is outside a checkout)"
    elif fix is None and venv.is_file():
        fix = (f"run it with `{_here(venv)} {_here(script)}` (the venv of `make prove`), "
               f"or `pip install -e {_here(ROOT)}`")
    elif fix is None:
        fix = (f"`pip install -e {_here(ROOT)}`, or `make prove` (installs into {_here(ROOT / '.venv')}) "
               f"and run it with `{_here(venv)} {_here(script)}`")
    print(f"{script.name}: {why}; {fix}", file=sys.stderr)
    raise SystemExit(2)


def _bootstrap() -> None:
    if sys.version_info < (3, 11):
        _cannot_run(f"needs Python >= 3.11, this is {sys.version.split()[0]} ({sys.executable})",
                    "run it with Python 3.11 or newer")
    if (ROOT / "pe_symbolic" / "__init__.py").is_file():
        if str(ROOT) in sys.path:
            sys.path.remove(str(ROOT))
        sys.path.insert(0, str(ROOT))
    missing = [name for name in REQUIRES if importlib.util.find_spec(name) is None]
    if importlib.util.find_spec("pe_symbolic") is None:
        missing.insert(0, "pe_symbolic")
    if missing:
        _cannot_run(f"needs {', '.join(missing)}, not installed for {sys.executable}")


_bootstrap()

# The tutorials' helpers live in the package (pe_symbolic.tutorial), so that a downloaded
# script or notebook runs wherever the package is installed; this module only makes a
# checkout's scripts use the checkout's package (or say what to install), then re-exports them.
from pe_symbolic.tutorial import (  # noqa: E402
    EXIT_STATUS,
    WIDTH,
    CheckRecord,
    ProofRecord,
    Report,
    figure,
    heading,
    in_gallery,
    in_notebook,
    parse_args,
    say,
    show,
)

__all__ = ["EXIT_STATUS", "WIDTH", "CheckRecord", "ProofRecord", "Report", "figure", "heading", "in_gallery",
           "in_notebook", "parse_args", "say", "show"]
