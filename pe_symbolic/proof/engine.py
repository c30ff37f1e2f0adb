r"""Proving: search for a chain, have the kernel check it, otherwise try to refute.

:func:`prove` takes a :class:`~pe_symbolic.proof.kernel.claims.Claim` and, for each equation,
checks a hand-written chain or searches for one (strategies may use any rule, the heuristic
simplifiers included), then has :func:`~pe_symbolic.proof.kernel.check_chain` re-check every
transition. Verdicts:

``proved``
    the chain was re-checked by the kernel and reaches zero (or ``rhs``): the equation holds
    under the symbols' assumptions, *wherever both sides are defined* when a step may cancel
    a common factor or a side has a denominator that may vanish (the proof then says so).
    Numbers never prove; they may veto: if a numeric spot check finds, at an admissible point,
    a difference confirmed at 60 digits, the verdict is ``refuted`` and the note reports an
    engine inconsistency.
``refuted``
    at a point satisfying every assumption (:mod:`pe_symbolic.proof.sampler`) the two sides
    differ far beyond working precision at 30 digits, confirmed at 60; the point is reported.
``undecided``
    neither; the note says why (which step failed, no admissible point, the time budget).

Every call has a time budget (:mod:`pe_symbolic.proof.kernel.budget`); running out is
``undecided``, with a note saying so.

>>> import sympy as sp
>>> from pe_symbolic.encodings.symbols import t, k, omega
>>> check_identity(sp.sin(omega*(t + k)),
...                sp.sin(omega*t)*sp.cos(omega*k) + sp.cos(omega*t)*sp.sin(omega*k)).verdict
'proved'
>>> check_identity(sp.sin(t + k), sp.sin(t) + sp.sin(k)).verdict
'refuted'
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from .kernel import budget
from .kernel.claims import DIFFERENCE, Claim, Equation, Step, Verdict, as_sympy, render_statement
from .kernel.fragment import fact_problem, outside_fragment
from .kernel.checker import KERNEL_STRATEGIES, Context, check_chain, reduce_to_zero
from .kernel.gate import Admission, admit, judge
from .kernel.identities import (ARG, CYCLOTOMIC, DELTA_PRODUCTS, DENEST, EULER, INVERSE_HYPERBOLIC, INVERSE_TRIG,
                                LOG_PRIMES, MODULUS, PARTS, QUOTIENTS, RE_IM, ROOTS)
from .kernel.rules import CLEAR_DENOMINATORS, EVALUATE, PYTHAGORAS
from .result import PartProof, Proof
from .isolate import CHILD_GRACE, run_in_child
from .sampler import _atoms, candidates, refute, spread_parts

__all__ = [
    "DEFAULT_TIMEOUT",
    "TRIVIAL",
    "SEARCH_STRATEGIES",
    "SearchHints",
    "check_identity",
    "prove",
    "prove_equation",
]

#: Seconds a :func:`check_identity` or :func:`prove` call may take by default.
DEFAULT_TIMEOUT = 60.0
#: What the search tries: the kernel's strategies, then the heuristic simplifier on small
#: expressions. Whatever it finds is re-checked by the kernel.
#: The textbook's strategies (pe_symbolic.proof.kernel.identities), each with the heads that
#: make it worth trying: a claim without them (the registry's) skips it, so its search costs
#: what it did before they were added.
_QUOTIENT_HEADS = (sp.tan, sp.cot, sp.sec, sp.csc, sp.tanh, sp.coth, sp.sech, sp.csch)
_INVERSE_HEADS = (sp.asin, sp.acos, sp.acot, sp.asec, sp.acsc)
_INVERSE_HYPERBOLIC_HEADS = (sp.asinh, sp.acosh, sp.atanh, sp.acoth, sp.asech, sp.acsch)
TEXTBOOK_STRATEGIES: tuple[tuple[tuple[type, ...], tuple[str, ...]], ...] = (
    # numbers first: logs of rationals, Kronecker deltas, real and imaginary parts, Euler,
    # denesting, cyclotomic values
    ((sp.log, sp.KroneckerDelta, sp.re, sp.im, sp.conjugate, sp.exp, sp.Pow, *_QUOTIENT_HEADS, sp.sin, sp.cos),
     (EVALUATE, DELTA_PRODUCTS, LOG_PRIMES, RE_IM, EULER, DENEST, ROOTS, CYCLOTOMIC, "expand", LOG_PRIMES,
      CYCLOTOMIC)),
    # tan, cot, sec, csc and the hyperbolic quotients through sin and cos (or exp)
    (_QUOTIENT_HEADS, (EVALUATE, QUOTIENTS, CYCLOTOMIC, CLEAR_DENOMINATORS, PYTHAGORAS, "expand(trig=True)",
                       PYTHAGORAS, "expand", CYCLOTOMIC)),
    (_QUOTIENT_HEADS, (EVALUATE, QUOTIENTS, "rewrite(exp)", CLEAR_DENOMINATORS, "expand", "powsimp", "expand")),
    (_INVERSE_HEADS, (EVALUATE, INVERSE_TRIG, QUOTIENTS, CLEAR_DENOMINATORS, "expand")),
    # the principal argument through atan2 of the parts
    ((sp.arg,), (EVALUATE, ARG, RE_IM, EULER, EVALUATE, "expand", CYCLOTOMIC)),
    # the modulus through the real and imaginary parts (where they occur)
    ((sp.re, sp.im, sp.sign), (EVALUATE, MODULUS, RE_IM, PARTS, "expand")),
    # the inverse hyperbolic heads through their log forms (numbers: denesting, logs of rationals)
    (_INVERSE_HYPERBOLIC_HEADS, (EVALUATE, INVERSE_HYPERBOLIC, QUOTIENTS, "rewrite(exp)", CLEAR_DENOMINATORS, "expand",
                                 "powsimp", "expand", LOG_PRIMES, DENEST)),
)
#: What the search tries: the kernel's strategies, the textbook's, then the heuristic
#: simplifier on small expressions. Whatever it finds is re-checked by the kernel.
SEARCH_STRATEGIES: tuple[tuple[str, ...], ...] = (
    *KERNEL_STRATEGIES,
    *(strategy for _, strategy in TEXTBOOK_STRATEGIES),
    (EVALUATE, CLEAR_DENOMINATORS, "rewrite(exp)", "expand", "powsimp", "expand"),
    (EVALUATE, CLEAR_DENOMINATORS, PYTHAGORAS, "expand(trig=True)", PYTHAGORAS, "expand"),
    (EVALUATE, "simplify"),
)


def _search_strategies(e: sp.Basic) -> tuple[tuple[str, ...], ...]:
    """:data:`SEARCH_STRATEGIES` less the textbook strategies whose heads ``e`` does not use."""
    if not isinstance(e, sp.Basic):
        return SEARCH_STRATEGIES
    skip = {strategy for heads, strategy in TEXTBOOK_STRATEGIES if not e.has(*heads)}
    return tuple(s for s in SEARCH_STRATEGIES if s not in skip)


@dataclass
class SearchHints:
    """Where the search for each equation's chain starts: the strategy that reached zero for
    it before (``known``, by equation index), and what this search found (``found``).

    A hint changes the order of the search, nothing else: the hinted strategy is tried first
    and, if it does not reach zero, the search runs as without a hint. Whatever chain comes
    out is checked by the kernel as any other. A hint that names no current strategy is
    ignored. With the hint of an earlier run of the same code (the first strategy that
    reached zero then), the chain found is the one the whole search finds, without trying
    the strategies before it; ``found`` records, for each equation searched, the first
    strategy that reached zero, or none.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> hints = SearchHints()
    >>> claim = Claim("demo", "sin(x)**2 + cos(x)**2 = 1",
    ...               (Equation(sp.sin(x)**2 + sp.cos(x)**2, sp.Integer(1)),))
    >>> prove(claim, hints=hints).verdict, hints.found[0]
    ('proved', ('evaluate', 'sin(u)**2 -> 1 - cos(u)**2', 'expand(trig=True)', 'sin(u)**2 -> 1 - cos(u)**2', 'expand'))
    >>> prove(claim, hints=SearchHints(known=dict(hints.found))).parts[0].steps == prove(claim).parts[0].steps
    True
    """

    known: dict[int, tuple[str, ...]] = field(default_factory=dict)
    found: dict[int, tuple[str, ...]] = field(default_factory=dict)


def _search(diff: Any, hint: Sequence[str] | None) -> tuple[bool, list[Step], tuple[str, ...] | None]:
    """:func:`~pe_symbolic.proof.kernel.checker.reduce_to_zero` over the strategies for
    ``diff``, the ``hint`` first (see :class:`~pe_symbolic.proof.engine.SearchHints`); also says which strategy reached
    zero. The same steps as ``reduce_to_zero(diff, strategies)`` when the hint is the first
    strategy that reaches zero, or none does."""
    strategies = _search_strategies(diff)
    hint = tuple(hint) if hint is not None else None
    if hint is not None and hint in strategies:
        reached, steps = reduce_to_zero(diff, (hint,))
        if reached:
            return True, steps, hint
    for strategy in strategies:  # in order: the first that reaches zero, as reduce_to_zero
        if strategy == hint:
            continue  # tried above, did not reach zero
        reached, steps = reduce_to_zero(diff, (strategy,))
        if reached:
            return True, steps, strategy
    reached, steps = reduce_to_zero(diff, strategies)  # none did: its best try, as without hints
    return reached, steps, None


def _has_symbolic_sum(eq: Equation) -> bool:
    sides = [x for side in (eq.lhs, eq.rhs) for x in (side if isinstance(side, sp.MatrixBase) else [side])]
    return any(bound.free_symbols for x in sides for node in x.atoms(sp.Sum, sp.Product)
               for bound in node.limits[0][1:])


#: The note of an equation whose two sides are the same expression as stored.
TRIVIAL = ("trivial as stated: both sides are the same expression as stored (SymPy evaluated the statement "
           "before any proof step)")


def prove_equation(
    eq: Equation,
    assumptions: Sequence[sp.Basic] = (),
    *,
    steps: Sequence[Step] | None = None,
    symbols: Sequence[sp.Symbol] | None = None,
    spot_points: int = 3,
    seed: int = 0,
    lemmas: Callable[[str], Claim] | None = None,
    admission: Admission | None = None,
    hints: SearchHints | None = None,
    part: int = 0,
) -> PartProof:
    """Prove one equation: check a given chain, or search for one; else try to refute.

    ``lemmas`` resolves the claims a hand-written chain cites (see
    :class:`~pe_symbolic.proof.kernel.Context`). A chain the kernel accepts is
    ``proved`` only through the kernel's gate (:mod:`~pe_symbolic.proof.kernel.gate`): the
    assumptions witnessed satisfiable (``admission``, decided here when not given) and, for an
    equation that holds wherever both sides are defined, a point where they are. Runs inside
    the caller's time budget; raises :class:`~pe_symbolic.proof.kernel.budget.BudgetExceeded`
    when it runs out. ``hints`` (see :class:`~pe_symbolic.proof.engine.SearchHints`) orders the search for equation
    number ``part``, and records what it found.
    """
    context = Context(tuple(assumptions), lemmas)
    if symbols is None:
        symbols = sorted(eq.lhs.free_symbols | eq.rhs.free_symbols
                         | set().union(*(a.free_symbols for a in assumptions)), key=lambda s: s.name)
    cands = candidates(symbols, assumptions, (eq.lhs, eq.rhs))
    if admission is None:
        admission = admit(symbols, assumptions, cands)
    if admission.note:  # anything follows from nothing: never a plain "proved"
        return PartProof(eq, (), "undecided", None, None, admission.note)
    note = ""
    if eq.lhs == eq.rhs and steps is None:
        # nothing to prove: SymPy built both sides into one expression before any step (the
        # statement as written was evaluated away); said, so a reader is not shown an empty proof
        why = outside_fragment(eq.lhs)
        if why:
            return PartProof(eq, (), "undecided", None, None, why)
        ok, qual = judge(eq, (), assumptions, cands, seed=seed, trivial=True)
        if not ok:  # "x = x" says nothing where x is defined nowhere
            return PartProof(eq, (), "undecided", None, None,
                             "both sides are the same expression as stored, but no admissible point where it is "
                             "defined was found")
        note = TRIVIAL if not qual else f"{TRIVIAL}; {qual}"
        spot = None
        if spot_points:  # informative: the spot check of the side against itself
            side = eq.lhs
            undef = sorted(_atoms(side, AppliedUndef), key=sp.default_sort_key)
            fresh = {u: sp.Symbol(f"_f{q}", real=True) for q, u in enumerate(undef)}
            if fresh:
                side = side.xreplace(fresh) if not isinstance(side, sp.MatrixBase) else sp.ImmutableMatrix(
                    side.xreplace(fresh))
            spot = refute(side, side, [*symbols, *fresh.values()], assumptions, seed=seed,
                          points=spot_points).spot_check
        return PartProof(eq, (Step(eq.difference, DIFFERENCE),), "proved", None, spot, note)
    outside = outside_fragment(eq.lhs) or outside_fragment(eq.rhs)
    if outside:  # never proved; a certified counterexample may still refute it
        r = refute(eq.lhs, eq.rhs, symbols, assumptions, seed=seed, points=8)
        if r.counterexample is not None:
            return PartProof(eq, (Step(eq.difference, DIFFERENCE),), "refuted", r.counterexample, r.spot_check,
                             outside, r.point, r.enclosures, r.entries)
        return PartProof(eq, (), "undecided", None, r.spot_check, outside)
    if steps is not None:
        chain = list(steps)
        ok, why = check_chain(eq, chain, context)
        if not ok:
            note = f"the given chain was not verified: {why}"
    else:
        # A false claim is usually obvious at an admissible point: look at one before searching
        # (every strategy fails on a false claim, slowly). Refuting needs a confirmed point.
        quick = refute(eq.lhs, eq.rhs, symbols, assumptions, seed=seed, points=1)
        if quick.counterexample is not None:
            return PartProof(eq, (Step(eq.difference, DIFFERENCE),), "refuted", quick.counterexample,
                             quick.spot_check, "refuted before any search", quick.point, quick.enclosures,
                             quick.entries)
        diff = eq.difference
        reached, found, strategy = _search(diff, None if hints is None else hints.known.get(part))
        if hints is not None:
            if strategy is None:
                hints.found.pop(part, None)
            else:
                hints.found[part] = strategy
        chain = [Step(diff, DIFFERENCE), *found]
        ok, why = check_chain(eq, chain, context) if reached else (False, "no strategy reached 0")
        if not ok:
            note = why
    spot = None
    if ok and spot_points:
        r = refute(eq.lhs, eq.rhs, symbols, assumptions, seed=seed, points=spot_points)
        if r.counterexample is not None:  # the kernel and the numbers disagree: never "proved"
            return PartProof(eq, tuple(chain), "refuted", r.counterexample, r.spot_check,
                             "ENGINE INCONSISTENCY: the chain re-checked, yet the two sides have disjoint "
                             "enclosures at an admissible point; please report this claim", r.point,
                             r.enclosures, r.entries)
        spot = r.spot_check
    if ok:
        proved, qual = judge(eq, chain, assumptions, cands, seed=seed)
        if proved:
            return PartProof(eq, tuple(chain), "proved", None, spot, qual)
        return PartProof(eq, tuple(chain), "undecided", None, spot, qual)
    r = refute(eq.lhs, eq.rhs, symbols, assumptions, seed=seed, points=8)
    verdict: Verdict = "refuted" if r.counterexample is not None else "undecided"
    if r.note and verdict == "undecided":
        note = f"{note}; {r.note}" if note else r.note
    return PartProof(eq, tuple(chain), verdict, r.counterexample, r.spot_check, note, r.point,
                     r.enclosures, r.entries)


def prove(
    claim: Claim,
    *,
    chains: Mapping[int, Sequence[Step]] | None = None,
    spot_points: int = 3,
    timeout: float | None = DEFAULT_TIMEOUT,
    lemmas: Callable[[str], Claim] | None = None,
    progress: Callable[[int, int], None] | None = None,
    hints: SearchHints | None = None,
) -> Proof:
    """Prove every equation of ``claim`` within ``timeout`` seconds (``None``: no limit).

    ``progress(done, total)``, if given, is called after each equation. ``hints`` orders the
    search and records what it found (see :class:`~pe_symbolic.proof.engine.SearchHints`; not used, and left as it
    is, where the check runs in a child process).

    ``chains`` supplies hand-written chains by equation index; the others are searched for.
    ``lemmas`` resolves cited claims (the registry passes its own). When the budget runs
    out, the unfinished equations are ``undecided`` with a note.

    The budget holds wherever the call is made. In the main thread a timer interrupts the
    check wherever it is; another thread cannot be interrupted, so there the check runs in a
    child process that is stopped when the budget runs out (``progress`` is then not called;
    ``chains`` and ``lemmas`` must be picklable, as the registry's are).
    """
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0 and math.isfinite(timeout)):
        raise ValueError(f"timeout={timeout!r} must be a positive number of seconds or None")
    if timeout is not None and not budget.interruptible():
        return _prove_in_child(claim, chains, spot_points, timeout, lemmas)
    return _prove(claim, chains, spot_points, timeout, lemmas, progress, time.perf_counter(), timeout, hints)


def _prove(claim: Claim, chains: Mapping[int, Sequence[Step]] | None, spot_points: int, timeout: float | None,
           lemmas: Callable[[str], Claim] | None, progress: Callable[[int, int], None] | None, start: float,
           said: float | None, hints: SearchHints | None = None) -> Proof:
    """:func:`prove` in this thread, within ``timeout`` seconds from now; ``start`` and
    ``said`` are the whole call's start and budget, as the notes report them."""
    symbols = claim.symbols
    n = len(claim.equations)
    # numeric spot checks (informative, and a veto) on at most sampler.SPOT_PARTS parts, evenly spread;
    # a part that is not proved is always evaluated (that is where counterexamples come from)
    spotted = spread_parts(n)
    parts: list[PartProof] = []
    try:
        with budget.deadline(timeout):
            exotic = next((why for s in symbols for why in [fact_problem(s)] if why), "")
            if exotic:  # no point has these facts: the gate could only say "not satisfiable"
                note = f"outside the checked fragment: {exotic}"
                return Proof(claim, tuple(PartProof(eq, (), "undecided", None, None, note)
                                          for eq in claim.equations), time.perf_counter() - start)
            # the kernel's gate, once per claim: contradictory or not-known-satisfiable
            # assumptions are said so, never a plain "proved"
            admission = admit(symbols, claim.assumptions, candidates(symbols, claim.assumptions, _sides(claim)))
            if admission.note:
                return Proof(claim, tuple(PartProof(eq, (), "undecided", None, None, admission.note)
                                          for eq in claim.equations), time.perf_counter() - start)
            for q, eq in enumerate(claim.equations):
                # a sum over a symbolic number of terms is expanded at each point: one point
                points = spot_points if q in spotted else 0
                if points and _has_symbolic_sum(eq):
                    points = 1
                parts.append(prove_equation(
                    eq, claim.assumptions, steps=(chains or {}).get(q), symbols=symbols,
                    spot_points=points, seed=q, lemmas=lemmas, admission=admission, hints=hints, part=q,
                ))
                if progress is not None:
                    progress(q + 1, n)
    except budget.BudgetExceeded:
        budget.check()  # an enclosing budget ran out: let it reach its owner (nothing is cached)
        spent = time.perf_counter() - start
        for eq in claim.equations[len(parts):]:
            parts.append(PartProof(eq, (), "undecided", None, None,
                                   f"time budget of {said:g} s ran out after {spent:.1f} s; not decided"))
    return Proof(claim, tuple(parts), time.perf_counter() - start)


def _sides(claim: Claim) -> list:
    return [x for eq in claim.equations for x in (eq.lhs, eq.rhs)]




def _prove_in_child(claim: Claim, chains: Mapping[int, Sequence[Step]] | None, spot_points: int,
                    timeout: float, lemmas: Callable[[str], Claim] | None) -> Proof:
    """:func:`prove` in a fresh interpreter (see :func:`_in_child`)."""
    start = time.perf_counter()

    def unbuilt(note: str) -> Proof:
        return Proof(claim, tuple(PartProof(eq, (), "undecided", None, None, note) for eq in claim.equations),
                     time.perf_counter() - start)

    return run_in_child("prove", (claim, dict(chains) if chains else None, spot_points, timeout, lemmas), timeout,
                     unbuilt)


def check_identity(
    lhs: Any,
    rhs: Any,
    assumptions: Iterable[Any] | None = None,
    *,
    steps: Sequence[Step] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    id: str = "user.identity",
) -> Proof:
    """Check any identity ``lhs = rhs`` (scalars or matrices) with the theorem engine.

    Parameters
    ----------
    lhs, rhs : sympy expression or matrix (or a Python number, or nested lists)
        The two sides; matrices must have the same shape. Text is never parsed.
    assumptions : iterable of sympy relations, optional
        Conditions beyond the symbols' own assumptions, such as ``b > 1``. Declare symbol
        properties on the symbols themselves (``Symbol("n", integer=True)``).
    steps : sequence of Step, optional
        A hand-written chain (starting with ``Step(lhs - rhs, DIFFERENCE)`` or
        ``Step(lhs, LHS)``); every transition is re-checked. Without it the engine searches.
    timeout : float or None, default 60
        Seconds the check may take, everything included (building and stating the claim
        too: the budget is armed before any SymPy work on the input; from a thread other than
        the main thread, everything runs in a child process); when they run out the verdict
        is ``undecided`` and the note says so. ``None`` removes the limit.
    id : str
        The claim's name in renderings and certificates. The statement is always the
        rendering of the equation (:func:`~pe_symbolic.proof.kernel.claims.render_statement`),
        so a certificate can never say more than what was checked.

    Returns
    -------
    Proof
        ``verdict`` is ``"proved"``, ``"refuted"`` (with ``counterexample``) or
        ``"undecided"`` (with ``notes``: which step failed, the time budget, a claim outside
        the checked fragment -- a non-commutative or polar symbol, an integral, ... --,
        contradictory or not-known-satisfiable assumptions, sides defined nowhere).

    Raises
    ------
    ClaimError
        For a claim that cannot be stated soundly: an inexact number (a ``Float``: its
        arithmetic rounds), a sum or product whose number of terms is not known to be an
        integer, a bound variable outside what it is declared to be, two symbols with one
        name. (Nothing is decided about such a claim; write it exactly.)
    TypeError, ValueError
        For sides that are not values (text, a condition, a matrix expression), sides of
        different shapes, or a bad ``timeout``.

    Examples
    --------
    >>> import sympy as sp
    >>> n = sp.Symbol("n", integer=True)
    >>> check_identity(sp.sin(sp.pi * n), 0).verdict
    'proved'
    >>> x = sp.Symbol("x", real=True)
    >>> p = check_identity(sp.sqrt(x**2), x)
    >>> p.verdict, sorted(p.counterexample)
    ('refuted', ['x', '|lhs - rhs|'])
    """
    if timeout is not None and not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
                                    and timeout > 0 and math.isfinite(timeout)):
        raise ValueError(f"timeout={timeout!r} must be a positive number of seconds or None")
    if timeout is not None and not budget.interruptible():
        # a thread cannot be interrupted: everything, the claim's construction included, runs
        # in a child process that is stopped when the budget runs out
        start = time.perf_counter()
        return run_in_child("check_identity", (lhs, rhs, assumptions, steps, timeout, id), timeout,
                         lambda note: _unbuilt(id, lhs, rhs, note, time.perf_counter() - start))
    start = time.perf_counter()
    try:
        with budget.deadline(timeout):  # armed before any SymPy work on the input
            eq = Equation(lhs, rhs, "")
            conds = tuple(as_sympy(c, "assumption") for c in (assumptions or ()))
            statement = render_statement([eq], conds)
            claim = Claim(id, statement, (eq,), conds, "user")
    except budget.BudgetExceeded:
        budget.check()  # an enclosing budget ran out: let it reach its owner
        spent = time.perf_counter() - start
        return _unbuilt(id, lhs, rhs, f"time budget of {timeout:g} s ran out after {spent:.1f} s while the claim "
                        "was being built and stated; not decided", spent)
    left = None if timeout is None else max(timeout - (time.perf_counter() - start), 1e-3)
    return _prove(claim, {0: steps} if steps is not None else None, 3, left, None, None, start, timeout)


def _unbuilt(id: str, lhs: Any, rhs: Any, note: str, elapsed: float) -> Proof:
    """The undecided answer for a claim that was not built in time (no SymPy work: the sides are
    kept as given where they are SymPy objects)."""
    claim = Claim.unbuilt(id, lhs, rhs, note)
    return Proof(claim, tuple(PartProof(eq, (), "undecided", None, None, note) for eq in claim.equations), elapsed)
