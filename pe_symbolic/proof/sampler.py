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

A point refutes ``lhs = rhs`` when both sides evaluate to finite numbers there at
:data:`REFUTE_DPS` significant digits, differ by more than :math:`10^{-15}` times their
scale, and the difference is confirmed at twice the precision.

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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import mpmath
import sympy as sp

from . import budget
from .claims import Expr

__all__ = [
    "REFUTE_DPS",
    "SPOT_PARTS",
    "Refutation",
    "SpotCheck",
    "admissible",
    "draw_point",
    "refute",
    "spread_parts",
]

#: Significant digits of a refuting evaluation (confirmed at twice as many).
REFUTE_DPS = 30
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


# --------------------------------------------------------------------------------------
# admissibility


def _has_facts(symbol: sp.Basic, value: sp.Expr) -> bool:
    for fact, wanted in symbol.assumptions0.items():
        got = getattr(value, f"is_{fact}", None)
        if got is None or bool(got) != bool(wanted):
            return False
    return True


def admissible(point: Mapping[sp.Symbol, sp.Expr], assumptions: Iterable[sp.Basic]) -> bool:
    """Whether ``point`` satisfies every symbol's assumptions and every relation.

    >>> import sympy as sp
    >>> n = sp.Symbol("n", integer=True, nonzero=True)
    >>> admissible({n: sp.Integer(0)}, ()), admissible({n: sp.Integer(3)}, [n > 2])
    (False, True)
    """
    for s, v in point.items():
        if not _has_facts(s, v):
            return False
    for a in assumptions:
        try:
            val = a.xreplace(dict(point))
        except (TypeError, ValueError, ZeroDivisionError):  # e.g. comparing non-real numbers
            return False
        if val is not sp.true:
            return False
    return True


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


def _draw(s: sp.Symbol, bd: _Bounds, rng: random.Random) -> sp.Expr:
    f = s.assumptions0
    if bd.fixed is not None:
        return bd.fixed
    if f.get("zero"):
        return sp.Integer(0)
    lo_sign, hi_sign = _sign_range(f)
    # numeric window from the sign and the relational bounds
    lo = -40.0 * (1 if lo_sign < 0 else 0)
    hi = 40.0 * (1 if hi_sign > 0 else 0)
    if bd.lo is not None:
        lo = max(lo, float(bd.lo))
        hi = max(hi, lo + 40.0)
    if bd.hi is not None:
        hi = min(hi, float(bd.hi))
        if bd.lo is None and lo_sign < 0:
            lo = min(lo, hi - 40.0)
    if f.get("integer"):
        ilo, ihi = int(sp.ceiling(lo)), int(sp.floor(hi))
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
# evaluation and refutation


_POLES = (sp.log, sp.tan, sp.cot, sp.sec, sp.csc, sp.gamma, sp.zeta)
_BAD = (sp.nan, sp.zoo, sp.oo, sp.S.NegativeInfinity)


def _defined(e: Expr, point: Mapping[sp.Symbol, sp.Expr]) -> bool:
    """False when a subexpression of ``e`` is undefined at ``point`` (a zero raised to a
    negative power, a pole), even if the whole expression evaluates to a number there: at
    d = 2 the exponent d/(d-2) is undefined although (...)**((2-d)/d) = (...)**0 is 1."""
    if not point:
        return True
    entries = list(e) if isinstance(e, sp.MatrixBase) else [e]
    for x in entries:
        for node in x.atoms(sp.Pow, *_POLES):
            if node.free_symbols and not (node.free_symbols <= set(point)):
                continue  # bound variables: decided after the sum is expanded
            if isinstance(node, sp.Pow):
                if node.exp.is_nonnegative is True:
                    continue
                base = node.base.xreplace(point)
                ex = node.exp.xreplace(point)
                if (base.is_zero and ex.is_nonpositive is not False) or base.has(*_BAD) or ex.has(*_BAD):
                    return False
            else:
                v = node.xreplace(point)
                if v.has(*_BAD) or any(a.is_zero for a in node.args if isinstance(node, sp.log)
                                       for a in [a.xreplace(point)]):
                    return False
    return True


def _abs_at(e: Expr, point: Mapping[sp.Symbol, sp.Expr], dps: int) -> float | None:
    """max |entry| of ``e`` at ``point`` at ``dps`` digits; ``None`` where undefined."""
    if not _defined(e, point):
        return None
    entries = list(e) if isinstance(e, sp.MatrixBase) else [e]
    worst = mpmath.mpf(0)
    # Non-integer values become Floats with more digits than requested, put in place before
    # evaluating: exact rationals under fractional powers, and evalf's own `subs=`, are each
    # an order of magnitude slower on large expressions.
    fpoint = {s: (v if v.is_Integer else sp.Float(v, dps + 10) if v.is_real else v.evalf(dps + 10))
              for s, v in point.items()}
    for x in entries:
        budget.check()
        v = x.xreplace(fpoint).evalf(dps)
        if not v.is_number or v.has(sp.nan, sp.zoo, sp.oo, sp.S.NegativeInfinity):
            return None
        try:
            c = complex(v)
        except (TypeError, ValueError):
            return None
        if c != c or abs(c) == float("inf"):
            return None
        worst = max(worst, mpmath.mpf(abs(c)))
    return float(worst)


def _doit(e: Expr) -> Expr:
    if isinstance(e, sp.MatrixBase):
        return sp.ImmutableMatrix(e.applyfunc(lambda x: x.doit()))
    return e.doit()


_UNEVALUATED = (sp.Sum, sp.Product, sp.Integral, sp.Derivative, sp.Determinant, sp.Limit, sp.Subs)


def _has(e: Expr, *types: type) -> bool:
    return any(x.has(*types) for x in e) if isinstance(e, sp.MatrixBase) else e.has(*types)


def _atoms(e: Expr, *types: type) -> set:
    return set().union(*(x.atoms(*types) for x in e)) if isinstance(e, sp.MatrixBase) else e.atoms(*types)


def _xreplace(e: Expr, m: Mapping) -> Expr:
    return sp.ImmutableMatrix(e.applyfunc(lambda x: x.xreplace(m))) if isinstance(e, sp.MatrixBase) else e.xreplace(m)


def _instantiate(e: Expr, point: Mapping[sp.Symbol, sp.Expr], indexed: dict, rng: random.Random) -> Expr:
    """``e`` at ``point``: symbols that bound sums or are not differentiated are replaced
    first (so a sum over ``j < h`` becomes finite before it is evaluated), then the
    unevaluated objects are evaluated, then the differentiation variables are replaced, and
    the entries ``q[2j]`` of vectors written with an ``IndexedBase`` get values of their own
    (drawn once per point, real where the base is real)."""
    deriv_vars = set().union(*(set(dv.variables) for dv in _atoms(e, sp.Derivative))) if _has(e, sp.Derivative) else set()
    e = _xreplace(e, {s: v for s, v in point.items() if s not in deriv_vars})
    if _has(e, *_UNEVALUATED):
        e = _doit(e)
    e = _xreplace(e, {s: v for s, v in point.items() if s in deriv_vars})
    for a in sorted(_atoms(e, sp.Indexed), key=sp.default_sort_key):
        if a not in indexed:
            indexed[a] = _draw_entry(a, rng)
    return _xreplace(e, indexed) if indexed else e


def _draw_entry(a: sp.Indexed, rng: random.Random) -> sp.Expr:
    """A value for the vector entry ``a`` with every property its base declares (an
    ``IndexedBase("b", positive=True)`` has positive entries); raises ``ValueError`` when
    none is found (the point is then skipped: never refuted with an inadmissible entry)."""
    label = a.base.label
    for _ in range(20):
        v = _draw(label, _Bounds(), rng) if isinstance(label, sp.Symbol) else sp.Rational(rng.randint(-4000, 4000), 997)
        if _has_facts(a, v):
            return v
    raise ValueError(f"no value with the properties of {a} was found")


def _entries_admissible(indexed: Mapping, point: Mapping, assumptions: Iterable[sp.Basic]) -> bool:
    """The vector entries' values have their bases' properties, and the relations that speak
    of entries hold with them."""
    if not all(_has_facts(a, v) for a, v in indexed.items()):
        return False
    for a in assumptions:
        if not a.has(sp.Indexed):
            continue
        try:
            val = a.xreplace(dict(point)).xreplace(dict(indexed))
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        if val is not sp.true:
            return False
    return True


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
    """Evaluate ``lhs - rhs`` at admissible points, looking for a counterexample.

    The counterexample maps symbol names to exact values (plus ``"|lhs - rhs|"``), the point
    holds the values themselves; the note says why no point could be drawn, if none could.
    Sums over a symbolic number of terms are evaluated at each point, once the bound is a
    number.
    """
    rng = random.Random(seed)
    symbolic_limits = _has(lhs, sp.Sum, sp.Product) or _has(rhs, sp.Sum, sp.Product)
    raw = lhs - rhs
    diff = sp.ImmutableMatrix(raw) if isinstance(raw, sp.MatrixBase) else raw
    lhs_e = lhs
    if not symbolic_limits:  # evaluate Derivative/Determinant once, before going numeric
        diff, lhs_e = _doit(diff), _doit(lhs)
    entries = list(diff) if isinstance(diff, sp.MatrixBase) else [diff]
    if len(entries) > 16:  # a deterministic sample of entries
        entries = [entries[q] for q in sorted(rng.sample(range(len(entries)), 16))]
    probe = sp.ImmutableMatrix(entries)
    scale_src = sp.ImmutableMatrix(list(lhs_e)[:16] if isinstance(lhs_e, sp.MatrixBase) else [lhs_e])
    labels = {a.base.label for a in _atoms(diff, sp.Indexed)} if _has(diff, sp.Indexed) else set()
    symbols = [s for s in symbols if s not in labels]
    small = set()
    for node in _atoms(diff, sp.Sum, sp.Product) if symbolic_limits else ():
        for lim in node.limits:
            small |= set().union(*(x.free_symbols for x in lim[1:]))
    worst, n_ok, n_inadmissible = 0.0, 0, 0
    for _ in range(_TRIES):
        budget.check()
        if n_ok >= points:
            break
        point = draw_point(symbols, assumptions, rng, small)
        if not admissible(point, assumptions):
            n_inadmissible += 1
            continue
        indexed: dict = {}
        try:
            if symbolic_limits or indexed or labels:
                probe_p = _instantiate(probe, point, indexed, rng)
                scale_p = _instantiate(scale_src, point, indexed, rng)
                at: dict = {}
            else:
                probe_p, scale_p, at = probe, scale_src, point
            val = _abs_at(probe_p, at, REFUTE_DPS)
            scale = _abs_at(scale_p, at, 20)
        except (ValueError, TypeError, ZeroDivisionError, OverflowError, ArithmeticError, AttributeError):
            continue
        if val is None or scale is None:
            continue
        n_ok += 1
        worst = max(worst, val)
        tol = 10.0 ** (-REFUTE_DPS // 2) * max(1.0, scale)
        if stop_at_counterexample and val > tol:
            # confirm at twice the precision: a real difference does not shrink with dps
            try:
                val2 = _abs_at(probe_p, at, 2 * REFUTE_DPS)
            except (ValueError, TypeError, ZeroDivisionError, OverflowError, ArithmeticError):
                continue
            if (val2 is not None and val2 > tol and abs(val2 - val) <= 1e-10 * max(val, val2)
                    and admissible(point, assumptions) and _entries_admissible(indexed, point, assumptions)):
                cex = {s.name: sp.sstr(v) for s, v in point.items()}
                cex.update({sp.sstr(a): sp.sstr(v) for a, v in indexed.items()})
                cex["|lhs - rhs|"] = f"{val2:.6g}"
                # a point that needed values for vector entries is not a symbol point
                return Refutation(SpotCheck(n_ok, worst, REFUTE_DPS), cex, None if indexed else dict(point))
    note = ""
    if n_ok == 0:
        if n_inadmissible:
            note = (f"no admissible point found: {n_inadmissible} candidate(s) violated the assumptions "
                    "(relations between several symbols are only filtered, not solved)")
        else:
            note = "no point where both sides are defined numbers was found"
    return Refutation(SpotCheck(n_ok, worst, REFUTE_DPS), note=note)
