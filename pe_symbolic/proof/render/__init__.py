"""Renderings of a :class:`~pe_symbolic.proof.Proof`: plain text, LaTeX, MyST, Markdown and
HTML (for notebooks), and the JSON certificate.

Nothing is cut: long expressions are wrapped (text) or broken into lines (LaTeX, MyST,
Markdown, HTML; a sum term by term, a product factor by factor) so that they fit a
terminal, a page or a docs column. Every rendering shows the claim's typeset statement
(:func:`statement_latex`: its author's LaTeX, or its equations).

One proof object, many renderings; nothing here re-derives or re-proves anything. The
functions read the proof's attributes only (:class:`~pe_symbolic.proof.render.ProofLike`:
this package sits below :mod:`pe_symbolic.proof.result` and imports no proof class).

One module a target, on what they share (:mod:`~pe_symbolic.proof.render.printers`: SymPy's
printers in reading order, step titles, prose read as mathematics):
:mod:`~pe_symbolic.proof.render.text_format` (the terminal),
:mod:`~pe_symbolic.proof.render.latex_format` (LaTeX, and the typeset statement every rendering
shows), :mod:`~pe_symbolic.proof.render.markup_format` (MyST, Markdown, HTML) and
:mod:`~pe_symbolic.proof.render.json_format` (the JSON certificate). This package's own names are
the public API of them all.

>>> from pe_symbolic import theorems
>>> from pe_symbolic.proof import render
>>> print(render.text(theorems.get("rope.efficient_form").prove(), width=72))  # doctest: +ELLIPSIS
rope.efficient_form: PROVED in ... s
  The elementwise form x * cos(m theta) + rotate(x) * sin(m theta) equals
  the matrix form R(m) x, ...
...
"""

from __future__ import annotations

from typing import Any

from .json_format import CERTIFICATE_FORMAT, certificate, json_text
from .latex_format import display_lines, latex, statement_latex
from .markup_format import html, markdown, myst
from .printers import DOCS_WIDTH, LATEX_WIDTH, MAX_PARTS, ProofLike, prose_math, step_kind, wrap_math
from .text_format import text

__all__ = ["CERTIFICATE_FORMAT", "DOCS_WIDTH", "FORMATS", "LATEX_WIDTH", "MAX_PARTS", "ProofLike", "certificate",
           "display_lines", "html", "json_text", "latex", "markdown", "myst", "prose_math", "render",
           "statement_latex", "step_kind", "text", "wrap_math"]


#: Output formats of :func:`render`.
FORMATS = ("text", "latex", "json")


def render(proof: ProofLike, fmt: str = "text", **kw: Any) -> str:
    """Render ``proof`` in one of :data:`FORMATS`."""
    from ..._validate import check_choice

    fmt = check_choice("format", fmt, FORMATS)
    if fmt == "text":
        return text(proof, **kw)
    if fmt == "latex":
        return latex(proof, **kw)
    return json_text(proof)
