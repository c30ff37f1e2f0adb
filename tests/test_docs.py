"""The documentation: generated entries for every theorem, the gallery, and the pages' examples.

* Every theorem in the registry gets its generated theory page (the generator of
  ``docs/_ext/pe_docs_gen.py`` is called directly; no Sphinx needed, a second or two).
* Every derivation script is a sphinx-gallery example (title, text cells, nothing that
  breaks when sphinx-gallery runs it), and ``conf.py`` runs each of them, helpers excluded.
  That they run and print their proofs is ``test_derivations.py``'s and
  ``test_chapters.py``'s business.
* Every ``pycon`` / ``python`` code block with ``>>>`` prompts in ``docs/**/*.md`` runs as a
  doctest, one page at a time in a shared namespace (as a reader would type them).
* ``slow``: the full Sphinx build with warnings as errors (``make docs`` does the same).
"""

from __future__ import annotations

import ast
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
    # the section lists chapters, each chapter its theorems: every theorem in exactly one
    toc = (out / gen.TOC).read_text(encoding="utf-8").splitlines()
    pages = [line.removeprefix("generated/") for line in toc if line.startswith("generated/")]
    assert pages and all(p.startswith("chapter-") for p in pages)
    listed = []
    for page in pages:
        text = (out / f"{page}.md").read_text(encoding="utf-8")
        tree = text.split("```{toctree}", 1)[1].split("```", 1)[0]
        listed += [line for line in tree.splitlines() if line and not line.startswith(":")]
    assert sorted(listed) == sorted(ids) and len(listed) == len(set(listed))
    order = {gen.chapter_of(th).page: n for n, th in reversed(list(enumerate(theorems.all())))}
    assert listed == [th.id for th in sorted(theorems.all(), key=lambda th: order[gen.chapter_of(th).page])]


def test_theory_chapters_follow_the_registering_modules(theory):
    out, _ = theory
    groups = gen.chapters(theorems.all())
    titles = [ch.title for ch, _ in groups]
    assert titles[:2] == ["Lemmas: one rotation, one pair", "Foundation: the translation matrix, the dot product, RoPE"]
    assert "The RoPE family" in titles and len(titles) == len(set(titles))
    assert all(ch.module in gen.CHAPTERS for ch, _ in groups)  # every registering module has a real title
    family = dict((ch.stem, ths) for ch, ths in groups)["family"]
    assert "yarn.relative" in [th.id for th in family]
    summary = (out / gen.SUMMARY).read_text(encoding="utf-8")
    assert len(re.findall(r"^## ", summary, flags=re.M)) == len(groups)
    page = (out / "chapter-family.md").read_text(encoding="utf-8")
    assert page.startswith("# The RoPE family\n") and "{claim}`yarn.relative`" in page


def test_a_module_without_a_chapter_title_still_gets_a_chapter():
    th = type("T", (), {"build": staticmethod(lambda d: None)})()
    th.build.__module__ = "pe_symbolic.theorems.new_things"
    ch = gen.chapter_of(th)
    assert (ch.page, ch.title) == ("chapter-new_things", "New things")


def test_every_theory_page_shows_the_typeset_statement(theory):
    from pe_symbolic.proof.render import display_lines

    out, _ = theory
    for th in theorems.all():
        page = (out / f"{gen.page_name(th.id)}.md").read_text(encoding="utf-8")
        statement = page.split(":::{prf:proof}")[0]
        for line in display_lines(th.latex):
            assert line in statement, (th.id, line)


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
    # every step a display, and the statement typeset once (not again above each chain)
    assert page.count("$$") >= 2 * (sum(len(p.steps) for p in proof.parts) + 1)


def test_free_text_is_escaped_but_math_is_not():
    import sympy as sp

    from pe_symbolic.proof import Claim, Equation, prove, render

    x = sp.Symbol("x", real=True)
    proof = prove(Claim("demo", "x*cos | a_ij", (Equation(x * sp.cos(x), sp.cos(x) * x),)))
    md = render.myst(proof)
    assert r"x\*cos \| a\_ij" in md.split("\n")
    assert "x \\cos{\\left(x \\right)} = x \\cos{\\left(x \\right)}" in md
    assert ":nonumber:" in md


def test_stale_pages_are_removed(tmp_path):
    (tmp_path / "gone.theorem.md").write_text("old")
    gen.write_theory(tmp_path, [theorems.get("rope.relative")])
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted([gen.SUMMARY, gen.TOC, "chapter-foundation.md", "rope.relative.json", "rope.relative.md",
                            "rope.relative.v"])
    assert "generated/chapter-foundation" in (tmp_path / gen.TOC).read_text()
    assert "\nrope.relative\n" in (tmp_path / "chapter-foundation.md").read_text()


def test_generator_doctests():
    assert doctest.testmod(gen, optionflags=FLAGS).failed == 0


# --------------------------------------------------------------------------------------
# The tutorials: a sphinx-gallery of derivations/
# --------------------------------------------------------------------------------------
SCRIPTS = gen.scripts()


def _gallery_conf() -> dict:
    """``sphinx_gallery_conf`` as written in docs/conf.py (read, not imported: no Sphinx needed)."""
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["sphinx_gallery_conf"]:
            return ast.literal_eval(node.value)
    raise AssertionError("docs/conf.py sets no sphinx_gallery_conf")


def test_tutorial_order_puts_the_lead_scripts_first():
    stems = [p.stem for p in SCRIPTS]
    assert stems[: len(gen.TUTORIAL_ORDER)] == list(gen.TUTORIAL_ORDER)
    assert stems[len(gen.TUTORIAL_ORDER):] == sorted(stems[len(gen.TUTORIAL_ORDER):])
    assert "_common" not in stems


def test_gallery_runs_every_script_and_no_helper():
    conf = _gallery_conf()
    assert conf["examples_dirs"] == "../derivations" and conf["gallery_dirs"] == "auto_examples"
    assert conf["run_stale_examples"] is True  # output depends on the package, not the script only
    assert conf["within_subsection_order"] == "pe_docs_gen.DerivationOrder"
    derivations = DOCS.parent / "derivations"
    for path in derivations.glob("*.py"):
        helper = path.name.startswith("_")
        assert bool(re.search(conf["ignore_pattern"], path.name)) == helper, path.name
        assert bool(re.search(conf["filename_pattern"], str(path))) != helper, path.name
    assert (derivations / "GALLERY_HEADER.rst").is_file()


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_derivation_is_a_gallery_example(script: Path):
    source = script.read_text(encoding="utf-8")
    tree = ast.parse(source)
    doc = ast.get_docstring(tree, clean=False)
    assert doc is not None, "sphinx-gallery needs a module docstring"
    title, underline = doc.strip("\n").splitlines()[:2]
    assert underline == "=" * len(title), "the title's underline must be exactly as long as the title"
    assert "# %%\n#" in source, "text cells: a '# %%' line followed by comment lines"
    # sphinx-gallery sets __doc__ to '' and no __file__, and must not be stopped by sys.exit()
    for name in ("__doc__", "__file__", "sys.exit", "SystemExit"):
        assert name not in source.split('"""', 2)[2], f"{name} breaks the script in the gallery"
    # first: try _common (a checkout's package first, or what to install), then the helpers
    # from the package, so that a downloaded copy runs wherever the package is installed
    first, second = tree.body[1:3]
    assert isinstance(first, ast.Try) and [type(n) for n in first.body] == [ast.Import], (
        "try `import _common` first: it finds the package in a checkout or says what to install")
    assert first.body[0].names[0].name == "_common"
    assert [h.type.id for h in first.handlers] == ["ModuleNotFoundError"]
    assert isinstance(second, ast.ImportFrom) and second.module == "pe_symbolic.tutorial"
    assert source.rstrip().endswith("rep.finish()"), "end with the summary and the exit status"
    # every gallery card shows a real picture: sphinx-gallery's thumbnail is the script's
    # first figure, drawn with the tutorial helper (only in the docs, or with --plot)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "figure"]
    assert calls, "draw a figure (`fig = figure(...)`): without one the gallery card shows a placeholder"
    assert "[--plot]" in doc, "say `[--plot]` in 'Run it yourself': the script draws with it"


# --------------------------------------------------------------------------------------
# The design page and the package docstring follow the import-linter contract
# --------------------------------------------------------------------------------------
def _contract_layers() -> list[str]:
    import tomllib

    config = tomllib.loads((DOCS.parent / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers" and "containers" not in c]
    # a floor of independent modules ("pe_symbolic.torch | pe_symbolic.jax") lists each
    return [n.strip().removeprefix("pe_symbolic.") for name in layers for n in name.split("|")]


def test_design_page_lists_the_layers_in_the_contracts_order():
    page = (DOCS / "design.md").read_text(encoding="utf-8")
    diagram = page.split("```text\n", 1)[1].split("```", 1)[0]
    floors = re.findall(r"^  (\w+)(?:/|\.py)\s", diagram, flags=re.M)
    assert [f for f in floors if f != "reference"] == _contract_layers()
    assert ":start-at: [tool.importlinter]" in page  # the contract is quoted, not retyped
    assert "lint-imports" in page and "design\n" in (DOCS / "index.md").read_text(encoding="utf-8")
    for verdict in ("proved", "refuted", "undecided"):
        assert f"\n`{verdict}`\n: " in page, verdict


def test_package_docstring_lists_the_layers_in_the_contracts_order():
    import pe_symbolic

    doc = pe_symbolic.__doc__
    layers = doc.split("Layers", 1)[1].split("Beside them", 1)[0]
    floors = re.findall(r"^\* (?::mod:`~pe_symbolic\.|``)(\w+)", layers, flags=re.M)
    assert floors == _contract_layers()
    assert "lint-imports" in doc and "reference" in doc


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
    for script in SCRIPTS:  # each tutorial page carries its script's output, and the downloads
        page = (tmp_path / "html" / "auto_examples" / f"{script.stem}.html").read_text(encoding="utf-8")
        assert "All as expected." in page and f"{script.stem}.ipynb" in page
    for script in SCRIPTS:  # every card a real picture: the script's first figure, not the placeholder
        assert (tmp_path / "html" / "_images" / f"sphx_glr_{script.stem}_001.png").is_file(), script.name
    kernes = (tmp_path / "html" / "auto_examples" / "kernes.html").read_text(encoding="utf-8")
    assert "refuted by a numeric certificate, as expected" in kernes and "sphx_glr_kernes_001.png" in kernes
    # as a reader's browser shows it: no MathJax error, no leftover markup, nothing wider
    # than its column (docs/_ext/check_html.py, as `make docs` runs it; needs chromium)
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import check_html
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    if check_html.chromium() is not None:
        site = tmp_path / "html"
        assert check_html.problems(check_html.check_pages(site, check_html.site_pages(site))) == []
