"""Issue 34, new variants: each construction against its independent mpmath oracle, and each
registered claim with its expected verdict."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_symbolic import reference, theorems
from pe_symbolic.encodings import variants as V
from pe_symbolic.theorems.chapters import VARIANT_IDS
from pe_symbolic.theorems.chapters import variants as chapter


@pytest.mark.parametrize("id", VARIANT_IDS)
def test_registered_variant_claims(id):
    th = theorems.get(id)
    assert th.expect == chapter.EXPECT.get(id, "proved")
    assert th.prove().verdict == th.expect


def test_openpangu_axes_match_the_oracle_and_keep_the_sections():
    for secs in itertools.product(range(1, 7), range(0, 7), range(0, 7)):
        axes = V.openpangu_axes(secs)
        assert axes == reference.openpangu_axes(secs)
        assert tuple(axes.count(a) for a in range(3)) == secs and axes[-1] == 0
    for secs in itertools.product(range(0, 7), range(0, 7)):
        assert V.openpangu_axes(secs) == reference.openpangu_axes(secs)
    with pytest.raises(ValueError, match="t >= 1"):
        V.openpangu_axes((0, 2, 2))


def test_bailing_axes_match_the_oracle():
    for t, hw in itertools.product(range(0, 5), range(0, 5)):
        assert V.bailing_axes((t, hw, hw)) == reference.bailing_axes((t, hw, hw))
    with pytest.raises(ValueError, match="equal h and w"):
        V.bailing_axes((2, 2, 3))


@settings(max_examples=25, deadline=None)
@given(p=st.integers(0, 5000), seed=st.integers(0, 2**31 - 1))
def test_fope_cos_sin_matches_the_oracle(p, seed):
    rng = np.random.default_rng(seed)
    inv = [1.0, 0.1, 0.01]
    cc = rng.normal(0, 0.1, (3, 3)) + np.eye(3)
    sc = rng.normal(0, 0.1, (3, 3)) + np.eye(3)
    cos, sin = V.fope_cos_sin(p, [sp.Rational(x) for x in inv], [[sp.Rational(float(v)) for v in r] for r in cc],
                              [[sp.Rational(float(v)) for v in r] for r in sc], 10)
    rc, rs = reference.fope_cos_sin(p, inv, cc.tolist(), sc.tolist(), 10, dps=40)
    with mpmath.workdps(40):
        for a, b in zip(cos + sin, rc + rs):
            assert abs(mpmath.mpf(str(sp.N(a, 40))) - b) < mpmath.mpf(10) ** -30
    assert cos[3:] == [1, 1] and sin[3:] == [1, 1]  # padded with 1


def test_fope_keep_is_the_frequencies_that_turn_within_the_context():
    inv = [sp.Integer(10) ** (-k) for k in range(6)]
    assert V.fope_keep(inv, 4096) == [0, 1, 2]  # 2 pi / 4096 = 1.5e-3
    assert V.fope_keep(inv, 4096, num_inv_freq=2) == [0, 1]


def test_fope_padding_doubles_the_score_numerically():
    """The padded pair's (cos, sin) = (1, 1): the oracle's rows rotate a pair into a score twice
    the plain one, at every position."""
    q, k = np.array([0.3, -1.2]), np.array([0.7, 0.4])
    for p in (0, 17, 4095):
        c, s = reference.fope_cos_sin(p, [1.0], [[1.0]], [[1.0]], 4, dps=30)
        b = np.array([[float(c[1]), -float(s[1])], [float(s[1]), float(c[1])]])
        assert (b @ q) @ (b @ k) == pytest.approx(2 * (q @ k), rel=1e-15)


@settings(max_examples=20, deadline=None)
@given(p=st.integers(0, 3000), b=st.integers(0, 3000), seed=st.integers(0, 2**31 - 1))
def test_chatglm_matrix_matches_the_oracle(p, b, seed):
    x = np.random.default_rng(seed).normal(size=8)
    mat = V.chatglm_matrix(p, b, 8)
    got = mat * sp.Matrix([sp.Rational(float(v)) for v in x])
    want = reference.chatglm_rope(x, p, b, dps=40)
    with mpmath.workdps(40):
        for g, w in zip(got, want):
            assert abs(mpmath.mpf(str(sp.N(g, 40))) - w) < mpmath.mpf(10) ** -30


def test_linear_multi_offsets_match_the_oracle():
    for L, factors in ((4096, [1.0, 2.0, 4.0]), (10, [2.5, 1.0, 3.3]), (7, [1.5])):
        assert V.linear_multi_offsets(L, factors) == reference.linear_multi_offsets(L, factors)
    with pytest.raises(ValueError, match="positive numbers"):
        V.linear_multi_offsets(8, [0.0])


@settings(max_examples=40, deadline=None)
@given(i=st.integers(0, 63), low=st.integers(0, 40), width=st.integers(-5, 30), ext=st.sampled_from([0.0, 0.5, 1.0]),
       factor=st.sampled_from([2.0, 4.0, 32.0]))
def test_llamacpp_yarn_matches_the_oracle(i, low, width, ext, factor):
    theta = 10000.0 ** (-2 * i / 128)
    th, ms = V.llamacpp_yarn(sp.Rational(theta), i, sp.Rational(factor), low, low + width, sp.Rational(ext))
    rt, rm = reference.llamacpp_rope_yarn(theta, 1 / factor, low, low + width, i, ext, dps=40)
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(str(sp.N(th, 40))) - rt) < mpmath.mpf(10) ** -30
        assert abs(mpmath.mpf(str(sp.N(ms, 40))) - rm) < mpmath.mpf(10) ** -30


def test_submodule_layouts():
    assert V.submodule_layouts({"rope_interleave": True}) == {"attention": "interleaved"}
    assert V.submodule_layouts({"index_n_heads": 64}) == {"attention": "split", "indexer": "split"}
