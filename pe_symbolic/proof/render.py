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
import unicodedata
from typing import TYPE_CHECKING, Any

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.str import StrPrinter

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


def _ordered(expr: sp.Basic) -> list[sp.Basic]:
    """Terms of a sum as a paper writes them: positive terms first, numbers last within each
    sign (``n - m``, ``h - 1``, ``1 - 2 sin^2 t``)."""
    terms = sorted(sp.Add.make_args(expr), key=sp.default_sort_key)
    pos = [t for t in terms if not t.could_extract_minus_sign()]
    neg = [t for t in terms if t.could_extract_minus_sign()]
    return sorted(pos, key=lambda t: bool(t.is_number)) + sorted(neg, key=lambda t: bool(t.is_number))


_GREEK = {"omega": "ω", "theta": "θ", "lambda": "λ", "delta": "δ", "sigma": "σ", "gamma": "γ", "beta": "β",
          "alpha": "α", "zeta": "ζ", "mu": "μ"}


class _Str(StrPrinter):
    """One-line text: terms in reading order, Greek letters, sums as Σ, δ for Kronecker."""

    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        return _ordered(expr)

    def _print_Symbol(self, expr: Any) -> str:
        head, sep, tail = expr.name.partition("_")
        return _GREEK.get(head, head) + sep + tail

    def _print_Sum(self, expr: Any) -> str:
        lims = ", ".join(f"{self._print(v)}={self._print(a)}..{self._print(b)}" for v, a, b in expr.limits)
        return f"Σ[{lims}]({self._print(expr.function)})"

    def _print_Product(self, expr: Any) -> str:
        lims = ", ".join(f"{self._print(v)}={self._print(a)}..{self._print(b)}" for v, a, b in expr.limits)
        return f"Π[{lims}]({self._print(expr.function)})"

    def _print_KroneckerDelta(self, expr: Any) -> str:
        return f"δ({self._print(expr.args[0])}, {self._print(expr.args[1])})"

    def _print_Piecewise(self, expr: Any) -> str:
        cases = []
        for value, cond in expr.args:
            when = "otherwise" if cond is sp.true else f"if {self._print(cond)}"
            cases.append(f"{self._print(value)} {when}")
        return "{" + "; ".join(cases) + "}"

    def _print_Relational(self, expr: Any) -> str:
        op = {"<=": "≤", ">=": "≥", "!=": "≠", "==": "="}.get(expr.rel_op, expr.rel_op)
        return f"{self._print(expr.lhs)} {op} {self._print(expr.rhs)}"


class _Pretty(PrettyPrinter):
    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        return _ordered(expr)


class _Latex(LatexPrinter):
    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        return _ordered(expr)


def _sstr(e: Any) -> str:
    return _Str().doprint(e)


def _named(e: Any, notation: Any) -> Any:
    """``e`` with the claim's named subexpressions replaced by their names (display only)."""
    if not notation:
        return e
    repl = {x: sp.Symbol(name) for x, name in notation}
    return e.applyfunc(lambda v: v.xreplace(repl)) if isinstance(e, sp.MatrixBase) else e.xreplace(repl)
#: A concrete-d proof with more parts than this prints the first few, every part that is not
#: proved, and a count of the rest.
MAX_PARTS = 12


def _one_line(e: sp.Basic) -> str:
    if isinstance(e, sp.MatrixBase):
        if e.is_zero_matrix:
            return f"0 ({e.rows}×{e.cols} zero matrix)"
        rows = ["[" + ", ".join(_sstr(x) for x in e.row(r)) + "]" for r in range(e.rows)]
        return "[" + ", ".join(rows) + "]" if e.cols > 1 else "[" + ", ".join(_sstr(x) for x in e) + "]ᵀ"
    return " ".join(_sstr(e).split())


def _short(e: sp.Basic, max_chars: int) -> str:
    s = _one_line(e)
    if len(s) <= max_chars:
        return s
    return s[: max_chars - 1].rstrip() + "…"


def _elide(s: str, prev: str | None, max_chars: int, context: int = 24) -> str:
    """``s`` on one line, cut to ``max_chars`` around what differs from ``prev``."""
    if len(s) <= max_chars:
        return s
    if prev:
        lo = 0
        while lo < min(len(s), len(prev)) and s[lo] == prev[lo]:
            lo += 1
        hi = 0
        while hi < min(len(s), len(prev)) - lo and s[-1 - hi] == prev[-1 - hi]:
            hi += 1
        start, stop = max(0, lo - context), len(s) - max(0, hi - context)
        if stop - start <= max_chars - 2:
            return ("…" if start else "") + s[start:stop] + ("…" if stop < len(s) else "")
    half = (max_chars - 1) // 2
    return s[:half] + "…" + s[-half:]


def _pretty(e: sp.Basic, width: int, max_lines: int) -> str | None:
    """Unicode pretty-printing if it fits ``width`` x ``max_lines``; else ``None``."""
    if isinstance(e, sp.MatrixBase) and e.is_zero_matrix:
        return f"0 ({e.rows}×{e.cols} zero matrix)"
    # what cannot fit is not drawn: pretty-printing a 32x32 symbolic matrix takes seconds
    if isinstance(e, sp.MatrixBase) and e.rows > max_lines:
        return None
    if len(sp.sstr(e)) > 2 * width * max_lines:
        return None
    try:
        out = _Pretty({"use_unicode": True, "wrap_line": False}).doprint(e)
    except Exception:  # pragma: no cover - a printer gap: fall back to one line
        return None
    lines = out.split("\n")
    if len(lines) > max_lines or max(len(x) for x in lines) > width:
        return None
    return out


def _instance_text(step: Any, notation: Any = ()) -> str:
    if not step.instance:
        return ""
    return " [" + ", ".join(f"{k} ↦ {_short(_named(v, notation), 40)}" for k, v in step.instance) + "]"


def _step_title(step: Any, index: int, notation: Any = ()) -> str:
    kind = step_kind(step.rule, index)
    if kind == "start":
        head = "left-hand side" if step.rule == LHS else "the difference lhs − rhs"
    elif kind == "lemma":
        head = f"by {step.rule[len('lemma '):]}{_instance_text(step, notation)}"
    elif kind == "rule":
        head = step.rule
    else:
        head = step.rule
    return f"{head} — {step.why}" if step.why and step.why != head else head


def _scope_text(proof: Proof) -> str:
    d = proof.extra.get("d")
    return "" if d is None else f" (d = {d})"


def _shown_parts(parts: Any) -> list[int]:
    n = len(parts)
    if n <= MAX_PARTS:
        return list(range(n))
    keep = set(range(3)) | {n - 1} | {q for q, p in enumerate(parts) if p.verdict != "proved"}
    return sorted(keep)


def _assumption_text(proof: Proof) -> str:
    bits = []
    for s in proof.claim.symbols:
        a = s.assumptions0
        props = [p for p in ("prime", "composite", "even", "odd", "integer", "rational", "positive", "negative",
                             "nonnegative", "nonpositive", "nonzero", "imaginary", "real") if a.get(p)]
        # keep the strongest few for reading; the certificate holds them all
        for weak, strong in (("real", "integer"), ("real", "rational"), ("rational", "integer"), ("integer", "even"),
                             ("integer", "odd"), ("integer", "prime"), ("nonnegative", "positive"),
                             ("nonzero", "positive"), ("nonpositive", "negative"), ("nonzero", "negative"),
                             ("real", "positive"), ("real", "negative"), ("real", "nonnegative"),
                             ("real", "nonpositive"), ("integer", "composite"), ("positive", "prime"),
                             ("positive", "composite")):
            if weak in props and strong in props:
                props.remove(weak)
        bits.append(f"{s.name} {' '.join(props) if props else 'complex'}")
    bits += [_sstr(a) for a in proof.claim.assumptions]
    return "; ".join(bits) if bits else "none"


def text(proof: Proof, *, max_chars: int = 300, width: int = 92, max_lines: int = 12) -> str:
    """Plain text for the terminal: each step's reason, then its expression pretty-printed in
    Unicode (one line, cut around what changed, when it does not fit ``width`` x ``max_lines``).

    A proof with many parts (a concrete ``d``) shows the first few, each part that is not
    proved, and how many more were proved.
    """
    c = proof.claim
    out = [f"{c.id}{_scope_text(proof)}: {proof.verdict.upper()} in {proof.elapsed:.2f} s"]
    out += textwrap.wrap(c.statement, width, initial_indent="  ", subsequent_indent="  ")
    out.append(f"  source: {c.source}")
    out += textwrap.wrap(f"assumptions: {_assumption_text(proof)}", width, initial_indent="  ",
                         subsequent_indent="    ")
    if c.notation:
        out += textwrap.wrap("where " + "; ".join(f"{n} = {_sstr(x)}" for x, n in c.notation), width,
                             initial_indent="  ", subsequent_indent="    ")
    if proof.lemmas:
        out.append(f"  uses: {', '.join(proof.lemmas)}")
    shown = _shown_parts(proof.parts)
    last = -1
    for q in shown:
        part = proof.parts[q]
        if q > last + 1:
            skipped = proof.parts[last + 1:q]
            out.append(f"  ... parts {last + 2} to {q} ({len(skipped)} more): "
                       f"{', '.join(sorted({p.verdict for p in skipped}))}")
        last = q
        label = part.equation.label or f"{_short(part.equation.lhs, 60)} = {_short(part.equation.rhs, 60)}"
        out += textwrap.wrap(f"({q + 1}) {label}: {part.verdict}", width, initial_indent="  ",
                             subsequent_indent="      ")
        prev_line = None
        for n, step in enumerate(part.steps, start=1):
            out += textwrap.wrap(f"[{n}] {_step_title(step, n - 1, c.notation)}", width, initial_indent="      ",
                                 subsequent_indent="          ")
            shown_expr = _named(step.expr, c.notation)
            pretty = _pretty(shown_expr, width - 10, max_lines)
            line = _one_line(shown_expr)
            body = pretty if pretty is not None else _elide(line, prev_line, max_chars)
            out += ["          " + x for x in body.split("\n")]
            prev_line = line
        if part.note:
            out.extend(textwrap.wrap(f"note: {part.note}", width, initial_indent="      ",
                                     subsequent_indent="        "))
        if part.counterexample:
            cex = ", ".join(f"{k} = {v}" for k, v in part.counterexample.items())
            out += textwrap.wrap(f"counterexample: {cex}", width, initial_indent="      ",
                                 subsequent_indent="        ")
    if last < len(proof.parts) - 1:
        rest = proof.parts[last + 1:]
        out.append(f"  ... {len(rest)} more part(s): {', '.join(sorted({p.verdict for p in rest}))}")
    if proof.spot_check is not None:
        out.append(f"  {proof.spot_check} (informative only; numbers prove nothing)")
    return "\n".join(out)


def _latex_expr(e: sp.Basic, max_entries: int, notation: Any = ()) -> str:
    if isinstance(e, sp.MatrixBase):
        if e.is_zero_matrix:
            return r"\mathbf{0}_{%d\times %d}" % e.shape
        if e.rows * e.cols > max_entries:
            return r"\text{(a }%d\times %d\text{ matrix: see the JSON certificate)}" % e.shape
    return _Latex().doprint(_named(e, notation))


_PREAMBLE = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{amsmath,amssymb}
\usepackage[margin=2cm]{geometry}
\allowdisplaybreaks
\begin{document}
"""


def latex(proof: Proof, *, max_entries: int = 64, standalone: bool = False) -> str:
    r"""LaTeX: the statement, then each chain as an ``align*`` of steps with their reasons.

    A clean fragment by default (``\paragraph``, ``\[...\]``, ``align*``; needs amsmath);
    ``standalone=True`` wraps it in a document that compiles on its own.
    """
    c = proof.claim
    lines = [
        r"\paragraph{%s%s} %s" % (_tex_escape(c.id), _tex_escape(_scope_text(proof)), _tex_escape(c.statement)),
        r"\emph{Source:} %s. \emph{Verdict:} \textbf{%s} (%.2f\,s)." % (
            _tex_escape(c.source), proof.verdict, proof.elapsed),
    ]
    if c.notation:
        lines.append(r"\emph{Where} %s." % ", ".join(
            r"$%s = %s$" % (_Latex().doprint(sp.Symbol(n)), _Latex().doprint(x)) for x, n in c.notation))
    if proof.lemmas:
        lines.append(r"\emph{Uses:} %s." % _tex_escape(", ".join(proof.lemmas)))
    for q in _shown_parts(proof.parts):
        part = proof.parts[q]
        eq = part.equation
        lines.append(r"\subparagraph{(%d) %s} \textbf{%s}" % (q + 1, _tex_escape(eq.label), part.verdict))
        lines.append(r"\[ %s = %s \]" % (_latex_expr(eq.lhs, max_entries, c.notation),
                                          _latex_expr(eq.rhs, max_entries, c.notation)))
        lines.append(r"\begin{align*}")
        rows = []
        for n, step in enumerate(part.steps):
            rel = "" if n == 0 else "="
            rows.append(r"&%s %s && \text{%s}" % (rel, _latex_expr(step.expr, max_entries, c.notation),
                                                  _tex_escape(_step_title(step, n, c.notation))))
        lines.append(" \\\\\n".join(rows))
        lines.append(r"\end{align*}")
        if part.note:
            lines.append(r"\emph{Note:} %s." % _tex_escape(part.note))
        if part.counterexample:
            lines.append(r"Counterexample: %s." % _tex_escape(
                ", ".join(f"{k} = {v}" for k, v in part.counterexample.items())))
    skipped = len(proof.parts) - len(_shown_parts(proof.parts))
    if skipped:
        lines.append(r"\emph{%d more part(s), all %s.}" % (
            skipped, "proved" if all(p.verdict == "proved" for p in proof.parts) else "listed in the certificate"))
    body = "\n".join(lines)
    return _PREAMBLE + body + "\n\\end{document}\n" if standalone else body


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
    if c.notation:
        out += ["*Where* " + ", ".join(f"${_Latex().doprint(sp.Symbol(n))} = {_Latex().doprint(x)}$"
                                       for x, n in c.notation) + ".", ""]
    if proof.lemmas:
        out += ["*Uses:* " + ", ".join(f"{{claim}}`{lem}`" for lem in proof.lemmas) + ".", ""]
    shown = _shown_parts(proof.parts)
    for q in shown:
        part = proof.parts[q]
        eq = part.equation
        out += [
            f"**({q + 1}) {esc(eq.label)}** — *{part.verdict}*",
            "",
            "$$",
            f"{_latex_expr(eq.lhs, max_entries, c.notation)} = {_latex_expr(eq.rhs, max_entries, c.notation)}",
            "$$",
            "",
        ]
        for n, step in enumerate(part.steps, start=1):
            title = esc(_step_title(step, n - 1, c.notation))
            if step.lemma:
                title = title.replace(esc(step.lemma), f"{{claim}}`{step.lemma}`", 1)
            out += [f"{n}. {title}:", "", "   $$", f"   {_latex_expr(step.expr, max_entries, c.notation)}", "   $$",
                    ""]
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
                "entries": (None if not p.entries else
                            [[sp.srepr(a), sp.srepr(v)] for a, v in sorted(p.entries.items(), key=lambda kv: sp.srepr(kv[0]))]),
                "enclosures": dict(p.enclosures) if p.enclosures else None,
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


_TEX_TEXT = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
             "_": r"\_", "{": r"\{", "}": r"\}", "^": r"\^{}", "~": r"\~{}", "<": r"\textless{}",
             ">": r"\textgreater{}", "|": r"\textbar{}", "↦": r"$\mapsto$", "—": "---", "–": "--",
             "−": "-", "…": r"\ldots{}", "ᵀ": r"\textsuperscript{T}", "×": r"$\times$",
             "≤": r"$\le$", "≥": r"$\ge$", "≠": r"$\ne$", "→": r"$\to$", "⟨": r"$\langle$",
             "⟩": r"$\rangle$", "·": r"$\cdot$", "⋅": r"$\cdot$", "‖": r"$\|$", "∈": r"$\in$",
             "Σ": r"$\Sigma$", "√": r"$\surd$", "²": r"\textsuperscript{2}", "δ": r"$\delta$"}
_TEX_GREEK_NAMES = {"lamda": "lambda"}  # Unicode spells it without the b


def _tex_char(ch: str) -> str:
    """One character of free text as (pdf)LaTeX that needs no Unicode support: Greek letters
    become math, subscripts and other symbols their ASCII or math form, anything else ``?``."""
    if ch in _TEX_TEXT:
        return _TEX_TEXT[ch]
    if ord(ch) < 128:
        return ch
    name = unicodedata.name(ch, "")
    for case, prefix in ((str.lower, "GREEK SMALL LETTER "), (str.capitalize, "GREEK CAPITAL LETTER ")):
        if name.startswith(prefix) and " " not in name[len(prefix):]:
            word = name[len(prefix):].lower()
            return "$\\%s$" % case(_TEX_GREEK_NAMES.get(word, word))
    if name.startswith(("SUBSCRIPT ", "LATIN SUBSCRIPT SMALL LETTER ")):
        return r"\textsubscript{%s}" % unicodedata.normalize("NFKC", ch)
    return "?"


def _tex_escape(s: str) -> str:
    return "".join(_tex_char(ch) for ch in s)
