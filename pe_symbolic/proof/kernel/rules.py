"""The rewrite rules a chain may cite, and why each one is sound.

A rule is a deterministic SymPy rewrite, applied entrywise to matrices. Every rule here
**preserves equality under the symbols' assumptions**: it is a SymPy function documented to
return an equal expression, called *without* ``force=True`` (a forced rewrite treats every
base as positive and every logarithm as principal, and so "proves" ``sqrt(x**2) = x`` for
real ``x``; none is allowed). Where SymPy needs a property to rewrite (``(x*y)**a`` to
``x**a * y**a`` needs ``x, y >= 0`` or ``a`` integer), it asks the symbols' assumptions, and
without them it leaves the expression alone.

Two rules may cancel a common factor of a numerator and a denominator (``cancel``,
``simplify``, ``factor``, ``together``, ``trigsimp``): what they preserve is equality
*wherever both sides are defined*, and a proof that uses one says so (:data:`CONDITIONAL`).

``shortcut`` says whether the checker may accept a step citing the rule when re-applying the
rule to the previous expression reproduces it exactly. It is granted only to rules whose
result SymPy computes by a fixed algorithm that we rely on anyway (expansion, angle addition,
the kernel's own ``evaluate``). The heuristic simplifiers (``simplify``, ``trigsimp``,
``factor``) never get it: a step citing one of them is accepted only if the difference to the
previous expression reduces to zero by the expansion strategies of the kernel.

SymPy's ``doit`` is **not** a rule: it sums, integrates and takes limits by methods that are
sometimes wrong. Unevaluated objects are rewritten only by :data:`EVALUATE`, whose cases and
side conditions are in :mod:`pe_symbolic.proof.kernel.evaluation`. And the rules only ever see
expressions inside the checked fragment (:mod:`pe_symbolic.proof.kernel.fragment`): the kernel
refuses any step that leaves it.

The trusted base is therefore SymPy's non-forced polynomial and trigonometric rewriting
(expand, angle addition, powsimp, together, cancel) and its assumption system on the
fragment's heads, the :data:`EVALUATE` rule's justified cases, and :data:`PYTHAGORAS`
(``sin(u)**2 -> 1 - cos(u)**2``, an identity for every complex ``u``).

>>> import sympy as sp
>>> x, y = sp.symbols("x y", real=True)
>>> apply_rule("expand_power_base", sp.sqrt(x * y))   # not split: x and y may be negative
sqrt(x*y)
>>> apply_rule("expand", sp.log(x * y))               # likewise
log(x*y)
>>> apply_rule("expand(trig=True)", sp.cos(2 * x))
2*cos(x)**2 - 1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from .claims import Expr
from .evaluation import evaluate
from .identities import (ARG, CYCLOTOMIC, DELTA_PRODUCTS, DENEST, EULER, INVERSE_HYPERBOLIC, INVERSE_TRIG, LOG_PRIMES,
                         MODULUS, PARTS, QUOTIENTS, RE_IM, ROOTS, arg_parts, cyclotomic, delta_products, denest,
                         euler, inverse_hyperbolic, inverse_trig, log_primes, modulus, parts, quotients, re_im, roots)

__all__ = ["CLEAR_DENOMINATORS", "CONDITIONAL", "EVALUATE", "PYTHAGORAS", "RULES", "Rule", "apply_rule", "is_zero",
           "rules_table"]


@dataclass(frozen=True)
class Rule:
    """A named rewrite: the function, whether the re-application shortcut is granted, and
    whether it may cancel common factors (equality wherever both sides are defined)."""

    name: str
    apply: Callable[[Expr], Expr]
    shortcut: bool
    conditional: bool
    doc: str


def _entrywise(f: Callable[[sp.Expr], sp.Expr]) -> Callable[[Expr], Expr]:
    def apply(e: Expr) -> Expr:
        if isinstance(e, sp.MatrixBase):
            return sp.ImmutableMatrix(e.applyfunc(f))
        return f(e)

    return apply


def _pythagoras(x: sp.Expr) -> sp.Expr:
    """Replace every ``sin(u)**2`` (``sin(u)**(2k)``) by ``1 - cos(u)**2`` (to the k)."""
    return x.replace(
        lambda e: e.is_Pow and e.exp.is_Integer and e.exp > 0 and e.exp % 2 == 0
        and isinstance(e.base, sp.sin),
        lambda e: (1 - sp.cos(e.base.args[0]) ** 2) ** (e.exp // 2),
    )


#: The rule that replaces a difference ``N/D`` (over a common denominator) by ``N``: a step
#: that keeps *being zero*, not the value, so the kernel accepts it only in a difference chain
#: (one that must reach 0), and the proof then holds wherever the denominator is nonzero.
CLEAR_DENOMINATORS = "clear denominators: N/D = 0 where D != 0 iff N = 0"


def _numerator(x: sp.Expr) -> sp.Expr:
    """The numerator of ``x`` over a common denominator (``sp.together``, then ``sp.fraction``)."""
    return sp.fraction(sp.together(x))[0]


#: The kernel's own evaluation of unevaluated objects (:mod:`pe_symbolic.proof.kernel.evaluation`).
EVALUATE = "evaluate"

#: The one rewrite the engine adds to SymPy's: an identity for every complex ``u``.
PYTHAGORAS = "sin(u)**2 -> 1 - cos(u)**2"

_RULES = [
    Rule("expand(trig=True)", _entrywise(lambda x: sp.expand(x, trig=True)), True, False,
         "expand products and powers, and sin/cos of sums and integer multiples (angle addition)"),
    Rule("expand", _entrywise(sp.expand), True, False,
         "expand products and integer powers; powers and logs only where the assumptions allow"),
    Rule("expand_trig", _entrywise(sp.expand_trig), True, False,
         "angle addition and multiple-angle formulas"),
    Rule("expand_power_exp", _entrywise(sp.expand_power_exp), True, False,
         "x**(a + b) -> x**a * x**b"),
    Rule("expand_power_base", _entrywise(sp.expand_power_base), True, False,
         "(x*y)**a -> x**a * y**a where the assumptions allow it"),
    Rule("powsimp", _entrywise(sp.powsimp), True, False,
         "x**a * x**b -> x**(a + b); bases combined only where the assumptions allow it"),
    Rule("powdenest", _entrywise(sp.powdenest), True, False,
         "(x**a)**b -> x**(a*b) only where the assumptions allow it"),
    Rule("rewrite(exp)", _entrywise(lambda x: x.rewrite(sp.exp)), True, False,
         "trigonometric and hyperbolic functions in terms of exp (Euler)"),
    Rule(EVALUATE, _entrywise(evaluate), True, False,
         "finite, constant, geometric and delta sums; derivatives of differentiable heads; substitution; "
         "limits by continuity and the limit laws; determinants of concrete size (no SymPy doit)"),
    Rule(PYTHAGORAS, _entrywise(_pythagoras), True, False,
         "sin(u)**2 = 1 - cos(u)**2 for every complex u"),
    # the textbook's identities (pe_symbolic.proof.kernel.identities says why each is sound)
    Rule(QUOTIENTS, _entrywise(quotients), True, False,
         "tan, cot, sec, csc (tanh, coth, sech, csch) as quotients of sin and cos (sinh and cosh), for every "
         "complex argument; undefined exactly where the denominator vanishes"),
    Rule(INVERSE_TRIG, _entrywise(inverse_trig), True, False,
         "asin, acos, acot, asec, acsc through atan on the real domains where the kernel holds them defined "
         "(each result defined wherever the head is)"),
    Rule(INVERSE_HYPERBOLIC, _entrywise(inverse_hyperbolic), True, False,
         "asinh u = log(u + sqrt(u^2 + 1)) (real u), acosh u = log(u + sqrt(u^2 - 1)) (u >= 1), atanh u = (log(1 + u) "
         "- log(1 - u))/2 (|u| < 1), acoth u = (log(u + 1) - log(u - 1))/2 (|u| > 1), asech u = acosh(1/u) (0 < u <= "
         "1), acsch u = asinh(1/u) (u != 0), each only where the argument is known in that domain"),
    Rule(EULER, _entrywise(euler), True, False, "exp(a + i b) = exp(a) (cos b + i sin b) for every complex a, b"),
    Rule(RE_IM, _entrywise(re_im), True, False,
         "re z, im z, conjugate z replaced by a, b, a - i b where z = a + i b is split with a, b real (real "
         "expressions, i, sums, products, integer powers, exp, sin, cos, conjugate)"),
    Rule(ARG, _entrywise(arg_parts), True, False,
         "arg(c z) = arg(z) for c known positive; arg z = atan2(im z, re z) where z = a + i b is split with a, b real "
         "(SymPy's definition of the principal argument; both undefined at 0)"),
    Rule(MODULUS, _entrywise(modulus), True, False, "|z| = sqrt(re(z)^2 + im(z)^2) for every complex z"),
    Rule(PARTS, _entrywise(parts), True, False,
         "re(z) = z - i im(z) for every complex z (where re/im cannot split z); sign(z) = z/|z| for z known nonzero"),
    Rule(LOG_PRIMES, _entrywise(log_primes), True, False,
         "log of a positive rational as the sum over its prime factorization"),
    Rule(DELTA_PRODUCTS, _entrywise(delta_products), True, False,
         "delta(a, b) delta(c, b) = delta(a, b) delta(c, a) and delta^k = delta in a product"),
    Rule(CYCLOTOMIC, _entrywise(cyclotomic), True, False,
         "a number built from sin, cos, tan, cot, sec, csc of rational multiples of pi, exp(i q pi), square "
         "roots of rationals and i, computed exactly in Q(zeta_N) modulo the cyclotomic polynomial: replaced by "
         "its value where that is rational"),
    Rule(DENEST, _entrywise(denest), True, False,
         "sqrt(A) = B for a number A where B**2 - A reduces to 0 exactly and re(B) > 0 by a certified enclosure"),
    Rule(ROOTS, _entrywise(roots), True, False,
         "A**(k/n) = B**k for a number A where B**n - A reduces to 0 exactly and B is real and positive by a "
         "certified enclosure; sqrt(A) = i c where c**2 + A reduces to 0 and c is real and positive"),
    Rule(CLEAR_DENOMINATORS, _entrywise(_numerator), True, True,
         "a difference N/D over a common denominator is 0 wherever D != 0 exactly when N is (difference "
         "chains only; the proof then holds wherever both sides are defined)"),
    Rule("cancel", _entrywise(sp.cancel), True, True,
         "put a rational function in lowest terms (cancels common factors)"),
    Rule("together", _entrywise(sp.together), True, True,
         "bring a sum over a common denominator"),
    Rule("factor", _entrywise(sp.factor), False, True, "factor polynomials"),
    Rule("trigsimp", _entrywise(sp.trigsimp), False, True, "heuristic trigonometric simplification"),
    Rule("simplify", _entrywise(sp.simplify), False, True, "SymPy's heuristic simplification"),
]

#: The named rewrite rules a chain may cite (name -> :class:`Rule`).
RULES: dict[str, Rule] = {r.name: r for r in _RULES}
#: Rules whose equality holds wherever both sides are defined (they may cancel factors).
CONDITIONAL: frozenset[str] = frozenset(r.name for r in _RULES if r.conditional)


def rules_table() -> str:
    """The rules as a Markdown table (name, shortcut, conditional, what it does); the docs print it."""
    rows = ["| rule | re-applied (shortcut) | cancels factors | what it does |", "| --- | --- | --- | --- |"]
    rows += [f"| `{r.name}` | {'yes' if r.shortcut else 'no'} | {'yes' if r.conditional else 'no'} | {r.doc} |"
             for r in _RULES]
    return "\n".join(rows)


def apply_rule(rule: str, e: Expr) -> Expr:
    """Apply the named rewrite rule (a key of :data:`RULES`) to ``e``."""
    try:
        r = RULES[rule]
    except KeyError:
        raise ValueError(f"rule={rule!r} is not a rewrite rule; known: {', '.join(RULES)}") from None
    return r.apply(e)


def is_zero(e: Expr) -> bool:
    """Structural zero: ``0`` or a zero matrix, nothing else (``True`` is a condition, not a
    value, and closes nothing). No numerics, no guessing."""
    if isinstance(e, sp.MatrixBase):
        return all(x == 0 for x in e)
    return isinstance(e, sp.Expr) and e == 0
