"""One binder, one meaning: the kernel's ``evaluate`` rule, the enclosures and SymPy's ``doit``
agree on random small instances of every binder (``Subs``, ``Sum``, ``Product``,
``Derivative``, ``Limit``, ``KroneckerDelta``).

A merged ``Subs(Subs(x + y, x, y), y, 2)`` once meant three things (SymPy: in order, value
4; the kernel, the enclosure and the Coq printer: at once, ``y + 2``). Every reading now goes
through :mod:`pe_symbolic.proof.kernel.binders`; these differential tests would catch a
reading that drifts from SymPy's meaning. Where the kernel refuses an instance (a side
condition fails: its node comes back unevaluated), only the enclosure and ``doit`` are
compared.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy as sp

from pe_symbolic.proof.kernel.binders import limit as kernel_limit
from pe_symbolic.proof.kernel.enclosure import Undecidable, enclose, precision, separated
from pe_symbolic.proof.kernel.evaluation import evaluate

x, y, z = sp.symbols("x y z")
j = sp.Symbol("j", integer=True)
VARS = (x, y, z)
N = 40


def _poly(rng: random.Random, variables=VARS, terms: int = 3) -> sp.Expr:
    out = sp.Integer(rng.randint(-3, 3))
    for _ in range(terms):
        mono = sp.Integer(rng.randint(-4, 4))
        for v in variables:
            mono *= v ** rng.randint(0, 2)
        out += mono
    return out


def _point(rng: random.Random) -> dict:
    return {v: sp.Rational(rng.randint(-9, 9), rng.choice((1, 2, 3, 7))) for v in VARS}


def _agree(a: sp.Basic, b: sp.Basic, env: dict) -> None:
    """The two expressions' enclosures at ``env`` overlap (are equal when exact)."""
    with precision(128):
        va, vb = enclose(a, env), enclose(b, env)
    if isinstance(va, Fraction) and isinstance(vb, Fraction):
        assert va == vb, (a, b, env)
    else:
        assert not separated(va, vb), (a, b, env, va, vb)


def _exact_equal(a: sp.Basic, b: sp.Basic) -> None:
    assert sp.expand(a - b) == 0, (a, b)


# --------------------------------------------------------------------------------------
# Subs: in order, as SymPy means it
# --------------------------------------------------------------------------------------
def _random_subs(rng: random.Random) -> sp.Subs:
    k = rng.randint(1, 3)
    variables = rng.sample(VARS, k)
    points = [_poly(rng, terms=1) if rng.random() < 0.6 else rng.choice(VARS) for _ in variables]
    node = sp.Subs(_poly(rng), variables, points)
    if rng.random() < 0.3:  # nested: SymPy merges it
        w = rng.choice([v for v in VARS if v not in node.variables] or [None])
        if w is not None:
            node = sp.Subs(node, w, _poly(rng, terms=1))
    return node


@pytest.mark.parametrize("seed", range(N))
def test_subs_kernel_enclosure_and_doit_agree(seed):
    rng = random.Random(seed)
    node = _random_subs(rng)
    if not isinstance(node, sp.Subs):
        return  # SymPy removed a trivial substitution at construction
    reference = node.doit()
    kernel = evaluate(node)
    assert not isinstance(kernel, sp.Subs), node  # nothing is bound in a polynomial
    _exact_equal(kernel, reference)
    env = _point(rng)
    _agree(node, reference, env)


def test_the_issue_s_merged_subs():
    node = sp.Subs(sp.Subs(x + y, x, y), y, 2)
    assert node.doit() == 4 and evaluate(node) == 4
    with precision(128):
        assert enclose(node, {y: sp.Integer(5)}) == 4


# --------------------------------------------------------------------------------------
# Sum and Product over concrete ranges; the delta sum
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(N))
@pytest.mark.parametrize("binder", [sp.Sum, sp.Product])
def test_sums_and_products_agree(binder, seed):
    rng = random.Random(seed)
    a = rng.randint(-3, 3)
    b = a - 1 + rng.randint(0, 5)  # forward ranges, the empty one included
    f = _poly(rng, (j, x), terms=2)
    node = binder(f, (j, a, b))
    reference = node.doit()
    kernel = evaluate(node)
    assert not isinstance(kernel, binder), node
    _exact_equal(kernel, reference)
    _agree(node, reference, _point(rng))


@pytest.mark.parametrize("seed", range(N))
def test_the_delta_sum_agrees(seed):
    rng = random.Random(seed)
    a = rng.randint(-3, 3)
    h = sp.Symbol("h", integer=True, nonnegative=True)  # a symbolic length: only the delta rule applies
    hv = rng.randint(0, 6)
    c = rng.randint(-5, 8)
    i = sp.Symbol("i", integer=True)
    f = _poly(rng, (j, x), terms=2)
    delta = sp.KroneckerDelta(j, i) if rng.random() < 0.5 else sp.KroneckerDelta(i, j)
    node = sp.Sum(f * delta, (j, a, a + h - 1))
    kernel = evaluate(node)
    assert isinstance(kernel, sp.Piecewise), node  # the delta rule
    env = {**_point(rng), i: sp.Integer(c), h: sp.Integer(hv)}
    reference = node.subs({i: c, h: hv}).doit()
    _agree(kernel, reference, env)
    _agree(node, reference, env)


@pytest.mark.parametrize("pair", [(2, 2), (2, 3), (-1, -1), (0, 5), (sp.Rational(1, 2), sp.Rational(1, 2))])
def test_kronecker_delta_agrees(pair):
    node = sp.KroneckerDelta(*pair, evaluate=False)
    reference = sp.KroneckerDelta(*pair)
    assert evaluate(node) == reference
    with precision(128):
        assert enclose(node, {}) == Fraction(int(reference))


# --------------------------------------------------------------------------------------
# Derivative: the chain rule
# --------------------------------------------------------------------------------------
xr = sp.Symbol("x", real=True)
_HEADS = (sp.sin, sp.cos, sp.exp, lambda u: u**2, lambda u: u**3 + u, lambda u: sp.atan(u))


def _smooth(rng: random.Random, depth: int = 2) -> sp.Expr:
    if depth == 0:
        return rng.choice((xr, 2 * xr, xr + 1, sp.Rational(rng.randint(-3, 3), 2) * xr))
    head = rng.choice(_HEADS)
    out = head(_smooth(rng, depth - 1))
    if rng.random() < 0.5:
        out = out * _smooth(rng, depth - 1) + rng.randint(-2, 2)
    return out


@pytest.mark.parametrize("seed", range(N))
def test_derivatives_agree(seed):
    rng = random.Random(seed)
    f = _smooth(rng)
    node = sp.Derivative(f, xr)
    reference = node.doit()
    kernel = evaluate(node)
    assert not isinstance(kernel, sp.Derivative), node
    env = {xr: sp.Rational(rng.randint(-9, 9), 7)}
    _agree(kernel, reference, env)
    _agree(node, reference, env)


# --------------------------------------------------------------------------------------
# Limit: continuity and the limit laws
# --------------------------------------------------------------------------------------
r = sp.Symbol("r", positive=True)


def _rational(rng: random.Random) -> sp.Expr:
    num = sum(rng.randint(-3, 3) * r**q for q in range(rng.randint(1, 3)))
    den = sum(rng.randint(1, 3) * r**q for q in range(rng.randint(1, 3)))
    return num / den


@pytest.mark.parametrize("seed", range(N))
def test_limits_agree(seed):
    rng = random.Random(seed)
    f = _rational(rng)
    if rng.random() < 0.4:
        f = rng.choice((sp.atan, sp.exp))(f)
    point = rng.choice((sp.oo, sp.Integer(rng.randint(1, 4))))
    reference = sp.limit(f, r, point)
    mine = kernel_limit(f, r, point)
    if mine is None:
        return  # the laws do not apply: the kernel says nothing (and the enclosure refuses)
    assert sp.simplify(mine - reference) == 0 if mine.is_finite else mine == reference, (f, point)
    node = sp.Limit(f, r, point)
    if mine.is_finite:
        assert evaluate(node) == mine
        with precision(128):
            a, b = enclose(node, {}), enclose(reference, {})
        assert not separated(a, b)
    else:
        with pytest.raises(Undecidable):
            enclose(node, {})
