"""A notebook with a proof in it, exported to HTML as ``docs/howto/notebooks.md`` says, typesets
without a network: nbconvert's ``HTMLExporter.mathjax_url`` pointed at a MathJax 3 copy next
to the page (the docs extras' ``sphinx-mathjax-offline``), checked in headless Chromium by
``docs/_ext/check_html.py``. Skipped without nbconvert, the MathJax copy or Chromium."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"

#: docs/howto/notebooks.md's offline.js, read from the page (the test runs what readers copy)
_HOWTO = (DOCS / "howto" / "notebooks.md").read_text(encoding="utf-8")
OFFLINE_JS = re.search(r"cat > mathjax/offline\.js <<'EOF'\n(.*?)\nEOF\n", _HOWTO, re.S).group(1) + "\n"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import check_html
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    if check_html.chromium() is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        pytest.skip("the docs extras (sphinx-mathjax-offline) are not installed")
    from pe_symbolic import theorems

    proof = theorems.get("rope.pair_relative").prove()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('pe.theorems.get("rope.pair_relative").prove()', execution_count=1)
    cell.outputs = [nbformat.v4.new_output("execute_result", execution_count=1,
                                           data={"text/html": proof._repr_html_(), "text/plain": "proof"})]
    nb.cells = [nbformat.v4.new_markdown_cell("The score depends on $n - m$ only."), cell]
    site = tmp_path_factory.mktemp("nb")
    shutil.copytree(Path(spec.origin).parent / "static" / "mathjax", site / "mathjax")
    (site / "mathjax" / "offline.js").write_text(OFFLINE_JS, encoding="utf-8")
    pages = {}
    for name, url in (("cdn.html", None), ("offline.html", "mathjax/offline.js"), ("proofs_only.html",
                                                                                     "mathjax/tex-chtml.js")):
        exporter = nbconvert.HTMLExporter() if url is None else nbconvert.HTMLExporter(mathjax_url=url)
        body, _ = exporter.from_notebook_node(nb)
        (site / name).write_text(body, encoding="utf-8")
        pages[name] = body
    findings = {r["page"]: r for r in check_html.check_pages(site, ["offline.html", "proofs_only.html"], timeout=120)}
    return pages, findings, check_html


def test_the_default_export_needs_a_network(exported):
    pages, _, _ = exported
    assert re.search(r'<script src="https://[^"]*mathjax', pages["cdn.html"], re.I)


def test_the_offline_export_loads_nothing_from_a_network(exported):
    pages, _, _ = exported
    for name in ("offline.html", "proofs_only.html"):
        assert not re.search(r'<script src="https?://[^"]*mathjax', pages[name], re.I), name
        assert r"\[" in pages[name]  # the proof's display math, for MathJax to typeset


@pytest.mark.parametrize("page", ["offline.html", "proofs_only.html"])
def test_the_offline_export_typesets_every_formula(exported, page):
    _, findings, check_html = exported
    assert check_html.problems([findings[page]]) == []  # no raw \[ ... \], no MathJax error
