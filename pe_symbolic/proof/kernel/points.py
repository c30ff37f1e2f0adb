r"""Admissible points and certified differences: what a refutation, and a witness, rest on.

A point is **admissible** for a claim when every symbol's value has every SymPy property the
symbol declares, as SymPy itself decides it for the number (``getattr(value, "is_" + fact)
is declared_value`` for each fact of ``symbol.assumptions0``; an undecided fact makes the point
inadmissible), and every relational assumption *certainly* holds there (decided with
enclosures, :func:`~pe_symbolic.proof.kernel.enclosure.decide`). Vector entries (``q[2]``)
get values with their base's properties, and the relations that speak of them must hold too.

Where the points come from is search (:mod:`pe_symbolic.proof.sampler` draws candidates); what
they prove is decided here: :func:`certify` re-evaluates both sides of an equation at a point
and returns their enclosures when they are **disjoint** (a certified difference, which no
rounding, cancellation or jump can fake), and :func:`defined_at` says whether both sides have
finite enclosures there (a point where both sides are defined, which the vacuity gate
:mod:`~pe_symbolic.proof.kernel.gate` asks for).

>>> import sympy as sp
>>> n = sp.Symbol("n", integer=True, nonzero=True)
>>> admissible({n: sp.Integer(0)}, ()), admissible({n: sp.Integer(3)}, [n > 2])
(False, True)
>>> x = sp.Symbol("x", real=True)
>>> certify(sp.sin(x + 1), sp.sin(x) + sp.sin(1), {x: sp.Integer(2)})["precision_bits"]
'128'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from . import budget
from .claims import Expr
from .enclosure import PRECISIONS, Undecidable, decide, describe, enclose, precision, separated, upper_abs

__all__ = [
    "Entry",
    "admissible",
    "certify",
    "defined_at",
    "entries_admissible",
    "evaluate_at",
    "gap",
    "has_facts",
    "holds",
]

#: Supplies a value for a vector entry the first time it is met (``q[2] -> 3/7``).
Entry = Callable[[sp.Indexed], sp.Expr]

#: Below this bound on |lhs - rhs| a point is not retried at a higher precision.
_CLOSE = 1e-30


def has_facts(symbol: sp.Basic, value: sp.Expr) -> bool:
    """Whether SymPy decides every fact ``symbol`` declares to hold of ``value``."""
    for fact, wanted in symbol.assumptions0.items():
        got = getattr(value, f"is_{fact}", None)
        if got is None or bool(got) != bool(wanted):
            return False
    return True


def admissible(point: Mapping[sp.Symbol, sp.Expr], assumptions: Iterable[sp.Basic],
               entry: Entry | None = None) -> bool:
    """Whether ``point`` satisfies every symbol's facts and every relation. A relation that
    speaks of vector entries is checked only with ``entry`` (which supplies their values;
    each value must have its base's facts), and is otherwise left to
    ``entries_admissible``."""
    for s, v in point.items():
        if not has_facts(s, v):
            return False
    env = dict(point)
    checked = _checked(entry) if entry is not None else None
    for a in assumptions:
        if a.has(sp.Indexed):
            if checked is not None and not holds(a, env, checked):
                return False
        elif not holds(a, env):
            return False
    return True


def _checked(entry: Entry) -> Entry:
    """``entry``, with every value it supplies checked for its base's facts."""
    def supply(a: sp.Indexed) -> sp.Expr:
        v = entry(a)
        if not has_facts(a, v):
            raise Undecidable(f"the value {v} of {a} lacks a fact of its base")
        return v
    return supply


def holds(condition: sp.Basic, env: Mapping, entry: Entry | None = None) -> bool:
    """Whether ``condition`` certainly holds at ``env`` (decided with enclosures; every free
    symbol must have a value)."""
    if condition.free_symbols - set(env) and not condition.has(sp.Indexed):
        return False
    try:
        with precision(PRECISIONS[0]):
            return decide(condition, env, entry=entry)
    except Undecidable:
        return False


def entries_admissible(indexed: Mapping, point: Mapping, assumptions: Iterable[sp.Basic]) -> bool:
    """The vector entries' values have their bases' properties, and the relations that speak
    of entries hold with them."""
    if not all(has_facts(a, v) for a, v in indexed.items()):
        return False
    env = {**dict(point), **dict(indexed)}
    for a in assumptions:
        if a.has(sp.Indexed) and not holds(a, env):
            return False
    return True


def _at(e: Expr, where: tuple[int, int] | None) -> sp.Expr:
    return e if where is None else e[where]


@dataclass
class Evaluation:
    """Both sides at one point, entry by entry: the first separated entry, or the spot check."""

    separated: tuple | None = None  # (entry, lhs enclosure, rhs enclosure, bits)
    worst: float = 0.0


def evaluate_at(lhs: Expr, rhs: Expr, entries: list | None, env: dict, entry: Entry | None) -> Evaluation:
    """Enclose both sides at ``env`` (``entries``: the matrix entries to look at, ``None`` for a
    scalar), at the working precisions in turn, until an entry separates."""
    out = Evaluation()
    for bits in PRECISIONS:
        out.worst = 0.0
        with precision(bits):
            for where in entries if entries is not None else [None]:
                budget.check()
                a = enclose(_at(lhs, where), env, entry=entry)
                b = enclose(_at(rhs, where), env, entry=entry)
                if separated(a, b):
                    return Evaluation((where, a, b, bits), upper_abs(a, b))
                out.worst = max(out.worst, upper_abs(a, b))
        if out.worst <= _CLOSE:
            break  # both sides agree to many digits: more precision will not separate them
    return out


def enclosures(ev: Evaluation) -> dict:
    """The separated enclosures of an :class:`Evaluation`, as text (for a certificate)."""
    where, a, b, bits = ev.separated
    out = {"lhs": describe(a), "rhs": describe(b), "precision_bits": str(bits)}
    if where is not None:
        out["entry"] = f"{where[0]},{where[1]}"
    return out


def _all_entries(e: Expr) -> list | None:
    return [divmod(q, e.cols) for q in range(len(e))] if isinstance(e, sp.MatrixBase) else None


def certify(lhs: Expr, rhs: Expr, point: Mapping[sp.Symbol, sp.Expr],
            entries: Mapping[sp.Indexed, sp.Expr] | None = None) -> dict | None:
    """Re-check a refuting point: the enclosures of the two sides at ``point`` (and the vector
    entries' values) are disjoint for some entry. Returns the enclosures, or ``None``."""
    env: dict = {**dict(point), **dict(entries or {})}
    try:
        ev = evaluate_at(lhs, rhs, _all_entries(lhs), env, None)
    except Undecidable:
        return None
    return enclosures(ev) if ev.separated is not None else None


def _stand_ins(e: Expr) -> Expr:
    """``e`` with every application of an undefined function replaced by a number (distinct
    applications by distinct numbers): an uninterpreted ``f`` may be any function, so a side
    defined for these values is defined for some ``f``."""
    entries = list(e) if isinstance(e, sp.MatrixBase) else [e]
    undef = sorted(set().union(*(x.atoms(sp.core.function.AppliedUndef) for x in entries if isinstance(x, sp.Basic))),
                   key=sp.default_sort_key)
    if not undef:
        return e
    values = {u: sp.Rational(2 * q + 1, 7 + q) for q, u in enumerate(undef)}
    return e.xreplace(values) if not isinstance(e, sp.MatrixBase) else sp.ImmutableMatrix(e.xreplace(values))


def defined_at(lhs: Expr, rhs: Expr, point: Mapping[sp.Symbol, sp.Expr], entry: Entry | None = None) -> bool:
    """Whether both sides (every entry of a matrix) have finite enclosures at ``point``: both
    are certainly defined there. Undefined functions stand for any function (see
    ``_stand_ins``)."""
    env = dict(point)
    entry = _checked(entry) if entry is not None else None
    env_lhs, env_rhs = _stand_ins(lhs), _stand_ins(rhs)
    try:
        entries = _all_entries(lhs)
        with precision(PRECISIONS[0]):
            for where in entries if entries is not None else [None]:  # an empty matrix: nothing to evaluate
                budget.check()
                for side in (env_lhs, env_rhs):
                    v = enclose(_at(side, where), env, entry=entry)
                    if not isinstance(v, Fraction) and not (v.real.is_finite() and v.imag.is_finite()):
                        return False
    except (Undecidable, ValueError):
        return False
    return True


def gap(a: Any, b: Any) -> float:
    """A certified lower bound of ``|a - b|`` for separated values, as a float: 0.0 if it
    underflows, ``inf`` if it is too large for a float (never an ``OverflowError``)."""
    from .enclosure import _ball

    if isinstance(a, Fraction) and isinstance(b, Fraction):
        d = abs(a - b)
        try:
            return float(d)
        except OverflowError:
            return math.inf
    d = abs(_ball(a) - _ball(b))
    try:
        return float(d.lower().mid())
    except OverflowError:
        return math.inf
