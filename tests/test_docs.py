"""The documentation: generated entries for every theorem, and the pages' examples run.

* Every theorem in the registry gets its generated theory page (the generator of
  ``docs/_ext/pe_docs_gen.py`` is called directly; no Sphinx needed, a second or two).
* Every ``pycon`` / ``python`` code block with ``>>>`` prompts in ``docs/**/*.md`` runs as a
  doctest, one page at a time in a shared namespace (as a reader would type them).
* ``slow``: the full Sphinx build with warnings as errors (``make docs`` does the same).
"""

from __future__ import annotations

import doctest
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pe_symbolic import theorems

DOCS = Path(__file__).resolve().parents[1] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import pe_docs_gen as gen  # noqa: E402

FENCE = re.compile(r"^(?P<fence>`{3,})(?P<lang>[^\n`]*)\n(?P<body>.*?)^(?P=fence)\s*$", re.M | re.S)
DOC_LANGS = {"pycon", "python", "py", "python3", ""}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


# --------------------------------------------------------------------------------------
# Generated theory entries
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def theory(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[gen.TheoryEntry]]:
    out = tmp_path_factory.mktemp("theory")
    return out, gen.write_theory(out)


def test_every_registered_theorem_has_a_generated_page(theory):
    out, entries = theory
    ids = [th.id for th in theorems.all()]
    assert [e.id for e in entries] == ids
    for th in theorems.all():
        page = (out / f"{gen.page_name(th.id)}.md").read_text(encoding="utf-8")
        assert f":label: {gen.label(th.id)}" in page
        assert ":::{prf:theorem}" in page and ":::{prf:proof}" in page
        assert f"**Verdict: {th.expect}**" in page, th.id  # honest negatives: refuted
        assert (out / f"{th.id}.json").is_file()
    toc = (out / gen.TOC).read_text(encoding="utf-8").splitlines()
    assert [line for line in toc if line.startswith("generated/")] == [f"generated/{i}" for i in ids]


def test_summary_table_lists_every_theorem_once(theory):
    out, _ = theory
    summary = (out / gen.SUMMARY).read_text(encoding="utf-8")
    for th in theorems.all():
        assert summary.count(f"{{claim}}`{th.id}`") == 1


def test_theory_page_has_every_step_as_display_math_with_its_rule(theory):
    out, _ = theory
    proof = theorems.get("translation.identity").prove()
    page = (out / "translation.identity.md").read_text(encoding="utf-8")
    for part in proof.parts:
        for step in part.steps:
            shown = f"{{claim}}`{step.lemma}`" if step.lemma else gen.md_escape(step.rule)
            assert shown in page
    assert page.count("$$") >= 2 * sum(len(p.steps) + 1 for p in proof.parts)


def test_free_text_is_escaped_but_math_is_not():
    import sympy as sp

    from pe_symbolic.proof import Claim, Equation, prove, render

    x = sp.Symbol("x", real=True)
    proof = prove(Claim("demo", "x*cos | a_i", (Equation(x * sp.cos(x), sp.cos(x) * x),)))
    md = render.myst(proof)
    assert r"x\*cos \| a\_i" in md.split("\n")
    assert "x \\cos{\\left(x \\right)} = x \\cos{\\left(x \\right)}" in md
    assert ":nonumber:" in md


def test_stale_pages_are_removed(tmp_path):
    (tmp_path / "gone.theorem.md").write_text("old")
    gen.write_theory(tmp_path, [theorems.get("rope.relative")])
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted([gen.SUMMARY, gen.TOC, "rope.relative.json", "rope.relative.md"])
    assert "generated/rope.relative" in (tmp_path / gen.TOC).read_text()


def test_tutorial_pages_capture_the_scripts_output(tmp_path):
    script = tmp_path / "demo.py"
    script.write_text('"""A demo.\n\nIt prints.\n"""\nprint("hello *world*")\n')
    (entry,) = gen.write_tutorials(tmp_path / "out", directory=tmp_path)
    page = entry.path.read_text(encoding="utf-8")
    assert entry.returncode == 0
    assert page.startswith("# A demo\n") and "hello *world*" in page
    assert "generated/demo" in (tmp_path / "out" / gen.TOC).read_text()


def test_generator_doctests():
    assert doctest.testmod(gen, optionflags=FLAGS).failed == 0


def test_tutorial_order_puts_the_lead_scripts_first():
    stems = [p.stem for p in gen.scripts()]
    lead = [s for s in gen.TUTORIAL_ORDER if s in stems]
    assert stems[: len(lead)] == lead


# --------------------------------------------------------------------------------------
# Doctests in the docs pages
# --------------------------------------------------------------------------------------
def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts and "generated" not in p.parts)


def _examples(page: Path) -> str:
    blocks = []
    for m in FENCE.finditer(page.read_text(encoding="utf-8")):
        lang = m["lang"].strip().split()[0] if m["lang"].strip() else ""
        if lang in DOC_LANGS and ">>>" in m["body"]:
            blocks.append(m["body"])
    return "\n".join(blocks)


PAGES = [p for p in _pages() if _examples(p)]


def test_docs_have_examples():
    assert len(PAGES) >= 3


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(DOCS).as_posix() for p in PAGES])
def test_docs_page_examples(page: Path):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(_examples(page), {"__name__": "__docs__"}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) failed in {page}"


# --------------------------------------------------------------------------------------
# The full build
# --------------------------------------------------------------------------------------
@pytest.mark.slow
def test_full_sphinx_build_is_clean(tmp_path):
    if importlib.util.find_spec("sphinx") is None:
        pytest.skip("the docs extras are not installed (make docs installs them)")
    r = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
         str(DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    for th in theorems.all():
        assert (tmp_path / "html" / "theory" / "generated" / f"{th.id}.html").is_file()
