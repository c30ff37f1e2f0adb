"""Red team, round four: attacks on the rebuilt trusted kernel, head by head, rule by rule.

Each case is an attack a hostile user could run through the public API; the assertion is the
soundness target it must meet: a false claim is never ``proved``, a true claim is never
``refuted``, a tampered certificate never re-checks. Written before the fixes they drove.
"""

from __future__ import annotations

import pytest
import sympy as sp

from pe_symbolic.proof import check_identity
from pe_symbolic.proof.kernel.evaluation import evaluate

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
    from pe_symbolic.proof.kernel.claims import DIFFERENCE, Step
    from pe_symbolic.proof.kernel import ASSUMPTION

    lhs = sp.Piecewise((1, assumptions[0]), (0, True))
    rhs = sp.Piecewise((1, assumptions[1]), (2, True))
    chain = [Step(lhs - rhs, DIFFERENCE), Step(sp.Integer(0), ASSUMPTION)]
    proof = _verdict(lhs, rhs, assumptions, steps=chain)
    assert proof.verdict != "proved", proof.to_text()
    assert "vacuous" in " ".join(proof.notes)


def test_satisfiable_strict_assumptions_are_not_vacuous():
    from pe_symbolic.proof.kernel.claims import DIFFERENCE, Step
    from pe_symbolic.proof.kernel import ASSUMPTION

    lhs = sp.Piecewise((1, x > y), (0, True))
    chain = [Step(lhs - 1, DIFFERENCE), Step(sp.Integer(0), ASSUMPTION)]
    proof = _verdict(lhs, 1, [x > y, y > 0], steps=chain)
    assert proof.verdict == "proved", proof.to_text()


# --------------------------------------------------------------------------------------
# 3. the delta rule's side conditions: an integer lower limit, a forward range
# --------------------------------------------------------------------------------------
H = sp.Rational(1, 2)
i_nn = sp.Symbol("i", integer=True, nonnegative=True)
c_int = sp.Symbol("c", integer=True)
m_int = sp.Symbol("m", integer=True)
a_sym = sp.Symbol("a")
j_plain = sp.Symbol("j")
j_real = sp.Symbol("jr", real=True)
DELTA_FALSE = [
    # from 1/2 the index runs over half-integers and never meets the integer i: the sum is 0
    ("half-integer range", sp.Sum(sp.KroneckerDelta(j_plain, i_nn), (j_plain, H, n + H)),
     sp.Piecewise((1, (H <= i_nn) & (i_nn <= n + H)), (0, True))),
    ("half-integer range, real index", sp.Sum(sp.KroneckerDelta(j_real, i_nn), (j_real, H, n + H)),
     sp.Piecewise((1, (H <= i_nn) & (i_nn <= n + H)), (0, True))),
    ("half-integer range, f", sp.Sum(f(j_plain) * sp.KroneckerDelta(j_plain, i_nn), (j_plain, H, n + H)),
     sp.Piecewise((f(i_nn), (H <= i_nn) & (i_nn <= n + H)), (0, True))),
    ("symbolic lower limit", sp.Sum(sp.KroneckerDelta(j_plain, c_int), (j_plain, a_sym, a_sym + n)),
     sp.Piecewise((1, (a_sym <= c_int) & (c_int <= a_sym + n)), (0, True))),
    # m = -3: SymPy's Sum from 0 to -3 is minus the sum from -2 to -1 (Karr), -1 at c = -1
    ("backward range", sp.Sum(sp.KroneckerDelta(j_plain, c_int), (j_plain, 0, m_int)),
     sp.Piecewise((1, (0 <= c_int) & (c_int <= m_int)), (0, True))),
]


@pytest.mark.parametrize("name,lhs,rhs", DELTA_FALSE, ids=[c[0] for c in DELTA_FALSE])
def test_the_delta_rule_needs_an_integer_forward_range(name, lhs, rhs):
    proof = _verdict(lhs, rhs)
    assert proof.verdict != "proved", proof.to_text()


def test_the_delta_rule_still_sums_a_forward_integer_range():
    lhs = sp.Sum(f(j_plain) * sp.KroneckerDelta(j_plain, c_int), (j_plain, 0, n))
    assert evaluate(lhs) == sp.Piecewise((f(c_int), (0 <= c_int) & (c_int <= n)), (0, True))


# --------------------------------------------------------------------------------------
# 4. 0 to a power that may be negative: proved only "wherever both sides are defined"
# --------------------------------------------------------------------------------------
a_r = sp.Symbol("a", real=True)
b_r = sp.Symbol("b", real=True)


@pytest.mark.parametrize("lhs,rhs", [
    # at z = 0, a = -1, b = 1: nan (zoo * 0) on the left, 0**0 = 1 on the right
    (sp.Mul(sp.Pow(z, a_r), sp.Pow(z, b_r), evaluate=False), z ** (a_r + b_r)),
    (sp.Mul(sp.Pow(x, j - 1), x, evaluate=False), x**j),
    (sp.Mul(sp.Pow(x, y), x, evaluate=False), x ** (y + 1)),
], ids=["z^a z^b", "x^(j-1) x", "x^y x"])
def test_a_power_that_may_be_undefined_is_proved_only_where_defined(lhs, rhs):
    from pe_symbolic.proof.kernel import WHEREVER_DEFINED

    proof = _verdict(lhs, rhs)
    assert proof.verdict != "refuted", proof.to_text()
    if proof.verdict == "proved":
        assert WHEREVER_DEFINED in " ".join(proof.notes), proof.to_text()


# --------------------------------------------------------------------------------------
# 5. the certificate reader: numbers whose conversion is one long uninterruptible call
# --------------------------------------------------------------------------------------
def _true_certificate() -> dict:
    import json

    return json.loads(check_identity(sp.cos(x) ** 2 + sp.sin(x) ** 2, 1).to_json())


@pytest.mark.parametrize("text", [
    "Float('1e100000000')",
    "Float('1e-100000000')",
    "Pow(Float('1e1000000', precision=20000), Integer(2))",
    "Add(Symbol('x', real=True), Float('-7.5E+99999999'))",
], ids=["1e1e8", "1e-1e8", "1e1e6-pow", "in-a-sum"])
def test_a_float_with_a_huge_exponent_is_refused_before_it_is_built(text):
    import time

    from pe_symbolic.proof.kernel.reader import CertificateError

    cert = _true_certificate()
    cert["parts"][0]["steps"][-1]["expr"] = text
    start = time.perf_counter()
    with pytest.raises(CertificateError, match="exponent"):
        from pe_symbolic.proof.certificates import recheck

        recheck(cert, timeout=2)
    assert time.perf_counter() - start < 2


def test_a_json_integer_beyond_the_conversion_limit_is_a_certificate_error():
    from pe_symbolic.proof.certificates import recheck
    from pe_symbolic.proof.kernel.reader import CertificateError

    with pytest.raises(CertificateError):
        recheck('{"format": ' + "9" * 5000 + "}", timeout=2)


# --------------------------------------------------------------------------------------
# 6. a hand-written chain that compares two conditions under a binder: no crash, no proof
# --------------------------------------------------------------------------------------
def test_congruence_of_different_conditions_is_refused_not_a_crash():
    from pe_symbolic.proof.kernel.claims import LHS, Step

    s = sp.Sum(x**j, (j, 0, n))
    lhs = sp.Piecewise((s, x > 0), (0, True))
    rhs = sp.Piecewise((s, x > 1), (0, True))
    proof = _verdict(lhs, rhs, steps=[Step(lhs, LHS), Step(rhs, "the conditions agree")])
    assert proof.verdict != "proved", proof.to_text()


# --------------------------------------------------------------------------------------
# 7. a lemma's sequence instance that binds the lemma's own summation variable
# --------------------------------------------------------------------------------------
def test_a_sequence_instance_may_not_capture_the_lemmas_index():
    from pe_symbolic import theorems
    from pe_symbolic.proof.kernel import LemmaError, lemma_instance

    claim = theorems.lemma("family.relative")
    v = sp.Symbol("v", integer=True, nonnegative=True)
    # theta[j] -> Sum(j*j, (j, 0, 2)) = 5 by xreplace, where the sequence v -> 3v was meant
    with pytest.raises(LemmaError, match="captured"):
        lemma_instance(claim, (("theta", sp.Lambda(v, sp.Sum(v * j, (j, 0, 2)))),))
    lemma_instance(claim, (("theta", sp.Lambda(v, v + 1)),))  # a plain sequence is fine


def test_the_enclosure_sums_a_half_integer_range_as_sympy_reads_it():
    from fractions import Fraction

    from pe_symbolic.proof.kernel.enclosure import Undecidable, enclose

    assert enclose(sp.Sum(j_plain, (j_plain, H, 5 * H)), {}) == Fraction(9, 2)  # 1/2 + 3/2 + 5/2
    lhs = sp.Sum(sp.KroneckerDelta(j_plain, i_nn), (j_plain, H, n + H))
    assert enclose(lhs, {i_nn: 2, n: 3}) == 0  # the index never meets an integer
    with pytest.raises(Undecidable):
        enclose(sp.Sum(j_plain, (j_plain, H, 2)), {})  # 1/2, 3/2, ... never reaches 2


# ----------------------------------------------------------------------------------------
# statements written at a point (Subs, theorems._derive.at): the reader, the kernel, Coq

def test_a_statement_at_the_wrong_point_is_not_proved_and_the_right_one_not_refuted():
    b = sp.Symbol("b", positive=True)
    i = sp.Symbol("i", integer=True, nonnegative=True)
    d = sp.Symbol("d", integer=True, positive=True, even=True)
    w = b ** (-2 * i / d)
    assert check_identity(sp.Subs(w, i, 1), 1, assumptions=[b > 1]).verdict != "proved"
    assert check_identity(sp.Subs(w, i, 0), 1, assumptions=[b > 1]).verdict == "proved"
    x = sp.Symbol("x", real=True)
    assert check_identity(sp.Subs(x**2, x, 3), 8).verdict == "refuted"  # enclosures: 9 vs 8
    assert check_identity(sp.Subs(x**2, x, 3), 9).verdict == "proved"


def test_a_certificate_whose_point_was_moved_does_not_match_the_registry():
    import json

    from pe_symbolic import theorems
    from pe_symbolic.proof.render import certificate
    from pe_symbolic.proof.kernel.reader import CertificateError, parse_srepr

    cert = certificate(theorems.get("schedule.geometric").prove())
    text = json.dumps(cert)
    # the reader rebuilds Subs canonically: an untouched certificate round-trips ...
    assert theorems.recheck_certificate(cert).verdict == "proved"
    # ... and w_0 = 1 moved to w_1 = 1 is refused as another claim, never re-proved
    assert "Tuple(Integer(0))" in text
    moved = json.loads(text.replace("Tuple(Integer(0))", "Tuple(Integer(1))", 1))
    with pytest.raises(CertificateError, match="does not match the registry"):
        theorems.recheck_certificate(moved)
    b, i = sp.Symbol("b", positive=True), sp.Symbol("i", integer=True)
    assert parse_srepr(sp.srepr(sp.Subs(b**i, i, 0))) == sp.Subs(b**i, i, 0)
    assert parse_srepr(sp.srepr(sp.Subs(b**i, i, 1))) != sp.Subs(b**i, i, 0)


def test_a_refutation_whose_sides_have_more_than_4300_digits_is_no_error():
    """Issue 42: the refuter's certificate text (``enclosure.describe``) called ``str`` on an
    exact number of 5,469 digits, which Python refuses past 4,300: a ``ValueError`` escaped
    ``check_identity``. The verdict may be refuted or undecided, never a traceback; the
    certificate re-checks."""
    import json
    from fractions import Fraction

    from pe_symbolic.proof.certificates import recheck
    from pe_symbolic.proof.kernel.enclosure import describe
    from pe_symbolic.proof.render import render

    x, y = sp.symbols("x y", real=True)
    e = sp.re(sp.re(sp.re((x + sp.I * y) ** 16) ** 16 + sp.I) ** 16 + sp.I * y)
    proof = check_identity(e, 0, timeout=60)
    assert proof.verdict in ("refuted", "undecided")
    if proof.verdict == "refuted":
        text = render(proof, "json")
        assert recheck(text).verdict == "refuted"
        lhs = json.loads(text)["parts"][0]["enclosures"]["lhs"][0]
        assert lhs.startswith("[") and "e+" in lhs  # a 20-digit ball, not 5,469 digits
    assert describe(Fraction(10**5000 + 1)) == ["[9.9999999999999993218e+4999, 1.0000000000000000746e+5000]"]
    assert describe(Fraction(-(10**5000), 3)) != describe(Fraction(10**5000, 3))
    assert describe(Fraction(10**900, 7)) == [f"{10**900}/7"]  # up to about 1,000 digits: exact
