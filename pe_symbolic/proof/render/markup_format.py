"""A proof as MyST Markdown (the docs' theory pages), Markdown and HTML (what a notebook shows):
free text escaped, math as LaTeX (:mod:`~pe_symbolic.proof.render.latex_format`) broken into
lines that fit a docs column.

>>> from pe_symbolic import theorems
>>> myst(theorems.get("rot2.det").prove()).splitlines()[0]
'## `rot2.det`'
"""

from __future__ import annotations

import html as html_lib
from typing import Any

import sympy as sp

from .latex_format import _latex_lines, _statement_rows, _tex_display
from .printers import (DOCS_WIDTH, ProofLike, _assumption_text, _instance_pairs, _numbered, _scope_text,
                       _shown_parts, _step_title, _tex, prose_math, step_kind)

__all__ = ["html", "markdown", "myst"]


def _md_math(lines: list[str], rel: str = "", indent: str = "") -> list[str]:
    """A ``$$`` display of broken lines (``aligned`` when there is more than one)."""
    if len(lines) == 1:
        return [f"{indent}$$", f"{indent}{rel} {lines[0]}".rstrip() if rel else f"{indent}{lines[0]}",
                f"{indent}$$"]
    body = " \\\\\n".join(indent + x for x in _tex_display(lines, rel))
    return [f"{indent}$$", f"{indent}\\begin{{aligned}}", body, f"{indent}\\end{{aligned}}", f"{indent}$$"]


def _md_step_title(step: Any, index: int, notation: Any, link: bool) -> str:
    """A step's reason as Markdown: free text escaped, the cited lemma linked (MyST) or in
    code, its instance typeset as ``$...$`` math."""
    kind = step_kind(step.rule, index)
    if kind != "lemma":
        return _md_escape(_step_title(step, index, notation))
    lem = step.rule[len("lemma "):]
    head = "by " + (f"{{claim}}`{lem}`" if link and step.lemma == lem else f"`{lem}`")
    if step.instance:
        head += " with " + ", ".join("$%s \\mapsto %s$" % (
            _tex(sp.Symbol(k)) + ("" if args is None else "_{%s}" % ", ".join(_tex(a) for a in args)), _tex(v))
            for k, args, v in _instance_pairs(step, notation))
    return head + (f" — {_md_escape(step.why)}" if step.why else "")


def myst(proof: ProofLike, *, max_entries: int = 64, heading: str = "##", number: bool = False,
         width: int = DOCS_WIDTH, full: bool = True) -> str:
    """MyST Markdown for the docs' theory pages (``prf:theorem`` / ``prf:proof`` blocks).

    Free text (statement, source, labels, rules) is escaped so that it never turns into
    Markdown markup; math goes into ``$$`` blocks as LaTeX, broken into lines of about
    ``width`` characters (``aligned``) so that no display needs a scroll bar. Theorems are
    unnumbered unless ``number=True`` (each theorem has a page of its own, named by its id).
    """
    c = proof.claim
    esc = _md_escape
    out = [
        f"{heading} `{c.id}`",
        "",
        f":::{{prf:theorem}} {c.id}",
        f":label: thm-{c.id.replace('.', '-')}",
        *([] if number else [":nonumber:"]),
        "",
        esc(prose_math(c.statement)),
        "",
        "$$", r"\begin{aligned}", *_statement_rows(c, width, max_entries), r"\end{aligned}", "$$",
        "",
        f"*Source:* {esc(c.source)}",
        "",
        f"*Assumptions:* {esc(_assumption_text(proof))}",
        ":::",
        "",
        ":::{prf:proof}",
    ]
    out += _md_proof_body(proof, max_entries=max_entries, width=width, full=full, link=True)
    out += [":::", ""]
    return "\n".join(out)


def _md_proof_body(proof: ProofLike, *, max_entries: int, width: int, full: bool, link: bool) -> list[str]:
    c = proof.claim
    esc = _md_escape
    out: list[str] = []
    if c.notation:
        out += ["*Where* " + ", ".join(f"${_tex(sp.Symbol(n))} = {_tex(x)}$" for x, n in c.notation) + ".", ""]
    if proof.lemmas:
        out += ["*Uses:* " + ", ".join((f"{{claim}}`{lem}`" if link else f"`{lem}`") for lem in proof.lemmas)
                + ".", ""]
    shown = _shown_parts(proof.parts, full)
    for q in shown:
        part = proof.parts[q]
        eq = part.equation
        out += [f"**{esc(_numbered(q, prose_math(eq.label)))}** — *{part.verdict}*", ""]
        for n, step in enumerate(part.steps, start=1):
            title = _md_step_title(step, n - 1, c.notation, link)
            body = _latex_lines(step.expr, max_entries, c.notation, width)
            out += [f"{n}. {title}:", "", *_md_math(body, "" if n == 1 else "=", "   "), ""]
        if part.note:
            out += [f"*Note:* {esc(part.note)}", ""]
        if part.counterexample:
            cex = ", ".join(f"{k} = {v}" for k, v in part.counterexample.items())
            out += [f"Counterexample: `{cex}`", ""]
    if len(shown) < len(proof.parts):
        rest = [p for q, p in enumerate(proof.parts) if q not in set(shown)]
        out += [f"*… and {len(rest)} more part(s): {', '.join(sorted({p.verdict for p in rest}))}.*", ""]
    out += [
        f"**Verdict: {proof.verdict}** in {proof.elapsed:.2f} s. "
        + (str(proof.spot_check) + " (informative only)." if proof.spot_check else ""),
    ]
    return out


def markdown(proof: ProofLike, *, max_entries: int = 64, width: int = DOCS_WIDTH, full: bool = False) -> str:
    """Markdown with ``$$`` math (what a Jupyter notebook shows for
    a proof's ``_repr_markdown_``): verdict, statement, steps with reasons.

    >>> from pe_symbolic import theorems
    >>> print(markdown(theorems.get("rot2.det").prove()).splitlines()[0])  # doctest: +ELLIPSIS
    **rot2.det**: **PROVED** in ... s
    """
    c = proof.claim
    out = [f"**{_md_escape(c.id)}{_md_escape(_scope_text(proof))}**: **{proof.verdict.upper()}** "
           f"in {proof.elapsed:.2f} s", "", _md_escape(prose_math(c.statement)), "",
           "$$", r"\begin{aligned}", *_statement_rows(c, width, max_entries), r"\end{aligned}", "$$", "",
           f"*Source:* {_md_escape(c.source)}. *Assumptions:* {_md_escape(_assumption_text(proof))}.", ""]
    out += _md_proof_body(proof, max_entries=max_entries, width=width, full=full, link=False)
    return "\n".join(out)


def _html_math(lines: list[str], rel: str = "") -> str:
    if len(lines) == 1:
        tex = f"{rel} {lines[0]}".strip()
    else:
        tex = "\\begin{aligned}" + " \\\\ ".join(_tex_display(lines, rel)) + "\\end{aligned}"
    return '<div class="pe-math">\\[' + html_lib.escape(tex, quote=False) + "\\]</div>"


def html(proof: ProofLike, *, max_entries: int = 64, width: int = DOCS_WIDTH, full: bool = False) -> str:
    r"""HTML with MathJax math (``\[...\]``; what a Jupyter notebook shows for
    a proof's ``_repr_html_``): verdict, statement, then each step's
    reason and expression, long expressions broken into lines.

    >>> from pe_symbolic import theorems
    >>> out = html(theorems.get("rot2.det").prove())
    >>> out.startswith('<div class="pe-proof">') and "PROVED" in out
    True
    """
    c = proof.claim
    esc = html_lib.escape
    colour = {"proved": "#1a7f37", "refuted": "#cf222e"}.get(proof.verdict, "#9a6700")
    out = ['<div class="pe-proof">',
           f'<p><code>{esc(c.id)}</code>{esc(_scope_text(proof))}: <strong style="color:{colour}">'
           f"{proof.verdict.upper()}</strong> in {proof.elapsed:.2f} s</p>",
           f"<p>{esc(prose_math(c.statement))}</p>",
           '<div class="pe-math">\\[' + html_lib.escape("\\begin{aligned}" + "\n".join(
               _statement_rows(c, width, max_entries)) + "\\end{aligned}", quote=False) + "\\]</div>",
           f"<p><em>Source:</em> {esc(c.source)}. <em>Assumptions:</em> {esc(_assumption_text(proof))}.</p>"]
    if c.notation:
        out.append("<p><em>Where</em> " + ", ".join(
            esc(f"\\({_tex(sp.Symbol(n))} = {_tex(x)}\\)", quote=False) for x, n in c.notation) + ".</p>")
    if proof.lemmas:
        out.append("<p><em>Uses:</em> " + ", ".join(f"<code>{esc(x)}</code>" for x in proof.lemmas) + ".</p>")
    shown = _shown_parts(proof.parts, full)
    for q in shown:
        part = proof.parts[q]
        eq = part.equation
        out.append(f"<p><strong>{esc(_numbered(q, prose_math(eq.label)))}</strong> — <em>{part.verdict}</em></p>")
        out.append("<ol>")
        for n, step in enumerate(part.steps):
            title = _step_title(step, n, c.notation)
            if step.instance:
                inst = ", ".join("\\(%s \\mapsto %s\\)" % (
                    _tex(sp.Symbol(k)) + ("" if a is None else "_{%s}" % ", ".join(_tex(x) for x in a)), _tex(v))
                    for k, a, v in _instance_pairs(step, c.notation))
                title_html = esc(f"by {step.rule[len('lemma '):]}") + " with " + esc(inst, quote=False) + (
                    esc(f" — {step.why}") if step.why else "")
            else:
                title_html = esc(title)
            body = _latex_lines(step.expr, max_entries, c.notation, width)
            out.append(f"<li>{title_html}{_html_math(body, '' if n == 0 else '=')}</li>")
        out.append("</ol>")
        if part.note:
            out.append(f"<p><em>Note:</em> {esc(part.note)}</p>")
        if part.counterexample:
            out.append("<p>Counterexample: <code>" + esc(", ".join(
                f"{k} = {v}" for k, v in part.counterexample.items())) + "</code></p>")
    if len(shown) < len(proof.parts):
        out.append(f"<p><em>… and {len(proof.parts) - len(shown)} more part(s) "
                   "(render.html(proof, full=True) shows them).</em></p>")
    if proof.spot_check is not None:
        out.append(f"<p>{esc(str(proof.spot_check))} (informative only; numbers prove nothing).</p>")
    out.append("</div>")
    return "\n".join(out)


_MD_SPECIAL = set("\\`*_[]<>$|{}")


def _md_escape(s: str) -> str:
    r"""Backslash-escape the characters that Markdown/MyST would read as markup.

    >>> _md_escape("a_i * b | c")
    'a\\_i \\* b \\| c'
    """
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in s)
