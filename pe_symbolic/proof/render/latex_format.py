r"""A proof as LaTeX (:func:`~pe_symbolic.proof.render.latex`; standalone, a document pdflatex
compiles), and the claim's typeset statement every rendering shows
(:func:`~pe_symbolic.proof.render.statement_latex`): expressions broken into lines
(a sum term by term, a product factor by factor) so that nothing runs into the margin.

>>> import sympy as sp
>>> a, b = sp.symbols("a b")
>>> _tex_lines(sp.expand((a + b + 1) ** 3), 30)  # a sum term by term, continuations start with +
['3 a + 3 a^{2} + a^{3} + 3 b + 3 b^{2}', '+ b^{3} + 6 a b + 3 a b^{2} + 3 a^{2} b + 1']
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import sympy as sp

from .printers import (LATEX_WIDTH, ProofLike, _assumption_text, _instance_pairs, _named, _numbered,
                       _one_line, _ordered, _scope_text, _shown_parts, _step_title, _tex, _zero_matrix,
                       prose_math, step_kind)

__all__ = ["display_lines", "latex", "statement_latex"]


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


def latex(proof: ProofLike, *, max_entries: int = 64, standalone: bool = False, full: bool = True,
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
