"""Proofs read as mathematics in every format: nothing cut, nothing off the page.

The terminal wraps long expressions (no ``…``), ``full=True`` / ``pe-derive --full`` shows
every part, the LaTeX document compiles with pdflatex without a single overfull box (skipped
where pdflatex is absent), and a :class:`~pe_symbolic.proof.Proof` shows as mathematics in a
notebook (``_repr_html_`` / ``_repr_markdown_`` / ``_repr_latex_``).
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import sympy as sp

from pe_symbolic import theorems
from pe_symbolic.proof import Claim, Equation, prove, render
from pe_symbolic.proof.render import latex_format, printers

#: Claims whose chains hold the longest expressions (sums of products, 8x8 matrices,
#: exact tables, products of four brackets).
LONG = ["rope.relative", "translation.group", "sinusoidal.dot", "precision.angle", "denk.r_equals_lambda",
        "sphere.tables", "family.relative", "yarn.relative", "rope.two_d_example", "mrope.homomorphism",
        "proportional.relative", "yarn.correction_dim"]


@pytest.mark.parametrize("id_", LONG)
def test_text_wraps_to_the_width_and_cuts_nothing(id_):
    proof = theorems.get(id_).prove()
    for width in (80, 120):
        out = proof.to_text(width=width)
        assert "…" not in out
        too_wide = [line for line in out.splitlines() if len(line) > width]
        # only a single unbreakable word (a long identifier) may stick out
        assert all(" " not in line.strip() for line in too_wide), too_wide


def test_wrapping_keeps_every_character():
    e = sum(sp.Symbol(f"x_{i}") * sp.cos(i * sp.Symbol("t")) for i in range(40))
    one = printers._one_line(e)
    lines = render.wrap_math(one, 50)
    assert all(len(x) <= 50 for x in lines)
    assert "".join(lines).replace(" ", "") == one.replace(" ", "")
    assert all(x.startswith(("+", "-")) for x in lines[1:])  # a sum breaks between its terms


#: What SymPy's 2-D pretty printer draws with (brackets, bars, fraction rules, its product dot).
DRAWN = set("│⎛⎜⎝⎞⎟⎠⎡⎢⎣⎤⎥⎦─⋅")


@pytest.mark.parametrize("id_", ["rot2.det", "pair.translation", "translation.identity", "sinusoidal.dot",
                                 "rope.pair_relative", "kernes.binary", "shaw.clipped_shift_invariant",
                                 "sphere.tables", "yarn.blend", "precision.angle"])
def test_one_notation_in_every_proof(id_):
    """A proof in the terminal is written in the one-line notation of its step reasons
    (``sin(u)**2 -> 1 - cos(u)**2``), small proofs as large ones: never 2-D drawing beside it."""
    out = theorems.get(id_).prove().to_text()
    assert not DRAWN & set(out), sorted(DRAWN & set(out))


def test_small_proofs_read_like_large_ones():
    small = theorems.get("rot2.det").prove().to_text()
    assert "sin(a)**2 + cos(a)**2 - 1" in small and "det([[cos(a), -sin(a)], [sin(a), cos(a)]]) - 1" in small
    large = theorems.get("translation.identity").prove().to_text()
    assert "Σ[" in large and "**" in large


def test_2d_drawing_on_request_is_all_or_nothing():
    small = theorems.get("rot2.det").prove().to_text(pretty=True)
    assert "│" in small and "sin(a)**2 + cos(a)**2" not in small  # every step drawn
    large = theorems.get("translation.identity").prove().to_text(pretty=True)
    assert "Σ[" in large and not DRAWN & set(large)  # a step does not fit: no step drawn


def test_the_cli_writes_every_proof_in_one_notation(capsys):
    from pe_symbolic.cli.derive import main

    assert main(["prove", "rot2.det", "translation.identity", "rope.relative"]) == 0
    out = capsys.readouterr().out
    assert not DRAWN & set(out) and "sin(a)**2" in out


def test_parts_are_elided_only_on_request():
    proof = theorems.get("rope.relative").prove(64)
    short = proof.to_text()
    assert "more" in short and "--full" in short
    full = proof.to_text(full=True)
    assert "more part" not in full and "(32)" in full
    assert all(f"({q})" in full for q in range(1, 33))


def test_the_cli_shows_every_part_with_full_and_in_a_file(capsys):
    from pe_symbolic.cli.derive import main

    assert main(["prove", "rope.relative", "--d", "64", "--no-generic", "--full"]) == 0
    out = capsys.readouterr().out
    assert "more part" not in out and "(32)" in out and "…" not in out
    # captured output is not a terminal: every part too
    assert main(["prove", "rope.relative", "--d", "64", "--no-generic"]) == 0
    assert "more part" not in capsys.readouterr().out


def test_columns_sets_the_cli_width(capsys, monkeypatch):
    from pe_symbolic.cli.derive import main

    monkeypatch.setenv("COLUMNS", "70")
    assert main(["prove", "sinusoidal.dot"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines() if not line.startswith(("==", "summary"))) <= 70


def test_lambda_instances_read_as_indexed_values():
    out = theorems.get("yarn.relative").prove().to_text()
    assert "Lambda(" not in out and "θ[j] ↦" in out
    tex = theorems.get("yarn.relative").prove().to_latex()
    assert "Lambda" not in tex and r"\theta_{j} \mapsto" in tex


def test_a_claim_carries_a_typeset_statement():
    x = sp.Symbol("x", real=True)
    eq = (Equation(sp.sin(2 * x), 2 * sp.sin(x) * sp.cos(x)),)
    default = Claim("demo.double", "sin 2x = 2 sin x cos x", eq)
    assert render.statement_latex(default) == [
        r"\sin{\left(2 x \right)} = 2 \sin{\left(x \right)} \cos{\left(x \right)}"]
    given = Claim("demo.double", "sin 2x = 2 sin x cos x", eq, latex=r"\sin 2x = 2\sin x\cos x")
    proof = prove(given)
    for out in (proof.to_latex(), render.myst(proof), proof._repr_html_(), proof._repr_markdown_()):
        assert r"\sin 2x = 2\sin x\cos x" in out
    with pytest.raises(ValueError, match="latex=3 must be a string"):
        Claim("demo.double", "s", eq, latex=3)


def test_latex_statements_are_math_not_escaped_ascii():
    tex = theorems.get("rope.relative").prove().to_latex()
    assert r"\textless" not in tex and r"\textgreater" not in tex
    head = tex.split(r"\subparagraph")[0]
    assert r"\langle R(m)\,q,\ R(n)\,k \rangle" in head  # the statement, typeset by its author
    assert r"\sum_{j=0}^{h - 1}" in tex  # the equations, typeset in the proof's parts


def test_long_sums_break_term_by_term_in_latex():
    lines = latex_format._tex_lines(sp.expand((sp.Symbol("a") + sp.Symbol("b") + sp.Symbol("c") + 1) ** 4), 40)
    assert len(lines) > 3
    assert all(x.lstrip().startswith(("+", "-")) for x in lines[1:])


pdflatex = shutil.which("pdflatex")


@pytest.mark.skipif(pdflatex is None, reason="pdflatex is not installed (apt-get install texlive-latex-extra)")
def test_standalone_latex_compiles_without_overfull_boxes(tmp_path):
    # every registered theorem (what `pe-derive all --format latex --standalone` prints), so a
    # new claim's long source or statement cannot run into the margin unnoticed
    body = "\n\n".join(render.latex(th.prove()) for th in theorems.all())
    body += "\n\n" + render.latex(theorems.get("translation.identity").prove(16))
    (tmp_path / "proofs.tex").write_text(latex_format._PREAMBLE + body + "\n\\end{document}\n", encoding="ascii")
    run = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "proofs.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=240)
    log = (tmp_path / "proofs.log").read_text(encoding="latin-1")
    assert run.returncode == 0, log[-3000:]
    overfull = re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)
    assert overfull == [], overfull


# ---------------------------------------------------------------------------------------
# notebooks
# ---------------------------------------------------------------------------------------
def test_proof_reprs_show_verdict_statement_and_steps():
    proof = theorems.get("rope.pair_relative").prove()
    html = proof._repr_html_()
    assert "PROVED" in html and "<ol>" in html and "\\[" in html
    assert proof.claim.statement.split()[0] in html
    for step in proof.parts[0].steps[1:]:
        if not step.lemma:
            assert step.rule.split()[0] in html
    md = proof._repr_markdown_()
    assert md.startswith("**rope.pair\\_relative**: **PROVED**") and "$$" in md
    tex = proof._repr_latex_()
    assert r"\begin{align*}" in tex and "\\documentclass" not in tex


def test_a_proof_renders_in_an_executed_notebook(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import pe_symbolic as pe\n"
        "pe.theorems.get('rope.pair_relative').prove()")]
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}})
    client.execute()
    outputs = nb.cells[0].outputs
    assert len(outputs) == 1 and outputs[0].output_type == "execute_result"
    data = outputs[0].data
    assert {"text/html", "text/markdown", "text/latex", "text/plain"} <= set(data)
    assert "PROVED" in data["text/html"] and "\\[" in data["text/html"]
    assert "Proof(" not in data["text/html"]
