"""The textbook's heads and rules (issue 36, items 1-3), attacked both ways.

For each new rule of :mod:`pe_symbolic.proof.kernel.identities`: the identities it exists for
are ``proved``, and the false twins an attacker would try next are never ``proved`` (most are
``refuted``, by disjoint certified enclosures at an admissible point). For each new head: the
refuter reaches it (a false claim on it is ``refuted``), and it declines the points where the
kernel holds the head undefined (a pole, a branch cut, outside the real domain).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sympy as sp
from sympy.core.parameters import evaluate

from pe_symbolic.proof import DIFFERENCE, Step, check_identity
from pe_symbolic.proof.kernel.enclosure import Undecidable, enclose
from pe_symbolic.proof.kernel.fragment import outside_fragment
from pe_symbolic.proof.kernel.identities import (ARG, CYCLOTOMIC, MODULUS, PARTS, ROOTS, DELTA_PRODUCTS, DENEST, EULER, INVERSE_HYPERBOLIC,
                                                 INVERSE_TRIG, LOG_PRIMES, QUOTIENTS, RE_IM, cyclotomic,
                                                 arg_parts, delta_products, denest, inverse_hyperbolic, log_primes,
                                                 modulus, parts, roots, split)
from pe_symbolic.proof.kernel.rules import rules_table

x, y = sp.symbols("x y", real=True)
r = sp.Symbol("r", real=True)
a, b = sp.symbols("a b", positive=True)
z = sp.Symbol("z")
j = sp.Symbol("j", integer=True)
t, theta, x0, x1 = sp.symbols("t theta x0 x1", real=True)
pi = sp.pi


def _u(build):
    """``build()`` with SymPy's evaluation off (the claim is the evaluation itself)."""
    with evaluate(False):
        return build()


def _rope():
    with evaluate(False):
        q = (x0 + sp.I * x1) * sp.exp(sp.I * t * theta)
        return sp.re(q), sp.im(q), sp.conjugate(sp.exp(sp.I * t * theta)) * sp.exp(sp.I * t * theta)


RE, IM, CONJ = _rope()
MORRIE = sp.cos(pi / 9) * sp.cos(2 * pi / 9) * sp.cos(3 * pi / 9) * sp.cos(4 * pi / 9)
NESTED = sp.sqrt(16 - 2 * sp.sqrt(29) + 2 * sp.sqrt(55 - 10 * sp.sqrt(29)))
FIFTH = (41 + 29 * sp.sqrt(2)) ** sp.Rational(1, 5)
NEGATIVE = sp.sqrt(-2107 - 98 * sp.sqrt(345) - 98 * sp.sqrt(115) - 490 * sp.sqrt(3))

# (name, lhs, rhs): true, each proved
PROVED = [
    ("tan double angle", sp.tan(2 * x), 2 * sp.tan(x) / (1 - sp.tan(x) ** 2)),
    ("tan addition", sp.tan(x + y), (sp.tan(x) + sp.tan(y)) / (1 - sp.tan(x) * sp.tan(y))),
    ("sec^2 - tan^2", sp.sec(x) ** 2 - sp.tan(x) ** 2, 1),
    ("cot tan", sp.cot(x) * sp.tan(x), 1),
    ("cosh^2 - sinh^2", sp.cosh(x) ** 2 - sp.sinh(x) ** 2, 1),
    ("sinh double", sp.sinh(2 * x), 2 * sp.sinh(x) * sp.cosh(x)),
    ("tanh addition", sp.tanh(x + y), (sp.tanh(x) + sp.tanh(y)) / (1 + sp.tanh(x) * sp.tanh(y))),
    ("asin + acos", sp.asin(r) + sp.acos(r), pi / 2),
    ("acot", sp.acot(r), sp.atan(1 / r)),
    ("asin value", _u(lambda: sp.asin(sp.sqrt(3) / 2)), pi / 3),
    ("atan2 value", _u(lambda: sp.atan2(-1, -1)), -3 * pi / 4),
    ("tan value", _u(lambda: sp.tan(pi / 12)), 2 - sp.sqrt(3)),
    ("RoPE re", RE, x0 * sp.cos(t * theta) - x1 * sp.sin(t * theta)),
    ("RoPE im", IM, x0 * sp.sin(t * theta) + x1 * sp.cos(t * theta)),
    ("RoPE conjugate", CONJ, 1),
    ("log 2 + log 3", sp.log(2) + sp.log(3), sp.log(6)),
    ("log 12", sp.log(12), 2 * sp.log(2) + sp.log(3)),
    ("log a + log b", sp.log(a) + sp.log(b), sp.log(a * b)),
    ("denesting", NESTED, sp.sqrt(5) + sp.sqrt(11 - 2 * sp.sqrt(29))),
    ("exp(i pi/4)", sp.exp(sp.I * pi / 4), sp.sqrt(2) / 2 + sp.I * sp.sqrt(2) / 2),
    ("delta product", _u(lambda: sp.KroneckerDelta(0, j) * sp.KroneckerDelta(1, j)), 0),
    ("Morrie", MORRIE, sp.Rational(1, 16)),
    # the inverse hyperbolic heads on their real domains
    ("asinh log form", sp.asinh(x), sp.log(x + sp.sqrt(x**2 + 1))),
    ("asinh(1)", _u(lambda: sp.asinh(1)), sp.log(1 + sp.sqrt(2))),
    ("asinh odd", _u(lambda: sp.asinh(sp.Rational(-1, 2))), -sp.asinh(sp.Rational(1, 2))),
    ("acsch(-1)", _u(lambda: sp.acsch(-1)), -sp.log(1 + sp.sqrt(2))),
    ("atanh(tanh(-5))", _u(lambda: sp.atanh(sp.tanh(-5))), -5),
    ("acosh log form", sp.acosh(a + 1), sp.log(a + 1 + sp.sqrt((a + 1) ** 2 - 1))),
    ("asech = acosh(1/u)", sp.asech(1 / (a + 1)), sp.acosh(a + 1)),
    ("acsch = asinh(1/u)", sp.acsch(a), sp.asinh(1 / a)),
    ("atanh(1/2)", sp.atanh(sp.Rational(1, 2)), sp.log(3) / 2),
    ("acoth(3)", sp.acoth(3), sp.log(2) / 2),
    ("asinh derivative", sp.Derivative(sp.asinh(x), x), 1 / sp.sqrt(x**2 + 1)),
    ("acosh derivative with its kink", sp.Derivative(sp.acosh(x**2 + 1), x), 2 * x / (sp.Abs(x) * sp.sqrt(x**2 + 2))),
    # the principal argument
    ("arg(-i)", _u(lambda: sp.arg(-sp.I)), -pi / 2),
    ("arg(exp(i pi/7))", _u(lambda: sp.arg(sp.exp(sp.I * pi / 7))), pi / 7),
    ("arg of a positive", _u(lambda: sp.arg(a)), 0),
    ("arg, a positive factor", _u(lambda: sp.arg((x + sp.I * x) / a)), _u(lambda: sp.arg(x * (1 + sp.I)))),
    ("arg(exp(sin(1 + 3i)))", _u(lambda: sp.arg(sp.exp(sp.sin(1 + 3 * sp.I)))), -2 * pi + sp.cos(1) * sp.sinh(3)),
    ("log base 2", _u(lambda: sp.log(6, 2)), 1 + sp.log(3) / sp.log(2)),
    ("log base e", _u(lambda: sp.log(z, sp.E)), sp.log(z)),
    ("fifth root", FIFTH, 1 + sp.sqrt(2)),
    ("fifth root, squared and inverted", FIFTH ** -2, (sp.sqrt(2) - 1) ** 2),
    ("square root of a negative number", NEGATIVE, sp.I * (7 * sp.sqrt(5) + 7 * sp.sqrt(15) + 7 * sp.sqrt(23))),
    ("modulus", sp.Abs(z), sp.sqrt(sp.re(z) ** 2 + sp.im(z) ** 2)),
    ("parts", x + sp.im(z), x - sp.I * (z - sp.re(z))),
    ("sign of a number", _u(lambda: sp.sign(2 + 2 * sp.I)), sp.sqrt(2) * (2 + 2 * sp.I) / 4),
    ("arg of a rotation", sp.arg(sp.exp(sp.I * t) * (x0 + sp.I * x1) / a), sp.atan2(x0 * sp.sin(t) + x1 * sp.cos(t),
                                                                                   x0 * sp.cos(t) - x1 * sp.sin(t))),
]

# (name, lhs, rhs, assumptions): false, each refuted (a certified counterexample)
REFUTED = [
    ("cot(r) = 2 cot(r)", sp.cot(r), 2 * sp.cot(r)),
    ("sec", sp.sec(r), 2 * sp.sec(r)),
    ("csc", sp.csc(r), 2 * sp.csc(r)),
    ("tan double, wrong sign", sp.tan(2 * x), 2 * sp.tan(x) / (1 + sp.tan(x) ** 2)),
    ("tanh", sp.tanh(r), 2 * sp.tanh(r)),
    ("coth", sp.coth(r), sp.tanh(r)),
    ("sech", sp.sech(r) ** 2 + sp.tanh(r) ** 2, 2),
    ("csch", sp.csch(r), sp.sinh(r)),
    ("cosh^2 + sinh^2", sp.cosh(x) ** 2 + sp.sinh(x) ** 2, 1),
    ("acot = pi/2 - atan", sp.acot(r), pi / 2 - sp.atan(r)),  # false for r < 0
    ("acsc", sp.acsc(r), 2 * sp.acsc(r)),
    ("asec", sp.asec(r), 2 * sp.asec(r)),
    ("acos(cos x) = x", sp.acos(sp.cos(x)), x),
    ("asin(sin x) = x", sp.asin(sp.sin(x)), x),
    ("log(ab) for real a, b", sp.log(x * y), sp.log(x) + sp.log(y)),
    ("log 2 + log 3 = log 5", sp.log(2) + sp.log(3), sp.log(5)),
    ("denesting, the wrong root", sp.sqrt(3 - 2 * sp.sqrt(2)), 1 - sp.sqrt(2)),
    ("re(z) = z", sp.re(z), z),
    ("im(z) = 0", sp.im(z), 0),
    ("conjugate(z) = z", sp.conjugate(z), z),
    ("atan2(y, x) = atan(y/x)", sp.atan2(y, x), sp.atan(y / x)),  # false for x < 0
    ("asin(r) = 2 asin(r)", sp.asin(r), 2 * sp.asin(r)),  # refuted at a point drawn inside [-1, 1]
    ("acos(r) = asin(r)", sp.acos(r), sp.asin(r)),
    ("sinh(2x) = 2 sinh(x)", sp.sinh(2 * x), 2 * sp.sinh(x)),
    ("RoPE re, wrong sign", RE, x0 * sp.cos(t * theta) + x1 * sp.sin(t * theta)),
    ("Morrie, wrong value", MORRIE, sp.Rational(1, 8)),
    ("asinh(r) = 2 asinh(r)", sp.asinh(r), 2 * sp.asinh(r)),
    ("acosh, the other root", sp.acosh(1 + r**2), sp.log(1 + r**2 - sp.sqrt((1 + r**2) ** 2 - 1))),
    ("atanh(1/2) = log 3", sp.atanh(sp.Rational(1, 2)), sp.log(3)),
    ("acoth(-3) = log(2)/2 (odd)", sp.acoth(-3), sp.log(2) / 2),
    ("asech, the other root", sp.asech(sp.Rational(1, 2)), sp.log(2 - sp.sqrt(3))),
    ("acsch(u) = asinh(u)", sp.acsch(1 + r**2), sp.asinh(1 + r**2)),
    ("asinh(sinh x) = 2x", sp.asinh(sp.sinh(x)), 2 * x),
    ("acosh(x^2 + 1)' without its kink at 0", sp.Derivative(sp.acosh(x**2 + 1), x), 2 / sp.sqrt(x**2 + 2)),
    ("asinh' as acosh'", sp.Derivative(sp.asinh(x), x), 1 / sp.sqrt(x**2 - 1)),
    ("arg(exp(5i)) = 5 (not reduced mod 2 pi)", _u(lambda: sp.arg(sp.exp(5 * sp.I))), 5),
    ("arg(-1) = -pi (the cut's other side)", _u(lambda: sp.arg(-1)), -pi),
    ("arg(-a z) = arg(z) (a negative factor)", sp.arg(-a * z), sp.arg(z)),
    ("arg(exp(i x)) = x for real x", sp.arg(sp.exp(sp.I * x)), x),
    ("arg(1/z) = arg(z)", sp.arg(1 / z), sp.arg(z)),
    ("log base 2, wrong", _u(lambda: sp.log(6, 2)), 2 + sp.log(3) / sp.log(2)),
    ("fifth root, the wrong sign", FIFTH, 1 - sp.sqrt(2)),
    ("fifth root of a negative number is not real", (41 - 29 * sp.sqrt(2)) ** sp.Rational(1, 5), 1 - sp.sqrt(2)),
    ("square root of a negative number, the other root", NEGATIVE,
     -sp.I * (7 * sp.sqrt(5) + 7 * sp.sqrt(15) + 7 * sp.sqrt(23))),
    ("modulus without the root", sp.Abs(z), sp.re(z) ** 2 + sp.im(z) ** 2),
    ("parts, the wrong sign", sp.re(z), z + sp.I * sp.im(z)),
    ("sign of a number, the wrong sign", _u(lambda: sp.sign(2 + 2 * sp.I)), -sp.sqrt(2) * (2 + 2 * sp.I) / 4),
    ("|i b| = b for an imaginary i b", sp.Abs(sp.Symbol("ib", imaginary=True)), -sp.I * sp.Symbol("ib", imaginary=True)),
]

# false claims that must not be proved (refuted or undecided: no admissible point, say)
NOT_PROVED = [
    ("tan at its pole", _u(lambda: sp.tan(pi / 2)), 0),
    ("asin(2) = pi/2", _u(lambda: sp.asin(2)), pi / 2),
    ("atan2(0, 0) = 0", _u(lambda: sp.atan2(0, 0)), 0),
    ("acot(0) = pi/2", _u(lambda: sp.acot(0)), pi / 2),
    ("conjugate(exp(i z)) = exp(-i z) for complex z", sp.conjugate(sp.exp(sp.I * z)), sp.exp(-sp.I * z)),
    ("log(x^2) = 2 log x for real x", sp.log(x**2), 2 * sp.log(x)),
    # the inverse hyperbolic log forms outside the real domain: false there
    ("acosh(-2) = log(-2 + sqrt 3)", _u(lambda: sp.acosh(-2)), sp.log(-2 + sp.sqrt(3))),
    ("acosh(z) = log(z + sqrt(z^2 - 1)) for complex z", sp.acosh(z), sp.log(z + sp.sqrt(z**2 - 1))),
    ("acosh(r) = log(r + sqrt(r^2 - 1)) for real r", sp.acosh(r), sp.log(r + sp.sqrt(r**2 - 1))),
    ("asech(2) = log(1/2 + sqrt(1/4 - 1))", _u(lambda: sp.asech(2)), sp.log(sp.Rational(1, 2) + sp.sqrt(-sp.Rational(3, 4)))),
    ("acosh(cosh x) = x for real x", sp.acosh(sp.cosh(x)), x),
    ("atanh(1) = 0 (a pole)", _u(lambda: sp.atanh(1)), 0),
    ("acoth(1) = 0 (a pole)", _u(lambda: sp.acoth(1)), 0),
    ("acsch(0) = 0 (a pole)", _u(lambda: sp.acsch(0)), 0),
    ("arg(0) = 0", _u(lambda: sp.arg(0)), 0),
    ("log base 1", _u(lambda: sp.log(5, 1)), 0),
    ("sign(z) = z/|z| at z = 0", sp.sign(z), z / sp.Abs(z)),
    ("arg(z w) = arg z + arg w", sp.arg(z * sp.Symbol("w")), sp.arg(z) + sp.arg(sp.Symbol("w"))),
]


@pytest.mark.parametrize("name,lhs,rhs", PROVED, ids=[c[0] for c in PROVED])
def test_the_textbook_identities_are_proved(name, lhs, rhs):
    p = check_identity(lhs, rhs, timeout=30)
    assert p.verdict == "proved", (name, p.notes)


@pytest.mark.parametrize("name,lhs,rhs", REFUTED, ids=[c[0] for c in REFUTED])
def test_their_false_twins_are_refuted(name, lhs, rhs):
    p = check_identity(lhs, rhs, timeout=30)
    assert p.verdict == "refuted", (name, p.notes)


@pytest.mark.parametrize("name,lhs,rhs", NOT_PROVED, ids=[c[0] for c in NOT_PROVED])
def test_false_claims_at_poles_and_cuts_are_not_proved(name, lhs, rhs):
    assert check_identity(lhs, rhs, timeout=30).verdict != "proved", name


@pytest.mark.parametrize("rule", [QUOTIENTS, INVERSE_TRIG, INVERSE_HYPERBOLIC, ARG, MODULUS, PARTS, ROOTS, EULER, RE_IM, LOG_PRIMES,
                                  DELTA_PRODUCTS, CYCLOTOMIC, DENEST])
@pytest.mark.parametrize("lhs,rhs", [
    (sp.tan(2 * x), 2 * sp.tan(x)), (sp.log(6), sp.log(2) + sp.log(5)), (MORRIE, sp.Rational(1, 8)),
    (sp.sqrt(3 - 2 * sp.sqrt(2)), 1 - sp.sqrt(2)), (sp.re(z), z), (sp.acot(r), pi / 2 - sp.atan(r)),
    (sp.acosh(1 + r**2), sp.log(1 + r**2 - sp.sqrt((1 + r**2) ** 2 - 1))),
    (sp.acosh(r), sp.log(r + sp.sqrt(r**2 - 1))),
    (sp.arg(sp.exp(sp.I * x)), x),
    ((41 - 29 * sp.sqrt(2)) ** sp.Rational(1, 5), 1 - sp.sqrt(2)), (sp.Abs(z), sp.re(z) + sp.im(z)),
])
def test_a_chain_citing_a_new_rule_cannot_jump_to_zero(rule, lhs, rhs):
    chain = [Step(lhs - rhs, DIFFERENCE), Step(sp.Integer(0), rule)]
    assert check_identity(lhs, rhs, steps=chain, timeout=20).verdict != "proved"


# ---------------------------------------------------------------------------- the rules alone


def test_log_primes_splits_positive_rationals_only():
    assert log_primes(sp.log(sp.Rational(12, 35))) == 2 * sp.log(2) + sp.log(3) - sp.log(5) - sp.log(7)
    neg = sp.log(-6, evaluate=False)  # log(-6) = log 6 + i pi: not split as a positive rational
    assert log_primes(neg) == neg
    assert log_primes(sp.log(x)) == sp.log(x)
    assert log_primes(sp.log(7)) == sp.log(7)


def test_cyclotomic_values_are_exact_and_refuse_division_by_zero():
    assert cyclotomic(MORRIE) == sp.Rational(1, 16)
    assert cyclotomic(sp.sin(pi / 7) * sp.sin(2 * pi / 7) * sp.sin(3 * pi / 7)) != sp.Rational(1, 8)  # sqrt(7)/8
    assert cyclotomic(sp.sqrt(5) ** 2 - 5) == 0
    # Gauss sums: sqrt 3 (3 = 3 mod 4) and sqrt 5 (5 = 1 mod 4) with their signs
    assert cyclotomic(2 * sp.cos(pi / 6) - sp.sqrt(3)) == 0
    assert cyclotomic(4 * sp.cos(pi / 5) - 1 - sp.sqrt(5)) == 0
    assert cyclotomic(4 * sp.cos(pi / 5) - 1 + sp.sqrt(5)) != 0
    # 1/cos(pi/2) is undefined: never a finite number (cos(pi/2) -> 0 inside gives zoo, as
    # SymPy's own evaluation would), and a claim through it is never proved
    with evaluate(False):
        pole = 1 / sp.cos(pi / 2)
    assert cyclotomic(pole).is_finite is not True
    assert check_identity(pole, 0, timeout=20).verdict != "proved"


def test_denest_takes_the_root_with_positive_real_part():
    assert denest(NESTED) == sp.sqrt(5) + sp.sqrt(11 - 2 * sp.sqrt(29))
    out = denest(sp.sqrt(3 - 2 * sp.sqrt(2)))
    assert out == sp.sqrt(2) - 1 or out == sp.sqrt(3 - 2 * sp.sqrt(2))
    assert out != 1 - sp.sqrt(2)


def test_delta_products_only_where_an_argument_is_shared():
    k, m = sp.symbols("k m", integer=True)
    assert delta_products(sp.KroneckerDelta(0, j) * sp.KroneckerDelta(1, j)) == 0
    assert delta_products(sp.KroneckerDelta(k, j) ** 3) == sp.KroneckerDelta(k, j)
    e = sp.KroneckerDelta(k, j) * sp.KroneckerDelta(m, 1)
    assert delta_products(e) == e


def test_roots_only_checked_real_positive_roots():
    assert roots(FIFTH) == 1 + sp.sqrt(2)
    assert roots(FIFTH**3) == (1 + sp.sqrt(2)) ** 3
    neg = (41 - 29 * sp.sqrt(2)) ** sp.Rational(1, 5)  # a negative base: the principal root is complex
    assert roots(neg) == neg
    assert roots(NEGATIVE) == sp.I * (7 * sp.sqrt(5) + 7 * sp.sqrt(15) + 7 * sp.sqrt(23))
    assert roots(sp.Integer(2) ** sp.Rational(1, 3)) == sp.Integer(2) ** sp.Rational(1, 3)
    assert roots(x ** sp.Rational(1, 3)) == x ** sp.Rational(1, 3)


def test_parts_only_what_is_defined():
    assert parts(sp.re(z)) == z - sp.I * sp.im(z)
    assert parts(sp.re(x + sp.I * y)) == sp.re(x + sp.I * y)  # split by re/im, not here
    assert parts(sp.sign(z)) == sp.sign(z)  # z may be 0, where sign is 0 and z/|z| undefined
    assert parts(sp.sign(a * z)) == sp.sign(a * z)
    assert split(sp.Symbol("ib", imaginary=True)) == (0, -sp.I * sp.Symbol("ib", imaginary=True))


def test_modulus_is_the_root_of_the_squares():
    assert modulus(sp.Abs(z)) == sp.sqrt(sp.re(z) ** 2 + sp.im(z) ** 2)
    assert modulus(sp.Abs(x)) == sp.Abs(x)  # sqrt(x**2) is |x| again for a real x


def test_arg_parts_only_what_split_knows():
    assert arg_parts(sp.arg((x + sp.I * y) / a)) == sp.atan2(y, x)
    assert arg_parts(sp.arg(a * z)) == sp.arg(z)  # a positive factor only
    assert arg_parts(sp.arg(-a * z)) == sp.arg(-a * z) or arg_parts(sp.arg(-a * z)) == sp.arg(-z)
    assert arg_parts(sp.arg(x * z)) == sp.arg(x * z)  # x may be negative: kept
    assert arg_parts(sp.arg(sp.sqrt(x))) == sp.arg(sp.sqrt(x))  # not split


def test_split_only_what_it_knows():
    assert split((x + sp.I * y) * sp.exp(sp.I * t)) == (x * sp.cos(t) - y * sp.sin(t),
                                                        x * sp.sin(t) + y * sp.cos(t))
    assert split(z) is None
    assert split(sp.sqrt(x)) is None  # sqrt of a possibly negative real: complex, not split
    assert split(sp.log(x)) is None


_IH = (sp.asinh, sp.acosh, sp.atanh, sp.acoth, sp.asech, sp.acsch)


@pytest.mark.parametrize("expr", [
    sp.acosh(r), sp.acosh(a), sp.atanh(r), sp.atanh(a), sp.acoth(a), sp.asech(a), sp.acsch(r), sp.asinh(z),
    _u(lambda: sp.acosh(sp.Rational(1, 2))), _u(lambda: sp.atanh(2)), _u(lambda: sp.acoth(sp.Rational(1, 2))),
    _u(lambda: sp.asech(-1)), _u(lambda: sp.asech(2)), _u(lambda: sp.acsch(0)), _u(lambda: sp.asinh(sp.I)),
])
def test_inverse_hyperbolic_heads_off_their_known_real_domain_are_outside(expr):
    """Complex, out-of-domain or not-known-in-domain arguments: outside the fragment (never
    proved), and the log rule leaves them alone."""
    assert outside_fragment(expr).startswith("outside the checked fragment: " + type(expr).__name__)
    assert inverse_hyperbolic(expr) == expr
    assert check_identity(expr, inverse_hyperbolic(expr.func(sp.Symbol("w", positive=True))).subs(
        sp.Symbol("w", positive=True), expr.args[0]), timeout=20).verdict != "proved"


@pytest.mark.parametrize("head", _IH)
@pytest.mark.parametrize("value", [sp.Rational(-7, 3), sp.Rational(-1, 3), sp.Rational(1, 997), sp.Rational(2, 3),
                                   sp.Integer(1), sp.Rational(7, 3), sp.Integer(40)])
def test_the_log_forms_agree_with_mpmath_on_the_real_domain(head, value):
    """Sampled (``tested``, not a proof): at points of the head's real domain, the rule's log
    form has the value mpmath's own function gives (an implementation independent of SymPy's
    formulas); off the domain the rule leaves the head alone."""
    import mpmath

    with evaluate(False):
        e = head(value)
    out = inverse_hyperbolic(e)
    if outside_fragment(e):
        assert out == e
        return
    assert not out.has(*_IH)
    with mpmath.workdps(40):
        want = getattr(mpmath, head.__name__)(mpmath.mpf(value.p) / value.q)
        assert abs(complex(sp.N(out, 40)) - complex(want)) < 1e-30


# ---------------------------------------------------------------------------- the refuter's enclosures


@pytest.mark.parametrize("expr", [
    _u(lambda: sp.cot(pi)), _u(lambda: sp.csc(0)), _u(lambda: sp.sec(pi / 2)), _u(lambda: sp.coth(0)),
    _u(lambda: sp.asin(2)), _u(lambda: sp.acos(sp.Rational(-3, 2))), _u(lambda: sp.acot(0)),
    _u(lambda: sp.asec(sp.Rational(1, 2))), _u(lambda: sp.acsc(0)), _u(lambda: sp.atan2(0, 0)),
    _u(lambda: sp.acosh(sp.Rational(1, 2))), _u(lambda: sp.atanh(1)), _u(lambda: sp.atanh(-2)),
    _u(lambda: sp.acoth(sp.Rational(1, 2))), _u(lambda: sp.acoth(-1)), _u(lambda: sp.asech(2)),
    _u(lambda: sp.asech(sp.Rational(-1, 2))), _u(lambda: sp.asech(0)), _u(lambda: sp.acsch(0)),
    _u(lambda: sp.asinh(sp.I)), _u(lambda: sp.acosh(-2)), _u(lambda: sp.log(5, 1)), _u(lambda: sp.log(0, 2)),
])
def test_no_enclosure_where_the_kernel_holds_a_head_undefined(expr):
    with pytest.raises(Undecidable):
        enclose(expr, {})


@pytest.mark.parametrize("expr,value", [
    (sp.cot(x), 1 / sp.tan(sp.Rational(7, 3))), (sp.sec(x), 1 / sp.cos(sp.Rational(7, 3))),
    (sp.acot(-x), sp.atan(-1 / sp.Rational(7, 3))), (sp.atan2(-x, -1), sp.atan(sp.Rational(7, 3)) - pi),
    (sp.asec(x), sp.acos(sp.Rational(3, 7))), (sp.acsc(-x), -sp.asin(sp.Rational(3, 7))),
    (sp.tanh(x), sp.tanh(sp.Rational(7, 3))), (sp.csch(x), 1 / sp.sinh(sp.Rational(7, 3))),
    (sp.asinh(-x), sp.asinh(-sp.Rational(7, 3))), (sp.acosh(x), sp.acosh(sp.Rational(7, 3))),
    (sp.atanh(1 / x), sp.atanh(sp.Rational(3, 7))), (sp.acoth(-x), sp.acoth(-sp.Rational(7, 3))),
    (sp.asech(1 / x), sp.asech(sp.Rational(3, 7))), (sp.acsch(-x), sp.acsch(-sp.Rational(7, 3))),
])
def test_enclosures_of_the_new_heads_contain_the_value(expr, value):
    v = enclose(expr, {x: sp.Rational(7, 3)})
    want = complex(sp.N(value, 30))
    assert abs(float(v.real.mid()) - want.real) < 1e-12 and abs(float(v.imag.mid()) - want.imag) < 1e-12
    assert float(v.real.rad()) < 1e-12


def test_the_docs_rules_table_is_the_kernels():
    text = (Path(__file__).resolve().parent.parent / "docs" / "kernel.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- rules-table:[^\n]*-->\n(.*?)\n<!-- end rules-table -->", text, re.S)
    assert m is not None
    assert m.group(1).strip() == rules_table().strip()
