"""What every rendering of a proof shares: SymPy's printers in reading order (terms as a paper
writes them, Greek letters, huge numbers shown by their size), the one-line form of an
expression, the titles of steps and parts, which parts are shown, the assumptions in words, and
free text read as mathematics (:func:`~pe_symbolic.proof.render.prose_math`).

The renderings themselves: :mod:`~pe_symbolic.proof.render.text_format` (the terminal),
:mod:`~pe_symbolic.proof.render.latex_format` (LaTeX, and the typeset statement every rendering
shows), :mod:`~pe_symbolic.proof.render.markup_format` (MyST, Markdown, HTML) and
:mod:`~pe_symbolic.proof.render.json_format` (the certificate).

>>> import sympy as sp
>>> n, m = sp.symbols("n m")
>>> _sstr(n - m), _sstr(sp.Symbol("theta_1") ** 2)
('n - m', 'θ_1**2')
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.str import StrPrinter

from ..kernel.claims import Claim, DIFFERENCE, LHS
from ..kernel.rules import RULES

__all__ = ["DOCS_WIDTH", "LATEX_WIDTH", "MAX_PARTS", "ProofLike", "prose_math", "step_kind", "wrap_math"]


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


def _scope_text(proof: ProofLike) -> str:
    d = proof.extra.get("d")
    return "" if d is None else f" (d = {d})"


def _shown_parts(parts: Any, full: bool = True) -> list[int]:
    n = len(parts)
    if full or n <= MAX_PARTS:
        return list(range(n))
    keep = set(range(3)) | {n - 1} | {q for q, p in enumerate(parts) if p.verdict != "proved"}
    return sorted(keep)


def _assumption_text(proof: ProofLike) -> str:
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


def _tex(e: Any) -> str:
    return _Latex().doprint(e)


def step_kind(rule: str, index: int) -> str:
    """How a step's rule is read: ``"start"``, ``"rule"``, ``"lemma"`` or ``"reason"``."""
    if index == 0 and rule in (DIFFERENCE, LHS):
        return "start"
    if rule in RULES:
        return "rule"
    if rule.startswith("lemma "):
        return "lemma"
    return "reason"


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


class ProofLike(Protocol):
    """What the renderings read of a proof: a :class:`~pe_symbolic.proof.Proof` is one. They
    read its attributes only and import no proof class (:mod:`pe_symbolic.proof.result` sits
    above them and calls them)."""

    @property
    def claim(self) -> Claim: ...

    @property
    def parts(self) -> tuple[Any, ...]: ...

    @property
    def elapsed(self) -> float: ...

    @property
    def extra(self) -> Any: ...

    @property
    def verdict(self) -> str: ...

    @property
    def lemmas(self) -> tuple[str, ...]: ...

    @property
    def spot_check(self) -> Any: ...
