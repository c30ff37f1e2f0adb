"""A proof as plain text, for the terminal (``pe-derive``, :meth:`~pe_symbolic.proof.Proof.to_text`):
long expressions wrapped, never cut.

>>> from pe_symbolic import theorems
>>> text(theorems.get("rot2.det").prove(), width=60).splitlines()[0]  # doctest: +ELLIPSIS
'rot2.det: PROVED in ... s'
"""

from __future__ import annotations

import textwrap

import sympy as sp

from ..kernel.claims import plain_text
from .printers import (ProofLike, _Pretty, _assumption_text, _cut, _named, _numbered, _one_line, _scope_text,
                       _shown_parts, _sstr, _step_title, _zero_matrix, wrap_math)

__all__ = ["text"]


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


def _wrapped(s: str, width: int, first: str, rest: str) -> list[str]:
    """Prose wrapped at ``width`` with indents; words longer than a line are never cut."""
    return textwrap.wrap(s, width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False) or [first.rstrip()]


def text(proof: ProofLike, *, width: int = 92, max_lines: int = 12, full: bool = False,
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
