"""Every registered theorem states itself in typeset mathematics (``@theorem(..., latex=...)``).

The statement is display only: it travels with the claim into every rendering, is
well-formed LaTeX that both pdflatex and MathJax accept, fits a page, and never enters a
certificate (re-checking reads the equations, not the typesetting).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from pe_symbolic import theorems
from pe_symbolic.proof import render
from pe_symbolic.proof.render import latex_format
from pe_symbolic.theorems import recheck_certificate

THEOREMS = theorems.all()
IDS = [th.id for th in THEOREMS]

#: Environments a statement may use: amsmath's matrices (MathJax knows them too).
ENVIRONMENTS = {"pmatrix", "bmatrix", "matrix", "smallmatrix", "cases"}


def _top_level(tex: str) -> str:
    """``tex`` with every environment's body removed (its ``&`` and ``\\\\`` are its own)."""
    return re.sub(r"\\begin\{(\w+)\}.*?\\end\{\1\}", " ", tex, flags=re.S)


def test_every_registered_theorem_has_a_typeset_statement():
    missing = [th.id for th in THEOREMS if not th.latex.strip()]
    assert missing == [], f"no latex= in @theorem(...) for: {missing}"


@pytest.mark.parametrize("id_", IDS)
def test_the_statement_is_well_formed_latex(id_):
    tex = theorems.get(id_).latex
    assert tex.isascii(), sorted({c for c in tex if not c.isascii()})  # pdflatex sets ASCII only
    assert "$" not in tex and "\n" not in tex and "\\[" not in tex and "\\(" not in tex
    plain = tex.replace("\\\\", "").replace("\\{", "").replace("\\}", "")
    depth = 0
    for ch in plain:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, f"a closing brace without an opening one in {tex!r}"
    assert depth == 0, f"unbalanced braces in {tex!r}"
    assert len(re.findall(r"\\left\b", tex)) == len(re.findall(r"\\right\b", tex))
    for size in ("big", "Big", "bigg", "Bigg"):
        assert len(re.findall(rf"\\{size}l\b", tex)) == len(re.findall(rf"\\{size}r\b", tex)), size
    opened = re.findall(r"\\begin\{(\w+)\}", tex)
    assert opened == re.findall(r"\\end\{(\w+)\}", tex)
    assert set(opened) <= ENVIRONMENTS, set(opened) - ENVIRONMENTS
    # the renderers put each display line after one alignment point: no '&' of its own, and
    # a line break only between display lines (render.display_lines cuts there)
    assert "&" not in _top_level(tex)
    lines = render.display_lines(tex)
    assert lines and all(lines) and " \\\\ ".join(lines) == tex
    # MathJax sets \text{...} without text macros: no \_ or other escapes inside it
    for body in re.findall(r"\\text\{([^{}]*)\}", tex):
        assert "\\" not in body and "_" not in body and "^" not in body, body


def test_the_claim_and_its_proofs_carry_the_statement():
    th = theorems.get("translation.identity")
    assert th.claim().latex == th.latex
    assert th.claim(4).latex == th.latex  # a concrete d as well
    proof = theorems.get("rot2.det").prove()
    assert proof.claim.latex == theorems.get("rot2.det").latex
    assert render.statement_latex(proof.claim) == render.display_lines(proof.claim.latex)
    for out in (proof.to_latex(), render.myst(proof), proof._repr_html_(), proof._repr_markdown_()):
        assert r"\det \mathop{\mathrm{rot2}}(a)" in out


def test_a_theorem_rejects_a_statement_that_is_not_text():
    th = theorems.get("rot2.det")
    with pytest.raises(TypeError, match="latex=3 must be a string"):
        theorems.Theorem(th.id, th.title, th.source, th.build, latex=3)


def test_the_statement_is_not_part_of_a_certificate():
    proof = theorems.get("rope.pair_relative").prove()
    cert = render.certificate(proof)
    assert "latex" not in json.dumps(cert["claim"])
    assert proof.claim.latex.split()[0] not in json.dumps(cert)
    again = recheck_certificate(cert)
    assert again.verdict == "proved"
    assert again.claim.latex == ""  # rebuilt from the certificate's data, which has none
    assert again.claim.equations == proof.claim.equations


pdflatex = shutil.which("pdflatex")


@pytest.mark.skipif(pdflatex is None, reason="pdflatex is not installed (apt-get install texlive-latex-extra)")
def test_every_statement_compiles_and_fits_the_page(tmp_path):
    """The statements as the standalone LaTeX sets them (``pe-derive ... --format latex
    --standalone``): one ``align*`` each, all in one document, compiled once."""
    body = []
    for th in THEOREMS:
        body += [r"\paragraph{\texttt{%s}}" % latex_format._tex_escape(th.id), r"\begin{align*}",
                 "\n".join(latex_format._statement_rows(th.claim(), render.LATEX_WIDTH, 64)), r"\end{align*}"]
    (tmp_path / "statements.tex").write_text(latex_format._PREAMBLE + "\n".join(body) + "\n\\end{document}\n",
                                             encoding="ascii")
    run = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "statements.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=240)
    log = (tmp_path / "statements.log").read_text(encoding="latin-1")
    assert run.returncode == 0, log[-3000:]
    assert not re.search(r"^! ", log, flags=re.M), log[-3000:]
    overfull = re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)
    assert overfull == [], overfull
