r"""The proof engine: claims, step chains that are re-checked, and honest verdicts.

A :class:`Claim` is one or more equations (scalars or matrices) with their assumptions and
source. A proof of one equation is a chain of :class:`Step` s, each an expression and the
*rule* that produced it from the previous one. The chain starts either from the difference
``lhs - rhs`` (and must reach ``0``) or from ``lhs`` (and must reach ``rhs``).

Rules and how each transition is re-checked (:func:`check_transition`):

* a **rewrite rule** named in :data:`RULES` (``expand(trig=True)``, ``trigsimp``, ...): the
  rule is re-applied to the previous expression; if it reproduces the recorded one exactly,
  the step is accepted at once;
* otherwise, and for any **other reason** (``definition of T(k)``, ``angle addition``,
  ``lemma rot2.compose``): the difference between the two expressions must itself reduce to
  zero under the engine's strategies. A reason is an explanation for the reader; the check
  does not trust it.

Verdicts (:data:`Verdict`):

``proved``
    every part's chain is re-checked and reaches zero (or ``rhs``). Numbers never prove.
``refuted``
    an mpmath evaluation at >= 30 significant digits, confirmed at twice that precision,
    finds a point that satisfies the assumptions where the two sides differ far beyond
    working precision; the point is reported as the counterexample.
``undecided``
    neither. Honest: SymPy could not finish the chain and no counterexample was found.

>>> from pe_symbolic.proof import check_identity
>>> from pe_symbolic.encodings.symbols import t, k, omega
>>> import sympy as sp
>>> check_identity(sp.sin(omega*(t + k)),
...                sp.sin(omega*t)*sp.cos(omega*k) + sp.cos(omega*t)*sp.sin(omega*k)).verdict
'proved'
>>> check_identity(sp.sin(t + k), sp.sin(t) + sp.sin(k)).verdict
'refuted'
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import mpmath
import sympy as sp

from .._validate import check_choice

__all__ = [
    "DIFFERENCE",
    "LHS",
    "RULES",
    "Claim",
    "Equation",
    "PartProof",
    "Proof",
    "SpotCheck",
    "Step",
    "Verdict",
    "check_identity",
    "check_transition",
    "from_certificate",
    "prove",
    "recheck_certificate",
]

Verdict = Literal["proved", "refuted", "undecided"]
Expr: TypeAlias = Any  # a SymPy scalar expression or an immutable matrix (SymPy is untyped)

#: Rule of the first step of a difference chain: ``lhs - rhs``.
DIFFERENCE = "difference of the two sides"
#: Rule of the first step of an equational chain: ``lhs``.
LHS = "left-hand side"

CERTIFICATE_FORMAT = "pe_symbolic.certificate/1"


# --------------------------------------------------------------------------------------
# Rewrite rules: deterministic SymPy functions, applied entrywise to matrices.
# --------------------------------------------------------------------------------------
def _entrywise(f: Callable[[sp.Expr], sp.Expr]) -> Callable[[Expr], Expr]:
    def apply(e: Expr) -> Expr:
        if isinstance(e, sp.MatrixBase):
            return sp.ImmutableMatrix(e.applyfunc(f))
        return f(e)

    return apply


def _doit(e: Expr) -> Expr:
    if isinstance(e, sp.MatrixBase):
        return sp.ImmutableMatrix(e.applyfunc(lambda x: x.doit()))
    return e.doit()


def _pythagoras(x: sp.Expr) -> sp.Expr:
    """Replace every ``sin(u)**2`` by ``1 - cos(u)**2``."""
    return x.replace(
        lambda e: e.is_Pow and e.exp == 2 and isinstance(e.base, sp.sin),
        lambda e: 1 - sp.cos(e.base.args[0]) ** 2,
    )


PYTHAGORAS = "sin(u)**2 -> 1 - cos(u)**2"

#: The named rewrite rules a chain may cite; each is re-applied when the chain is checked.
RULES: dict[str, Callable[[Expr], Expr]] = {
    "expand(trig=True)": _entrywise(lambda x: sp.expand(x, trig=True)),
    "expand": _entrywise(sp.expand),
    "expand_trig": _entrywise(sp.expand_trig),
    "trigsimp": _entrywise(sp.trigsimp),
    "simplify": _entrywise(sp.simplify),
    "cancel": _entrywise(sp.cancel),
    "factor": _entrywise(sp.factor),
    "powsimp": _entrywise(sp.powsimp),
    "powdenest(force=True)": _entrywise(lambda x: sp.powdenest(x, force=True)),
    "expand_power_exp": _entrywise(sp.expand_power_exp),
    "rewrite(exp)": _entrywise(lambda x: x.rewrite(sp.exp)),
    "doit": _doit,
    PYTHAGORAS: _entrywise(_pythagoras),
}

#: Strategies tried, in order, to take an expression to zero. Chosen for speed: measured
#: while planning, ``expand(trig=True)`` settles the d = 64 translation identity in well
#: under a second, where ``simplify`` per pair takes ~18 s and ``trigsimp`` on the whole
#: matrix passes 60 s at d = 16. ``simplify`` is only tried on small expressions.
STRATEGIES: tuple[tuple[str, ...], ...] = (
    ("doit", PYTHAGORAS, "expand(trig=True)", PYTHAGORAS, "expand"),
    ("doit", PYTHAGORAS, "expand(trig=True)", "powsimp", "expand(trig=True)", PYTHAGORAS, "expand"),
    ("doit", "rewrite(exp)", "expand", "powsimp", "expand"),
    ("doit", "simplify"),
)
#: ``simplify`` is skipped for expressions with more operations than this.
SIMPLIFY_MAX_OPS = 400
#: Expanding rules are skipped when the expanded form would have more terms than this.
EXPAND_MAX_TERMS = 100_000
_EXPANDING = {"expand(trig=True)", "expand", "expand_trig", "rewrite(exp)"}


def _terms_estimate(e: sp.Basic) -> int:
    """Upper estimate of the number of terms after expanding products and integer powers."""
    if e.is_Add:
        return sum(_terms_estimate(a) for a in e.args)
    if e.is_Mul:
        out = 1
        for a in e.args:
            out *= _terms_estimate(a)
        return out
    if e.is_Pow and e.exp.is_Integer and e.exp > 0:
        return _terms_estimate(e.base) ** int(e.exp)
    if isinstance(e, (sp.sin, sp.cos)):
        return 2 * _terms_estimate(e.args[0])  # angle addition doubles the terms
    return 1


def _too_big_to_expand(e: Expr) -> bool:
    entries = e if isinstance(e, sp.MatrixBase) else [e]
    return any(_terms_estimate(x) > EXPAND_MAX_TERMS for x in entries)


# --------------------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Equation:
    """One equation ``lhs = rhs`` (scalars or same-shape matrices), with a short label."""

    lhs: Expr
    rhs: Expr
    label: str = ""

    def __post_init__(self) -> None:
        lhs, rhs = _as_sympy(self.lhs, "lhs"), _as_sympy(self.rhs, "rhs")
        lm, rm = isinstance(lhs, sp.MatrixBase), isinstance(rhs, sp.MatrixBase)
        if lm != rm or (lm and lhs.shape != rhs.shape):
            ls = lhs.shape if lm else "scalar"
            rs = rhs.shape if rm else "scalar"
            raise ValueError(f"lhs and rhs must have the same shape; got lhs {ls} and rhs {rs}")
        object.__setattr__(self, "lhs", lhs)
        object.__setattr__(self, "rhs", rhs)

    @property
    def difference(self) -> Expr:
        """``lhs - rhs`` (as an immutable matrix for matrices)."""
        diff = self.lhs - self.rhs
        return sp.ImmutableMatrix(diff) if isinstance(diff, sp.MatrixBase) else diff


@dataclass(frozen=True)
class Claim:
    """A named statement: equations that must all hold under the assumptions.

    ``assumptions`` are relations beyond the symbols' own SymPy assumptions (such as
    ``b > 1``); symbol assumptions travel with the symbols.
    """

    id: str
    statement: str
    equations: tuple[Equation, ...]
    assumptions: tuple[sp.Basic, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "equations", tuple(self.equations))
        object.__setattr__(
            self, "assumptions", tuple(sp.sympify(a) for a in self.assumptions)
        )
        if not self.equations:
            raise ValueError(f"claim {self.id!r} has no equations")

    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        """Free symbols of the claim, sorted by name."""
        free: set[sp.Symbol] = set()
        for eq in self.equations:
            free |= eq.lhs.free_symbols | eq.rhs.free_symbols
        for a in self.assumptions:
            free |= a.free_symbols
        return tuple(sorted(free, key=lambda s: s.name))


@dataclass(frozen=True)
class Step:
    """An expression and the rule (or reason) that produced it from the previous step."""

    expr: Expr
    rule: str


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
class PartProof:
    """The chain for one equation of a claim and its verdict."""

    equation: Equation
    steps: tuple[Step, ...]
    verdict: Verdict
    counterexample: Mapping[str, str] | None = None
    spot_check: SpotCheck | None = None
    note: str = ""


@dataclass(frozen=True)
class Proof:
    """The result of proving a :class:`Claim`: one chain per equation, and the verdict."""

    claim: Claim
    parts: tuple[PartProof, ...]
    elapsed: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> Verdict:
        """``refuted`` if any part is; ``proved`` if every part is; else ``undecided``."""
        verdicts = {p.verdict for p in self.parts}
        if "refuted" in verdicts:
            return "refuted"
        if verdicts == {"proved"}:
            return "proved"
        return "undecided"

    @property
    def steps(self) -> tuple[Step, ...]:
        """Every step of every part, in order."""
        return tuple(s for p in self.parts for s in p.steps)

    @property
    def counterexample(self) -> Mapping[str, str] | None:
        """The first refuting point, if any part is refuted."""
        for p in self.parts:
            if p.counterexample is not None:
                return p.counterexample
        return None

    @property
    def spot_check(self) -> SpotCheck | None:
        """Combined numeric spot check over the parts."""
        checks = [p.spot_check for p in self.parts if p.spot_check is not None]
        if not checks:
            return None
        return SpotCheck(
            points=sum(c.points for c in checks),
            max_abs_difference=max(c.max_abs_difference for c in checks),
            dps=min(c.dps for c in checks),
        )

    def __bool__(self) -> bool:  # pragma: no cover - guard against `if proof:` mistakes
        raise TypeError("use proof.verdict == 'proved', not the truth value of a Proof")

    def to_text(self, **kw: Any) -> str:
        """Plain-text rendering (see :func:`pe_symbolic.proof.render.text`)."""
        from .render import text

        return text(self, **kw)

    def to_latex(self, **kw: Any) -> str:
        """LaTeX rendering (see :func:`pe_symbolic.proof.render.latex`)."""
        from .render import latex

        return latex(self, **kw)

    def to_json(self) -> str:
        """The JSON certificate (see :func:`certificate`)."""
        return json.dumps(certificate(self), indent=1)


# --------------------------------------------------------------------------------------
# Checking
# --------------------------------------------------------------------------------------
def is_zero(e: Expr) -> bool:
    """Structural zero: ``0``, a zero matrix, or ``True``. No numerics, no guessing."""
    if isinstance(e, sp.MatrixBase):
        return all(x == 0 for x in e)
    return e == 0 or e is sp.true


def apply_rule(rule: str, e: Expr) -> Expr:
    """Apply the named rewrite rule (a key of :data:`RULES`) to ``e``."""
    try:
        f = RULES[rule]
    except KeyError:
        raise ValueError(f"rule={rule!r} is not a rewrite rule; known: {', '.join(RULES)}") from None
    return f(e)


def _run_strategy(e: Expr, strategy: Sequence[str]) -> list[Step]:
    steps: list[Step] = []
    cur = e
    for rule in strategy:
        if rule == "simplify" and sp.count_ops(cur) > SIMPLIFY_MAX_OPS:
            break
        if rule in _EXPANDING and _too_big_to_expand(cur):
            break
        nxt = apply_rule(rule, cur)
        if nxt == cur:
            continue
        steps.append(Step(nxt, rule))
        cur = nxt
        if is_zero(cur):
            break
    return steps


def reduce_to_zero(e: Expr) -> tuple[bool, list[Step]]:
    """Try the :data:`STRATEGIES` in order; return (reached zero, steps of the best try)."""
    if is_zero(e):
        return True, []
    best: list[Step] = []
    for strategy in STRATEGIES:
        steps = _run_strategy(e, strategy)
        if steps and is_zero(steps[-1].expr):
            return True, steps
        if not best or (steps and _size(steps[-1].expr) < _size(best[-1].expr)):
            best = steps
    return False, best


def _size(e: Expr) -> int:
    return sum(sp.count_ops(x) for x in e) if isinstance(e, sp.MatrixBase) else sp.count_ops(e)


def check_transition(prev: Expr, cur: Expr, rule: str) -> bool:
    """Re-check one step: ``cur`` follows from ``prev`` by ``rule``.

    A rule in :data:`RULES` that, re-applied to ``prev``, reproduces ``cur`` exactly is
    accepted at once. Otherwise (a named rule with a different but possibly equal result,
    or any other reason) the step is accepted only if ``prev - cur`` reduces to zero.
    """
    if _shape(prev) != _shape(cur):
        return False
    if rule in RULES and apply_rule(rule, prev) == cur:
        return True
    diff = prev - cur
    if isinstance(diff, sp.MatrixBase):
        diff = sp.ImmutableMatrix(diff)
    return reduce_to_zero(diff)[0]


def _shape(e: Expr) -> tuple[int, ...] | None:
    return e.shape if isinstance(e, sp.MatrixBase) else None


def check_chain(equation: Equation, steps: Sequence[Step]) -> tuple[bool, str]:
    """Re-check a whole chain for ``equation``; return (ok, what failed if not)."""
    if not steps:
        return False, "empty chain"
    first = steps[0]
    if first.rule == DIFFERENCE:
        if first.expr != equation.difference:
            return False, "step 1 is not lhs - rhs"
        target_zero = True
    elif first.rule == LHS:
        if first.expr != equation.lhs:
            return False, "step 1 is not the left-hand side"
        target_zero = False
    else:
        return False, f"step 1 must be {DIFFERENCE!r} or {LHS!r}, not {first.rule!r}"
    for n, (a, b) in enumerate(zip(steps, steps[1:]), start=2):
        if not check_transition(a.expr, b.expr, b.rule):
            return False, f"step {n} ({b.rule}) does not follow from step {n - 1}"
    last = steps[-1].expr
    if target_zero and not is_zero(last):
        return False, "the chain does not reach 0"
    if not target_zero and last != equation.rhs:
        return False, "the chain does not reach the right-hand side"
    return True, ""


# --------------------------------------------------------------------------------------
# Numeric falsification (never proof)
# --------------------------------------------------------------------------------------
REFUTE_DPS = 30
_TRIES = 60


def _sample_value(s: sp.Symbol, rng: random.Random) -> sp.Expr:
    a = s.assumptions0
    if a.get("integer"):
        lo, hi = -9, 9
        if a.get("positive"):
            lo = 1
        elif a.get("nonnegative"):
            lo = 0
        elif a.get("negative"):
            hi = -1
        elif a.get("nonpositive"):
            hi = 0
        v = rng.randint(lo, hi)
        if a.get("even") and v % 2:
            v = v + 1 if v + 1 <= hi else v - 1
        if a.get("odd") and not v % 2:
            v = v + 1 if v + 1 <= hi else v - 1
        if a.get("nonzero") and v == 0:
            v = hi if hi != 0 else lo
        return sp.Integer(v)
    # real (or unrestricted: a real point is an admissible point of a complex symbol)
    v = sp.Rational(rng.randint(1, 4000), 997)
    if a.get("negative") or (not a.get("positive") and not a.get("nonnegative") and rng.random() < 0.4):
        v = -v
    return v


def _admissible(point: Mapping[sp.Symbol, sp.Expr], assumptions: Iterable[sp.Basic]) -> bool:
    for a in assumptions:
        val = a.subs(point)
        if val is not sp.true and val is not True:
            return False
    return True


def _abs_at(e: Expr, point: Mapping[sp.Symbol, sp.Expr], dps: int) -> float:
    """max |entry| of ``e`` at ``point``, evaluated with ``dps`` significant digits."""
    entries = list(e) if isinstance(e, sp.MatrixBase) else [e]
    worst = mpmath.mpf(0)
    # Non-integer sample values become Floats carrying more digits than requested, put in
    # place before evaluating: exact rationals raised to fractional powers, and evalf's own
    # `subs=`, are each an order of magnitude slower on large expressions.
    fpoint = {s: (v if v.is_Integer else sp.Float(v, dps + 10)) for s, v in point.items()}
    for x in entries:
        v = x.xreplace(fpoint).evalf(dps)
        if not v.is_number:
            raise ValueError("expression did not evaluate to a number")
        c = complex(v)
        worst = max(worst, mpmath.mpf(abs(c)))
    return float(worst)


def _spot_and_refute(
    eq: Equation, assumptions: Sequence[sp.Basic], *, seed: int, points: int, refute: bool
) -> tuple[SpotCheck, Mapping[str, str] | None]:
    rng = random.Random(seed)
    diff = _doit(eq.difference)  # evaluate Derivative/Determinant before going numeric
    symbols = set(eq.lhs.free_symbols | eq.rhs.free_symbols)
    for a in assumptions:
        symbols |= a.free_symbols
    free = sorted(symbols, key=lambda s: s.name)
    entries = list(diff) if isinstance(diff, sp.MatrixBase) else [diff]
    if len(entries) > 16:  # a sample of entries, deterministic
        entries = [entries[q] for q in sorted(rng.sample(range(len(entries)), 16))]
    probe = sp.ImmutableMatrix(entries)
    lhs = _doit(eq.lhs)
    scale_src = [lhs] if not isinstance(lhs, sp.MatrixBase) else list(lhs)[:16]
    worst, n_ok = 0.0, 0
    for _ in range(_TRIES):
        if n_ok >= points:
            break
        point = {s: _sample_value(s, rng) for s in free}
        if not _admissible(point, assumptions):
            continue
        try:
            val = _abs_at(probe, point, REFUTE_DPS)
            scale = _abs_at(sp.ImmutableMatrix(scale_src), point, 20)
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            continue
        n_ok += 1
        worst = max(worst, val)
        tol = 10.0 ** (-REFUTE_DPS // 2) * max(1.0, scale)
        if refute and val > tol:
            # confirm at twice the precision: a real difference does not shrink with dps
            try:
                val2 = _abs_at(probe, point, 2 * REFUTE_DPS)
            except (ValueError, TypeError, ZeroDivisionError, OverflowError):
                continue
            if val2 > tol and abs(val2 - val) <= 1e-10 * max(val, val2):
                cex = {s.name: str(v) for s, v in point.items()}
                cex["|lhs - rhs|"] = f"{val2:.6g}"
                return SpotCheck(n_ok, worst, REFUTE_DPS), cex
    return SpotCheck(n_ok, worst, REFUTE_DPS), None


# --------------------------------------------------------------------------------------
# Proving
# --------------------------------------------------------------------------------------
def prove_equation(
    eq: Equation,
    assumptions: Sequence[sp.Basic] = (),
    *,
    steps: Sequence[Step] | None = None,
    spot_points: int = 3,
    seed: int = 0,
) -> PartProof:
    """Prove one equation: check a given chain, or search for one; else try to refute."""
    note = ""
    if steps is not None:
        chain = list(steps)
        ok, why = check_chain(eq, chain)
        if not ok:
            note = f"the given chain was not verified: {why}"
    else:
        diff = eq.difference
        reached, found = reduce_to_zero(diff)
        chain = [Step(diff, DIFFERENCE), *found]
        ok, why = (check_chain(eq, chain) if reached else (False, "no strategy reached 0"))
        if not ok:
            note = why
    if ok:
        spot, _ = _spot_and_refute(eq, assumptions, seed=seed, points=spot_points, refute=False)
        return PartProof(eq, tuple(chain), "proved", None, spot, "")
    spot, cex = _spot_and_refute(eq, assumptions, seed=seed, points=max(spot_points, 8), refute=True)
    verdict: Verdict = "refuted" if cex is not None else "undecided"
    return PartProof(eq, tuple(chain), verdict, cex, spot, note)


def prove(claim: Claim, *, chains: Mapping[int, Sequence[Step]] | None = None, spot_points: int = 3) -> Proof:
    """Prove every equation of ``claim``; ``chains`` supplies hand-written chains by index."""
    start = time.perf_counter()
    parts = tuple(
        prove_equation(
            eq, claim.assumptions, steps=(chains or {}).get(q), spot_points=spot_points, seed=q
        )
        for q, eq in enumerate(claim.equations)
    )
    return Proof(claim, parts, time.perf_counter() - start)


def check_identity(
    lhs: Any,
    rhs: Any,
    assumptions: Iterable[Any] | None = None,
    *,
    id: str = "user.identity",
    statement: str | None = None,
    steps: Sequence[Step] | None = None,
) -> Proof:
    """Check any identity ``lhs = rhs`` (scalars or matrices) with the theorem engine.

    Parameters
    ----------
    lhs, rhs : sympy expression or matrix (or anything :func:`sympy.sympify` accepts)
        The two sides; matrices must have the same shape.
    assumptions : iterable of sympy relations, optional
        Conditions beyond the symbols' own assumptions, such as ``b > 1``. Declare symbol
        properties on the symbols themselves (``Symbol("n", integer=True)``).
    id, statement : str, optional
        Name and description used in renderings and certificates.
    steps : sequence of Step, optional
        A hand-written chain (starting with ``Step(lhs - rhs, DIFFERENCE)`` or
        ``Step(lhs, LHS)``); every transition is re-checked. Without it the engine searches.

    Returns
    -------
    Proof
        ``verdict`` is ``"proved"``, ``"refuted"`` (with ``counterexample``) or
        ``"undecided"``.

    Examples
    --------
    >>> import sympy as sp
    >>> n = sp.Symbol("n", integer=True)
    >>> check_identity(sp.sin(sp.pi * n), 0).verdict
    'proved'
    >>> x = sp.Symbol("x", real=True)
    >>> p = check_identity(sp.cos(x)**2, 1 + sp.sin(x)**2)
    >>> p.verdict, sorted(p.counterexample)
    ('refuted', ['x', '|lhs - rhs|'])
    """
    if statement is None:
        statement = f"{sp.sstr(lhs)} = {sp.sstr(rhs)}"
    eq = Equation(lhs, rhs, "")
    claim = Claim(id, statement, (eq,), tuple(assumptions or ()), "user")
    return prove(claim, chains={0: steps} if steps is not None else None)


def _as_sympy(x: Any, name: str) -> Expr:
    if isinstance(x, sp.MatrixBase):
        return sp.ImmutableMatrix(x)
    if isinstance(x, (list, tuple)):
        return sp.ImmutableMatrix(x)
    try:
        return sp.sympify(x, strict=True)
    except (sp.SympifyError, TypeError) as exc:
        raise TypeError(f"{name}={x!r} is not a SymPy expression or matrix") from exc


# --------------------------------------------------------------------------------------
# Certificates
# --------------------------------------------------------------------------------------
def certificate(proof: Proof) -> dict[str, Any]:
    """A JSON-ready certificate: claim, assumptions and every step in ``srepr`` form.

    Anyone can re-check it with :func:`recheck_certificate`, without this package's
    constructions: only SymPy and the rule table are needed.
    """
    c = proof.claim
    return {
        "format": CERTIFICATE_FORMAT,
        "sympy_version": sp.__version__,
        "claim": {
            "id": c.id,
            "statement": c.statement,
            "source": c.source,
            "assumptions": [sp.srepr(a) for a in c.assumptions],
            "symbols": {s.name: sp.srepr(s) for s in c.symbols},
        },
        "verdict": proof.verdict,
        "elapsed_s": round(proof.elapsed, 6),
        "parts": [
            {
                "label": p.equation.label,
                "lhs": sp.srepr(p.equation.lhs),
                "rhs": sp.srepr(p.equation.rhs),
                "verdict": p.verdict,
                "note": p.note,
                "counterexample": dict(p.counterexample) if p.counterexample else None,
                "spot_check": (
                    None if p.spot_check is None else
                    {"points": p.spot_check.points, "dps": p.spot_check.dps,
                     "max_abs_difference": p.spot_check.max_abs_difference}
                ),
                "steps": [{"rule": s.rule, "expr": sp.srepr(s.expr)} for s in p.steps],
            }
            for p in proof.parts
        ],
        "extra": dict(proof.extra),
    }


def _parse(s: str) -> Expr:
    # srepr output is evaluated in SymPy's namespace: only open certificates you trust.
    e = sp.sympify(s)
    return sp.ImmutableMatrix(e) if isinstance(e, sp.MatrixBase) else e


def from_certificate(data: Mapping[str, Any] | str) -> Proof:
    """Rebuild a :class:`Proof` object from a certificate (verdicts as recorded, unchecked)."""
    data = json.loads(data) if isinstance(data, str) else data
    assert not isinstance(data, str)
    if data.get("format") != CERTIFICATE_FORMAT:
        raise ValueError(f"format={data.get('format')!r} is not {CERTIFICATE_FORMAT!r}")
    c = data["claim"]
    parts = []
    for p in data["parts"]:
        eq = Equation(_parse(p["lhs"]), _parse(p["rhs"]), p["label"])
        steps = tuple(Step(_parse(s["expr"]), s["rule"]) for s in p["steps"])
        verdict = check_choice("verdict", p["verdict"], ("proved", "refuted", "undecided"))
        parts.append(PartProof(eq, steps, verdict, p.get("counterexample"), None, p.get("note", "")))  # type: ignore[arg-type]
    claim = Claim(
        c["id"], c["statement"], tuple(q.equation for q in parts),
        tuple(_parse(a) for a in c["assumptions"]), c["source"],
    )
    return Proof(claim, tuple(parts), data.get("elapsed_s", 0.0))


def recheck_certificate(data: Mapping[str, Any] | str) -> Verdict:
    """Re-check a certificate from its JSON alone: ``"proved"`` only if every chain verifies.

    Returns ``"undecided"`` when any chain fails to re-check or any part was not proved.
    """
    proof = from_certificate(data)
    for part in proof.parts:
        if part.verdict != "proved":
            return "undecided"
        ok, _ = check_chain(part.equation, part.steps)
        if not ok:
            return "undecided"
    return "proved"
