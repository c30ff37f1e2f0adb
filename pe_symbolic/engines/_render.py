"""Plain-text rendering of an :class:`~pe_symbolic.engines.compare.EngineReport` (fits 100 columns)."""

from __future__ import annotations

import textwrap
from typing import Any

import sympy as sp

# The report's classes live in .compare, which imports this module to render them: here they are
# read by their attributes only (no import back, so the two modules form no circle).
EngineReport = LayerReport = Recipe = Any

__all__ = ["card_rows", "render_report"]


def _num(e: sp.Expr | None, digits: int = 6) -> str:
    if e is None:
        return "-"
    e = sp.sympify(e, strict=True)
    if e.is_Integer:
        return f"{int(e):,}"
    if e.is_number:
        return f"{float(sp.N(e, 20)):.{digits}g}"
    return sp.sstr(e)


def _attention(rec: Recipe) -> str:
    vals = []
    for reg in rec.regimes:
        v = _num(reg.attention)
        if v not in vals:
            vals.append(v)
    return " / ".join(vals) if vals else "-"


def card_rows(rec: Recipe) -> list[str]:
    """The card's fields for one recipe: type, theta, rotary dim, pairing, attention, table, max position."""
    if not rec.supported:
        return [rec.name, "-", "-", "-", "-", "-", "refused"]
    rows = "on the fly" if rec.table_rows is None else _num(rec.table_rows) + (" +grows" if rec.grows else "")
    maxpos = rec.max_position()
    return [rec.name.split(" (")[0], _num(rec.base), str(rec.rotary_dim), rec.pairing, _attention(rec), rows,
            "unbounded" if maxpos is None else _num(maxpos)]


_HEAD = ["engine", "class / function", "theta", "rot", "pairing", "attention", "table rows", "max pos"]


def _table(rows: list[list[str]], width: int) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    # the class column gives way first
    over = sum(widths) + 2 * (len(widths) - 1) - width
    if over > 0:
        widths[1] = max(12, widths[1] - over)
    out = []
    for r in rows:
        cells = [c if len(c) <= w else c[: w - 1] + "~" for c, w in zip(r, widths)]
        out.append("  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip())
    return out


def _layer(lay: LayerReport, width: int) -> list[str]:
    title = f"-- layer type {lay.layer_type}" if lay.layer_type else "--"
    out = [f"{title} (rope_type {lay.rope_type}) ".ljust(min(width, 60), "-")]
    rows = [_HEAD, ["hf", *card_rows(lay.hf)]]
    rows += [[c.engine, *card_rows(c.recipe)] for c in lay.checks]
    out += _table(rows, width)
    out.append("")
    wrap = textwrap.TextWrapper(width=width, subsequent_indent=" " * 6)
    for c in lay.checks:
        line = f"{c.engine}: {c.verdict}"
        if c.variant:
            line = f"{c.engine} (a variant, not the default): {c.verdict}"
        if c.verdict == "unsupported" or c.verdict.startswith(("unsupported beyond", "differs from")):
            line += f" -- {c.explanation}"
        elif c.verdict == "differs":
            line += f" -- {c.explanation}"
        elif c.verdict.startswith("equal here") and c.generic_verdict == "refuted":
            line += f" -- {c.generic_explanation}"
        elif c.verdict.startswith("equal here") or c.verdict == "undecided":
            reason = c.generic_explanation or c.explanation
            if reason:
                line += f" -- {reason}"
        out += wrap.wrap(line)
        notes = list(c.recipe.notes) + ([f"pairing: {c.recipe.pairing_note}"] if c.recipe.pairing_note else [])
        for note in notes:
            out += textwrap.wrap(f"note: {note}", width=width, initial_indent="    ", subsequent_indent="      ")
    place = _placement(lay)
    if place:
        out += textwrap.wrap(f"placement: {place}", width=width, subsequent_indent="      ")
    out.append("")
    out.append("sources (file @ commit):")
    seen = []
    for rec in [lay.hf, *(c.recipe for c in lay.checks)]:
        for s in rec.sources:
            if s not in seen:
                seen.append(s)
    for s in seen:
        out += textwrap.wrap(s.cite(), width=width, initial_indent="  ", subsequent_indent="    ")
    return out


def _placement(lay: LayerReport) -> str:
    """Where HF's attention factor acts and whether the softmax scale could carry it (a kernel proof)."""
    from ..numeric.program import AttentionFactor

    att = lay.hf.regimes[0].attention if lay.hf.supported and lay.hf.regimes else None
    if att is None or not sp.sympify(att).is_number:
        return ""
    rec = lay.hf
    partial = rec.rotary_dim is not None and bool(getattr(lay, "head_dim", None)) and rec.rotary_dim != lay.head_dim
    return AttentionFactor(float(sp.N(att, 20))).placement_text(partial=partial)


def render_report(rep: EngineReport, *, width: int = 100) -> str:
    """The text ``pe-audit --engines`` prints."""
    from .recipes import SOURCES

    out = textwrap.wrap(f"pe-audit --engines {rep.name}: each engine's RoPE against HF transformers "
                        f"{SOURCES['hf'].commit.lstrip('v')}, by the proof kernel", width=width, subsequent_indent="  ")
    out += textwrap.wrap("(equal = same angle m*omega_i for every pair i and position m, same factor on cos/sin, "
                         "every length n)", width=width)
    out.append("")
    if rep.nope:
        out += textwrap.wrap(f"no card: no layer of this model rotates (NoPE) -- {rep.nope}", width=width)
    for lay in rep.layers:
        out += _layer(lay, width)
        out.append("")
    return "\n".join(out).rstrip() + "\n"
