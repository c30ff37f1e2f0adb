"""Renderings of a :class:`~pe_symbolic.proof.Proof`: plain text, LaTeX, MyST, Markdown and
HTML (for notebooks), and the JSON certificate.

Nothing is cut: long expressions are wrapped (text) or broken into lines (LaTeX, MyST,
Markdown, HTML; a sum term by term, a product factor by factor) so that they fit a
terminal, a page or a docs column. Every rendering shows the claim's typeset statement
(:func:`statement_latex`: its author's LaTeX, or its equations).

One proof object, many renderings; nothing here re-derives or re-proves anything. The
functions read the proof's attributes only (this module sits below
:mod:`pe_symbolic.proof.result` and imports no proof class).

>>> from pe_symbolic import theorems
>>> from pe_symbolic.proof import render
>>> print(render.text(theorems.get("rope.efficient_form").prove(), width=72))  # doctest: +ELLIPSIS
rope.efficient_form: PROVED in ... s
  The elementwise form x * cos(m theta) + rotate(x) * sin(m theta) equals
  the matrix form R(m) x, ...
...
"""

from __future__ import annotations

import html as html_lib
import json
import re
import textwrap
import unicodedata
from typing import TYPE_CHECKING, Any

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.str import StrPrinter

from .kernel.binding import CERTIFICATE_FORMAT
from .kernel.claims import DIFFERENCE, LHS, plain_text
from .kernel.rules import RULES

if TYPE_CHECKING:  # pragma: no cover
    from .result import Proof

__all__ = ["CERTIFICATE_FORMAT", "DOCS_WIDTH", "FORMATS", "LATEX_WIDTH", "MAX_PARTS", "certificate", "html",
           "display_lines", "json_text", "latex", "markdown", "myst", "prose_math", "render", "statement_latex",
           "step_kind", "text", "wrap_math"]


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

    def _print_Determinant(self, expr: Any) -> str:
        return f"det({self._print(expr.arg)})"

    def _print_Transpose(self, expr: Any) -> str:
        return f"({self._print(expr.arg)})ᵀ"

    def _print_Abs(self, expr: Any) -> str:
        return f"|{self._print(expr.args[0])}|"

    def _print_Derivative(self, expr: Any) -> str:
        vs = "".join(f"∂{self._print(v)}" + (f"^{n}" if n != 1 else "") for v, n in expr.variable_count)
        return f"∂/{vs}({self._print(expr.expr)})"

    def _print_Subs(self, expr: Any) -> str:
        at = ", ".join(f"{self._print(v)}={self._print(p)}" for v, p in zip(expr.variables, expr.point))
        return f"({self._print(expr.expr)} at {at})"

    def _print_MatrixBase(self, expr: Any) -> str:
        return "[" + ", ".join("[" + ", ".join(self._print(x) for x in expr.row(r)) + "]"
                               for r in range(expr.rows)) + "]"

    _print_ImmutableDenseMatrix = _print_MutableDenseMatrix = _print_MatrixBase

    def _print_Relational(self, expr: Any) -> str:
        op = {"<=": "≤", ">=": "≥", "!=": "≠", "==": "="}.get(expr.rel_op, expr.rel_op)
        return f"{self._print(expr.lhs)} {op} {self._print(expr.rhs)}"

    def _print_Rational(self, expr: Any) -> str:
        return _huge(expr) or super()._print_Rational(expr)

    def _print_Integer(self, expr: Any) -> str:
        return _huge(expr) or super()._print_Integer(expr)


class _Pretty(PrettyPrinter):
    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        return _ordered(expr)

    def _print_Rational(self, expr: Any) -> Any:
        huge = _huge(expr)
        if huge:
            from sympy.printing.pretty.stringpict import prettyForm

            return prettyForm(huge)
        return super()._print_Rational(expr)

    def _print_Atom(self, expr: Any) -> Any:
        huge = _huge(expr)
        if huge:
            from sympy.printing.pretty.stringpict import prettyForm

            return prettyForm(huge)
        return super()._print_Atom(expr)


class _Latex(LatexPrinter):
    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        return _ordered(expr)

    def _print_Rational(self, expr: Any) -> str:
        huge = _huge(expr)
        return rf"\text{{{huge}}}" if huge else super()._print_Rational(expr)

    _print_Integer = _print_Rational


#: Numbers longer than this many bits print as their size (Python prints at most 4300 digits).
_HUGE_BITS = 13_000


def _huge(expr: Any) -> str:
    """``''``, or how a number too long to print is shown instead (its size in bits)."""
    if not isinstance(expr, sp.Rational):
        return ""
    p, q = int(expr.p).bit_length(), int(expr.q).bit_length()
    if max(p, q) <= _HUGE_BITS:
        return ""
    return f"<a {p}-bit integer>" if expr.q == 1 else f"<a rational of {p} and {q} bits>"


def _zero_matrix(e: sp.MatrixBase) -> bool:
    """Whether every entry of ``e`` is the number 0 as written: the structural zero that
    closes a chain (:func:`pe_symbolic.proof.kernel.rules.is_zero`). SymPy's
    ``is_zero_matrix`` asks the assumptions system about every entry instead, which costs
    more than printing the matrix (half of ``pe-derive all``'s rendering, measured) and
    could show as ``0`` a matrix the kernel would not call zero.

    >>> _zero_matrix(sp.zeros(2, 2)), _zero_matrix(sp.Matrix([0, sp.Symbol("x")]))
    (True, False)
    """
    return all(x == 0 for x in e)


def _sstr(e: Any) -> str:
    return _Str().doprint(e)


def _named(e: Any, notation: Any) -> Any:
    """``e`` with the claim's named subexpressions replaced by their names (display only)."""
    if not notation:
        return e
    repl = {x: sp.Symbol(name) for x, name in notation}
    return e.applyfunc(lambda v: v.xreplace(repl)) if isinstance(e, sp.MatrixBase) else e.xreplace(repl)


#: A concrete-d proof with more parts than this shows, in the terminal and unless ``full=True``,
#: the first few, every part that is not proved, and a count of the rest (saying how to see
#: them all). Files and docs show every part.
MAX_PARTS = 12

#: Width (characters of the one-line form, ``*`` not counted) a line of typeset math may take:
#: a page of the standalone LaTeX document, and the docs' text column (MathJax). Measured:
#: with 72, pdflatex reports 0 overfull boxes over every registered proof, and headless
#: Chromium at 1400 px 0 displays wider than their column on the theory pages (with 80 one
#: display was 5 px too wide, with 110 38 were, by up to 30 %: the one-line form is only a
#: proxy for the typeset width).
LATEX_WIDTH = 72
DOCS_WIDTH = 72


def _one_line(e: sp.Basic) -> str:
    if isinstance(e, sp.MatrixBase):
        if _zero_matrix(e):
            return f"0 ({e.rows}×{e.cols} zero matrix)"
        rows = ["[" + ", ".join(_sstr(x) for x in e.row(r)) + "]" for r in range(e.rows)]
        return "[" + ", ".join(rows) + "]" if e.cols > 1 else "[" + ", ".join(_sstr(x) for x in e) + "]ᵀ"
    return " ".join(_sstr(e).split())


def _cut(s: str, max_chars: int | None) -> str:
    """``s`` cut to ``max_chars`` (an explicit request only: nothing is cut by default)."""
    if max_chars is None or len(s) <= max_chars:
        return s
    return s[: max_chars - 1].rstrip() + "…"


def wrap_math(s: str, width: int) -> list[str]:
    """Break a one-line expression into lines of at most ``width`` characters, losing nothing.

    Lines break at a space (the text printer puts one around ``+`` and ``-`` and after
    ``,``), preferring the shallowest parenthesis depth in the last third of the line, so
    that a sum breaks term by term; continuation lines start with the operator. A run
    without any space longer than ``width`` is split where it must (never dropped).

    >>> wrap_math("a + b + c*(d + e) + f", 12)
    ['a + b', '+ c*(d + e)', '+ f']
    >>> "".join(wrap_math("x" * 25, 10)) == "x" * 25
    True
    """
    width = max(8, int(width))
    out: list[str] = []
    s = s.strip()
    while len(s) > width:
        depth, best, best_key = 0, -1, None
        for i, ch in enumerate(s[: width + 1]):
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == " " and 0 < i:
                # a break before an operator (or after a comma) at the shallowest depth wins;
                # among equals the latest, but not in the first third of the line
                nxt = s[i + 1: i + 2]
                good = 2 if s[i - 1] in ",;" else 1 if nxt in "+-=≤≥<>" else 0
                key = (i >= width // 3, -depth, good, i)
                if best_key is None or key > best_key:
                    best, best_key = i, key
        if best <= 0:
            best = width
            out.append(s[:best])
            s = s[best:]
        else:
            out.append(s[:best].rstrip())
            s = s[best + 1:].lstrip()
    if s:
        out.append(s)
    return out


def _pretty(e: sp.Basic, width: int, max_lines: int) -> str | None:
    """Unicode pretty-printing if it fits ``width`` x ``max_lines``; else ``None``."""
    if isinstance(e, sp.MatrixBase) and _zero_matrix(e):
        return f"0 ({e.rows}×{e.cols} zero matrix)"
    # what cannot fit is not drawn: pretty-printing a 32x32 symbolic matrix takes seconds
    if isinstance(e, sp.MatrixBase) and e.rows > max_lines:
        return None
    if len(plain_text(e)) > 2 * width * max_lines:  # a printer that never evaluates
        return None
    try:
        out = _Pretty({"use_unicode": True, "wrap_line": False}).doprint(e)
    except Exception:  # pragma: no cover - a printer gap: fall back to one line
        return None
    lines = out.split("\n")
    if len(lines) > max_lines or max(len(x) for x in lines) > width:
        return None
    return out


def _instance_pairs(step: Any, notation: Any = ()) -> list[tuple[str, Any, Any]]:
    """``(name, bound variables or None, value)`` for each symbol a lemma step instantiates;
    a function-valued instance (``Lambda(j, body)``) is read as ``name[j] ↦ body``."""
    out = []
    for k, v in step.instance:
        v = _named(v, notation)
        if isinstance(v, sp.Lambda):
            out.append((k, v.variables, v.expr))
        else:
            out.append((k, None, v))
    return out


def _instance_text(step: Any, notation: Any = (), max_chars: int | None = None) -> str:
    if not step.instance:
        return ""
    bits = []
    for k, args, v in _instance_pairs(step, notation):
        name = _sstr(sp.Symbol(k))
        if args is not None:
            name += "[" + ", ".join(_sstr(a) for a in args) + "]"
        bits.append(f"{name} ↦ {_cut(_one_line(v), max_chars)}")
    return " [" + ", ".join(bits) + "]"


def _step_title(step: Any, index: int, notation: Any = (), max_chars: int | None = None) -> str:
    kind = step_kind(step.rule, index)
    if kind == "start":
        head = "left-hand side" if step.rule == LHS else "the difference lhs − rhs"
    elif kind == "lemma":
        head = f"by {step.rule[len('lemma '):]}{_instance_text(step, notation, max_chars)}"
    else:
        head = step.rule
    return f"{head} — {step.why}" if step.why and step.why != head else head


def _numbered(q: int, label: str) -> str:
    """Part ``q``'s heading: ``(q+1) label``, or the label alone when its author numbered it
    (``"(3a) Gamma - D >= 0"``), so that a chapter's own numbers are the only ones shown.

    >>> _numbered(4, "(4) Gamma = u_p + O(u^2)"), _numbered(0, "pair i")
    ('(4) Gamma = u_p + O(u^2)', '(1) pair i')
    """
    return label if re.match(r"\(\d+[a-z]?\)\s", label) else f"({q + 1}) {label}".rstrip()


def _scope_text(proof: Proof) -> str:
    d = proof.extra.get("d")
    return "" if d is None else f" (d = {d})"


def _shown_parts(parts: Any, full: bool = True) -> list[int]:
    n = len(parts)
    if full or n <= MAX_PARTS:
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


def _wrapped(s: str, width: int, first: str, rest: str) -> list[str]:
    """Prose wrapped at ``width`` with indents; words longer than a line are never cut."""
    return textwrap.wrap(s, width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False) or [first.rstrip()]


def text(proof: Proof, *, width: int = 92, max_lines: int = 12, full: bool = False,
         max_chars: int | None = None, pretty: bool = False) -> str:
    """Plain text for the terminal: the claim, then each step's reason and expression.

    Nothing is cut: an expression that does not fit is wrapped over several lines (term by
    term for a sum). A proof is written in one notation, the one its header, its step
    reasons (``sin(u)**2 -> 1 - cos(u)**2``) and its lemma instances use: the one-line
    notation (``sin(a)**2``, ``Σ[j=0..h - 1](…)``, ``δ(i, j)``, ``[[a, b], [c, d]]``), the
    same in every proof, small or large, so that ``pe-derive all`` reads alike from the first
    proof to the last. ``pretty=True`` asks for SymPy's 2-D Unicode drawing of every step
    instead, for a proof whose every step fits ``width`` x ``max_lines`` (else the proof
    stays one-line throughout).

    Parameters
    ----------
    proof : Proof
        The proof to show.
    width : int, default 92
        Line width in characters (``pe-derive`` passes the terminal's width).
    max_lines : int, default 12
        With ``pretty=True``: most lines a 2-D expression may take.
    full : bool, default False
        Show every part of a proof with many parts (a concrete ``d``). By default a proof
        with more than :data:`MAX_PARTS` parts shows the first few, every part that is not
        proved and the last, and says how many more there are and how to see them.
    max_chars : int, optional
        Cut each expression's one-line form to this many characters, marked ``…`` (an
        explicit request for a short overview; by default nothing is cut).
    pretty : bool, default False
        Draw every step in 2-D (SymPy's Unicode pretty printer) when every step fits;
        the step reasons stay one-line.

    Returns
    -------
    str
        The rendering, lines of at most ``width`` characters (a word longer than a line
        excepted).

    Examples
    --------
    >>> from pe_symbolic import theorems
    >>> print(text(theorems.get("rot2.det").prove(), width=60))  # doctest: +ELLIPSIS
    rot2.det: PROVED in ... s
      Every rotation has determinant 1.
      source: angle addition (Ptolemy); the rotation group SO(2)
      assumptions: a complex
      (1) det rot2(a) = cos^2 a + sin^2 a = 1: proved
          [1] the difference lhs − rhs
              det([[cos(a), -sin(a)], [sin(a), cos(a)]]) - 1
          [2] evaluate
              sin(a)**2 + cos(a)**2 - 1
          [3] sin(u)**2 -> 1 - cos(u)**2
              0
    ...
    """
    c = proof.claim
    width = max(40, int(width))
    out = [f"{c.id}{_scope_text(proof)}: {proof.verdict.upper()} in {proof.elapsed:.2f} s"]
    out += _wrapped(c.statement, width, "  ", "  ")  # (its typeset form is for LaTeX, docs, notebooks)
    out += _wrapped(f"source: {c.source}", width, "  ", "    ")
    out += _wrapped(f"assumptions: {_assumption_text(proof)}", width, "  ", "    ")
    if c.notation:
        out += _wrapped("where " + "; ".join(f"{_sstr(sp.Symbol(n))} = {_sstr(x)}" for x, n in c.notation), width,
                        "  ", "    ")
    if proof.lemmas:
        out += _wrapped(f"uses: {', '.join(proof.lemmas)}", width, "  ", "    ")
    shown = _shown_parts(proof.parts, full)
    body_indent = " " * 10
    room = width - len(body_indent)
    exprs = {(q, n): _named(step.expr, c.notation) for q in shown for n, step in enumerate(proof.parts[q].steps)}
    drawn: dict[tuple[int, int], str | None] = {}
    if pretty and max_chars is None:
        for key, e in exprs.items():
            drawn[key] = _pretty(e, room, max_lines)
            if drawn[key] is None:  # one step does not fit: the whole proof in one notation
                drawn = {}
                break
    last = -1
    for q in shown:
        part = proof.parts[q]
        if q > last + 1:
            skipped = proof.parts[last + 1:q]
            out.append(f"  ... parts {last + 2} to {q} ({len(skipped)} more): "
                       f"{', '.join(sorted({p.verdict for p in skipped}))} (full=True or pe-derive --full "
                       "shows them)")
        last = q
        eq = part.equation
        label = eq.label or f"{_cut(_one_line(_named(eq.lhs, c.notation)), max_chars)} = " \
                            f"{_cut(_one_line(_named(eq.rhs, c.notation)), max_chars)}"
        out += _wrapped(f"{_numbered(q, label)}: {part.verdict}", width, "  ", "      ")
        for n, step in enumerate(part.steps):
            out += _wrapped(f"[{n + 1}] {_step_title(step, n, c.notation, max_chars)}", width, "      ",
                            "          ")
            body = drawn.get((q, n))
            if body is not None:
                out += [body_indent + x for x in body.split("\n")]
            else:
                lines = wrap_math(_cut(_one_line(exprs[(q, n)]), max_chars), room - 2)
                out += [body_indent + lines[0]] + [body_indent + "  " + x for x in lines[1:]]
        if part.note:
            out += _wrapped(f"note: {part.note}", width, "      ", "        ")
        if part.counterexample:
            cex = ", ".join(f"{k} = {v}" for k, v in part.counterexample.items())
            out += _wrapped(f"counterexample: {cex}", width, "      ", "        ")
    if last < len(proof.parts) - 1:
        rest = proof.parts[last + 1:]
        out.append(f"  ... {len(rest)} more part(s): {', '.join(sorted({p.verdict for p in rest}))} "
                   "(full=True or pe-derive --full shows them)")
    if proof.spot_check is not None:
        out += _wrapped(f"{proof.spot_check} (informative only; numbers prove nothing)", width, "  ", "    ")
    return "\n".join(out)


def _width(e: Any) -> int:
    """How wide ``e`` sets, in characters of its one-line form (a proxy that errs wide:
    fractions and powers set narrower than they are written)."""
    if isinstance(e, sp.MatrixBase):  # set as a 2-D array: its widest entry per column
        if _zero_matrix(e) or not e.cols:
            return 8
        cols = [max(_width(e[r, c]) for r in range(e.rows)) for c in range(e.cols)]
        return sum(cols) + 3 * (e.cols - 1) + 4
    if isinstance(e, sp.Piecewise):  # set as cases: its widest row
        return max(_width(v) + _width(c) + 6 for v, c in e.args)
    # a product's * sets as a thin space, a power's ** as a raised exponent: neither takes room
    return len(_one_line(e).replace("*", "")) if isinstance(e, sp.Basic) else len(str(e))


def _tex(e: Any) -> str:
    return _Latex().doprint(e)


def _tex_add_pieces(e: sp.Basic) -> list[tuple[str, sp.Basic]]:
    pieces: list[tuple[str, sp.Basic]] = []
    for i, t in enumerate(_ordered(e)):
        if i and t.could_extract_minus_sign():
            pieces.append(("-", -t))
        else:
            pieces.append(("+" if i else "", t))
    return pieces


def _tex_lines(e: Any, width: int) -> list[str]:
    """``e`` typeset over lines of about ``width`` characters each: a sum term by term, a
    product factor by factor, a long factor (a sum in parentheses, a sum's body) broken
    inside fixed-size delimiters (``\\Bigl(`` ... ``\\Bigr)``, which need no partner on the
    same line). Continuation lines start with their operator. What cannot be broken (one
    long atom) stays on one line.
    """
    width = max(12, width)
    if not isinstance(e, sp.Basic) or _width(e) <= width:
        return [_tex(e)]
    if isinstance(e, sp.MatrixBase):
        return _tex_matrix_lines(e, width)
    if e.is_Add:
        lines: list[str] = []
        cur, cur_w = "", 0
        for op, t in _tex_add_pieces(e):
            tw = _width(t) + 3
            if tw > width:  # a term that needs lines of its own
                if cur:
                    lines.append(cur)
                sub = _tex_lines(t, width - 2)
                lines.append(f"{op} {sub[0]}".strip())
                lines += sub[1:]
                cur, cur_w = "", 0
                continue
            piece = _tex(t)
            if isinstance(t, sp.Add):  # cannot happen for a term, but be safe
                piece = r"\left(%s\right)" % piece
            if cur and cur_w + tw > width:
                lines.append(cur)
                cur, cur_w = f"{op} {piece}".strip(), tw
            else:
                cur, cur_w = f"{cur} {op} {piece}".strip(), cur_w + tw
        if cur:
            lines.append(cur)
        return lines
    if e.is_Mul:
        coeff, factors = e.as_coeff_mul()
        long_ = [f for f in factors if _width(f) > width // 2 and _breakable(f)]
        if long_:
            short = sp.Mul(*[f for f in factors if f not in long_])
            head = ""
            if coeff == -1:
                head = "-"
            elif coeff != 1:
                head = _tex(coeff)
            if short != 1:
                head += ("" if not head or head == "-" else r" \cdot ") + _tex(short)
            lines = [head] if head else []
            for k, f in enumerate(long_):
                sub = _tex_group(f, width - 4)
                if lines and (k or head):
                    sub[0] = (r"\cdot " if k or head not in ("", "-") else "") + sub[0]
                if lines and len(lines[-1]) + len(sub[0]) < 2 * width and (lines[-1] in ("-", "")):
                    lines[-1] = (lines[-1] + " " + sub[0]).strip()
                    lines += sub[1:]
                else:
                    lines += sub
            return lines or [_tex(e)]
    if isinstance(e, sp.Piecewise):
        return [_tex_cases(e, width)]
    if _breakable(e):
        return _tex_group(e, width - 2)
    return [_tex(e)]


def _tex_cases(e: sp.Piecewise, width: int) -> str:
    """A piecewise expression as ``cases``, a long value broken inside its row (``aligned``)."""
    rows = []
    for value, cond in e.args:
        when = r"\text{otherwise}" if cond is sp.true else r"\text{if } " + _tex(cond)
        lines = _tex_lines(value, max(12, width - _width(cond) - 10))
        if len(lines) > 1:
            val = r"\begin{aligned}&" + lines[0] + "".join(
                r" \\ &\quad " + ("{}" if x[:1] in "+-" else "") + x for x in lines[1:]) + r"\end{aligned}"
        else:
            val = lines[0]
        rows.append(f"{val} & {when}")
    return r"\begin{cases} " + r" \\ ".join(rows) + r" \end{cases}"


def _breakable(f: Any) -> bool:
    """Whether ``f`` can be set over several lines by :func:`_tex_group`."""
    if isinstance(f, sp.Add):
        return True
    if isinstance(f, sp.Pow) and isinstance(f.base, sp.Add) and f.exp.is_Rational and f.exp > 0:
        return True
    if isinstance(f, sp.Sum) and len(f.limits) == 1:
        return True
    if isinstance(f, sp.Abs):
        return True
    return isinstance(f, sp.Function) and len(f.args) == 1 and isinstance(f.args[0], sp.Add) \
        and type(f).__name__ in ("sin", "cos", "tan", "exp", "log", "sqrt", "sign")


def _tex_group(f: Any, width: int) -> list[str]:
    """A long factor set over lines inside fixed-size delimiters."""
    if isinstance(f, sp.Add):
        inner, open_, close = f, r"\Bigl(", r"\Bigr)"
    elif isinstance(f, sp.Pow):
        exp = f.exp if f.exp.is_Integer else f"{f.exp.p}/{f.exp.q}"
        inner, open_, close = f.base, r"\Bigl(", r"\Bigr)^{%s}" % exp
    elif isinstance(f, sp.Sum):
        (v, a, b), = f.limits
        inner, open_, close = f.function, r"\sum_{%s=%s}^{%s} \Bigl(" % (_tex(v), _tex(a), _tex(b)), r"\Bigr)"
    elif isinstance(f, sp.Abs):
        inner, open_, close = f.args[0], r"\Bigl|", r"\Bigr|"
    elif isinstance(f, sp.Function):
        name = {"exp": r"\exp", "log": r"\log", "sign": r"\operatorname{sign}"}.get(type(f).__name__,
                                                                                     "\\" + type(f).__name__)
        inner, open_, close = f.args[0], name + r"\Bigl(", r"\Bigr)"
    else:
        return [_tex(f)]
    sub = _tex_lines(inner, width - 2)
    sub[0] = f"{open_} {sub[0]}"
    sub[-1] = f"{sub[-1]} {close}"
    return sub


def _tex_matrix_lines(e: sp.MatrixBase, width: int) -> list[str]:
    """A matrix too wide for a line: entry by entry (each broken if it must), under a line
    that says what follows."""
    if _zero_matrix(e):
        return [r"\mathbf{0}_{%d\times %d}" % e.shape]
    lines = [r"\text{the }%d\times %d\text{ matrix with entries:}" % e.shape]
    for r in range(e.rows):
        for col in range(e.cols):
            sub = _tex_lines(e[r, col], width - 8)
            where = r"(%d, %d)" % (r + 1, col + 1) if e.cols > 1 else r"(%d)" % (r + 1)
            lines.append(r"\quad %s\colon\ %s" % (where, sub[0]))
            lines += [r"\qquad " + x for x in sub[1:]]
    return lines


def _latex_expr(e: sp.Basic, max_entries: int, notation: Any = ()) -> str:
    """``e`` on one line of LaTeX (a matrix with more than ``max_entries`` entries is named,
    not drawn: its entries are in the JSON certificate)."""
    return " ".join(_latex_lines(e, max_entries, notation, width=None))


def _latex_lines(e: Any, max_entries: int, notation: Any = (), width: int | None = LATEX_WIDTH) -> list[str]:
    if isinstance(e, sp.MatrixBase):
        if _zero_matrix(e):
            return [r"\mathbf{0}_{%d\times %d}" % e.shape]
        if e.rows * e.cols > max_entries:
            return [r"\text{a }%d\times %d\text{ matrix (its entries: in the JSON certificate)}" % e.shape]
    e = _named(e, notation)
    if width is None:
        return [_tex(e)]
    return _tex_lines(e, width)


def statement_latex(claim: Any, *, width: int | None = LATEX_WIDTH, max_entries: int = 64) -> list[str]:
    r"""The claim's statement typeset: its author's ``Claim.latex`` (one display line per
    line of it, cut at its top-level ``\\``), or else its equations (``lhs = rhs``, with the
    claim's notation), each broken into lines of about ``width`` characters; one string a
    display line.

    >>> import sympy as sp
    >>> from pe_symbolic.proof import Claim, Equation
    >>> x = sp.Symbol("x", real=True)
    >>> eq = (Equation(2 * sp.sin(x) * sp.cos(x), sp.sin(2 * x)),)
    >>> statement_latex(Claim("demo", "2 sin x cos x = sin 2x", eq))
    ['2 \\sin{\\left(x \\right)} \\cos{\\left(x \\right)} = \\sin{\\left(2 x \\right)}']
    >>> statement_latex(Claim("demo", "2 sin x cos x = sin 2x", eq,
    ...                       latex=r"2\sin x\cos x = \sin 2x \\ x \in \mathbb{R}"))
    ['2\\sin x\\cos x = \\sin 2x', 'x \\in \\mathbb{R}']
    """
    return [line for group in _statement_groups(claim, width, max_entries) for line in group]


def display_lines(tex: str) -> list[str]:
    r"""An author's typeset statement cut into its display lines: at each ``\\`` that is
    outside braces and environments (the rows of a ``pmatrix`` stay in their line).

    >>> display_lines(r"T(0) = I \\ M = \begin{pmatrix} a & b \\ c & d \end{pmatrix}")
    ['T(0) = I', 'M = \\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}']
    """
    lines: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(tex):
        if tex.startswith("\\begin{", i) or tex.startswith("\\end{", i):
            opening = tex[i + 1] == "b"
            depth += 1 if opening else -1
            i += len("\\begin" if opening else "\\end")  # the name's braces balance on their own
        elif tex.startswith("\\\\", i) and depth == 0:
            lines.append(tex[start:i])
            i += 2
            start = i
        elif tex[i] == "\\":
            i += 2  # a control symbol (\{, \}, \,) or the first letter of a control word
        else:
            depth += {"{": 1, "}": -1}.get(tex[i], 0)
            i += 1
    lines.append(tex[start:])
    return [x.strip() for x in lines if x.strip()]


def _statement_groups(claim: Any, width: int | None, max_entries: int) -> list[list[str]]:
    """The typeset statement, one list of lines per equation (the author's: one per line)."""
    given = getattr(claim, "latex", "")
    if given:
        return [[line] for line in display_lines(given)]
    return [_equation_lines(eq, claim.notation, width, max_entries) for eq in claim.equations]


def _statement_rows(claim: Any, width: int, max_entries: int) -> list[str]:
    """Rows of an ``align*`` / ``aligned`` display of the statement: each equation starts at
    the margin, its continuation lines indented, a little space between equations."""
    rows: list[str] = []
    for group in _statement_groups(claim, width, max_entries):
        if rows:
            rows[-1] = rows[-1] + r" \\[3pt]"
        rows += [r + " \\\\" for r in _tex_display(group)]
        rows[-1] = rows[-1][: -len(" \\\\")]
    return rows


def _equation_lines(eq: Any, notation: Any, width: int | None, max_entries: int) -> list[str]:
    """``lhs = rhs`` on one line when it fits ``width``; else the left side's lines, then
    ``= `` and the right side's."""
    lhs = _latex_lines(eq.lhs, max_entries, notation, width)
    rhs = _latex_lines(eq.rhs, max_entries, notation, width)
    def wide(x: Any) -> int:
        big = isinstance(x, sp.MatrixBase) and x.rows * x.cols > max_entries
        return 56 if big else _width(_named(x, notation))

    if width is None or (len(lhs) == 1 and len(rhs) == 1 and wide(eq.lhs) + wide(eq.rhs) + 3 <= width):
        return [" ".join(lhs) + " = " + " ".join(rhs)]
    return lhs + [f"= {rhs[0]}"] + rhs[1:]


_PREAMBLE = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{amsmath,amssymb}
\usepackage[margin=2cm]{geometry}
\allowdisplaybreaks
\setlength{\parindent}{0pt}
\setlength{\emergencystretch}{3em}
\begin{document}
"""


def _tex_display(lines: list[str], rel: str = "") -> list[str]:
    """Display lines for an ``align*``: the first after ``&rel``, the others indented."""
    out = [f"&{rel} {lines[0]}".rstrip()]
    for x in lines[1:]:
        if x.startswith("= "):  # the other side of an equation: at the relation
            out.append(f"&{x}")
        else:  # a continuation: indented, a leading + or - read as binary ({}+)
            out.append(r"&\qquad " + ("{}" if x[:1] in "+-" else "") + x)
    return out


def _tex_prose(s: str) -> str:
    """Free text for LaTeX: escaped, with relations set as math (``<=`` as ≤, not ``\\textless``)."""
    for a, b in (("<=", "≤"), (">=", "≥"), ("!=", "≠"), ("->", "→")):
        s = s.replace(a, b)
    out = _tex_escape(s).replace(r"\textless{}", "$<$").replace(r"\textgreater{}", "$>$")
    # a long identifier (modeling_rope_utils.py, _compute_..._parameters) may break after
    # an underscore, a dot or a slash instead of running into the margin
    out = out.replace(r"\_", r"\_\allowbreak{}")
    # so may a long CamelCase name (TeleChat3RoPEScaledRotaryEmbedding), between its words
    out = re.sub(r"[A-Za-z0-9]{24,}", lambda m: re.sub(r"(?<=[a-z0-9])(?=[A-Z])", r"\\allowbreak{}", m.group()), out)
    return re.sub(r"(?<=\w)([./])(?=\w)", r"\1\\allowbreak{}", out)


def latex(proof: Proof, *, max_entries: int = 64, standalone: bool = False, full: bool = True,
          width: int = LATEX_WIDTH) -> str:
    r"""LaTeX: the claim (its statement in words, its ASCII mathematics read as mathematics as on
    the docs' pages -- ``<a, b>`` as :math:`\langle a, b\rangle`, ``^T`` as a superscript, see
    :func:`prose_math` -- then typeset), then each chain as an
    ``align*``: every step's reason as a line of text, then its expression, broken into lines
    of about ``width`` characters (a sum term by term) so that nothing runs into the margin.

    A clean fragment by default (``\paragraph``, ``align*`` with ``\intertext``; needs
    amsmath); ``standalone=True`` wraps it in a document that compiles on its own with
    pdflatex (plain ASCII: Greek letters in text as math). Every part is shown unless
    ``full=False`` (then as :func:`text` does).

    Examples
    --------
    >>> from pe_symbolic import theorems
    >>> tex = latex(theorems.get("rot2.det").prove())
    >>> tex.startswith(r"\paragraph{\texttt{rot2.det}}") and r"\begin{align*}" in tex
    True
    """
    c = proof.claim
    lines = [
        r"\paragraph{\texttt{%s}%s} %s" % (_tex_escape(c.id), _tex_escape(_scope_text(proof)),
                                            _tex_prose(prose_math(c.statement))),
        r"\begin{align*}",
        "\n".join(_statement_rows(c, width, max_entries)),
        r"\end{align*}",
        r"\emph{Source:} %s. \emph{Assumptions:} %s. \emph{Verdict:} \textbf{%s} (%.2f\,s)." % (
            _tex_prose(c.source), _tex_prose(_assumption_text(proof)), proof.verdict, proof.elapsed),
    ]
    if c.notation:
        lines.append(r"\emph{Where} %s." % ", ".join(
            r"$%s = %s$" % (_tex(sp.Symbol(n)), _tex(x)) for x, n in c.notation))
    if proof.lemmas:
        lines.append(r"\emph{Uses:} %s." % ", ".join(r"\texttt{%s}" % _tex_escape(x) for x in proof.lemmas))
    shown = _shown_parts(proof.parts, full)
    for q in shown:
        part = proof.parts[q]
        eq = part.equation
        lines.append(r"\subparagraph{%s} \textbf{%s}" % (_tex_prose(prose_math(_numbered(q, eq.label))),
                                                         part.verdict))
        rows = []
        for n, step in enumerate(part.steps):
            rows.append(r"\intertext{\small [%d] %s}" % (n + 1, _tex_step_title(step, n, c.notation)))
            body = _tex_display(_latex_lines(step.expr, max_entries, c.notation, width), "" if n == 0 else "=")
            rows.append(" \\\\\n".join(body) + (" \\\\" if n + 1 < len(part.steps) else ""))
        lines += [r"\begin{align*}", *rows, r"\end{align*}"]
        if part.note:
            lines.append(r"\emph{Note:} %s" % _tex_prose(part.note))
        if part.counterexample:
            lines.append(r"Counterexample: %s." % _tex_prose(
                ", ".join(f"{k} = {v}" for k, v in part.counterexample.items())))
    skipped = len(proof.parts) - len(shown)
    if skipped:
        lines.append(r"\emph{%d more part(s), all %s (full=True shows them).}" % (
            skipped, "proved" if all(p.verdict == "proved" for p in proof.parts) else "listed in the certificate"))
    body = "\n".join(lines)
    return _PREAMBLE + body + "\n\\end{document}\n" if standalone else body


def _tex_step_title(step: Any, index: int, notation: Any) -> str:
    """A step's reason as LaTeX text, its lemma instance typeset (``\\theta_{j} \\mapsto ...``)."""
    kind = step_kind(step.rule, index)
    if kind == "lemma":
        head = r"by \texttt{%s}" % _tex_escape(step.rule[len("lemma "):])
        if step.instance:
            head += " with " + ", ".join(r"$%s \mapsto %s$" % (
                _tex(sp.Symbol(k)) + ("" if args is None else "_{%s}" % ", ".join(_tex(a) for a in args)), _tex(v))
                for k, args, v in _instance_pairs(step, notation))
        return head + (r" --- %s" % _tex_prose(prose_math(step.why)) if step.why else "")
    return _tex_prose(prose_math(_step_title(step, index, notation)))


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


def myst(proof: Proof, *, max_entries: int = 64, heading: str = "##", number: bool = False,
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


def _md_proof_body(proof: Proof, *, max_entries: int, width: int, full: bool, link: bool) -> list[str]:
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


def markdown(proof: Proof, *, max_entries: int = 64, width: int = DOCS_WIDTH, full: bool = False) -> str:
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


def html(proof: Proof, *, max_entries: int = 64, width: int = DOCS_WIDTH, full: bool = False) -> str:
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
                "point": (None if p.point is None else
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
    """The JSON certificate (see :func:`certificate`) as text.

    Raises ``ValueError`` for a proof that holds a number too long to write (more than
    Python's 4300 digits; a certificate's reader takes at most 1000 per integer)."""
    try:
        return json.dumps(certificate(proof), indent=1)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        raise ValueError(f"the claim {proof.claim.id!r} holds an integer too long for a certificate (a "
                         "certificate's reader takes at most 1000 digits per integer); write it as a power, "
                         "e.g. sp.Pow(10, 5000, evaluate=False)") from None


def render(proof: Proof, fmt: str = "text", **kw: Any) -> str:
    """Render ``proof`` in one of :data:`FORMATS`."""
    from .._validate import check_choice

    fmt = check_choice("format", fmt, FORMATS)
    if fmt == "text":
        return text(proof, **kw)
    if fmt == "latex":
        return latex(proof, **kw)
    return json_text(proof)


_GREEK_WORDS = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eps": "ε", "zeta": "ζ",
                "theta": "θ", "Theta": "Θ", "lambda": "λ", "mu": "μ", "pi": "π", "sigma": "σ", "omega": "ω",
                "Phi": "Φ", "phi": "φ"}
_SUBSCRIPT = str.maketrans("0123456789aeijklmnoprstuvx+-", "₀₁₂₃₄₅₆₇₈₉ₐₑᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₊₋")


def prose_math(s: str) -> str:
    """Free text with the ASCII mathematics of claim statements read as mathematics, in
    Unicode (display only; the claim's text is unchanged): ``<a, b>`` as ⟨a, b⟩, ``^T`` as ᵀ,
    ``<=`` as ≤, Greek names as letters, one-character subscripts lowered.

    >>> prose_math("<R(m)q, R(n)k> = <q, R(n-m)k>; R(m)^T R(n) = R(n-m); w_i = theta^2, i <= h")
    '⟨R(m)q, R(n)k⟩ = ⟨q, R(n−m)k⟩; R(m)ᵀ R(n) = R(n−m); wᵢ = θ², i ≤ h'
    >>> prose_math("the block-diagonal matrix")
    'the block-diagonal matrix'
    """
    s = re.sub(r"<([^<>]*,[^<>]*)>", r"⟨\1⟩", s)
    s = re.sub(r"(?<![A-Za-z])(" + "|".join(sorted(_GREEK_WORDS, key=len, reverse=True)) + r")(?![A-Za-z])",
               lambda m: _GREEK_WORDS[m.group(1)], s)
    for a, b in (("<=", "≤"), (">=", "≥"), ("!=", "≠"), ("->", "→"), ("^T", "ᵀ"), ("^2", "²")):
        s = s.replace(a, b)
    s = re.sub(r"(?<=[A-Za-zα-ωΑ-Ω)])_([0-9a-z])(?![0-9A-Za-z_])", lambda m: m.group(1).translate(_SUBSCRIPT), s)
    # a minus between one-character operands (n-m, d-1), not a hyphen in a word
    return re.sub(r"(?<=\b[a-z0-9])-(?=[a-z0-9]\b|\()", "−", s)


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
             "−": r"$-$", "…": r"\ldots{}", "ᵀ": r"\textsuperscript{T}", "×": r"$\times$",
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
