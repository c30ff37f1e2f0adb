"""Renderings of a :class:`~pe_symbolic.proof.Proof`: plain text, LaTeX, MyST, and the JSON
certificate.

One proof object, many renderings; nothing here re-derives or re-proves anything. The
functions read the proof's attributes only (this module sits below
:mod:`pe_symbolic.proof.result` and imports no proof class).

>>> from pe_symbolic import theorems
>>> from pe_symbolic.proof import render
>>> print(render.text(theorems.get("rope.efficient_form").prove(), max_chars=60))  # doctest: +ELLIPSIS
rope.efficient_form: PROVED in ... s
  The elementwise form x * cos(m theta) + rotate(x) * sin(m theta) equals the matrix form R(m) x, ...
...
"""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING, Any

import sympy as sp

from .claims import DIFFERENCE, LHS
from .rules import RULES

if TYPE_CHECKING:  # pragma: no cover
    from .result import Proof

__all__ = ["CERTIFICATE_FORMAT", "FORMATS", "certificate", "json_text", "latex", "myst", "render", "step_kind",
           "text"]

#: Format tag of the JSON certificates this version writes and reads.
CERTIFICATE_FORMAT = "pe_symbolic.certificate/2"

#: Output formats of :func:`render`.
FORMATS = ("text", "latex", "json")


def _short(e: sp.Basic, max_chars: int) -> str:
    s = sp.sstr(e) if not isinstance(e, sp.MatrixBase) else _matrix_text(e)
    s = " ".join(s.split())  # one line, whatever sstr did with nested matrices
    if len(s) <= max_chars:
        return s
    return s[: max_chars - 3].rstrip() + "..."


def _matrix_text(e: sp.MatrixBase) -> str:
    if e.is_zero_matrix:
        return f"0 ({e.rows}x{e.cols} zero matrix)"
    if e.cols == 1:
        return "[" + ", ".join(sp.sstr(x) for x in e) + "]" + f" ({e.rows}x1)"
    return "[" + "; ".join(", ".join(sp.sstr(x) for x in e.row(r)) for r in range(e.rows)) + f"] ({e.rows}x{e.cols})"


def _assumption_text(proof: Proof) -> str:
    bits = []
    for s in proof.claim.symbols:
        a = s.assumptions0
        props = [p for p in ("integer", "even", "positive", "nonnegative", "real") if a.get(p)]
        # keep the strongest few for reading; the certificate holds them all
        if "integer" in props and "real" in props:
            props.remove("real")
        if "positive" in props and "nonnegative" in props:
            props.remove("nonnegative")
        bits.append(f"{s.name} {' '.join(props) if props else 'complex'}")
    bits += [sp.sstr(a) for a in proof.claim.assumptions]
    return "; ".join(bits) if bits else "none"


def text(proof: Proof, *, max_chars: int = 300, width: int = 92) -> str:
    """Plain-text rendering for the terminal; long expressions are shortened to ``max_chars``."""
    c = proof.claim
    out = [f"{c.id}: {proof.verdict.upper()} in {proof.elapsed:.2f} s"]
    out += textwrap.wrap(c.statement, width, initial_indent="  ", subsequent_indent="  ")
    out.append(f"  source: {c.source}")
    out.append(f"  assumptions: {_assumption_text(proof)}")
    for q, part in enumerate(proof.parts, start=1):
        label = part.equation.label or f"{_short(part.equation.lhs, 60)} = {_short(part.equation.rhs, 60)}"
        out.append(f"  ({q}) {label}: {part.verdict}")
        for n, step in enumerate(part.steps, start=1):
            out.append(f"      [{n}] {step.rule}")
            out.append(f"          {_short(step.expr, max_chars)}")
        if part.note:
            out.extend(textwrap.wrap(f"note: {part.note}", width, initial_indent="      ",
                                     subsequent_indent="        "))
        if part.counterexample:
            cex = ", ".join(f"{k} = {v}" for k, v in part.counterexample.items())
            out.append(f"      counterexample: {cex}")
    if proof.spot_check is not None:
        out.append(f"  {proof.spot_check} (informative only; numbers prove nothing)")
    return "\n".join(out)


def _latex_expr(e: sp.Basic, max_entries: int) -> str:
    if isinstance(e, sp.MatrixBase):
        if e.is_zero_matrix:
            return r"\mathbf{0}_{%d\times %d}" % e.shape
        if e.rows * e.cols > max_entries:
            return r"\text{(}%d\times %d\text{ matrix; see the JSON certificate)}" % e.shape
    return sp.latex(e)


def latex(proof: Proof, *, max_entries: int = 64) -> str:
    """LaTeX rendering: statement, then every step as displayed math with its reason."""
    c = proof.claim
    lines = [
        r"\paragraph{%s} %s" % (_tex_escape(c.id), _tex_escape(c.statement)),
        r"\emph{Source:} %s. \emph{Verdict:} \textbf{%s} (%.2f s)." % (
            _tex_escape(c.source), proof.verdict, proof.elapsed),
    ]
    for q, part in enumerate(proof.parts, start=1):
        eq = part.equation
        lines.append(r"\subparagraph{(%d) %s} \textbf{%s}" % (q, _tex_escape(eq.label), part.verdict))
        lines.append(r"\[ %s = %s \]" % (_latex_expr(eq.lhs, max_entries), _latex_expr(eq.rhs, max_entries)))
        lines.append(r"\begin{align*}")
        rows = []
        for step in part.steps:
            rows.append(r"&= %s && \text{%s}" % (_latex_expr(step.expr, max_entries), _tex_escape(step.rule)))
        lines.append(" \\\\\n".join(rows))
        lines.append(r"\end{align*}")
        if part.counterexample:
            lines.append(r"Counterexample: %s." % _tex_escape(
                ", ".join(f"{k} = {v}" for k, v in part.counterexample.items())))
    return "\n".join(lines)


def myst(proof: Proof, *, max_entries: int = 64, heading: str = "##", number: bool = False) -> str:
    """MyST Markdown for the docs' theory pages (``prf:theorem`` / ``prf:proof`` blocks).

    Free text (statement, source, labels, rules) is escaped so that it never turns into
    Markdown markup; math goes into ``$$`` blocks as LaTeX. Theorems are unnumbered unless
    ``number=True`` (each theorem has a page of its own, named by its id).
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
        esc(c.statement),
        "",
        f"*Source:* {esc(c.source)}",
        "",
        f"*Assumptions:* {esc(_assumption_text(proof))}",
        ":::",
        "",
        ":::{prf:proof}",
    ]
    for q, part in enumerate(proof.parts, start=1):
        eq = part.equation
        out += [
            f"**({q}) {esc(eq.label)}** — *{part.verdict}*",
            "",
            "$$",
            f"{_latex_expr(eq.lhs, max_entries)} = {_latex_expr(eq.rhs, max_entries)}",
            "$$",
            "",
        ]
        for n, step in enumerate(part.steps, start=1):
            out += [f"{n}. {esc(step.rule)}:", "", "   $$", f"   {_latex_expr(step.expr, max_entries)}", "   $$", ""]
        if part.counterexample:
            cex = ", ".join(f"{k} = {v}" for k, v in part.counterexample.items())
            out += [f"Counterexample: `{cex}`", ""]
    out += [
        f"**Verdict: {proof.verdict}** in {proof.elapsed:.2f} s. "
        + (str(proof.spot_check) + " (informative only)." if proof.spot_check else ""),
        ":::",
        "",
    ]
    return "\n".join(out)


def step_kind(rule: str, index: int) -> str:
    """How a step's rule is read: ``"start"``, ``"rule"``, ``"lemma"`` or ``"reason"``."""
    if index == 0 and rule in (DIFFERENCE, LHS):
        return "start"
    if rule in RULES:
        return "rule"
    if rule.startswith("lemma "):
        return "lemma"
    return "reason"


def certificate(proof: Proof) -> dict[str, Any]:
    """A JSON-ready certificate: the claim it binds, and every step, as SymPy ``srepr`` data.

    The certificate holds the symbol table (each name once, with its assumptions), the
    equations, the relational assumptions and the statement; for a registered theorem also
    its id and ``d``. :func:`pe_symbolic.proof.certificates.recheck` (and ``pe-derive
    check``) re-checks it from this data alone, parsing expressions with a whitelist
    parser: nothing in a certificate is ever evaluated as code.
    """
    c = proof.claim
    extra = dict(proof.extra)
    return {
        "format": CERTIFICATE_FORMAT,
        "sympy_version": sp.__version__,
        "claim": {
            "id": c.id,
            "registered": bool(extra.pop("registered", False)),
            "d": extra.pop("d", None),
            "statement": c.statement,
            "source": c.source,
            "symbols": [
                {"name": name, "assumptions": {k: bool(v) for k, v in sorted(s.assumptions0.items())}}
                for name, s in c.symbol_table.items()
            ],
            "assumptions": [sp.srepr(a) for a in c.assumptions],
            "equations": [
                {"label": eq.label, "lhs": sp.srepr(eq.lhs), "rhs": sp.srepr(eq.rhs)} for eq in c.equations
            ],
        },
        "verdict": proof.verdict,
        "elapsed_s": round(proof.elapsed, 6),
        "parts": [
            {
                "verdict": p.verdict,
                "note": p.note,
                "counterexample": dict(p.counterexample) if p.counterexample else None,
                "point": (None if not p.point else
                          {s.name: sp.srepr(v) for s, v in sorted(p.point.items(), key=lambda kv: kv[0].name)}),
                "spot_check": (
                    None if p.spot_check is None else
                    {"points": p.spot_check.points, "dps": p.spot_check.dps,
                     "max_abs_difference": p.spot_check.max_abs_difference}
                ),
                "steps": [_step_data(s, q) for q, s in enumerate(p.steps)],
            }
            for p in proof.parts
        ],
        "extra": extra,
    }


def _step_data(step: Any, index: int) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": step_kind(step.rule, index), "rule": step.rule, "expr": sp.srepr(step.expr)}
    if step.instance:
        out["instance"] = {name: sp.srepr(v) for name, v in step.instance}
    if step.why:
        out["why"] = step.why
    return out


def json_text(proof: Proof) -> str:
    """The JSON certificate (see :func:`certificate`) as text."""
    return json.dumps(certificate(proof), indent=1)


def render(proof: Proof, fmt: str = "text", **kw: Any) -> str:
    """Render ``proof`` in one of :data:`FORMATS`."""
    from .._validate import check_choice

    fmt = check_choice("format", fmt, FORMATS)
    if fmt == "text":
        return text(proof, **kw)
    if fmt == "latex":
        return latex(proof, **kw)
    return json_text(proof)


_MD_SPECIAL = set("\\`*_[]<>$|{}")


def _md_escape(s: str) -> str:
    r"""Backslash-escape the characters that Markdown/MyST would read as markup.

    >>> _md_escape("a_i * b | c")
    'a\\_i \\* b \\| c'
    """
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in s)


def _tex_escape(s: str) -> str:
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "^": r"\^{}", "~": r"\~{}"}
    return "".join(repl.get(ch, ch) for ch in s)
