"""The numeric core's promises where issue 12 found them broken or missing.

* positions up to 2**53 (the largest accepted): the default mode within 7u absolute, the
  accurate route within 1.05 ulp relative, float32 correctly rounded (bounds as in
  ``test_numeric.py``), and a test that the former large-angle formula fails them;
* reproducible rows: a position's row is bitwise the same whatever else is in the call;
* float16 / bfloat16 tables and activations, rounded once;
* a documented limit on ``d``, refused up front; NaN / inf in ``x`` checked when asked.
"""

from __future__ import annotations

import time

import ml_dtypes
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import U32, U64, abs_errors, dims, ulp_errors

from pe_symbolic import numeric, reference
from pe_symbolic.numeric import _checks, _kernels

ACCURATE_ULP64 = 1.05
ACCURATE_ULP32 = 0.5 + 2.0**-28
DEFAULT_ABS64 = 7 * U64
TOP = 2.0**53  # positions must satisfy |t| < TOP
BF16 = np.dtype(ml_dtypes.bfloat16)

#: Positions beyond 2**25 (where the former large-angle path lost digits), up to the largest
#: accepted: integers, and fractional values where float64 has them.
large_positions = st.one_of(
    st.integers(2**25, 2**53 - 1).map(float),
    st.floats(2.0**25, 2.0**52, allow_nan=False),
    st.integers(-(2**53) + 1, -(2**25)).map(float),
)


# ----------------------------------------------------------------------------------------
# positions up to 2**53


@given(t=st.lists(large_positions, min_size=1, max_size=4).map(np.array), d=dims(16),
       base=st.sampled_from([10000.0, 500000.0, 2.0]))
@example(t=np.array([TOP - 1, -(TOP - 1), TOP - 2]), d=16, base=10000.0)
@example(t=np.array([2.0**30, 2.0**40, 2.0**50, 2.0**52 + 0.5]), d=64, base=10000.0)
@example(t=np.array([6134899525417045.0]), d=2, base=10000.0)  # convergent of pi/2: cos tiny
def test_large_positions_keep_every_bound(t, d, base):
    ref = reference.sinusoidal_table(t, d, base=base)
    acc = numeric.sinusoidal_table(t, d, base=base, accurate=True)
    assert ulp_errors(acc, ref).max() <= ACCURATE_ULP64
    default = numeric.sinusoidal_table(t, d, base=base)
    assert abs_errors(default, ref).max() <= DEFAULT_ABS64
    f32 = numeric.sinusoidal_table(t, d, base=base, accurate=True, dtype=np.float32)
    assert ulp_errors(f32, ref, bits=24).max() <= ACCURATE_ULP32


@pytest.mark.parametrize("start", [2.0**25 - 100, 2.0**40 + 3, 2.0**52 + 17, TOP - 600])
def test_large_position_runs_take_the_fast_path_within_bound(start):
    t = start + np.arange(500.0)
    num = numeric.sinusoidal_table(t, 32, base=500000.0)
    rows = np.array([0, 1, 137, 255, 256, 257, 499])
    ref = reference.sinusoidal_table(t[rows], 32, base=500000.0)
    assert abs_errors(num[rows], ref).max() <= DEFAULT_ABS64


def test_translation_matrix_and_rope_at_large_positions():
    k = np.array([2.0**45 + 7, -(TOP - 3)])
    T = numeric.translation_matrix(k, 8)
    ref = reference.sinusoidal_table(k, 8)  # T(k) holds cos/sin of omega*k
    assert np.abs(T[:, 0, 0] - np.array([float(r) for r in ref[:, 1]])).max() <= U64
    x = np.random.default_rng(0).standard_normal((2, 16))
    m = np.array([2.0**50 + 1, TOP - 1])
    out = numeric.apply_rope(x, m, base=500000.0)
    exact = reference.apply_rope(x, m, base=500000.0)
    # cos/sin within 7u, |x| < 4: two products and a sum
    assert abs_errors(out, exact).max() <= 8 * DEFAULT_ABS64 * 4


def _former_large_angle(t: float, w_hi: float, w_lo: float) -> float:
    """What the kernel did for |angle| >= 2**25 before issue 12: sin(p) + cos(p) * e."""
    p, e = _kernels.angles_dd(np.array([t]), np.array([w_hi]), np.array([w_lo]))
    return float(np.sin(p[0, 0]) + np.cos(p[0, 0]) * e[0, 0])


@pytest.mark.parametrize(("exponent", "at_least"), [(40, 1e-10), (50, 1e-5), (52.9, 1e-3)])
def test_the_former_large_angle_path_breaks_the_bound(exponent, at_least):
    """A test of the test: the dropped second-order term is visible at these positions."""
    t = float(np.floor(2.0**exponent) - 3)
    w_hi, w_lo = numeric._core._omega_dd(64, 10000.0, "vaswani")  # pair 1: w = 0.749...
    ref = float(reference.sinusoidal_table([t], 64)[0, 2])
    former = _former_large_angle(t, float(w_hi[1]), float(w_lo[1]))
    ours = float(numeric.sinusoidal_table([t], 64)[0, 2])
    assert abs(former - ref) > at_least
    assert abs(ours - ref) <= DEFAULT_ABS64


# ----------------------------------------------------------------------------------------
# reproducible rows


def _rows_agree(fn, m: float, batches: list[np.ndarray]) -> None:
    alone = fn(np.array([m]))
    for b in batches:
        got = fn(b)[np.flatnonzero(b == m)[0]]
        assert np.array_equal(got.view(np.uint8), alone[0].view(np.uint8)), (m, b[:5])


@given(m=st.one_of(st.integers(0, 2**24).map(float), st.integers(2**40, 2**45).map(float),
                   st.floats(-1e6, 1e6, allow_nan=False)),
       d=dims(32), dtype=st.sampled_from([np.float64, np.float32]))
@example(m=4097.0, d=128, dtype=np.float64)
@example(m=2.0**45 - 1, d=2, dtype=np.float64)  # found by CI: offset 255 of a fine block
@example(m=-1e-38, d=4, dtype=np.float64)
def test_a_row_does_not_depend_on_the_batch(m, d, dtype):
    rng = np.random.default_rng(0)
    batches = [
        np.arange(m - (m % 1) - 700, m + 1) if m == np.floor(m) else np.array([m, m + 1]),  # prefill
        m + np.arange(64.0),  # a run starting at m
        np.concatenate([rng.uniform(-1e5, 1e5, 100), [m]]),  # scattered positions
        np.array([m, 0.5, 3.0]),
    ]

    def table(b):
        return numeric.sinusoidal_table(b, d, dtype=dtype)

    def cos_sin(b):
        c, s = numeric.rope_cos_sin(b, d, base=500000.0, dtype=dtype)
        return np.concatenate([c, s], axis=-1)

    _rows_agree(table, m, batches)
    _rows_agree(cos_sin, m, batches)


@pytest.mark.parametrize("start", [0.0, 2.0**24 - 256, 2.0**45 - 256, 2.0**52])
@pytest.mark.parametrize("d", [2, 4])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_offset_in_the_fine_block_gives_the_same_row(start, d, dtype):
    """Each of 256 positions alone, in a run of 3 from it, and in the run of all 256.

    Every offset ``j`` of the fine block starts a leading partial block once; d = 2 is
    where NumPy's complex multiply took its scalar (non-FMA) loop for a one-element call
    (CI found position 2**45 - 1, offset 255).
    """
    t = start + np.arange(256.0)
    run = numeric.sinusoidal_table(t, d, dtype=dtype)
    c, s = numeric.rope_cos_sin(t, d, dtype=dtype)
    for i, m in enumerate(t):
        alone = numeric.sinusoidal_table([m], d, dtype=dtype)[0]
        three = numeric.sinusoidal_table(m + np.arange(3.0), d, dtype=dtype)[0]
        c1, s1 = numeric.rope_cos_sin([m], d, dtype=dtype)
        assert np.array_equal(alone.view(np.uint8), run[i].view(np.uint8)), m
        assert np.array_equal(alone.view(np.uint8), three.view(np.uint8)), m
        assert np.array_equal(c1[0], c[i]) and np.array_equal(s1[0], s[i]), m


def test_decode_matches_prefill_for_apply_rope():
    x = np.random.default_rng(1).standard_normal((4, 3000, 128)).astype(np.float32)
    cfg = numeric.model_config("llama-3.1-8b")
    pre = numeric.apply_rope(x, np.arange(3000), config=cfg)
    for m in (0, 255, 256, 2049, 2999):
        one = numeric.apply_rope(x[:, m : m + 1], [m], config=cfg)
        assert np.array_equal(one[:, 0], pre[:, m])


@pytest.mark.parametrize("layout", ["interleaved", "split"])
@pytest.mark.parametrize("d", [2, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_decode_matches_prefill_at_every_position_for_one_head(layout, d, dtype):
    """One head of one pair: every decode step is a one-element product (see
    ``numeric._core._with_out``; 264 of 600 positions differed by an ulp before)."""
    x = np.random.default_rng(2).standard_normal((1, 600, d)).astype(dtype)
    pre = numeric.apply_rope(x, np.arange(600), layout=layout)
    for m in range(600):
        one = numeric.apply_rope(x[:, m : m + 1], [m], layout=layout)
        assert np.array_equal(one[:, 0], pre[:, m]), m


# ----------------------------------------------------------------------------------------
# float16 / bfloat16


def _half_ulp(v: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Half an ulp of ``dtype`` at the values ``v`` (relative 2**-p, subnormals included)."""
    p, tiny = (8, 2.0**-133) if dtype == BF16 else (11, 2.0**-24)
    return np.maximum(np.abs(v) * 2.0**-p, tiny / 2)


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16])
@pytest.mark.parametrize("accurate", [False, True])
def test_low_precision_tables_are_rounded_once(dtype, accurate):
    t = np.concatenate([np.arange(200.0), [2.0**24 - 5, 2.0**40 + 1]])
    got = numeric.sinusoidal_table(t, 16, dtype=dtype, accurate=accurate)
    assert got.dtype == dtype
    exact64 = numeric.sinusoidal_table(t, 16, accurate=True)
    # rounded once from a float64 within 1.05 ulp64: equal to the correctly rounded value
    # except within 1.05 ulp64 of a midpoint; so within half an ulp of dtype plus that
    err = np.abs(got.astype(np.float64) - exact64)
    assert (err <= _half_ulp(exact64, dtype) + 2 * U64).all()
    c, s = numeric.rope_cos_sin(t, 16, dtype=dtype, accurate=accurate)
    assert c.dtype == s.dtype == dtype


def _nearest_bfloat16(v: float) -> float:
    """The bfloat16 nearest to a normal float64 ``v``, ties to even, in exact rational
    arithmetic (8 significant bits): independent of how ``ml_dtypes`` casts."""
    from fractions import Fraction
    import math

    m, e = math.frexp(v)  # v = m 2**e, 0.5 <= |m| < 1
    return float(Fraction(round(Fraction(m) * 2**8), 2**8) * Fraction(2) ** e)  # round(): ties to even


def test_bfloat16_rounding_is_correct_where_a_cast_through_float32_rounds_twice():
    """round_to gives the nearest bfloat16 on inputs where rounding through float32 first
    (what ml_dtypes < 0.7 did for a float64 -> bfloat16 cast) lands on the other neighbour --
    so the test holds whatever the installed ml_dtypes does."""
    x = np.array([1 + 2**-8 + 2**-30, -(1 + 2**-8 + 2**-40), 3 * 2**-9 + 2**-16 + 2**-45])
    want = np.array([_nearest_bfloat16(float(v)) for v in x])
    ours = _checks.round_to(x, BF16).astype(np.float64)
    np.testing.assert_array_equal(ours, want)
    # a test of the test: these inputs do break the double rounding
    twice = x.astype(np.float32).astype(BF16).astype(np.float64)
    assert (twice != want).all()


@given(st.floats(min_value=2.0**-120, max_value=2.0**120) | st.floats(min_value=-(2.0**120), max_value=-(2.0**-120)))
@example(1 + 2**-8 + 2**-30)
@example(1 + 2**-8)  # a tie: to even (1.0)
def test_bfloat16_rounding_is_the_nearest_everywhere(v):
    assert float(_checks.round_to(np.array([v]), BF16)[0]) == _nearest_bfloat16(v)


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16])
@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_apply_rope_low_precision_within_half_ulp_plus_float32(dtype, layout):
    rng = np.random.default_rng(2)
    m = np.array([0.0, 1.0, 4095.0, 131071.0, 1048575.0])
    x = rng.uniform(-2, 2, (2, m.size, 64)).astype(dtype)
    out = numeric.apply_rope(x, m, base=500000.0, layout=layout)
    assert out.dtype == dtype
    exact = reference.to_float(reference.apply_rope(x.astype(np.float64), m, base=500000.0, layout=layout))
    norm = 2 * np.sqrt(2)  # |pair| <= 2 sqrt 2
    # float32 rotation error 4 u32 |pair| (tables within u32, two products and a sum),
    # then one rounding: half an ulp of the dtype at the float32 result
    bound = _half_ulp(np.abs(exact) + 4 * U32 * norm, dtype) + 4 * U32 * norm
    assert (np.abs(out.astype(np.float64) - exact) <= bound).all()


def _naive_bf16_rope(x: np.ndarray, m: np.ndarray, base: float) -> np.ndarray:
    """HF's rotate_half recipe with every operation rounded to bfloat16 (cos/sin in float32)."""
    d = x.shape[-1]
    inv = (1.0 / base ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))).astype(np.float32)
    ang = np.outer(m.astype(np.float32), inv).astype(np.float32)
    emb = np.concatenate([ang, ang], axis=-1)
    cos, sin = np.cos(emb).astype(BF16), np.sin(emb).astype(BF16)
    rot = np.concatenate([-x[..., d // 2 :], x[..., : d // 2]], axis=-1)
    return (x * cos).astype(BF16) + (rot * sin).astype(BF16)


def test_naive_bfloat16_rope_is_worse():
    """A test of the test: the recipe most models run is off by more than our bound."""
    rng = np.random.default_rng(3)
    m = np.array([4095.0, 65535.0, 131071.0, 1048575.0])
    x = rng.uniform(-2, 2, (8, m.size, 128)).astype(BF16)
    exact = reference.to_float(reference.apply_rope(x[:2].astype(np.float64), m, base=500000.0))
    ours = numeric.apply_rope(x[:2], m, base=500000.0).astype(np.float64)
    naive = _naive_bf16_rope(x[:2], m, 500000.0).astype(np.float64)
    assert np.abs(naive - exact).max() > 2 * np.abs(ours - exact).max()


# ----------------------------------------------------------------------------------------
# bad input: a limit on d, non-finite x


@pytest.mark.parametrize(
    "call",
    [
        lambda: numeric.sinusoidal_table([0], 10**9),
        lambda: numeric.frequencies(2**15 + 2),
        lambda: numeric.rope_cos_sin([0], 10**9),
        lambda: numeric.apply_rope(np.zeros((1, 4)), [0], rotary_dim=10**9),
        lambda: numeric.translation_matrix(0, 10**9),
        lambda: numeric.rope_frequencies({"head_dim": 10**9}),
    ],
)
def test_absurd_d_is_refused_up_front(call):
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"too large.*32768"):
        call()
    assert time.perf_counter() - start < 1.0


def test_the_largest_d_is_accepted():
    assert numeric.frequencies(_checks.MAX_D).shape == (_checks.MAX_D // 2,)


def test_nan_and_inf_propagate_to_their_pair_only_unless_checked():
    x = np.ones((3, 8))
    x[1, 2] = np.nan  # split layout: pair 2 is slots (2, 6)
    x[2, 5] = np.inf  # pair 1: slots (1, 5)
    with np.errstate(invalid="ignore"):  # inf * 0 (position 0) is NaN, and NumPy says so
        out = numeric.apply_rope(x, [3, 4, 0])
    assert np.isfinite(out[0]).all()
    assert set(np.flatnonzero(~np.isfinite(out[1]))) == {2, 6}
    assert set(np.flatnonzero(~np.isfinite(out[2]))) <= {1, 5}
    with pytest.raises(ValueError, match=r"x has a non-finite entry nan at index \(1, 2\)"):
        numeric.apply_rope(x, [3, 4, 0], check_finite=True)
    with pytest.raises(ValueError, match=r"x\[1\] has a non-finite entry inf"):
        numeric.apply_rope((np.ones((1, 4)), np.full((1, 4), np.inf)), [1], check_finite=True)
    with pytest.raises(TypeError, match="check_finite"):
        numeric.apply_rope(x, [0, 0, 0], check_finite="yes")
