"""Every Python snippet of the README and of the docs pages runs.

A page's plain ``python`` blocks run in order in one namespace, as a reader pasting them into
one session would; its ``>>>`` blocks are doctests, run (with their outputs compared) by
``tests/test_docs.py::test_docs_page_examples`` -- :func:`test_every_snippet_is_run` checks
that the two together cover every block. Generated pages (theory, tutorials) are not
hand-written snippets: the tutorials run as scripts (tests/test_derivations.py).
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(?P<fence>```+)(?P<lang>[^\n`]*)\n(?P<body>.*?)^(?P=fence)\s*$", re.M | re.S)
PYTHON = {"python", "py", "python3", "pycon"}


def _pages() -> list[Path]:
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts and "generated" not in p.parts)
    return [ROOT / "README.md", *docs]


def _blocks(page: Path) -> list[str]:
    out = []
    for m in FENCE.finditer(page.read_text(encoding="utf-8")):
        lang = m["lang"].strip().split()[0] if m["lang"].strip() else ""
        if lang in PYTHON:
            out.append(m["body"])
    return out


PLAIN = [(p, [b for b in _blocks(p) if ">>>" not in b]) for p in _pages()]
PLAIN = [(p, bs) for p, bs in PLAIN if bs]


def test_every_snippet_is_run():
    """Each Python block is either plain (run here) or a doctest on a docs page (run there)."""
    from tests import test_docs

    doctest_pages = set(test_docs.PAGES)
    n_plain = n_doctest = 0
    for page in _pages():
        for block in _blocks(page):
            if ">>>" in block:
                assert page in doctest_pages, f"{page}: a doctest block that no test runs"
                n_doctest += 1
            else:
                n_plain += 1
    assert n_plain >= 3 and n_doctest >= 30
    print(f"{n_plain} plain snippets run here, {n_doctest} doctest blocks in tests/test_docs.py")


#: Optional extras a snippet may use: where one is not installed, the page's snippets stop there
#: and the test skips, saying which (CI installs them; the NumPy 1.x run does not).
OPTIONAL = frozenset({"torch", "jax", "jaxlib", "matplotlib", "transformers", "numba"})


@pytest.mark.parametrize("page,blocks", PLAIN, ids=[p.relative_to(ROOT).as_posix() for p, _ in PLAIN])
def test_snippets_run(page: Path, blocks: list[str]):
    namespace: dict = {"__name__": "__snippet__"}
    for n, block in enumerate(blocks, start=1):
        code = compile(block, f"{page.name} (Python block {n})", "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(code, namespace)  # noqa: S102 - the repository's own documentation
            except ModuleNotFoundError as exc:
                if (exc.name or "").split(".")[0] in OPTIONAL:
                    pytest.skip(f"{page.name} block {n} needs {exc.name}, which is not installed")
                raise
