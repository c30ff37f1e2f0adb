"""Rotary embeddings of :mod:`pe_symbolic.numeric` against the oracle and their properties.

Tolerances (u = unit roundoff of x's dtype, u64 = 2**-53):

* The cos/sin of ``m*theta`` are within 7 u64 (default) of the truth, then rounded to x's
  dtype (+u). One rotated component is ``x_a c - x_b s``: two products and a difference,
  ``|err| <= (|x_a| + |x_b|) * (7 u64 + u + 2u) + u * |result| <= (|x_a| + |x_b|) * (4u + 7 u64)``
  (|result| <= |x_a| + |x_b|), plus 2 subnormals for underflow. So float64: ``11 u64 * (|x_a| + |x_b|)``; float32:
  ``(4 + 2**-26) u32 * (|x_a| + |x_b|)``.
* Relative property ``<R(m)q, R(n)k> == <q, R(n-m)k>``: each rotated vector within the bound
  above, then a d-term dot product (``d u`` relative to ``sum |q_j k_j|``).
"""

from __future__ import annotations

import importlib

import ml_dtypes
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from strategies import (
    LAYOUTS,
    U32,
    U64,
    abs_errors,
    dims,
    integer_positions,
    layouts,
    rope_inputs,
)

from pe_symbolic import numeric, reference

NEAR = 2.0**24


def _pair_magnitude(x: np.ndarray, layout: str, rd: int | None = None) -> np.ndarray:
    """``|x_a| + |x_b|`` of each entry's pair, same shape as ``x`` (pass-through: ``|x|``)."""
    x = np.abs(np.asarray(x, np.float64))
    d = x.shape[-1]
    rd = d if rd is None else rd
    out = x.copy()
    if layout == "interleaved":
        s = x[..., 0:rd:2] + x[..., 1:rd:2]
        out[..., 0:rd:2] = s
        out[..., 1:rd:2] = s
    else:
        h = rd // 2
        s = x[..., :h] + x[..., h:rd]
        out[..., :h] = s
        out[..., h:rd] = s
    return out


def _bound(x, layout, rd=None):
    u = U32 if x.dtype == np.float32 else U64
    # each of the 3 roundings also has an absolute underflow error of <= 1/2 subnormal
    eta = float(np.finfo(x.dtype).smallest_subnormal)
    return (4 * u + 7 * U64) * _pair_magnitude(x, layout, rd) + 2 * eta


@given(inp=rope_inputs(), layout=layouts)
@example(inp=(np.ones((1, 2, 2)), np.array([0.0, NEAR - 1])), layout="interleaved")
@example(inp=(np.ones((2, 1, 16)), np.array([-7.25])), layout="split")
def test_apply_rope_float64_matches_oracle(inp, layout):
    x, pos = inp
    got = numeric.apply_rope(x, pos, layout=layout)
    ref = reference.apply_rope(x, pos, layout=layout)
    assert got.dtype == np.float64
    assert (abs_errors(got, ref) <= _bound(x, layout)).all()


@given(inp=rope_inputs(dtype=np.float32), layout=layouts, accurate=st.booleans())
@example(inp=(np.ones((1, 1, 4), np.float32), np.array([NEAR - 3])), layout="split",
         accurate=False)
def test_apply_rope_float32_matches_oracle(inp, layout, accurate):
    x, pos = inp
    got = numeric.apply_rope(x, pos, layout=layout, accurate=accurate)
    ref = reference.apply_rope(x, pos, layout=layout)
    assert got.dtype == np.float32
    assert (abs_errors(got, ref) <= _bound(x, layout)).all()


@given(inp=rope_inputs(max_d=16), layout=layouts, data=st.data())
def test_partial_rotary_passes_the_rest_through(inp, layout, data):
    x, pos = inp
    d = x.shape[-1]
    rd = data.draw(st.integers(1, d // 2).map(lambda h: 2 * h), label="rotary_dim")
    got = numeric.apply_rope(x, pos, layout=layout, rotary_dim=rd)
    np.testing.assert_array_equal(got[..., rd:], x[..., rd:])
    np.testing.assert_array_equal(
        got[..., :rd], numeric.apply_rope(np.ascontiguousarray(x[..., :rd]), pos, layout=layout)
    )
    ref = reference.apply_rope(x, pos, layout=layout, rotary_dim=rd)
    assert (abs_errors(got, ref) <= _bound(x, layout, rd)).all()


@given(
    q=hnp.arrays(np.float64, 16, elements=st.floats(-1, 1)),
    k=hnp.arrays(np.float64, 16, elements=st.floats(-1, 1)),
    m=integer_positions,
    n=integer_positions,
    layout=layouts,
)
@example(q=np.ones(16), k=np.ones(16), m=0, n=0, layout="split")
@example(q=np.ones(16), k=-np.ones(16), m=int(NEAR) - 1, n=-int(NEAR) + 1, layout="interleaved")
def test_rope_scores_depend_on_relative_position_only(q, k, m, n, layout):
    # <R(m) q, R(n) k> == <q, R(n - m) k>; n - m is exact (|n - m| < 2**25)
    lhs = numeric.apply_rope(q, m, layout=layout) @ numeric.apply_rope(k, n, layout=layout)
    rhs = q @ numeric.apply_rope(k, n - m, layout=layout)
    d = q.size
    pq, pk = _pair_magnitude(q, layout), _pair_magnitude(k, layout)
    per_vector = 11 * U64
    bound = (3 * per_vector + 2 * d * U64) * float(pq @ pk) + 1e-300
    assert abs(lhs - rhs) <= bound


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rope_cos_sin_tables_apply_rope(layout, dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 200, 8)).astype(dtype)
    pos = np.arange(200.0)
    cos, sin = numeric.rope_cos_sin(pos, 8, layout=layout, dtype=dtype)
    assert cos.shape == sin.shape == (200, 8) and cos.dtype == dtype
    if layout == "split":
        rot = np.concatenate([-x[..., 4:], x[..., :4]], axis=-1)  # rotate_half
    else:
        rot = np.stack([-x[..., 1::2], x[..., 0::2]], axis=-1).reshape(x.shape)
    via_tables = x * cos + rot * sin
    u = U32 if dtype == np.float32 else U64
    got = numeric.apply_rope(x, pos, layout=layout)
    assert (np.abs(got - via_tables) <= 4 * u * _pair_magnitude(x, layout)).all()


def test_layouts_are_permutations_of_each_other():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 100, 12))
    perm = np.r_[0:12:2, 1:12:2]  # interleaved -> split
    a = numeric.apply_rope(x, np.arange(100), layout="interleaved")
    b = numeric.apply_rope(x[..., perm], np.arange(100), layout="split")
    assert np.abs(a[..., perm] - b).max() <= 4 * U64 * np.abs(x).max() * 2


@pytest.mark.parametrize("layout", LAYOUTS)
def test_position_zero_is_the_identity(layout):
    x = np.random.default_rng(3).standard_normal((4, 70, 8)).astype(np.float32)
    np.testing.assert_array_equal(numeric.apply_rope(x, np.zeros(70), layout=layout), x)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("rotary_dim", [None, 4])
def test_in_place_and_out(layout, rotary_dim):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 90, 8))
    pos = np.arange(90.0)
    want = numeric.apply_rope(x, pos, layout=layout, rotary_dim=rotary_dim)
    buf = np.empty_like(x)
    assert numeric.apply_rope(x, pos, layout=layout, rotary_dim=rotary_dim, out=buf) is buf
    np.testing.assert_array_equal(buf, want)
    y = x.copy()
    numeric.apply_rope(y, pos, layout=layout, rotary_dim=rotary_dim, out=y)
    np.testing.assert_array_equal(y, want)


def test_positions_broadcast_and_noncontiguous_x():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 6, 16))[..., ::2]  # last axis strided
    pos = np.array([[0, 1, 2, 3, 4, 5], [10, 11, 12, 13, 14, 15]], dtype=float)
    for layout in LAYOUTS:
        got = numeric.apply_rope(x, pos, layout=layout)
        rows = [numeric.apply_rope(np.ascontiguousarray(x[b]), pos[b], layout=layout)
                for b in range(2)]
        np.testing.assert_allclose(got, np.stack(rows), rtol=0, atol=1e-15)
    # a scalar position and a 1-D x
    v = numeric.apply_rope(np.array([1.0, 0.0]), 0.5)
    assert v.shape == (2,)


def test_naive_float32_rope_breaks_the_float32_bound():
    """Test of the test: angles formed in float32 are far outside the bound we assert."""
    x = np.ones((1, 4, 64), np.float32)
    pos = NEAR - np.arange(1.0, 5.0)
    ref = reference.apply_rope(x, pos)
    theta = np.float32(10000.0) ** (-np.arange(0, 64, 2, dtype=np.float32) / np.float32(64))
    ang = np.outer(pos.astype(np.float32), theta)  # the common bug
    cos = np.concatenate([np.cos(ang)] * 2, -1)
    sin = np.concatenate([np.sin(ang)] * 2, -1)
    naive = x * cos + np.concatenate([-x[..., 32:], x[..., :32]], -1) * sin
    ours = numeric.apply_rope(x, pos)
    bound = _bound(x, "split")
    assert (abs_errors(ours, ref) <= bound).all()
    assert (abs_errors(naive, ref) > 1e5 * bound).any()


@pytest.mark.parametrize(
    ("x", "kwargs", "exc", "match"),
    [
        (np.zeros((3, 4), np.int64), {}, TypeError, "x must have dtype.*int64"),
        (np.zeros((3, 4), np.complex64), {}, TypeError, "x must have dtype.*complex64"),
        (np.zeros((3, 4), object), {}, TypeError, "x must have dtype.*object"),
        (np.zeros((3, 4), np.complex64), {}, TypeError, "x must have dtype.*complex64"),
        (np.zeros((3, 4)), dict(positions=np.zeros(4)), ValueError, "do not broadcast"),
        (np.zeros((3, 4)), dict(positions=np.zeros((2, 3))), ValueError, "must not enlarge"),
        (np.zeros((3, 4)), dict(rotary_dim=3), ValueError, "rotary_dim=3"),
        (np.zeros((3, 4)), dict(rotary_dim=6), ValueError, "rotary_dim=6.*<= d=4"),
        (np.zeros((3, 4)), dict(rotary_dim=0), ValueError, "rotary_dim=0"),
        (np.zeros((3, 5)), {}, ValueError, "odd length d=5"),
        (np.zeros((3, 4)), dict(positions=[0, np.nan, 1]), ValueError, "positions.*nan"),
        (np.zeros((3, 4)), dict(positions=[0, 2.0**53, 1]), ValueError, "positions"),
        (np.zeros((3, 4)), dict(base=1), ValueError, "base=1"),
        (np.zeros((3, 4)), dict(layout="rotate_half"), ValueError, "layout="),
        (np.zeros((3, 4)), dict(out=np.zeros((3, 4), np.float32)), TypeError, "out has dtype"),
        (np.zeros((3, 4)), dict(out=np.zeros((4, 3))), ValueError, "out has shape"),
    ],
)
def test_apply_rope_bad_input(x, kwargs, exc, match):
    kwargs = dict(kwargs)
    pos = kwargs.pop("positions", np.arange(3.0))
    with pytest.raises(exc, match=match):
        numeric.apply_rope(x, pos, **kwargs)


@given(pos=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3),
       lead=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3))
@example(pos=(1, 1, 3), lead=(3,)).via("leading ones that would add axes")
@example(pos=(0,), lead=(1,)).via("a zero-length axis against 1")
def test_positions_fit_x_exactly_when_numpy_broadcasts_them_to_x(pos, lead):
    """The shape rule's shortcut (each axis 1 or x's own) says what NumPy's broadcasting
    says: positions fit when they broadcast against ``x.shape[:-1]`` to that very shape."""
    from pe_symbolic.numeric._frontend import rope_shape_error

    try:
        fits = np.broadcast_shapes(pos, lead) == lead
    except ValueError:
        fits = False
    assert (rope_shape_error(pos, lead, "x.shape[:-1]") is None) == fits


def test_rope_cos_sin_bad_input():
    with pytest.raises(ValueError, match="d=3"):
        numeric.rope_cos_sin([0], 3)
    with pytest.raises(TypeError, match="dtype="):
        numeric.rope_cos_sin([0], 4, dtype=np.complex128)
    with pytest.raises(ValueError, match="positions"):
        numeric.rope_cos_sin([np.inf], 4)


@given(d=dims(64), m=integer_positions)
def test_rope_cos_sin_matches_oracle_rows(d, m):
    cos, sin = numeric.rope_cos_sin([m], d, accurate=True)
    e = np.zeros(d)
    e[0] = 1.0
    ref = reference.apply_rope(e, m)  # first pair rotated: (cos m*theta_0, sin m*theta_0)
    assert abs_errors(np.array([cos[0, 0], sin[0, 0]]), ref[[0, d // 2]]).max() <= 1.05 * U64


# ----------------------------------------------------------------------------------------
# one front end: the same rules and messages for NumPy, torch and JAX


def _backends():
    """(name, module, array maker) for NumPy and whichever framework is installed."""
    out = [("numpy", numeric, np.asarray)]
    for name in ("torch", "jax"):
        try:
            mod = importlib.import_module(f"pe_symbolic.{name}")
            lib = importlib.import_module(name if name == "torch" else "jax.numpy")
        except ImportError:
            continue
        out.append((name, mod, (lambda lib: lambda a: lib.asarray(np.asarray(a)))(lib)))
    return out


def _message(fn, *args, **kwargs) -> tuple[type, str]:
    try:
        fn(*args, **kwargs)
    except (TypeError, ValueError) as e:
        return type(e), str(e)
    raise AssertionError("no error")


def test_one_dimensional_position_ids_are_positions_of_that_shape_everywhere():
    """``position_ids`` of shape (seq,) (M-RoPE: (3, seq)) are positions of that shape, for
    every backend: the result is ``positions=``'s, and the same in all three."""
    x = np.random.default_rng(3).standard_normal((2, 3, 5, 16)).astype(np.float32)
    ids = np.arange(5) + 11
    want = numeric.apply_rope(x, positions=ids)
    for name, mod, arr in _backends():
        got = mod.apply_rope(arr(x), position_ids=arr(ids))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(mod.apply_rope(arr(x), positions=arr(ids))))
        np.testing.assert_allclose(np.asarray(got), want, rtol=0, atol=2e-6, err_msg=name)
    qwen = numeric.model_config("qwen2-vl-7b")
    d = numeric.parse_rope_config(qwen).head_dim
    x3 = np.ones((1, 2, 4, d))
    pos3 = np.stack([np.arange(4), np.arange(4) // 2, np.arange(4) % 2])  # (3, seq)
    np.testing.assert_array_equal(numeric.apply_rope(x3, position_ids=pos3, config=qwen),
                                  numeric.apply_rope(x3, pos3, config=qwen))


@pytest.mark.parametrize("case", ["length", "batch", "ndim", "x3d", "none"])
def test_position_ids_that_do_not_fit_get_one_message_everywhere(case):
    """A wrong-length (or otherwise misfit) ``position_ids`` is refused with the same message
    by NumPy, torch and JAX -- the package's, naming both shapes, not NumPy's broadcast error."""
    x = np.ones((2, 4, 6, 8), np.float32)
    ids = {"length": np.arange(7)[None].repeat(2, 0), "batch": np.arange(6)[None].repeat(3, 0),
           "ndim": np.zeros((2, 2, 6)), "x3d": np.arange(6)[None].repeat(2, 0), "none": None}[case]
    if case == "x3d":
        x = x[0]
    got = {}
    for name, mod, arr in _backends():
        kw = {} if ids is None else {"position_ids": arr(ids)}
        got[name] = _message(mod.apply_rope, arr(x), **kw)
    assert len(set(got.values())) == 1, got
    exc, msg = got["numpy"]
    assert exc is ValueError
    if case == "none":
        assert msg.startswith("pass exactly one of positions")
    else:
        assert msg.startswith(f"position_ids of shape {tuple(ids.shape)} need x of shape (batch, heads, seq, d)")
        assert f"x has shape {x.shape}" in msg and "(or position_ids of shape (seq,))" in msg


def test_the_three_front_ends_have_one_signature():
    """The frameworks' functions take the same parameters; NumPy's differ only by its own
    keywords (accurate, out, check_finite) against the frameworks' device, and by
    apply_rope's second positional argument (positions; the frameworks': position_ids)."""
    import inspect

    own = {"numpy": {"accurate", "out", "check_finite"}, "torch": {"device"}, "jax": {"device"}}
    sigs = {}
    for name, mod, _ in _backends():
        for fn in ("apply_rope", "rope_cos_sin", "sinusoidal_table"):
            params = inspect.signature(getattr(mod, fn)).parameters
            sigs[name, fn] = [p for p in params if p not in own[name]]
            assert getattr(mod, fn).__module__.startswith(mod.__name__)
    names = {n for n, _ in sigs}
    for fn in ("apply_rope", "rope_cos_sin", "sinusoidal_table"):
        rows = {n: sigs[n, fn] for n in names}
        if fn == "apply_rope":  # (the second positional argument: NumPy's positions)
            rows = {n: [p for p in r if p not in ("positions", "position_ids")] for n, r in rows.items()}
        assert len({tuple(r) for r in rows.values()}) == 1, rows
    assert list(inspect.signature(numeric.apply_rope).parameters)[:2] == ["x", "positions"]


def test_keywords_of_another_backend_are_refused_by_name():
    with pytest.raises(TypeError, match=r"rope_cos_sin\(\) got an unexpected keyword argument 'device'"):
        numeric.rope_cos_sin([0, 1], 4, device="cpu")
    with pytest.raises(TypeError, match=r"apply_rope\(\) takes from 1 to 2 positional arguments but 3 were given"):
        numeric.apply_rope(np.ones((2, 4)), [0, 1], [0, 1])
    with pytest.raises(TypeError, match=r"got multiple values for argument 'positions'"):
        numeric.apply_rope(np.ones((2, 4)), [0, 1], positions=[0, 1])
    torch = pytest.importorskip("torch")
    import pe_symbolic.torch as PT

    with pytest.raises(TypeError, match=r"apply_rope\(\) got an unexpected keyword argument 'out'.*NumPy core"):
        PT.apply_rope(torch.ones(2, 4), positions=[0, 1], out=torch.empty(2, 4))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_numpy_takes_tables_too(dtype, layout):
    """``cos_sin=`` in the NumPy core (as in the frameworks): the lowered pair formula on the
    tables' halves, within an ulp of the positions route; 16-bit x with float32 tables."""
    x = np.random.default_rng(5).standard_normal((2, 3, 7, 16)).astype(dtype)
    ids = np.arange(7)[None].repeat(2, 0) + 1000
    tdt = np.float64 if dtype == np.float64 else np.float32
    c, s = numeric.rope_cos_sin(ids, 12, base=500.0, layout=layout, dtype=tdt)
    got = numeric.apply_rope(x, cos_sin=(c, s), layout=layout)
    want = numeric.apply_rope(x, position_ids=ids, base=500.0, layout=layout, rotary_dim=12)
    assert got.dtype == x.dtype and got.shape == x.shape
    ulp = {np.float64: 2.0**-52, np.float32: 2.0**-23}.get(dtype, 2.0**-7)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=4 * ulp)
    np.testing.assert_array_equal(got[..., 12:], x[..., 12:])
    out = np.empty_like(x)
    assert numeric.apply_rope(x, cos_sin=(c, s), layout=layout, out=out) is out
    np.testing.assert_array_equal(out, got)


def test_numpy_fast_path_checks_positions_every_call():
    """A repeated call skips the shape checks it passed, never the value checks of the
    positions (NumPy's: finite, |t| < 2**53), and a changed shape is checked in full."""
    x = np.ones((2, 4, 3, 8))
    ids = np.arange(3)[None].repeat(2, 0)
    numeric.apply_rope(x, position_ids=ids, base=100.0)
    numeric.apply_rope(x, position_ids=ids, base=100.0)  # (the fast path)
    bad = ids.astype(np.float64)
    numeric.apply_rope(x, position_ids=bad, base=100.0)
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"position_ids must be finite real numbers .*got nan at index \(1, 2\)"):
        numeric.apply_rope(x, position_ids=bad, base=100.0)
    cold = _message(numeric.apply_rope, x, position_ids=np.zeros((2, 5)), base=100.0)
    assert cold[1].startswith("position_ids of shape (2, 5) need x")
