r"""Points that satisfy every assumption, and honest refutation at them.

Numbers never prove anything here; they can only refute, and only at an **admissible** point:

* every symbol's value has every SymPy property the symbol declares, as SymPy itself decides
  it for the number (``getattr(value, "is_" + fact) is declared_value`` for each fact of
  ``symbol.assumptions0`` — real, imaginary, complex, positive, nonzero, integer, even, odd,
  prime, composite, rational, irrational, finite, ...; an undecided fact makes the point
  inadmissible);
* every relational assumption of the claim (``b > 1``, ``Eq(x, 1)``) evaluates to ``True``.

Candidates are drawn to make that likely (primes for a prime symbol, ``a + b*I`` for a
complex one, values inside the bounds a relation ``x > 1000`` sets), then filtered by the
test above; a candidate counterexample is checked once more before it is reported. When no
admissible point can be drawn the verdict stays ``undecided`` and the note says why.

A point refutes ``lhs = rhs`` when the **enclosures** of the two sides there are disjoint
(:mod:`pe_symbolic.proof.kernel.enclosure`: exact rational arithmetic where possible, Arb balls
elsewhere, the expression evaluated as written): a certified difference, which no rounding,
cancellation or jump can fake. Whether a point satisfies a relational assumption is decided
the same way (certainly true, or the point is not used).

>>> import sympy as sp
>>> p = sp.Symbol("p", prime=True)
>>> point = draw_point([p], (), __import__("random").Random(0))
>>> admissible(point, ())
True
>>> bool(point[p].is_prime)
True
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from .kernel import budget
from .kernel.claims import Expr
from .kernel.enclosure import PRECISIONS, Undecidable
from .kernel.fragment import fact_problem
from .kernel.gate import VACUOUS, contradiction
from .kernel.points import Entry, admissible, certify, enclosures, entries_admissible, evaluate_at, gap, has_facts

__all__ = [
    "REFUTE_DPS",
    "SPOT_PARTS",
    "Refutation",
    "SpotCheck",
    "admissible",
    "candidates",
    "draw_point",
    "refute",
    "spread_parts",
]

#: Significant digits (about) of the first working precision of a refuting evaluation.
REFUTE_DPS = PRECISIONS[0] * 3 // 10
#: Parts of a claim evaluated at a point when it is proved or re-checked (the numeric veto).
SPOT_PARTS = 8


def spread_parts(n: int, k: int = SPOT_PARTS) -> set[int]:
    """At most ``k`` of the part indices ``0 .. n-1``, spread evenly over the range, the
    first and the last included; all of them when there are at most ``k``.

    >>> sorted(spread_parts(100, 3)), sorted(spread_parts(3))
    ([0, 50, 99], [0, 1, 2])
    """
    if n <= k:
        return set(range(n))
    return {round(q * (n - 1) / max(k - 1, 1)) for q in range(k)}


_TRIES = 80
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47)
_COMPOSITES = (4, 6, 8, 9, 10, 12, 14, 15, 16, 18, 20, 21, 22, 25, 27)


@dataclass(frozen=True)
class SpotCheck:
    """A numeric spot check of a claim: informative only, it never proves anything."""

    points: int
    max_abs_difference: float
    dps: int

    def __str__(self) -> str:
        if self.points == 0:
            return "spot check: no admissible point found"
        return (
            f"spot check: {self.points} point(s) at {self.dps} digits, "
            f"max |lhs - rhs| = {self.max_abs_difference:.1e}"
        )


@dataclass(frozen=True)
class Refutation:
    """What :func:`refute` found: the spot check, and a counterexample if there is one."""

    spot_check: SpotCheck
    counterexample: dict[str, str] | None = None
    point: dict[sp.Symbol, sp.Expr] | None = None
    note: str = ""
    entries: dict[sp.Indexed, sp.Expr] | None = None
    enclosures: dict[str, Any] | None = None


# --------------------------------------------------------------------------------------
# drawing candidates


@dataclass
class _Bounds:
    lo: sp.Expr | None = None
    lo_strict: bool = False
    hi: sp.Expr | None = None
    hi_strict: bool = False
    fixed: sp.Expr | None = None


def _bounds(symbols: Sequence[sp.Symbol], assumptions: Iterable[sp.Basic]) -> dict[sp.Symbol, _Bounds]:
    """Bounds that single-symbol relations with a number on the other side put on a symbol."""
    out = {s: _Bounds() for s in symbols}
    for a in assumptions:
        if not isinstance(a, sp.core.relational.Relational):
            continue
        lhs, rhs, op = a.lhs, a.rhs, a.rel_op
        if rhs in out and lhs.is_number:
            lhs, rhs = rhs, lhs
            op = {">": "<", "<": ">", ">=": "<=", "<=": ">=", "==": "==", "!=": "!="}[op]
        if lhs not in out or not rhs.is_number or rhs.is_real is not True:
            continue
        bd = out[lhs]
        if op == "==":
            bd.fixed = rhs
        elif op in (">", ">="):
            if bd.lo is None or rhs >= bd.lo:
                bd.lo, bd.lo_strict = rhs, op == ">"
        elif op in ("<", "<="):
            if bd.hi is None or rhs <= bd.hi:
                bd.hi, bd.hi_strict = rhs, op == "<"
    return out


def _int_in(lo: int, hi: int, rng: random.Random, want: dict[str, bool]) -> sp.Integer:
    if want.get("prime"):
        pool = [p for p in _PRIMES if lo <= p <= hi] or [p for p in range(max(lo, 2), max(lo, 2) + 200)
                                                         if sp.isprime(p)]
        return sp.Integer(rng.choice(pool or [2]))
    if want.get("composite"):
        pool = [c for c in _COMPOSITES if lo <= c <= hi] or [max(lo, 4)]
        return sp.Integer(rng.choice(pool))
    v = rng.randint(lo, hi) if lo <= hi else lo
    if want.get("even") and v % 2:
        v = v + 1 if v + 1 <= hi else v - 1
    if want.get("odd") and not v % 2:
        v = v + 1 if v + 1 <= hi else v - 1
    if want.get("nonzero") is True and v == 0:
        v = 2 if want.get("even") else 1
    return sp.Integer(v)


def _sign_range(facts: dict[str, bool]) -> tuple[float, float]:
    if facts.get("zero"):
        return 0.0, 0.0
    if facts.get("positive") or facts.get("extended_positive"):
        return 0.0, 1.0
    if facts.get("negative") or facts.get("extended_negative"):
        return -1.0, 0.0
    if facts.get("nonnegative") or facts.get("extended_nonnegative"):
        return 0.0, 1.0
    if facts.get("nonpositive") or facts.get("extended_nonpositive"):
        return -1.0, 0.0
    return -1.0, 1.0


def _exact(v: sp.Expr) -> Fraction:
    """A real number bound as an exact rational (a rational approximation of an irrational one)."""
    r = v if v.is_Rational else sp.Rational(sp.N(v, 30))
    return Fraction(int(r.p), int(r.q))


def _draw(s: sp.Symbol, bd: _Bounds, rng: random.Random) -> sp.Expr:
    f = s.assumptions0
    if bd.fixed is not None:
        return bd.fixed
    if f.get("zero"):
        return sp.Integer(0)
    lo_sign, hi_sign = _sign_range(f)
    # the window from the sign and the relational bounds, in exact rationals (a bound of
    # 10**400 is beyond any float)
    lo = Fraction(-40 if lo_sign < 0 else 0)
    hi = Fraction(40 if hi_sign > 0 else 0)
    if bd.lo is not None:
        lo = max(lo, _exact(bd.lo))
        hi = max(hi, lo + 40)
    if bd.hi is not None:
        hi = min(hi, _exact(bd.hi))
        if bd.lo is None and lo_sign < 0:
            lo = min(lo, hi - 40)
    if f.get("integer"):
        ilo, ihi = math.ceil(lo), math.floor(hi)
        if f.get("positive") or f.get("extended_positive"):
            ilo = max(ilo, 1)
        if f.get("negative") or f.get("extended_negative"):
            ihi = min(ihi, -1)
        if bd.lo is not None and bd.lo_strict and ilo == bd.lo:
            ilo += 1
        if bd.hi is not None and bd.hi_strict and ihi == bd.hi:
            ihi -= 1
        # small magnitudes are the likeliest counterexamples; widen now and then
        if ihi - ilo > 24 and rng.random() < 0.7:
            centre = min(max(0, ilo), ihi)
            ilo, ihi = max(ilo, centre - 9), min(ihi, centre + 12)
        return _int_in(ilo, ihi, rng, f)
    den = rng.choice((1, 3, 7, 997))
    a, b = math.ceil(lo * den), math.floor(hi * den)  # exact integers, however large the bounds
    num = rng.randint(a, b) if a <= b else a
    x = sp.Rational(num, den)
    if x == 0 and f.get("nonzero"):
        x = sp.Rational(1, 3) if hi_sign > 0 else sp.Rational(-1, 3)
    if f.get("irrational"):
        x = x + sp.sqrt(2) * (1 if hi_sign > 0 else -1) / 1000
    elif f.get("transcendental"):
        x = (x if x != 0 else sp.Integer(1)) * sp.pi / 3
    if f.get("imaginary"):
        return sp.I * (x if x != 0 else sp.Rational(5, 7))
    if f.get("real") is None and f.get("extended_real") is None and f.get("imaginary") is None:
        # a complex symbol: non-real points are the ones that tell complex claims apart
        if rng.random() < 0.6:
            return x + sp.I * sp.Rational(rng.randint(-4000, 4000) or 1, 997)
    return x


def draw_point(
    symbols: Sequence[sp.Symbol], assumptions: Iterable[sp.Basic], rng: random.Random,
    small: Iterable[sp.Symbol] = (),
) -> dict[sp.Symbol, sp.Expr]:
    """One candidate point for ``symbols`` (sorted by name for determinism); may be inadmissible.

    Symbols in ``small`` (the bounds of sums) are drawn below 8, so sums stay short.
    """
    assumptions = tuple(assumptions)
    bounds = _bounds(symbols, assumptions)
    for s in small:
        if s in bounds and (bounds[s].hi is None or bounds[s].hi > 7):
            bounds[s].hi = sp.Integer(7)
    return {s: _draw(s, bounds[s], rng) for s in sorted(symbols, key=lambda s: s.name)}


# --------------------------------------------------------------------------------------
# evaluation and refutation: certified by disjoint enclosures


def _sample_entries(diff: Expr, rng: random.Random) -> list[tuple[int, int]] | None:
    """Which entries of a matrix equation are evaluated (all of a small one, 16 of a large
    one, deterministically); ``None`` for a scalar."""
    if not isinstance(diff, sp.MatrixBase):
        return None
    n = len(diff)
    picks = range(n) if n <= 16 else sorted(rng.sample(range(n), 16))
    return [divmod(q, diff.cols) for q in picks]


def refute(
    lhs: Expr,
    rhs: Expr,
    symbols: Sequence[sp.Symbol],
    assumptions: Sequence[sp.Basic],
    *,
    seed: int,
    points: int,
    stop_at_counterexample: bool = True,
) -> Refutation:
    """Evaluate both sides at admissible points, looking for a certified counterexample.

    A point refutes when, for some entry, the enclosures of the two sides there are disjoint
    (:mod:`pe_symbolic.proof.kernel.enclosure`): no rounding, no cancellation and no jump can make
    that wrong. A point where an enclosure cannot be formed (an undefined subexpression, an
    unknown head, a condition the balls cannot settle) is skipped. The counterexample maps
    symbol names (and vector entries) to exact values, plus ``"|lhs - rhs|"``, a certified
    lower bound of the difference there.
    """
    rng = random.Random(seed)
    exotic = [why for s in symbols for why in [fact_problem(s)] if why]
    if exotic:  # the enclosures evaluate commuting, finite numbers: no other semantics is refuted
        return Refutation(SpotCheck(0, 0.0, REFUTE_DPS), note=f"no point is drawn: {exotic[0]}")
    raw = lhs - rhs
    entries = _sample_entries(raw, rng)
    labels = {a.base.label for a in _atoms(raw, sp.Indexed)} if _has(raw, sp.Indexed) else set()
    symbols = [s for s in symbols if s not in labels]
    small = set()
    for node in _atoms(raw, sp.Sum, sp.Product) if _has(raw, sp.Sum, sp.Product) else ():
        for lim in node.limits:
            small |= set().union(*(x.free_symbols for x in lim[1:]))
    worst, n_ok, n_inadmissible, why_skipped = 0.0, 0, 0, ""
    for _ in range(_TRIES):
        budget.check()
        if n_ok >= points:
            break
        point = draw_point(symbols, assumptions, rng, small)
        if not admissible(point, assumptions):
            n_inadmissible += 1
            continue
        indexed: dict = {}

        def entry(a: sp.Indexed) -> sp.Expr:  # one value per entry and point, for both sides
            if a not in indexed:
                indexed[a] = _draw_entry(a, rng)
            return indexed[a]

        try:
            ev = evaluate_at(lhs, rhs, entries, dict(point), entry)
        except (Undecidable, ValueError) as exc:
            why_skipped = str(exc)
            continue
        n_ok += 1
        worst = max(worst, ev.worst)
        if ev.separated is not None and stop_at_counterexample:
            if not (admissible(point, assumptions) and entries_admissible(indexed, point, assumptions)):
                continue
            where, a, b, bits = ev.separated
            cex = {s.name: sp.sstr(v) for s, v in point.items()}
            cex.update({sp.sstr(k): sp.sstr(v) for k, v in indexed.items()})
            cex["|lhs - rhs|"] = f"{gap(a, b):.6g}"
            return Refutation(SpotCheck(n_ok, ev.worst, bits * 3 // 10), cex, dict(point),
                              entries=dict(indexed), enclosures=enclosures(ev))
    note = ""
    if n_ok == 0:
        if n_inadmissible:
            note = (f"no admissible point found: {n_inadmissible} candidate(s) violated the assumptions "
                    "(relations between several symbols are only filtered, not solved)")
        else:
            note = "no point where both sides have certified enclosures was found" + (
                f" ({why_skipped})" if why_skipped else "")
    return Refutation(SpotCheck(n_ok, worst, PRECISIONS[0] * 3 // 10), note=note)


def _has(e: Expr, *types: type) -> bool:
    return any(x.has(*types) for x in e) if isinstance(e, sp.MatrixBase) else e.has(*types)


def _atoms(e: Expr, *types: type) -> set:
    return set().union(*(x.atoms(*types) for x in e)) if isinstance(e, sp.MatrixBase) else e.atoms(*types)


def _draw_entry(a: sp.Indexed, rng: random.Random) -> sp.Expr:
    """A value for the vector entry ``a`` with every property its base declares (an
    ``IndexedBase("b", positive=True)`` has positive entries); raises ``ValueError`` when
    none is found (the point is then skipped: never refuted with an inadmissible entry)."""
    label = a.base.label
    for _ in range(20):
        v = _draw(label, _Bounds(), rng) if isinstance(label, sp.Symbol) else sp.Rational(rng.randint(-4000, 4000), 997)
        if has_facts(a, v):
            return v
    raise ValueError(f"no value with the properties of {a} was found")


def candidates(symbols: Sequence[sp.Symbol], assumptions: Sequence[sp.Basic], exprs: Iterable[Expr] = (),
               tries: int = _TRIES) -> Callable[[int], Iterator[tuple[dict, Entry]]]:
    """Candidate points for the kernel's gate (:mod:`pe_symbolic.proof.kernel.gate`):
    ``candidates(...)(seed)`` yields up to ``tries`` drawn points (with the bounds of the sums
    in ``exprs`` drawn small) and, with each, a supplier of values for vector entries. Search
    only: the gate checks every point it uses."""
    exprs = [x for e in exprs for x in (e if isinstance(e, sp.MatrixBase) else [e]) if isinstance(x, sp.Basic)]
    labels = {a.base.label for e in exprs for a in e.atoms(sp.Indexed)}
    labels |= {a.base.label for c in assumptions for a in c.atoms(sp.Indexed)}
    syms = [s for s in symbols if s not in labels]
    small: set = set()
    for e in exprs:
        for node in e.atoms(sp.Sum, sp.Product):
            for lim in node.limits:
                small |= set().union(*(x.free_symbols for x in lim[1:]))
    assumptions = tuple(assumptions)

    def generate(seed: int) -> Iterator[tuple[dict, Entry]]:
        rng = random.Random(1_000_003 + seed)
        for _ in range(tries):
            point = draw_point(syms, assumptions, rng, small)
            values: dict = {}

            def entry(a: sp.Indexed, values: dict = values) -> sp.Expr:
                if a not in values:
                    values[a] = _draw_entry(a, rng)
                return values[a]

            yield point, entry

    return generate
