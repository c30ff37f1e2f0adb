"""Red team, round four: attacks on the rebuilt trusted kernel, head by head, rule by rule.

Each case is an attack a hostile user could run through the public API; the assertion is the
soundness target it must meet: a false claim is never ``proved``, a true claim is never
``refuted``, a tampered certificate never re-checks. Written before the fixes they drove.
"""

from __future__ import annotations

import pytest
import sympy as sp

from pe_symbolic.proof import check_identity
from pe_symbolic.proof.evaluation import evaluate

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
z = sp.Symbol("z")
xi = sp.Symbol("x", integer=True, nonnegative=True)
j = sp.Symbol("j", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
f = sp.Function("f")


def _verdict(lhs, rhs, assumptions=(), **kw):
    return check_identity(lhs, rhs, assumptions, timeout=kw.pop("timeout", 20), **kw)


# --------------------------------------------------------------------------------------
# 1. variable capture: a substitution whose value mentions a variable bound inside
# --------------------------------------------------------------------------------------
# Subs(Sum(x*j, (j, 0, n)), x, j) is j*n*(n+1)/2 (the outer j); substituting with xreplace
# gives Sum(j**2, (j, 0, n)), the inner j captured.
CAPTURE_FALSE = [
    ("subs into a sum", sp.Subs(sp.Sum(xi * j, (j, 0, n)), xi, j), sp.Sum(j**2, (j, 0, n))),
    ("subs into a sum, f", sp.Subs(sp.Sum(f(xi + j), (j, 0, n)), xi, j), sp.Sum(f(2 * j), (j, 0, n))),
    ("subs into a product", sp.Subs(sp.Product(f(xi + j), (j, 0, n)), xi, j), sp.Product(f(2 * j), (j, 0, n))),
    ("delta sum, point captured", sp.Sum(sp.KroneckerDelta(j, k) * sp.Product(f(j + k), (k, 0, n)), (j, 0, n + 7)),
     sp.Piecewise((sp.Product(f(2 * k), (k, 0, n)), k <= n + 7), (0, True))),
    ("finite sum, lower limit captured", sp.Sum(sp.Product(f(j + k), (k, 0, n)), (j, k, k + 1)),
     sp.Product(f(2 * k), (k, 0, n)) + sp.Product(f(2 * k + 1), (k, 0, n))),
]


@pytest.mark.parametrize("name,lhs,rhs", CAPTURE_FALSE, ids=[c[0] for c in CAPTURE_FALSE])
def test_a_substitution_never_captures_a_bound_variable(name, lhs, rhs):
    proof = _verdict(lhs, rhs)
    assert proof.verdict != "proved", proof.to_text()


@pytest.mark.parametrize("expr", [
    sp.Subs(sp.Sum(f(xi + j), (j, 0, n)), xi, j),
    # finite sum written out with a lower limit that an inner binder captures
    sp.Sum(sp.Product(f(j + k), (k, 0, n)), (j, k, k + 1)),
    sp.Product(sp.Sum(f(j + k), (k, 0, n)), (j, k, k + 1)),
    # delta sum whose point is captured by a binder in the summand
    sp.Sum(sp.KroneckerDelta(j, k) * sp.Product(f(j + k), (k, 0, n)), (j, 0, n + 7)),
], ids=["subs", "finite-sum", "finite-product", "delta-sum"])
def test_evaluate_refuses_a_capturing_substitution(expr):
    # each of these would need a bound variable renamed first: evaluate leaves it alone
    assert evaluate(expr) == expr


# --------------------------------------------------------------------------------------
# 2. contradictory assumptions between several symbols, strict ones included
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("assumptions", [
    [x > y, y > x],
    [x > y + 5, x < y - 5],
    [x < y, y < x + sp.Rational(-1, 3) + sp.Rational(1, 3)],
    [x + y > 2, x + y < 2],
], ids=["x>y>x", "apart", "x<y<x", "sum-both-ways"])
def test_strictly_contradictory_linear_assumptions_are_vacuous(assumptions):
    from pe_symbolic.proof.claims import DIFFERENCE, Step
    from pe_symbolic.proof.kernel import ASSUMPTION

    lhs = sp.Piecewise((1, assumptions[0]), (0, True))
    rhs = sp.Piecewise((1, assumptions[1]), (2, True))
    chain = [Step(lhs - rhs, DIFFERENCE), Step(sp.Integer(0), ASSUMPTION)]
    proof = _verdict(lhs, rhs, assumptions, steps=chain)
    assert proof.verdict != "proved", proof.to_text()
    assert "vacuous" in " ".join(proof.notes)


def test_satisfiable_strict_assumptions_are_not_vacuous():
    from pe_symbolic.proof.claims import DIFFERENCE, Step
    from pe_symbolic.proof.kernel import ASSUMPTION

    lhs = sp.Piecewise((1, x > y), (0, True))
    chain = [Step(lhs - 1, DIFFERENCE), Step(sp.Integer(0), ASSUMPTION)]
    proof = _verdict(lhs, 1, [x > y, y > 0], steps=chain)
    assert proof.verdict == "proved", proof.to_text()
