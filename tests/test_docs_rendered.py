"""The rendered-docs check (``docs/_ext/check_html.py``, run by ``make docs``) finds what a
reader would see wrong: a MathJax error, leftover markup, a display or a table wider than its
column.

Checked on a small page typeset by the MathJax copy of the docs extras, in headless
Chromium (skipped where either is absent)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import check_html  # noqa: E402

sys.path.remove(str(DOCS / "_ext"))

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<script>window.MathJax = {tex: {environments: {psmallmatrix: ["\\\\left(\\\\begin{smallmatrix}",
  "\\\\end{smallmatrix}\\\\right)"]}}};</script>
<script defer src="mathjax/tex-chtml.js"></script>
<style>article { width: 600px; } mjx-container[display="true"] { overflow-x: auto; display: block; }</style>
</head><body><article>
<p>%s</p>
</article></body></html>
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if check_html.chromium() is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        pytest.skip("the docs extras (sphinx-mathjax-offline) are not installed")
    root = tmp_path_factory.mktemp("site")
    shutil.copytree(Path(spec.origin).parent / "static" / "mathjax", root / "mathjax")
    pages = {
        "clean.html": r"A rotation \(\begin{psmallmatrix}\cos a & -\sin a\\ \sin a & \cos a\end{psmallmatrix}\),"
                      r" a power 2**-24 in prose. \[\begin{aligned} x &= a + b \\ &= c\end{aligned}\]",
        "merror.html": r"An unknown environment \(\begin{foomatrix} 1 \end{foomatrix}\).",
        "markup.html": "Up to 221, **beyond that each band is sampled.",
        "wide.html": r"\[" + " + ".join(f"x_{{{i}}}" for i in range(200)) + r"\]",
        # the theme's table container scrolls sideways: the article never grows, the table does
        "table_wide.html": '<div style="overflow-x: auto"><table><tr><th>config</th>'
                           + "".join(f"<td>rope_scaling_key_{i}_long_unbreakable_value</td>" for i in range(12))
                           + "</tr></table></div>",
        "table_ok.html": '<div style="overflow-x: auto"><table><tr><th>config</th><td>llama3</td>'
                         "<td>a cell with words that wrap when the column is narrow</td></tr></table></div>",
    }
    for name, body in pages.items():
        (root / name).write_text(PAGE % body, encoding="utf-8")
    findings = {r["page"]: r for r in check_html.check_pages(root, sorted(pages), timeout=120)}
    return findings


def test_a_clean_page_passes(site):
    assert check_html.problems([site["clean.html"]]) == []


def test_a_mathjax_error_is_found(site):
    assert site["merror.html"]["merror"] and "foomatrix" in site["merror.html"]["merror"][0]


def test_leftover_bold_markup_is_found(site):
    assert any("**beyond" in x for x in site["markup.html"]["leftover"])


def test_a_display_wider_than_its_column_is_found(site):
    assert site["wide.html"]["overflow"]


def test_a_table_that_scrolls_sideways_is_found(site):
    found = site["table_wide.html"]["overflow"]
    assert found and found[0].startswith("a table is ") and "px column: config" in found[0]
    assert check_html.problems([site["table_ok.html"]]) == []


def test_docstring_math_breaks_at_relations():
    pytest.importorskip("sphinx")
    import doctest

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import pe_docs
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    assert doctest.testmod(pe_docs).failed == 0
