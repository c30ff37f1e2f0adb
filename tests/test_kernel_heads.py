"""Every head of the checked fragment and every rule of the kernel, attacked both ways.

For each head: a false claim that leans on it is never ``proved``, and a true one is never
``refuted``. For each rule: a forged chain that cites it to jump from a false difference to 0
is never ``proved``. A new head or rule without its row here fails the coverage tests.
"""

from __future__ import annotations

import pytest
import sympy as sp

from pe_symbolic.proof import DIFFERENCE, Step, check_identity
from pe_symbolic.proof.kernel.fragment import FRAGMENT
from pe_symbolic.proof.kernel.rules import RULES

x, y = sp.symbols("x y", real=True)
z = sp.Symbol("z")
p = sp.Symbol("p", positive=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
j = sp.Symbol("j", integer=True, nonnegative=True)
n = sp.Symbol("n", integer=True, positive=True)
q = sp.IndexedBase("q", real=True)
f = sp.Function("f")
M = sp.ImmutableMatrix

t_ = sp.Symbol("t", real=True)


def _u(head, *args):
    """``head(*args)`` as written (SymPy's evaluation off): the claim is the evaluation."""
    return head(*args, evaluate=False)


# head -> (a false claim, a true claim), each (lhs, rhs, assumptions)
HEADS = {
    "tan": ((sp.tan(2 * x), 2 * sp.tan(x), ()), (sp.tan(2 * x), 2 * sp.tan(x) / (1 - sp.tan(x) ** 2), ())),
    "cot": ((sp.cot(x), 2 * sp.cot(x), ()), (sp.cot(x) * sp.tan(x), 1, ())),
    "sec": ((sp.sec(x) ** 2 + sp.tan(x) ** 2, 1, ()), (sp.sec(x) ** 2 - sp.tan(x) ** 2, 1, ())),
    "csc": ((sp.csc(x) ** 2 + sp.cot(x) ** 2, 1, ()), (sp.csc(x) ** 2 - sp.cot(x) ** 2, 1, ())),
    "sinh": ((sp.sinh(2 * x), 2 * sp.sinh(x), ()), (sp.sinh(2 * x), 2 * sp.sinh(x) * sp.cosh(x), ())),
    "cosh": ((sp.cosh(x) ** 2 + sp.sinh(x) ** 2, 1, ()), (sp.cosh(x) ** 2 - sp.sinh(x) ** 2, 1, ())),
    "tanh": ((sp.tanh(x + y), (sp.tanh(x) + sp.tanh(y)) / (1 - sp.tanh(x) * sp.tanh(y)), ()),
             (sp.tanh(x + y), (sp.tanh(x) + sp.tanh(y)) / (1 + sp.tanh(x) * sp.tanh(y)), ())),
    "coth": ((sp.coth(x), sp.tanh(x), ()), (sp.coth(x) * sp.tanh(x), 1, ())),
    "sech": ((sp.sech(x) ** 2 + sp.tanh(x) ** 2, 2, ()), (sp.sech(x) ** 2 + sp.tanh(x) ** 2, 1, ())),
    "csch": ((sp.csch(x), sp.sinh(x), ()), (sp.csch(x) * sp.sinh(x), 1, ())),
    "asin": ((sp.asin(sp.sin(x)), x, ()), (sp.asin(x), sp.pi / 2 - sp.acos(x), ())),
    "acos": ((sp.acos(sp.cos(x)), x, ()), (_u(sp.acos, -sp.sqrt(2) / 2), 3 * sp.pi / 4, ())),
    "acot": ((sp.acot(x), sp.atan(x), ()), (sp.acot(x), sp.atan(1 / x), ())),
    "asec": ((sp.asec(2 * x), sp.acos(1 / x), ()), (sp.asec(x), sp.acos(1 / x), ())),
    "acsc": ((sp.acsc(x), -sp.asin(1 / x), ()), (sp.acsc(x), sp.asin(1 / x), ())),
    "atan2": ((sp.atan2(y, x), sp.atan(y / x), ()), (_u(sp.atan2, -1, -1), -3 * sp.pi / 4, ())),
    "re": ((sp.re(z), z, ()), (sp.re((x + sp.I * y) * sp.exp(sp.I * t_)), x * sp.cos(t_) - y * sp.sin(t_), ())),
    "im": ((sp.im(z), 0, ()), (sp.im((x + sp.I * y) ** 2), 2 * x * y, ())),
    "conjugate": ((sp.conjugate(sp.exp(sp.I * z)), sp.exp(-sp.I * z), ()),
                  (sp.conjugate(sp.exp(sp.I * x)) * sp.exp(sp.I * x), 1, ())),
    "Integer": ((sp.Integer(2) ** 64, 2**64 + 1, ()), (sp.Integer(2) ** 64, 18446744073709551616, ())),
    "Rational": ((sp.Rational(1, 3) + sp.Rational(1, 6), sp.Rational(1, 3), ()),
                 (sp.Rational(1, 3) + sp.Rational(1, 6), sp.Rational(1, 2), ())),
    "pi": ((sp.sin(sp.pi * x + sp.pi), sp.sin(x), ()), (sp.sin(x + sp.pi), -sp.sin(x), ())),
    "E": ((sp.E * sp.exp(x), sp.exp(x), ()), (sp.E * sp.exp(x), sp.exp(x + 1), ())),
    "I": ((sp.exp(sp.I * x), sp.cos(x) - sp.I * sp.sin(x), ()), (sp.exp(sp.I * x), sp.cos(x) + sp.I * sp.sin(x), ())),
    "Symbol": ((sp.sqrt(x**2), x, ()), (sp.sqrt(p**2), p, ())),
    "Indexed": ((q[i] * q[i + 1], q[i] ** 2, ()), ((q[i] + q[j]) ** 2, q[i] ** 2 + 2 * q[i] * q[j] + q[j] ** 2, ())),
    "Add": ((x + y, x - y, ()), ((x + y) ** 2, x**2 + 2 * x * y + y**2, ())),
    "Mul": (((x + 1) * (x - 1), x**2 + 1, ()), ((x + 1) * (x - 1), x**2 - 1, ())),
    "Pow": (((x * y) ** sp.Rational(1, 2), sp.sqrt(x) * sp.sqrt(y), ()), ((p * y**2) ** 2, p**2 * y**4, ())),
    "exp": ((sp.exp(z) ** 2, sp.exp(z**2), ()), (sp.exp(z) ** 2, sp.exp(2 * z), ())),
    "log": ((sp.log(x**2), 2 * sp.log(x), (sp.Ne(x, 0),)), (sp.log(p**2), 2 * sp.log(p), ())),
    "sin": ((sp.sin(2 * x), 2 * sp.sin(x), ()), (sp.sin(2 * x), 2 * sp.sin(x) * sp.cos(x), ())),
    "cos": ((sp.cos(x + y), sp.cos(x) * sp.cos(y) + sp.sin(x) * sp.sin(y), ()),
            (sp.cos(x + y), sp.cos(x) * sp.cos(y) - sp.sin(x) * sp.sin(y), ())),
    "atan": ((sp.atan(sp.tan(x)), x, ()), (sp.atan(1), sp.pi / 4, ())),
    # the inverse hyperbolic heads, each inside the real domain SymPy's assumptions show
    "asinh": ((sp.asinh(2 * x), 2 * sp.asinh(x), ()), (sp.asinh(x), sp.log(x + sp.sqrt(x**2 + 1)), ())),
    "acosh": ((sp.acosh(x**2 + 1), sp.log(x**2 + 1 - sp.sqrt((x**2 + 1) ** 2 - 1)), ()),
              (sp.acosh(x**2 + 1), sp.log(x**2 + 1 + sp.sqrt((x**2 + 1) ** 2 - 1)), ())),
    "atanh": ((sp.atanh(sp.Rational(1, 2)), sp.log(3), ()), (sp.atanh(sp.Rational(1, 2)), sp.log(3) / 2, ())),
    "acoth": ((sp.acoth(-3), sp.log(2) / 2, ()), (sp.acoth(3), sp.log(2) / 2, ())),
    "asech": ((sp.asech(sp.Rational(1, 2)), sp.log(2 - sp.sqrt(3)), ()),
              (sp.asech(sp.Rational(1, 2)), sp.log(2 + sp.sqrt(3)), ())),
    "acsch": ((sp.acsch(x**2 + 1), sp.asinh(x**2 + 1), ()), (sp.acsch(x**2 + 1), sp.asinh(1 / (x**2 + 1)), ())),
    "arg": ((sp.arg(sp.exp(5 * sp.I), evaluate=False), 5, ()), (sp.arg((x + sp.I * x) / p), sp.arg(x * (1 + sp.I)), ())),
    "Abs": ((sp.Abs(x), x, ()), (sp.Abs(-p), p, ())),
    "sign": ((sp.sign(x) * x, x, ()), (sp.sign(x) * sp.Abs(x), x, ())),
    "Max": ((sp.Max(x, y), x, ()), (sp.Max(p, -p), p, ())),
    "Min": ((sp.Min(x, y), y, ()), (sp.Min(p, -p), -p, ())),
    "KroneckerDelta": ((sp.KroneckerDelta(i, j), 1, ()), (sp.KroneckerDelta(i, i + 1), 0, ())),
    "Piecewise": ((sp.Piecewise((1, x > 0), (0, True)), 1, ()), (sp.Piecewise((x, x > 0), (-x, True)), sp.Abs(x), ())),
    "uninterpreted function": ((f(x + y), f(x) + f(y), ()), (f(x + y) - f(y + x), 0, ())),
    "Sum": ((sp.Sum(j, (j, 0, n)), n**2 / 2, ()), (sp.Sum(j, (j, 0, 3)), 6, ())),
    "Product": ((sp.Product(2, (j, 1, n)), 2 * n, ()), (sp.Product(2, (j, 1, n)), 2**n, ())),
    "Derivative": ((sp.Derivative(sp.Abs(x), x), sp.sign(x), ()), (sp.Derivative(sp.sin(x), x), sp.cos(x), ())),
    "Subs": ((sp.Subs(sp.sin(x), x, 1), sp.sin(2), ()), (sp.Subs(sp.sin(x) ** 2, x, y), sp.sin(y) ** 2, ())),
    "Limit": ((sp.Limit(1 / p, p, sp.oo), 1, ()), (sp.Limit(p / (p + 1), p, sp.oo), 1, ())),
    "Matrix": ((M([[x, 0], [0, y]]), M([[y, 0], [0, x]]), ()), (M([[x, 0], [0, y]]) ** 2, M([[x**2, 0], [0, y**2]]), ())),
    "Determinant": ((sp.Determinant(M([[x, y], [y, x]])), x**2 + y**2, ()),
                    (sp.Determinant(M([[x, y], [y, x]])), x**2 - y**2, ())),
    "relation": ((sp.Piecewise((1, x >= y), (0, True)) + sp.Piecewise((1, y >= x), (0, True)), 1, ()),
                 (sp.Piecewise((1, x > y), (0, True)) + sp.Piecewise((1, x <= y), (0, True)), 1, ())),
    "And/Or/Not": ((sp.Piecewise((1, sp.And(x > 0, y > 0)), (0, True)), sp.Piecewise((1, x > 0), (0, True)), ()),
                   (sp.Piecewise((1, sp.Or(x > 0, sp.Not(x > 0))), (0, True)), 1, ())),
    "True/False": ((sp.Piecewise((x, True)), y, ()), (sp.Piecewise((x, True)), x, ())),
}


def test_every_head_of_the_fragment_is_attacked():
    assert {h.name for h in FRAGMENT} == set(HEADS)


@pytest.mark.parametrize("head", sorted(HEADS))
def test_a_false_claim_on_each_head_is_never_proved(head):
    lhs, rhs, assumptions = HEADS[head][0]
    assert check_identity(lhs, rhs, assumptions, timeout=20).verdict != "proved"


@pytest.mark.parametrize("head", sorted(HEADS))
def test_a_true_claim_on_each_head_is_never_refuted(head):
    lhs, rhs, assumptions = HEADS[head][1]
    assert check_identity(lhs, rhs, assumptions, timeout=20).verdict != "refuted"


@pytest.mark.parametrize("rule", sorted(RULES))
def test_no_rule_jumps_from_a_false_difference_to_zero(rule):
    for lhs, rhs in [(sp.sin(x + y), sp.sin(x) + sp.sin(y)), ((x + 1) ** 2, x**2 + 1),
                     (sp.sqrt(x**2), x), (sp.exp(z) ** y, sp.exp(z * y)), (1 / (x**2 + 1), 1)]:
        chain = [Step(lhs - rhs, DIFFERENCE), Step(sp.Integer(0), rule)]
        assert check_identity(lhs, rhs, steps=chain, timeout=20).verdict != "proved", (rule, lhs, rhs)
