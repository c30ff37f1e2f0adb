"""The blocked kernels of issue 14 against the routes they replace (bit for bit) and the oracle.

* :mod:`pe_symbolic.numeric._rope_kernels` (RoPE, both layouts) against the former kernels,
  kept in ``rope_reference_kernels.py``: same results, bit for bit, for every shape, stride,
  output mode and block size -- block sizes are drawn small and odd so that every boundary
  (partial position blocks, partial groups of heads, one-row tables) is crossed.
* :mod:`pe_symbolic.numeric._accurate` (the accurate sin/cos route) against the reference
  route :func:`pe_symbolic.numeric._kernels._sincos_block`, bit for bit, including the blocks
  it hands back to the reference (large angles, tiny angles) and float32 or strided outputs.
* Both against the mpmath oracle with odd block sizes (the bounds of ``test_numeric_rope``).
"""

from __future__ import annotations

import contextlib
from unittest import mock

import numpy as np
import pytest
import rope_reference_kernels as ref
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import (U32, U64, abs_errors, integer_positions, real_positions, same_bits,
                        sincos_destinations)

from pe_symbolic import numeric, reference
from pe_symbolic.numeric import _accurate, _kernels, _rope_kernels
from pe_symbolic.numeric import _numpy_backend as rope  # (the NumPy core's kernels are called there)
from pe_symbolic.numeric._core import _omega_dd, _omega_exact

DTYPES = (np.float32, np.float64)
BLOCK_NAMES = ("ROWS_BYTES", "BLOCK_BYTES", "INTERLEAVED_TABLE_BYTES",
               "INTERLEAVED_BLOCK_BYTES", "MAX_TABLE_BYTES")


def _blocks(sizes: dict[str, int]) -> contextlib.AbstractContextManager:
    """Set the RoPE kernels' block sizes for the duration (results must not depend on them)."""
    return mock.patch.multiple(_rope_kernels, **sizes)


@contextlib.contextmanager
def _former_kernels():
    """apply_rope with the kernels as they were before issue 14."""
    new = rope._rope_split, rope._rope_interleaved
    rope._rope_split, rope._rope_interleaved = ref.rope_split, ref.rope_interleaved
    try:
        yield
    finally:
        rope._rope_split, rope._rope_interleaved = new


# block sizes in bytes: tiny and odd (a few elements, a part of a row), and the defaults
block_sizes = st.fixed_dictionaries(
    {k: st.sampled_from((1, 8, 40, 1000, 4096, getattr(_rope_kernels, k))) for k in BLOCK_NAMES}
)


@st.composite
def rope_cases(draw):
    """``(x, kwargs)`` for apply_rope: leading axes that do or do not merge, strided x,
    positions along the sequence only or along leading axes too, partial rotary dims."""
    dtype = draw(st.sampled_from(DTYPES))
    lead = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=3)))
    seq = draw(st.integers(1, 40))
    d = 2 * draw(st.integers(1, 8))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    layout_of_x = draw(st.sampled_from(("contiguous", "transposed", "strided last", "seq slice")))
    if layout_of_x == "transposed" and len(lead) >= 1:  # (..., seq, lead[-1], d) viewed back
        base = rng.standard_normal(lead[:-1] + (seq, lead[-1], d)).astype(dtype)
        x = np.swapaxes(base, -2, -3)
    elif layout_of_x == "strided last":
        x = rng.standard_normal(lead + (seq, 2 * d)).astype(dtype)[..., ::2]
    elif layout_of_x == "seq slice":
        x = rng.standard_normal(lead + (seq + 3, d)).astype(dtype)[..., 1 : seq + 1, :]
    else:
        x = rng.standard_normal(lead + (seq, d)).astype(dtype)
    kind = draw(st.sampled_from(("run", "reals", "per leading", "constant")))
    if kind == "run":  # consecutive integers: the angle-addition fast path
        start = draw(st.integers(-(2**20), 2**20))
        pos = start + np.arange(seq, dtype=np.float64)
    elif kind == "reals":
        pos = np.array(draw(st.lists(real_positions, min_size=seq, max_size=seq)))
    elif kind == "per leading" and lead:  # positions vary along the last leading axis too
        pos = rng.integers(0, 5000, (lead[-1], seq)).astype(np.float64)
    else:  # one position for every row of the sequence
        pos = np.array([draw(integer_positions)], dtype=np.float64).reshape((1,) * (len(lead) + 1))
    kwargs = {"positions": pos, "layout": draw(st.sampled_from(("split", "interleaved")))}
    if draw(st.booleans()):
        kwargs["rotary_dim"] = 2 * draw(st.integers(1, d // 2))
    if draw(st.booleans()):
        kwargs["accurate"] = True
    return x, kwargs


def _run(x, kwargs, mode):
    if mode == "alloc":
        return numeric.apply_rope(x, **kwargs)
    if mode == "out=":
        out = np.full(x.shape, np.nan, x.dtype)
        assert numeric.apply_rope(x, out=out, **kwargs) is out
        return out
    y = x.copy()  # in place: out is x
    numeric.apply_rope(y, out=y, **kwargs)
    return y


@given(case=rope_cases(), sizes=block_sizes, mode=st.sampled_from(("alloc", "out=", "in place")))
@example(case=(np.ones((2, 3, 70, 8), np.float32), {"positions": np.arange(70.0), "layout": "split"}),
         sizes={k: getattr(_rope_kernels, k) for k in BLOCK_NAMES}, mode="in place")
def test_rope_kernels_are_bitwise_the_former_kernels(case, sizes, mode):
    x, kwargs = case
    with _former_kernels():
        want = _run(x, kwargs, mode)
    with _blocks(sizes):
        got = _run(x, kwargs, mode)
    assert same_bits(got, want)


@pytest.mark.parametrize("layout", ("split", "interleaved"))
@pytest.mark.parametrize("dtype", DTYPES)
def test_rope_long_runs_and_many_heads_are_bitwise_the_former_kernels(layout, dtype):
    """Sizes where the default blocks have several position blocks and head groups."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 5, 1500, 64)).astype(dtype)
    for pos in (np.arange(1500.0) + 12345, rng.uniform(-1e5, 1e5, 1500)):
        with _former_kernels():
            want = numeric.apply_rope(x, pos, layout=layout)
        with _blocks({"ROWS_BYTES": 20000, "BLOCK_BYTES": 150000,
                      "INTERLEAVED_TABLE_BYTES": 70000, "INTERLEAVED_BLOCK_BYTES": 300000}):
            got = numeric.apply_rope(x, pos, layout=layout)
        assert same_bits(got, want)
        assert same_bits(numeric.apply_rope(x, pos, layout=layout), want)


def test_rope_hf_position_ids_and_partial_overlap():
    """position_ids (batch, seq) on a transposed q; out overlapping x without being x."""
    rng = np.random.default_rng(12)
    q = np.swapaxes(rng.standard_normal((2, 33, 4, 16)), 1, 2)  # (batch, heads, seq, d), strided
    ids = rng.integers(0, 3000, (2, 33))
    for layout in ("split", "interleaved"):
        with _former_kernels():
            want = numeric.apply_rope(q, position_ids=ids, layout=layout)
        assert same_bits(numeric.apply_rope(q, position_ids=ids, layout=layout), want)
    buf = rng.standard_normal(2 * 39 * 16 + 16)
    x = buf[: 2 * 39 * 16].reshape(2, 39, 16)
    out = buf[16:].reshape(2, 39, 16)  # shifted by one row: overlaps x, is not x
    want = numeric.apply_rope(x.copy(), np.arange(39.0))
    numeric.apply_rope(x, np.arange(39.0), out=out)
    assert same_bits(out, want)


def _rope_bound(x, layout, rd):
    u = U32 if x.dtype == np.float32 else U64
    a = np.abs(np.asarray(x, np.float64))
    h = rd // 2
    pair = a.copy()
    if layout == "interleaved":
        s = a[..., 0:rd:2] + a[..., 1:rd:2]
        pair[..., 0:rd:2] = s
        pair[..., 1:rd:2] = s
    else:
        s = a[..., :h] + a[..., h:rd]
        pair[..., :h] = s
        pair[..., h:rd] = s
    return (4 * u + 7 * U64) * pair + 2 * float(np.finfo(x.dtype).smallest_subnormal)


@given(dtype=st.sampled_from(DTYPES), layout=st.sampled_from(("split", "interleaved")),
       seq=st.integers(1, 6), d=st.sampled_from((2, 6, 8)), start=integer_positions,
       sizes=block_sizes, data=st.data())
def test_rope_kernels_with_odd_blocks_match_the_oracle(dtype, layout, seq, d, start, sizes, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.uniform(-4, 4, (2, seq, 2 * d)).astype(dtype)[..., ::2]  # strided last axis
    pos = start + np.arange(seq, dtype=np.float64)
    with _blocks(sizes):
        got = numeric.apply_rope(x, pos, layout=layout)
    want = reference.apply_rope(np.ascontiguousarray(x), pos, layout=layout)
    assert (abs_errors(got, want) <= _rope_bound(x, layout, d)).all()


# ----------------------------------------------------------------------------------------
# the accurate sin/cos route


def _frequencies(d, base):
    numeric.sinusoidal_table([0.0], d, base=base)  # constants cached
    hi, lo = _omega_dd(d, base, "vaswani")
    return hi, lo, _omega_exact(d, base, "vaswani")


positions_for_accurate = st.one_of(
    st.lists(real_positions, min_size=1, max_size=40).map(np.array),
    st.builds(lambda s, n: s + np.arange(n, dtype=np.float64), integer_positions, st.integers(1, 300)),
    st.lists(st.sampled_from((0.0, -0.0, 1e-300, -1e-300, 5e-324, 3.0, 2.0**30, -(2.0**40))),
             min_size=1, max_size=12).map(np.array),
)


@given(t=positions_for_accurate, d=st.sampled_from((2, 8, 64, 128)), base=st.sampled_from((10000.0, 2.0, 5e5)),
       dtype=st.sampled_from(DTYPES), chunk=st.sampled_from((1, 7, 64, 1000, _accurate.CHUNK)),
       dest=st.sampled_from(("contiguous", "complex", "interleaved slots")), exact=st.booleans())
@example(t=np.arange(2048.0), d=512, base=10000.0, dtype=np.float64, chunk=_accurate.CHUNK,
         dest="interleaved slots", exact=True)
@example(t=np.array([0.0, 355.0, 103993.0, 2.0**24 - 1]), d=8, base=10000.0, dtype=np.float64,
         chunk=7, dest="complex", exact=True)
def test_accurate_route_is_bitwise_the_reference(t, d, base, dtype, chunk, dest, exact):
    hi, lo, w_exact = _frequencies(d, base)
    w_exact = w_exact if exact else None
    n, h = t.size, d // 2

    s_ref, c_ref = sincos_destinations(n, h, dtype, dest)
    for r in range(n):  # the reference route, row by row (its rows are meant to be independent)
        _kernels._sincos_block(t[r : r + 1], hi, lo, s_ref[r : r + 1], c_ref[r : r + 1], w_exact)
    s, c = sincos_destinations(n, h, dtype, dest)
    _accurate.sincos_into(t, hi, lo, s, c, w_exact, chunk=chunk)
    assert same_bits(s, s_ref) and same_bits(c, c_ref)


def test_accurate_route_recomputes_the_rare_entries_like_the_reference():
    """Positions whose reduced angle is tiny relative to the angle (pi/2 convergents)."""
    hi, lo, w_exact = _frequencies(2, 10000.0)  # frequency 1: angle = position
    t = np.array([355.0, 103993.0, 104348.0, 208341.0, 312689.0, 833719.0, 1146408.0, 4272943.0,
                  5419351.0, 6565759.0, 11.0, 344.0, 51819.0, 52174.0])
    s_ref, c_ref = np.empty((t.size, 1)), np.empty((t.size, 1))
    _kernels._sincos_block(t, hi, lo, s_ref, c_ref, w_exact)
    s, c = np.empty_like(s_ref), np.empty_like(c_ref)
    _accurate.sincos_into(t, hi, lo, s, c, w_exact)
    assert same_bits(s, s_ref) and same_bits(c, c_ref)


def test_tables_use_the_blocked_accurate_route():
    src = numeric._core._source(np.arange(10.0), *_frequencies(8, 10000.0)[:2], accurate=True, swap=False)
    assert isinstance(src, _accurate.PhasorSource) and src.mode == "accurate"
    base = _kernels.PhasorSource(np.arange(10.0), src.w_hi, src.w_lo, accurate=True, swap=False)
    a, b = np.empty((10, 4), np.complex128), np.empty((10, 4), np.complex128)
    src.fill(0, 10, a)
    base.fill(0, 10, b)
    assert same_bits(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_accurate_rows_do_not_depend_on_their_neighbours(dtype):
    """t = 0 (a tiny-angle row) beside large angles: each row as if computed alone. (The
    reference route, handed both in one block, returned sin(2**30) = 1.07e9.)"""
    t = np.array([0.0, 2.0**30, 5.0, 2.0**40 + 3])
    tab = numeric.sinusoidal_table(t, 8, accurate=True, dtype=dtype)
    rows = np.vstack([numeric.sinusoidal_table(t[i : i + 1], 8, accurate=True, dtype=dtype)
                      for i in range(t.size)])
    assert same_bits(tab, rows)
    assert np.abs(tab).max() <= 1.0


# ----------------------------------------------------------------------------------------
# scratch memory kept between calls (_scratch): no result may live in it


def test_scratch_reuses_a_buffer_per_name_and_thread():
    import threading

    from pe_symbolic.numeric import _scratch

    a = _scratch.scratch("test-a", (64, 8), np.float64)
    assert a.shape == (64, 8) and a.dtype == np.float64 and a.flags.c_contiguous
    assert a.ctypes.data % 16 == 0
    b = _scratch.scratch("test-a", (16,), np.complex128)
    assert np.shares_memory(a, b)  # reused
    assert not np.shares_memory(a, _scratch.scratch("test-b", (64, 8), np.float64))
    bigger = _scratch.scratch("test-a", (4096,), np.float64)  # grown: a new buffer
    assert bigger.shape == (4096,)
    seen = []
    t = threading.Thread(target=lambda: seen.append(_scratch.scratch("test-a", (8,), np.float64)))
    t.start()
    t.join()
    assert not np.shares_memory(seen[0], _scratch.scratch("test-a", (8,), np.float64))
    with mock.patch.object(_scratch, "KEEP_BYTES", 1024):
        big = _scratch.scratch("test-c", (1024,), np.float64)  # 8 KiB: not kept
        assert not np.shares_memory(big, _scratch.scratch("test-c", (1024,), np.float64))


_ROUTES = {
    "split numpy": ("split", np.float64, False),
    "split fused": ("split", np.float32, True),
    "interleaved": ("interleaved", np.float64, None),
    "bfloat16 fused": ("split", "bfloat16", True),
    "float16 numpy": ("interleaved", np.float16, False),
}


@pytest.mark.parametrize("route", list(_ROUTES))
def test_results_do_not_live_in_scratch_memory(route):
    """A second call (other positions) must not change what the first returned, and two
    threads rotating at once get what each gets alone: the kernels' temporaries come from
    per-thread buffers kept between calls, which no result may share."""
    import threading

    layout, dtype, fused = _ROUTES[route]
    if fused:
        pytest.importorskip("numba", exc_type=ImportError)
        if dtype == "bfloat16" and _rope_kernels.HALF_KERNELS.get() is None:
            pytest.skip(f"the 16-bit kernels are not used: {_rope_kernels.HALF_KERNELS.unavailable}")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 300, 64)).astype(dtype)
    p1, p2 = np.arange(300.0), np.arange(300.0) * 3 + 11
    with mock.patch.multiple(_rope_kernels, FUSED=fused):
        first = numeric.apply_rope(x, p1, layout=layout)
        keep = first.copy()
        second = numeric.apply_rope(x, p2, layout=layout)
        assert first.tobytes() == keep.tobytes()
        assert not np.shares_memory(first, second)
        got = {}

        def work(key, pos):
            for _ in range(5):
                got[key] = numeric.apply_rope(x, pos, layout=layout)

        threads = [threading.Thread(target=work, args=(k, p)) for k, p in (("a", p1), ("b", p2))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert got["a"].tobytes() == keep.tobytes()
    assert got["b"].tobytes() == second.tobytes()
