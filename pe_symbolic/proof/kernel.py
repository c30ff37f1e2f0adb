"""The checker: the small part of the engine that decides whether a chain is a proof.

A strategy may search however it likes (:mod:`pe_symbolic.proof.engine`); what it finds
counts only if :func:`check_chain` accepts it here. A chain for ``lhs = rhs`` starts at
``lhs - rhs`` (rule :data:`~pe_symbolic.proof.claims.DIFFERENCE`, and must reach ``0``) or at
``lhs`` (rule :data:`~pe_symbolic.proof.claims.LHS`, and must reach ``rhs``). Each later
step is checked against the one before it (:func:`check_transition`):

* a **rule** of :data:`~pe_symbolic.proof.rules.RULES` whose ``shortcut`` is granted, which
  re-applied to the previous expression reproduces the step exactly: accepted;
* any other step (a heuristic rule, a rule whose result differs, or a free-text *reason*
  such as "angle addition"): accepted only if ``previous - step`` reduces to zero under the
  kernel's :data:`KERNEL_STRATEGIES`, which use shortcut rules only.

Both sides must have the same shape. Nothing is accepted on numerical evidence.

>>> import sympy as sp
>>> from pe_symbolic.proof.claims import DIFFERENCE, Equation, Step
>>> x = sp.Symbol("x", real=True)
>>> eq = Equation(sp.cos(2 * x), 1 - 2 * sp.sin(x) ** 2)
>>> check_chain(eq, [Step(eq.difference, DIFFERENCE), Step(0, "expand(trig=True)")])
(True, '')
>>> check_chain(eq, [Step(eq.difference, DIFFERENCE), Step(0, "trust me")])[0]
True
>>> bad = Equation(sp.sqrt(x**2), x)
>>> check_chain(bad, [Step(bad.difference, DIFFERENCE), Step(0, "powdenest")])
(False, 'step 2 (powdenest) does not follow from step 1')
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from . import budget
from .claims import DIFFERENCE, LHS, Equation, Expr, Step
from .rules import PYTHAGORAS, RULES, apply_rule, is_zero

__all__ = [
    "EXPAND_MAX_TERMS",
    "KERNEL_STRATEGIES",
    "check_chain",
    "check_transition",
    "reduce_to_zero",
    "run_strategy",
]

#: Strategies the kernel uses to check a transition: shortcut rules only. Chosen for speed:
#: ``expand(trig=True)`` settles the d = 64 translation identity in well under a second,
#: where ``simplify`` per pair takes ~18 s and ``trigsimp`` on the whole matrix passes 60 s
#: at d = 16 (measured while planning).
KERNEL_STRATEGIES: tuple[tuple[str, ...], ...] = (
    ("doit", PYTHAGORAS, "expand(trig=True)", PYTHAGORAS, "expand"),
    ("doit", PYTHAGORAS, "expand(trig=True)", "powsimp", "expand(trig=True)", PYTHAGORAS, "expand"),
    ("doit", "rewrite(exp)", "expand", "powsimp", "expand"),
    ("doit", "together", "cancel", "expand"),
    ("doit", "expand(trig=True)", PYTHAGORAS, "expand"),
)
#: Expanding rules are skipped when the expanded form would have more terms than this.
EXPAND_MAX_TERMS = 100_000
_EXPANDING = {"expand(trig=True)", "expand", "expand_trig", "rewrite(exp)"}
#: Heuristic rules are skipped for expressions with more operations than this.
HEURISTIC_MAX_OPS = 400


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
        return _terms_estimate(e.base) ** min(int(e.exp), 64)
    if isinstance(e, (sp.sin, sp.cos)):
        arg = e.args[0]
        coeff = arg.as_coeff_Mul()[0] if arg.is_Mul else 1
        mult = abs(int(coeff)) if getattr(coeff, "is_Integer", False) else 1
        return 2 * _terms_estimate(arg) * max(mult, 1)  # angle addition doubles the terms
    return 1


def _too_big_to_expand(e: Expr) -> bool:
    entries = e if isinstance(e, sp.MatrixBase) else [e]
    return any(_terms_estimate(x) > EXPAND_MAX_TERMS for x in entries)


def _size(e: Expr) -> int:
    return sum(sp.count_ops(x) for x in e) if isinstance(e, sp.MatrixBase) else sp.count_ops(e)


def run_strategy(e: Expr, strategy: Sequence[str]) -> list[Step]:
    """Apply the rules of ``strategy`` in turn; return the steps that changed something."""
    steps: list[Step] = []
    cur = e
    for rule in strategy:
        budget.check()
        r = RULES[rule]
        if not r.shortcut and _size(cur) > HEURISTIC_MAX_OPS:
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


def reduce_to_zero(
    e: Expr, strategies: Sequence[Sequence[str]] = KERNEL_STRATEGIES
) -> tuple[bool, list[Step]]:
    """Try the strategies in order; return (reached zero, the steps of the best try)."""
    if is_zero(e):
        return True, []
    best: list[Step] = []
    for strategy in strategies:
        steps = run_strategy(e, strategy)
        if steps and is_zero(steps[-1].expr):
            return True, steps
        if not best or (steps and _size(steps[-1].expr) < _size(best[-1].expr)):
            best = steps
    return False, best


def _shape(e: Expr) -> tuple[int, ...] | None:
    return e.shape if isinstance(e, sp.MatrixBase) else None


def check_transition(prev: Expr, cur: Expr, rule: str) -> bool:
    """Re-check one step: ``cur`` follows from ``prev`` by ``rule`` (see the module notes)."""
    budget.check()
    if _shape(prev) != _shape(cur):
        return False
    r = RULES.get(rule)
    if r is not None and r.shortcut and apply_rule(rule, prev) == cur:
        return True
    diff = prev - cur
    if isinstance(diff, sp.MatrixBase):
        diff = sp.ImmutableMatrix(diff)
    return reduce_to_zero(diff)[0]


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
        if b.rule in (DIFFERENCE, LHS):
            return False, f"step {n} may not restart the chain ({b.rule!r})"
        if not check_transition(a.expr, b.expr, b.rule):
            return False, f"step {n} ({b.rule}) does not follow from step {n - 1}"
    last = steps[-1].expr
    if target_zero and not is_zero(last):
        return False, "the chain does not reach 0"
    if not target_zero and last != equation.rhs:
        return False, "the chain does not reach the right-hand side"
    return True, ""
