"""Renderings a reader can follow: Unicode text, LaTeX that compiles, nothing raw."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from pe_symbolic import theorems
from pe_symbolic.proof import render
from pe_symbolic.proof.render import printers

READER_VIEW = ["translation.identity", "rope.relative", "translation.group", "sinusoidal.dot",
               "translation.independent", "rope.pair_relative", "rot2.det"]


@pytest.mark.parametrize("id_", READER_VIEW)
def test_text_has_no_raw_sympy(id_):
    out = theorems.get(id_).prove().to_text()
    for raw in ("Derivative(", "Determinant(Matrix", "ImmutableDenseMatrix", "-m + n", "KroneckerDelta(",
                "Piecewise(", "ExprCondPair"):
        assert raw not in out, raw
    assert "PROVED" in out


def test_text_names_the_cited_lemmas_and_the_notation():
    out = theorems.get("translation.identity").prove().to_text()
    assert "uses: pair.translation" in out
    assert "where ω_i = b**(-i/h)" in out
    assert "by pair.translation [ω ↦ ω_i]" in out


def test_n_minus_m_reads_as_written():
    m, n = sp.symbols("m n", real=True)
    assert printers._sstr(n - m) == "n - m"
    assert printers._sstr(sp.Symbol("h") - 1) == "h - 1"


def test_a_concrete_d_proof_is_summarised():
    out = theorems.get("rope.relative").prove(64).to_text()
    assert "more" in out and out.count("(") < 2000
    assert "(32)" in out  # the last part is shown


def test_latex_fragment_and_standalone_document():
    proof = theorems.get("rope.relative").prove()
    frag = render.latex(proof)
    assert "\\documentclass" not in frag and "\\begin{align*}" in frag
    # no ASCII < or > in text mode (they print as inverted punctuation in LaTeX's default fonts)
    text_mode = re.sub(r"\\\[.*?\\\]|\\begin\{align\*\}.*?\\end\{align\*\}|\$[^$]*\$", "", frag, flags=re.S)
    assert "<" not in text_mode and ">" not in text_mode
    doc = render.latex(proof, standalone=True)
    assert doc.startswith("\\documentclass") and doc.rstrip().endswith("\\end{document}")
    assert doc.count("\\begin{align*}") == doc.count("\\end{align*}")
    # braces balance
    body = doc.replace("\\{", "").replace("\\}", "")
    assert body.count("{") == body.count("}")


def test_latex_reads_the_statements_ascii_mathematics_as_mathematics():
    """``<R(m)q, R(n)k>`` in a statement or a part's label is set with angle brackets (as the
    docs' pages show it), never as the ASCII ``$<$R(m)q, R(n)k$>$`` nor with ``\\^{}T``."""
    frag = render.latex(theorems.get("rope.relative").prove())
    head = frag.split("\n", 1)[0]
    assert r"$\langle$R(m)q, R(n)k$\rangle$ = $\langle$q, R(n$-$m)k$\rangle$" in head
    assert r"R(m)\textsuperscript{T} R(n)" in head
    assert "$<$" not in head and "$>$" not in head and r"\^{}T" not in frag
    labels = [line for line in frag.splitlines() if line.startswith(r"\subparagraph")]
    assert labels and all("$<$" not in x for x in labels)
    assert any(r"$\langle$q, R(n$-$m)k$\rangle$" in x for x in labels)


@pytest.mark.parametrize("id_", ["translation.identity", "rope.relative", "translation.group",
                                 "family.relative", "yarn.relative", "longrope.relative"])
def test_latex_needs_no_unicode_support(id_):
    """pdflatex stops at the first character it cannot set (an ω in text mode): the LaTeX
    rendering is plain ASCII, Greek letters in text as math."""
    doc = render.latex(theorems.get(id_).prove(), standalone=True)
    assert doc.isascii(), sorted({c for c in doc if not c.isascii()})


def test_myst_links_cited_lemmas():
    md = render.myst(theorems.get("translation.identity").prove())
    assert "{claim}`pair.translation`" in md
