r"""The vacuity and definedness gate: one door that a checked chain passes to be called proved.

A chain that re-checks proves ``lhs = rhs`` *under the assumptions* and, where a node may be
undefined, *wherever both sides are defined*. Both qualifications can make the statement
empty: assumptions that no point satisfies (``x y > 1`` and ``x y < 0``; a prime that is even
and above 2), sides that are defined nowhere (a denominator that is 0 everywhere without
looking like it, ``(sin^2 x + cos^2 x - 1) / (cos 2x - cos^2 x + sin^2 x)``). Anything follows
from nothing, so neither is ever a plain ``proved``. :func:`~pe_symbolic.proof.engine.prove`
and :func:`~pe_symbolic.proof.certificates.recheck` both ask this module, on the claim as
built (or as rebuilt from the certificate):

:func:`admit` (once per claim)
    ``vacuous: the assumptions are contradictory (why)`` when :func:`contradiction` finds
    them so; else ``not known to be satisfiable`` unless a candidate point is **admissible**
    (:func:`~pe_symbolic.proof.kernel.points.admissible`: every fact and every relation
    certainly holds there). Then the claim is admitted, with that point as its witness.
:func:`judge` (once per proved equation)
    the note the proof carries (:func:`qualification`: ``''``, or
    :data:`WHEREVER_DEFINED` when a step may cancel a factor or a node of a side may be
    undefined, :func:`may_be_undefined`); with that qualification (and for an equation that is
    trivial as stated) only when an admissible point is found where **both sides have finite
    enclosures** (:func:`~pe_symbolic.proof.kernel.points.defined_at`), else not proved.

Candidate points come from outside the kernel (the sampler's search); only what this module
checks about them counts. Detecting a contradiction (:func:`contradiction`: the interval of
each symbol's own relations, integer ranges filtered by the facts, and the relations linear in
their monomials by an exact linear program) can only turn ``proved`` into ``undecided``.

>>> import sympy as sp
>>> x, y = sp.symbols("x y", real=True)
>>> contradiction([x, y], [x * y > 1, x * y < 0])
'the relations x*y > 1, x*y < 0 have no common solution, even with every monomial as a free variable (the strict ones cannot hold together)'
>>> p = sp.Symbol("p", prime=True, even=True)
>>> contradiction([p], [p > 2])
'p cannot satisfy p > 2 (with its declared properties)'
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import sympy as sp

from . import budget
from .claims import Equation, Expr, Step
from .fragment import defined_here
from .points import Entry, admissible, defined_at
from .rules import CONDITIONAL

__all__ = [
    "NOWHERE_DEFINED",
    "UNSATISFIED",
    "VACUOUS",
    "WHEREVER_DEFINED",
    "Admission",
    "Candidates",
    "admit",
    "contradiction",
    "judge",
    "may_be_undefined",
    "qualification",
]

#: The note of a claim whose assumptions no point can satisfy (its verdict is ``undecided``).
VACUOUS = "vacuous: the assumptions are contradictory"
#: The note of a claim whose assumptions no admissible point was found for.
UNSATISFIED = ("not known to be satisfiable: no point where every assumption certainly holds was found "
               "(relations between several symbols are only filtered, not solved); nothing was proved")
#: The qualification of an equality that holds only where a denominator does not vanish.
WHEREVER_DEFINED = ("equal wherever both sides are defined (a denominator may vanish, a step cancels a factor, or "
                    "a head is held on part of the line only, as asin on [-1, 1]: the fragment's table)")
#: Why a checked chain of an equation whose sides were found defined at no point is not proved.
NOWHERE_DEFINED = ("the chain re-checks, but no admissible point where both sides are defined was found (a "
                   "denominator may vanish everywhere): 'wherever both sides are defined' may be nowhere; "
                   "nothing was proved")

#: Candidate points: ``candidates(seed)`` yields ``(point, entry)`` pairs (``entry`` supplies
#: values for vector entries, or is ``None``).
Candidates = Callable[[int], Iterable[tuple[dict, "Entry | None"]]]


# ----------------------------------------------------------------------------------------
# definedness


def may_be_undefined(e: Expr) -> bool:
    """Whether a node of ``e`` may be undefined somewhere: its fragment row's ``defined``
    (:func:`~pe_symbolic.proof.kernel.fragment.defined_here`) is not known to hold -- a power
    with an exponent not known nonnegative of a base not known nonzero (constant bases too:
    ``Subs(z, z, 0)**-1``), a logarithm of what may be 0, ``atan`` of what may be ``+-i``, a
    ``Piecewise`` without an otherwise branch, a derivative or a limit the kernel's rules do
    not evaluate."""
    entries = list(e) if isinstance(e, sp.MatrixBase) else [e]
    return any(_entry_may_be_undefined(x) for x in entries if isinstance(x, sp.Basic))


@functools.lru_cache(maxsize=16384)
def _entry_may_be_undefined(x: sp.Basic) -> bool:
    stack = [x]
    while stack:
        node = stack.pop()
        if not node.args:
            continue
        if not defined_here(node):
            return True
        if isinstance(node, sp.Limit):
            continue  # its value is the limit the kernel's laws give: where the body is undefined is moot
        stack.extend(a for a in node.args if isinstance(a, sp.Basic))
    return False


def qualification(eq: Equation, chain: Sequence[Step]) -> str:
    """The note a proved chain carries: :data:`WHEREVER_DEFINED` when it cites a rule that may
    cancel a factor or a side may be undefined somewhere, else ``''``. The same for a proof
    found now and for a certificate re-checked later."""
    if any(s.rule in CONDITIONAL for s in chain) or may_be_undefined(eq.lhs) or may_be_undefined(eq.rhs):
        return WHEREVER_DEFINED
    return ""


# ----------------------------------------------------------------------------------------
# the gate


@dataclass(frozen=True)
class Admission:
    """What :func:`admit` decided about a claim's assumptions: ``note`` is ``''`` when they
    were witnessed satisfiable (``point`` is the witness), else why nothing may be proved."""

    note: str
    point: dict | None = None


def _assumption_points(assumptions: Sequence[sp.Basic], candidates: Candidates, seed: int
                       ) -> Iterator[tuple[dict, Entry | None]]:
    for point, entry in candidates(seed):
        budget.check()
        if admissible(point, assumptions, entry):
            yield point, entry


def admit(symbols: Sequence[sp.Symbol], assumptions: Sequence[sp.Basic], candidates: Candidates) -> Admission:
    """The claim-level half of the gate (see the module notes)."""
    why = contradiction(symbols, assumptions)
    if why:
        return Admission(f"{VACUOUS} ({why}); nothing was proved")
    for point, _ in _assumption_points(assumptions, candidates, 0):
        return Admission("", point)
    return Admission(UNSATISFIED)


def judge(eq: Equation, chain: Sequence[Step], assumptions: Sequence[sp.Basic], candidates: Candidates, *,
          seed: int = 0, trivial: bool = False) -> tuple[bool, str]:
    """The equation-level half of the gate, for a chain the checker accepted (or an equation
    that is trivial as stated): ``(proved, note)``."""
    note = qualification(eq, chain)
    if not note and not trivial:
        return True, ""
    for point, entry in _assumption_points(assumptions, candidates, seed):
        if defined_at(eq.lhs, eq.rhs, point, entry):
            return True, note
    return False, NOWHERE_DEFINED


# ----------------------------------------------------------------------------------------
# contradictory assumptions

_SIGN_SETS = {
    "positive": sp.Interval.open(0, sp.oo), "negative": sp.Interval.open(-sp.oo, 0),
    "nonnegative": sp.Interval(0, sp.oo), "nonpositive": sp.Interval(-sp.oo, 0),
    "zero": sp.FiniteSet(0),
}
#: The integer facts an enumerated integer range is filtered by.
_INTEGER_FACTS = ("even", "odd", "prime", "composite", "zero", "nonzero")
#: Most elements of a bounded integer range that are filtered one by one.
_ENUMERATE = 10_000


def contradiction(symbols: Sequence[sp.Symbol], assumptions: Sequence[sp.Basic]) -> str:
    """Why no point can satisfy every assumption (``''`` when none is found, which does not
    mean there is one).

    Three checks, where SymPy can decide them: for each real symbol, the intersection of its
    declared sign, its integrality (a prime is at least 2, an even prime is 2) and the solution
    sets of the relations that speak of it alone is empty -- a bounded integer range is
    filtered by the declared facts (even, odd, prime, ...) element by element; and the
    relations between real symbols, read as linear in their monomials (``x y`` a variable of
    its own, with its known sign), have no solution even with strict inequalities relaxed.
    """
    rels = [a for a in assumptions if isinstance(a, sp.core.relational.Relational) and not a.has(sp.Indexed)]
    for s in sorted(symbols, key=lambda v: v.name):
        if s.is_extended_real is not True:
            continue
        own = [a for a in rels if a.free_symbols == {s}]
        facts = {k for k, v in s.assumptions0.items() if v}
        if not own and not ({"prime", "even"} <= facts):
            continue
        try:
            domain = _domain(s, frozenset(facts), tuple(own))
            if domain is sp.S.EmptySet:
                return (f"{s.name} cannot satisfy {', '.join(sp.sstr(a) for a in own) or 'its facts'} "
                        "(with its declared properties)")
        except (NotImplementedError, TypeError, ValueError, AttributeError):
            continue
    monomial = [a for a in rels if isinstance(a, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan,
                                                  sp.GreaterThan, sp.Equality))
                and all(v.is_extended_real is True for v in a.free_symbols)]
    if monomial:
        why = _monomial_contradiction(tuple(monomial))
        if why:
            return why
    return ""


# a function of SymPy values only (immutable; a symbol's assumptions are part of it): claims
# that share assumptions ask once per process (an exception, the budget's too, is not kept)
@functools.lru_cache(maxsize=1024)
def _domain(s: sp.Symbol, facts: frozenset[str], own: tuple[sp.Basic, ...]) -> sp.Set:
    domain: sp.Set = sp.S.Reals
    for fact, sset in _SIGN_SETS.items():
        if fact in facts:
            domain = sp.Intersection(domain, sset)
    if "nonzero" in facts:
        domain = sp.Complement(domain, sp.FiniteSet(0))
    if "integer" in facts:
        domain = sp.Intersection(domain, sp.S.Integers)
    if "prime" in facts:
        domain = sp.Intersection(domain, sp.FiniteSet(2) if "even" in facts else sp.Interval(2, sp.oo))
    if "composite" in facts:
        domain = sp.Intersection(domain, sp.Interval(4, sp.oo))
    for a in own:
        budget.check()
        domain = sp.Intersection(domain, sp.solveset(a, s, sp.S.Reals))
    if domain is sp.S.EmptySet or "integer" not in facts:
        return domain
    # a bounded range of integers: filter it by the declared integer facts, one by one
    lo, hi = domain.inf, domain.sup
    if lo.is_finite and hi.is_finite and hi - lo <= _ENUMERATE:
        wanted = {k: v for k, v in s.assumptions0.items() if k in _INTEGER_FACTS}
        for n in range(int(sp.ceiling(lo)), int(sp.floor(hi)) + 1):
            budget.check()
            value = sp.Integer(n)
            if domain.contains(value) is sp.true and all(getattr(value, f"is_{k}") is v for k, v in wanted.items()):
                return domain
        return sp.S.EmptySet
    return domain


_STRICT = (sp.StrictLessThan, sp.StrictGreaterThan)


@functools.lru_cache(maxsize=1024)  # as _domain: a function of the relations alone
def _monomial_contradiction(relations: tuple[sp.Basic, ...]) -> str:
    """Whether the relations, read as linear in their monomials (each a real variable of its
    own, with the sign SymPy knows for it), have no common real solution, strict inequalities
    counted as strict: with one slack ``t <= 1`` subtracted from every strict one (``a > b`` as
    ``a - b >= t``), they are satisfiable exactly when the largest feasible ``t`` is positive.
    A solution of the relations gives one of this relaxation, so an infeasible relaxation is a
    contradiction."""
    from sympy.solvers.simplex import InfeasibleLPError, lpmax

    rows: list[tuple[dict, sp.Expr, str, bool]] = []  # (monomial -> coeff, constant, op, strict)
    monomials: dict[sp.Expr, sp.Symbol] = {}
    for a in relations:
        d = sp.expand(a.lhs - a.rhs)
        terms = d.as_coefficients_dict()
        coeffs: dict = {}
        const = sp.Integer(0)
        for m, c in terms.items():
            if not c.is_Rational:
                return ""
            if m == 1:
                const += c
                continue
            if m.is_extended_real is not True:
                return ""
            coeffs[m] = coeffs.get(m, 0) + c
            monomials.setdefault(m, sp.Dummy("m", real=True))
        if isinstance(a, sp.Equality):
            rows.append((coeffs, const, "==", False))
        elif isinstance(a, (sp.StrictGreaterThan, sp.GreaterThan)):
            rows.append((coeffs, const, ">=", isinstance(a, _STRICT)))
        else:
            rows.append(({m: -c for m, c in coeffs.items()}, -const, ">=", isinstance(a, _STRICT)))
    if not monomials:
        return ""
    for m, v in monomials.items():  # what SymPy knows of each monomial's sign
        if m.is_positive:
            rows.append(({m: 1}, sp.Integer(0), ">=", True))
        elif m.is_nonnegative:
            rows.append(({m: 1}, sp.Integer(0), ">=", False))
        elif m.is_negative:
            rows.append(({m: -1}, sp.Integer(0), ">=", True))
        elif m.is_nonpositive:
            rows.append(({m: -1}, sp.Integer(0), ">=", False))
    if len(relations) < 2 and len(rows) == len(relations):
        return ""
    t = sp.Dummy("t", real=True)
    cons: list[sp.Basic] = [sp.LessThan(t, 1)]
    strict = False
    for coeffs, const, op, is_strict in rows:
        lin = sp.Add(const, *(c * monomials[m] for m, c in coeffs.items()))
        if op == "==":
            cons.append(sp.Eq(lin, 0, evaluate=False))
        else:
            cons.append(sp.GreaterThan(lin - (t if is_strict else 0), 0, evaluate=False))
        strict = strict or is_strict
    what = ", ".join(sp.sstr(a) for a in relations)
    nonlinear = any(not (m.is_Symbol) for m in monomials)
    suffix = ", even with every monomial as a free variable" if nonlinear else ""
    try:
        budget.check()
        best, _ = lpmax(t, cons)
    except InfeasibleLPError:
        return f"the relations {what} have no common solution{suffix}"
    except (NotImplementedError, TypeError, ValueError, AttributeError):
        return ""
    if strict and best <= 0:
        return f"the relations {what} have no common solution{suffix} (the strict ones cannot hold together)"
    return ""
