"""The compiled accurate loop (the ``fast`` extra, numba) against the NumPy route and the
reference route, bit for bit.

:mod:`pe_symbolic.numeric._accurate_fused` computes the rows that
:func:`pe_symbolic.numeric._accurate.sincos_into` handles itself (angles below 2**24) in one
loop, the same float64 operations in the same order as the NumPy route; rows that may reach
2**24 and tiny-angle rows are handed to the reference route
(:func:`pe_symbolic.numeric._kernels._sincos_block`) by either route alike. Every case runs
both routes (``_accurate.FUSED``) and, where cheap, the reference row by row, and compares the
bytes: float64 and float32 destinations (contiguous, complex parts, interleaved slots), both
schedules, positions from 0 to the largest accepted (``|t| < 2**53``), negative, fractional and
tiny, the rare entries recomputed at 40 digits. The tests that need numba skip without it;
the fallback tests run either way.
"""

from __future__ import annotations

import builtins
import contextlib
import re
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import SCHEDULES, no_numba, real_positions, same_bits, sincos_destinations

from pe_symbolic import numeric
from pe_symbolic.numeric import _accurate, _kernels
from pe_symbolic.numeric._compiled import OptionalKernel
from pe_symbolic.numeric._core import _omega_dd, _omega_exact

DTYPES = (np.float32, np.float64)
TOP = 2.0**53  # positions must satisfy |t| < TOP
#: Positions with reduced angles tiny relative to the angle (pi/2 convergents, frequency 1):
#: the rare entries the reference recomputes at 40 digits.
RARE = (355.0, 103993.0, 104348.0, 208341.0, 312689.0, 833719.0, 1146408.0, 4272943.0,
        5419351.0, 6565759.0, 11.0, 344.0, 51819.0, 52174.0)
SPECIAL = (0.0, -0.0, 5e-324, -5e-324, 1e-300, 2.0**-1000, 3.0, -7.5, 2.0**24 - 1, 2.0**24,
           2.0**25 + 1, 2.0**30, -(2.0**40), 2.0**52 + 0.5, TOP - 1, -(TOP - 1))


@pytest.fixture(scope="module")
def fused() -> None:
    """Skip unless the compiled loop imports (numba installed and working)."""
    pytest.importorskip("numba", exc_type=ImportError)
    if _accurate.accurate_route() != "numba":  # pragma: no cover (a broken numba)
        pytest.skip(f"the compiled loop does not import: {_accurate.LOOP.unavailable}")


def _route(fused: bool | None, **attrs) -> contextlib.AbstractContextManager:
    """Force the accurate route (and any other attributes of ``_accurate``) for the duration."""
    return mock.patch.multiple(_accurate, FUSED=fused, **attrs)


def _frequencies(d: int, base: float, schedule: str = "vaswani"):
    numeric.sinusoidal_table([0.0], d, base=base, schedule=schedule)  # constants cached
    hi, lo = _omega_dd(d, base, schedule)
    return hi, lo, _omega_exact(d, base, schedule)


def _three_routes(t, d, base, schedule, dtype, dest, exact):
    """``(sin, cos)`` by the compiled loop, the NumPy route and the reference (row by row)."""
    hi, lo, w_exact = _frequencies(d, base, schedule)
    w_exact = w_exact if exact else None
    w_quad = _kernels.quadrant_frequencies(w_exact if exact else (hi, lo))
    n, h = t.size, d // 2
    out = {}
    for name, fused in (("numba", True), ("numpy", False)):
        s, c = sincos_destinations(n, h, dtype, dest)
        with _route(fused):
            _accurate.sincos_into(t, hi, lo, s, c, w_exact, w_quad=w_quad)
        out[name] = (s, c)
    s, c = sincos_destinations(n, h, dtype, dest)
    for r in range(n):  # the reference route, row by row (its rows are meant to be independent)
        _kernels._sincos_block(t[r : r + 1], hi, lo, s[r : r + 1], c[r : r + 1], w_exact, w_quad)
    out["reference"] = (s, c)
    return out


def _assert_all_same(out) -> None:
    (s0, c0), *rest = out.values()
    for name, (s, c) in out.items():
        assert same_bits(s, s0) and same_bits(c, c0), name


# ----------------------------------------------------------------------------------------
# the compiled loop is the NumPy route, bit for bit


positions = st.one_of(
    st.lists(real_positions, min_size=1, max_size=30).map(np.array),
    st.builds(lambda s, n: s + np.arange(n, dtype=np.float64),
              st.integers(-(2**24) + 1, 2**24 - 1), st.integers(1, 200)),
    st.lists(st.sampled_from(SPECIAL + RARE), min_size=1, max_size=12).map(np.array),
    st.lists(st.floats(-(TOP - 1), TOP - 1, allow_nan=False), min_size=1, max_size=8).map(np.array),
)


@given(t=positions, d=st.sampled_from((2, 8, 64, 130)), base=st.sampled_from((10000.0, 2.0, 5e5)),
       schedule=st.sampled_from(SCHEDULES), dtype=st.sampled_from(DTYPES),
       dest=st.sampled_from(("contiguous", "complex", "interleaved slots")), exact=st.booleans())
@example(t=np.array(SPECIAL), d=8, base=10000.0, schedule="vaswani", dtype=np.float64,
         dest="interleaved slots", exact=True)
@example(t=np.array(SPECIAL), d=8, base=10000.0, schedule="tensor2tensor", dtype=np.float32,
         dest="complex", exact=True)
@example(t=np.array(RARE + (0.0, 2.0**30) + RARE), d=2, base=10000.0, schedule="vaswani",
         dtype=np.float64, dest="contiguous", exact=True)
@example(t=np.array(RARE), d=2, base=10000.0, schedule="tensor2tensor", dtype=np.float32,
         dest="contiguous", exact=True)
def test_compiled_loop_is_bitwise_the_numpy_and_reference_routes(fused, t, d, base, schedule,
                                                                 dtype, dest, exact):
    _assert_all_same(_three_routes(t, d, base, schedule, dtype, dest, exact))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_a_large_table_is_bitwise_the_same_by_both_routes(fused, dtype, schedule):
    """Past FUSED_MIN_ENTRIES, with negative and fractional rows, t = 0, rows handed to the
    reference (large and tiny angles) and runs of each kind."""
    t = np.concatenate([np.arange(-300.0, 2000.0), [0.0, -0.0, 1e-300], 2.0**40 + np.arange(50.0),
                        np.linspace(-(2.0**24), 2.0**24, 997), [TOP - 1, -(TOP - 1)], RARE])
    d = 128
    assert t.size * d // 2 >= _accurate.FUSED_MIN_ENTRIES
    tabs = {}
    for fused_route in (None, False):
        with _route(fused_route):
            tabs[fused_route] = numeric.sinusoidal_table(t, d, schedule=schedule, dtype=dtype,
                                                         accurate=True)
    assert same_bits(tabs[None], tabs[False])
    rows = np.r_[0:5, 2300:2310, t.size - 20 : t.size]
    hi, lo, w_exact = _frequencies(d, 10000.0, schedule)
    for r in rows:  # a few rows against the reference, alone
        s = np.empty((1, d // 2), dtype)
        c = np.empty((1, d // 2), dtype)
        _kernels._sincos_block(t[r : r + 1], hi, lo, s, c, w_exact)
        assert same_bits(tabs[None][r, 0::2], s[0]) and same_bits(tabs[None][r, 1::2], c[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ("interleaved", "split"))
def test_tables_of_every_layout_and_order(fused, dtype, layout):
    t = np.arange(-1000.0, 3000.0) * 0.75
    for order in ("sin_cos", "cos_sin"):
        tabs = []
        for fused_route in (True, False):
            with _route(fused_route):
                tabs.append(numeric.sinusoidal_table(t, 96, layout=layout, order=order,
                                                     dtype=dtype, accurate=True))
        assert same_bits(*tabs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_accurate_rope_is_bitwise_the_same_by_both_routes(fused, dtype):
    x = np.random.default_rng(1).standard_normal((2, 3, 700, 64)).astype(dtype)
    pos = np.arange(700.0) + 2.0**23
    outs = []
    for fused_route in (True, False):
        with _route(fused_route):
            outs.append([numeric.apply_rope(x, pos, layout=layout, accurate=True)
                         for layout in ("interleaved", "split")])
    for a, b in zip(*outs):
        assert same_bits(a, b)


def test_more_rare_entries_than_the_loop_stores(fused):
    """The loop stores _RARE_CAP indices; with more, it runs again (same values)."""
    t = np.array(RARE * 3)
    outs = []
    for fused_route, cap in ((True, 2), (True, 256), (False, 256)):
        with _route(fused_route, _RARE_CAP=cap):
            outs.append(numeric.sinusoidal_table(t, 2, accurate=True))
    assert same_bits(outs[0], outs[2]) and same_bits(outs[1], outs[2])
    with _route(False):  # the rare entries are there: without them the values differ
        assert not same_bits(outs[2], numeric.sinusoidal_table(t + 1.0, 2, accurate=True)[:, :])


def test_empty_calls(fused):
    hi, lo, w_exact = _frequencies(8, 10000.0)
    with _route(True):
        for n, h in ((0, 4), (3, 0)):
            s, c = np.empty((n, h)), np.empty((n, h))
            _accurate.sincos_into(np.zeros(n), hi[:h], lo[:h], s, c, w_exact)
        assert numeric.sinusoidal_table(np.zeros(0), 8, accurate=True).shape == (0, 8)


def test_read_only_and_strided_positions(fused):
    hi, lo, w_exact = _frequencies(64, 10000.0)
    t = np.arange(0.0, 400.0, 0.5)[::2]  # strided
    t.flags.writeable = False
    outs = []
    for fused_route in (True, False):
        s, c = np.empty((t.size, 32)), np.empty((t.size, 32))
        with _route(fused_route):
            _accurate.sincos_into(t, hi, lo, s, c, w_exact)
        outs.append((s, c))
    assert same_bits(outs[0][0], outs[1][0]) and same_bits(outs[0][1], outs[1][1])


def test_the_loop_reads_the_reference_constants_in_its_order(fused):
    """CONSTANTS is unpacked by position in the loop: the order is the one _entry names."""
    from pe_symbolic.numeric import _accurate_fused as F

    assert F._SPLITTER == _kernels._SPLITTER
    order = (_kernels._PIO2_1, -_kernels._PIO2_2, _kernels._PIO2_3, _kernels._TWO_OVER_PI,
             _kernels._RISK, _kernels._S1, _kernels._S2, _kernels._S3, _kernels._S4, _kernels._S5,
             _kernels._S6, _kernels._C1, _kernels._C2, _kernels._C3, _kernels._C4, _kernels._C5,
             _kernels._C6)
    assert F.CONSTANTS.tolist() == list(order)


def test_the_compiled_code_has_no_fused_multiply_add(fused):
    """An FMA would round once where the NumPy route rounds twice: no vfmadd anywhere. (The
    cached loop cannot be inspected: the same function is compiled afresh, same options.)"""
    import numba

    from pe_symbolic.numeric import _accurate_fused as F

    fresh = numba.njit(nogil=True, error_model="numpy")(F.accurate_rows.py_func)
    for dtype in DTYPES:
        tab = np.empty((3, 8), dtype)
        fresh(np.arange(3.0), np.ones((4, 4)), tab[:, 0::2], tab[:, 1::2], np.empty(4, np.int64),
              F.CONSTANTS)
    assert len(fresh.signatures) == 2
    for sig in fresh.signatures:
        asm = fresh.inspect_asm(sig)
        # (the rint: the loop is there; AVX-512 rounds with vrndscalepd, SSE4.1/AVX with (v)roundpd)
        assert "roundpd" in asm or "roundsd" in asm or "rndscale" in asm
        assert not re.search(r"\bv?f(n)?m(add|sub)", asm), sig


# ----------------------------------------------------------------------------------------
# route selection and the fallback


def test_small_calls_stay_in_numpy_and_large_ones_take_the_loop(fused, monkeypatch):
    calls = []
    kernel = _accurate.LOOP.get()

    def spy(*args):
        calls.append(args[0].size)
        return kernel(*args)

    monkeypatch.setattr(_accurate, "LOOP", OptionalKernel("a spy", lambda: spy))
    with _route(None):
        numeric.sinusoidal_table(np.arange(10.0), 8, accurate=True)
        assert calls == []
        n = _accurate.FUSED_MIN_ENTRIES // 64
        numeric.sinusoidal_table(np.arange(float(n)), 128, accurate=True)
        assert calls == [n]


def test_without_the_extra_the_numpy_route_runs_quietly(monkeypatch, recwarn):
    hi, lo, w_exact = _frequencies(64, 10000.0)
    t = np.arange(-50.0, 3000.0)
    with _route(False):
        want = numeric.sinusoidal_table(t, 64, accurate=True)
    monkeypatch.setattr(_accurate, "LOOP", OptionalKernel("the loop", no_numba))
    monkeypatch.setattr(_accurate, "FUSED_MIN_ENTRIES", 0)
    with _route(None):
        assert _accurate.accurate_route() == "numpy"
        assert same_bits(numeric.sinusoidal_table(t, 64, accurate=True), want)
    assert not [w for w in recwarn if "numba" in str(w.message).lower()]
    with _route(True), pytest.raises(ImportError, match="no numba"):
        _accurate.accurate_route()


def test_a_failing_import_is_caught_once(monkeypatch):
    """The first import attempt decides; an error in it (e.g. a numba built for another
    NumPy) leaves the NumPy route in charge, with the same results."""
    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name.endswith("_accurate_fused"):
            raise ImportError("Numba needs NumPy 2.3 or less")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(_accurate, "LOOP", OptionalKernel("the loop", _accurate._load_loop))
    monkeypatch.setattr(builtins, "__import__", broken)
    t = np.arange(3000.0)
    with _route(None, FUSED_MIN_ENTRIES=0):
        got = numeric.sinusoidal_table(t, 64, accurate=True)
        assert _accurate.accurate_route() == "numpy"
    assert "Numba needs NumPy" in _accurate.LOOP.unavailable
    monkeypatch.setattr(builtins, "__import__", real_import)
    with _route(None):
        assert _accurate.accurate_route() == "numpy"  # decided once
    with _route(False):
        assert same_bits(got, numeric.sinusoidal_table(t, 64, accurate=True))
