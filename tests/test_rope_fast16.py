"""The compiled float16 / bfloat16 RoPE kernels (the ``fast`` extra, numba) against the NumPy
route, bit for bit.

The NumPy route converts 16-bit ``x`` to float32, rotates it with the float32 kernels and
rounds the result once back (``astype``); :mod:`pe_symbolic.numeric._rope_fused16` does the
same in one loop: exact widening by bit manipulation, the same float32 products and sums
(for the interleaved layout NumPy's complex multiply, fused or not as probed), and the same
rounding back. Every case runs ``apply_rope`` once per route (``_rope_kernels.FUSED``) and
compares the uint16 bits: both dtypes and layouts, random data, every 16-bit pattern, special
values, odd shapes, partial rotary, in place, ``out=``, broadcast positions; and the
conversions alone against ``astype``. The fallback tests run without numba too.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from unittest import mock

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import calls_of, no_numba, same_bits

from pe_symbolic import numeric
from pe_symbolic.numeric import _rope_kernels
from pe_symbolic.numeric._compiled import OptionalKernel

DTYPES = (ml_dtypes.bfloat16, np.float16)
LAYOUTS = ("split", "interleaved")


@pytest.fixture
def fused16() -> None:
    """Skip unless the 16-bit kernels import (numba installed and working)."""
    pytest.importorskip("numba", exc_type=ImportError)
    if _rope_kernels.HALF_KERNELS.get() is None:  # pragma: no cover (a broken numba)
        pytest.skip(f"the 16-bit kernels are not used: {_rope_kernels.HALF_KERNELS.unavailable}")


def _route(fused: bool | None, **sizes: int) -> contextlib.AbstractContextManager:
    """Force the route (and any block-size attributes) for the duration."""
    return mock.patch.multiple(_rope_kernels, FUSED=fused, **sizes)


@contextlib.contextmanager
def _count_fused() -> Iterator[list[bool]]:
    """Record what ``_rope_kernels.half`` returned (True: the compiled kernels ran)."""
    real = _rope_kernels.half
    seen: list[bool] = []

    def spy(*args, **kwargs):
        r = real(*args, **kwargs)
        seen.append(r)
        return r

    _rope_kernels.half = spy
    try:
        yield seen
    finally:
        _rope_kernels.half = real


def _run(x: np.ndarray, mode: str, layout: str, **kwargs) -> np.ndarray:
    if mode == "alloc":
        return numeric.apply_rope(x, layout=layout, **kwargs)
    if mode == "out=":
        out = np.full(x.shape, np.nan, x.dtype)
        assert numeric.apply_rope(x, layout=layout, out=out, **kwargs) is out
        return out
    y = x.copy()
    numeric.apply_rope(y, layout=layout, out=y, **kwargs)
    return y


def _both(x: np.ndarray, mode: str = "alloc", layout: str = "split", *,
          must_fuse: bool = True, **kwargs) -> np.ndarray:
    """Both routes give the same bits; the compiled one ran (unless ``must_fuse`` is off)."""
    with _route(False), np.errstate(all="ignore"):
        want = _run(x, mode, layout, **kwargs)
    with _route(True), _count_fused() as seen, np.errstate(all="ignore"):
        got = _run(x, mode, layout, **kwargs)
    if must_fuse:
        assert seen and all(seen)
    assert same_bits(got, want)
    return got


def _x(shape: tuple[int, ...], dtype, seed: int = 0, scale: float = 1.0) -> np.ndarray:
    with np.errstate(over="ignore"):  # (float16 overflows to inf at the largest scale)
        return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


# ----------------------------------------------------------------------------------------
# the conversions alone


@pytest.mark.parametrize("dtype", DTYPES)
def test_widening_is_astype_for_every_16_bit_pattern(fused16, dtype):
    from pe_symbolic.numeric import _rope_fused16 as F

    u = np.arange(65536, dtype=np.uint16)
    got = np.empty(65536, np.float32)
    F.widen(u, got, dtype == np.float16)
    assert np.array_equal(got.view(np.uint32), u.view(dtype).astype(np.float32).view(np.uint32))


@pytest.mark.parametrize("dtype", DTYPES)
def test_rounding_is_astype(fused16, dtype):
    """Every high half of a float32 with low halves at and around the rounding boundaries of
    both dtypes, plus random patterns: NaNs (signalling too), infs, subnormals, overflow, ties."""
    from pe_symbolic.numeric import _rope_fused16 as F

    hi = np.arange(65536, dtype=np.uint32) << 16
    lows = np.array([0, 1, 0x0FFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x3000, 0x5000, 0x7FFF,
                     0x8000, 0x8001, 0xA000, 0xF000, 0xFFFF], np.uint32)
    rng = np.random.default_rng(4)
    bits = np.concatenate([(hi[:, None] | lows).ravel(),
                           rng.integers(0, 2**32, 1 << 20, dtype=np.uint64).astype(np.uint32)])
    f = bits.view(np.float32)
    got = np.empty(f.size, np.uint16)
    F.narrow(f, got, dtype == np.float16)
    with np.errstate(all="ignore"):
        want = f.astype(dtype).view(np.uint16)
    assert np.array_equal(got, want)


def test_the_compiled_code_fuses_only_where_numpy_does(fused16):
    """The split kernel and the interleaved one without FMA: no vfmadd anywhere (an FMA would
    round once where the float32 route rounds twice); the interleaved one with FMA has it.
    (The cached loops cannot be inspected: the same functions are compiled afresh.)"""
    import numba

    from pe_symbolic.numeric import _rope_fused16 as F

    one = np.zeros(1, np.int64)
    for f16 in (False, True):
        x, o, cs = np.zeros(16, np.uint16), np.zeros(16, np.uint16), np.ones(16, np.float32)
        split = numba.njit(nogil=True, error_model="numpy")(F.kernel_for("split", f16).py_func)
        split(x, one, 16, o, one, 16, cs, one, 1, 0, 0, 1, 8, 2)
        asm = "\n".join(split.inspect_asm().values())
        assert "ymm" in asm or "xmm" in asm
        assert not re.search(r"\bv?f(n)?m(add|sub)", asm)
    # the interleaved kernel: one variant per fma flag, specialised by hand for the check
    for fma in (False, True):
        def inter(xf, of, cs, f16, fma=fma):
            F._pairs(xf, of, cs, 8, f16, fma)
        k = numba.njit(nogil=True, error_model="numpy")(inter)
        k(x, o, cs, False)
        asm = "\n".join(k.inspect_asm().values())
        fused = bool(re.search(r"\bv?f(n)?m(add|sub)", asm))
        assert fused == fma or (fma and "fmaf" in asm)  # (a CPU target without FMA: libm's)


# ----------------------------------------------------------------------------------------
# the kernels against the NumPy route


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(1, 2), (7, 6), (3, 33, 10), (2, 3, 17, 130), (5, 1, 2),
                                   (2, 1, 3, 9, 4), (2, 4, 64, 128)])
@pytest.mark.parametrize("mode", ["alloc", "out=", "in place"])
def test_kernels_are_bitwise_the_numpy_route(fused16, dtype, layout, shape, mode):
    x = _x(shape, dtype)
    seq = shape[-2]
    _both(x, mode, layout, positions=np.arange(seq, dtype=np.float64) + 12345)
    _both(x, mode, layout, positions=np.random.default_rng(1).uniform(-1e5, 1e5, seq))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_16_bit_pattern_through_the_kernels(fused16, dtype, layout):
    """x holding each of the 65536 patterns (NaNs of every payload and sign, infs, -0,
    subnormals, max), at positions whose sines include 0 (inf * 0), at scaled copies too."""
    x = np.arange(65536, dtype=np.uint16).view(dtype).reshape(256, 256)
    pos = np.arange(256.0)
    pos[:3] = 0.0
    _both(x, "alloc", layout, positions=pos)
    _both(x, "in place", layout, positions=pos * 1e4 + 0.5)
    rolled = np.roll(x, 1, axis=-1)  # each pattern paired with other ones
    _both(rolled, "out=", layout, positions=pos + 7)
    _both(x[::-1].copy(), "alloc", layout, positions=pos)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_special_values(fused16, dtype, layout):
    info = ml_dtypes.finfo(dtype) if dtype != np.float16 else np.finfo(dtype)
    x = _x((3, 8, 16), dtype)
    u = x.view(np.uint16)
    x[0, 0, 0] = np.nan
    x[0, 1, 5] = np.inf
    x[1, 2, 1] = -np.inf
    x[1, 3, 2] = -0.0
    x[1, 4, 3] = info.max
    x[1, 4, 11] = -info.max
    x[1, 5, 4] = info.smallest_subnormal
    x[1, 5, 12] = -info.tiny
    u[2, 0, :] = 0x7FC1 if dtype != np.float16 else 0x7E01  # NaN payloads, both signs
    u[2, 0, 1::2] = 0xFF81 if dtype != np.float16 else 0xFC03  # (signalling too)
    u[2, 1, :] = 0x8000  # -0 everywhere
    x[2, 2, :] = info.max  # overflow of the rotated pair to inf
    for pos in (np.arange(8.0), np.zeros(8), np.arange(8.0) * 1e3 + 0.25):
        for mode in ("alloc", "out=", "in place"):
            _both(x, mode, layout, positions=pos)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pairs_of_non_finite_values(fused16, dtype, layout):
    """Every pair of NaNs (payloads and signs, signalling and quiet), infs, 1 and 0: where both
    members are NaN the NumPy route keeps the first operand's NaN, and so must the kernels."""
    if dtype == np.float16:
        vals = [0x7C01, 0xFC03, 0x7E05, 0xFE07, 0x3C00, 0x7C00, 0xFC00, 0, 0x8000, 0x7BFF]
    else:
        vals = [0x7F81, 0xFF83, 0x7FC5, 0xFFC7, 0x3F80, 0x7F80, 0xFF80, 0, 0x8000, 0x7F7F]
    pairs = np.array([(a, b) for a in vals for b in vals], np.uint16)
    x = np.zeros((len(pairs), 4), np.uint16)
    if layout == "split":
        x[:, 0], x[:, 2], x[:, 1], x[:, 3] = pairs[:, 0], pairs[:, 1], pairs[:, 0], pairs[:, 1]
    else:
        x[:, 0], x[:, 1], x[:, 2], x[:, 3] = pairs[:, 0], pairs[:, 1], pairs[:, 0], pairs[:, 1]
    x = x.view(dtype)
    for pos in (np.arange(len(pairs)) + 1.0, np.zeros(len(pairs))):
        for mode in ("alloc", "in place"):
            _both(x, mode, layout, positions=pos)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mode", ["alloc", "out=", "in place"])
def test_partial_rotary_accurate_and_broadcast_positions(fused16, dtype, layout, mode):
    x = _x((2, 3, 19, 12), dtype, scale=300.0)
    x.view(np.uint16)[0, 0, 0, 10:] = 0x7F81 if dtype != np.float16 else 0x7C01  # passed through
    rng = np.random.default_rng(2)
    for rd in (2, 6, 10):
        _both(x, mode, layout, positions=np.arange(19.0), rotary_dim=rd)
    _both(x, mode, layout, positions=np.arange(19.0) * 1e6, accurate=True)
    _both(x, mode, layout, positions=rng.integers(0, 5000, (3, 19)).astype(np.float64))
    _both(x, mode, layout, positions=rng.integers(0, 5000, (2, 1, 19)).astype(np.float64))
    _both(x, mode, layout, positions=np.full((1, 1, 1), 77.0))
    _both(x, mode, layout, positions=np.full((3, 1), 5.5))
    _both(x, mode, layout, position_ids=rng.integers(0, 3000, (2, 19)))
    _both(x[0, 0, 0], mode, layout, positions=3.0)  # 1-D x, scalar position


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_several_position_blocks_and_groups(fused16, dtype, layout):
    x = _x((3, 2, 301, 16), dtype)
    pos = np.arange(301.0) + 999
    per_head = np.random.default_rng(3).uniform(0, 1e4, (2, 301))
    with _route(False):
        want = (numeric.apply_rope(x, pos, layout=layout),
                numeric.apply_rope(x, per_head, layout=layout))
    for table_bytes, group in ((1, 2), (100, 1), (4096, 3), (12345, 2), (1 << 22, 5)):
        with _route(True, FUSED_TABLE_BYTES=table_bytes, FUSED_GROUP=group):
            got = (numeric.apply_rope(x, pos, layout=layout),
                   numeric.apply_rope(x, per_head, layout=layout))
        assert all(same_bits(g, w) for g, w in zip(got, want))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_strides_aliasing_and_tuples(fused16, dtype, layout):
    base = _x((3, 21, 2, 10), dtype)
    _both(np.swapaxes(base, 0, 2).swapaxes(1, 2), "alloc", layout, positions=np.arange(21.0))
    _both(base[::2, ::3, 1, :], "out=", layout, positions=np.arange(7.0))
    x = _x((2, 13, 16), dtype)
    _both(x[..., ::2], "alloc", layout, must_fuse=False, positions=np.arange(13.0))
    _both(x[:, ::-1, :], "alloc", layout, must_fuse=False, positions=np.arange(13.0))
    ro = x.copy()
    ro.flags.writeable = False
    _both(ro, "alloc", layout, positions=np.arange(13.0))
    _both(np.broadcast_to(x[:1], (3, 13, 16)), "alloc", layout, positions=np.arange(13.0))
    # out shifted by one row over x (x read as it was, on both routes)
    buf = _x((2 * 39 * 16 + 16,), dtype)
    results = []
    for route in (False, True):
        b = buf.copy()
        xv, out = b[: 2 * 39 * 16].reshape(2, 39, 16), b[16:].reshape(2, 39, 16)
        with _route(route):
            numeric.apply_rope(xv, np.arange(39.0), out=out, layout=layout)
        results.append(out.copy())
    assert same_bits(results[1], results[0])
    # in place on a view with strided rows, partial rotary
    wide = _x((4, 9, 14), dtype)
    outs = []
    for route in (False, True):
        y = wide.copy()
        with _route(route):
            numeric.apply_rope(y[..., :10], np.arange(9.0), out=y[..., :10], rotary_dim=8,
                               layout=layout)
        outs.append(y)
    assert same_bits(outs[1], outs[0])
    # a tuple (q, k) of both dtypes
    q, k = _x((2, 4, 9, 8), dtype, 5), _x((2, 2, 9, 8), np.float32, 6)
    with _route(False):
        want = numeric.apply_rope((q, k), np.arange(9.0), layout=layout)
    with _route(True):
        got = numeric.apply_rope((q, k), np.arange(9.0), layout=layout)
    assert same_bits(got[0], want[0])
    assert np.array_equal(got[1].view(np.uint32), want[1].view(np.uint32))


@settings(deadline=None, max_examples=40)
@given(dtype=st.sampled_from(DTYPES), layout=st.sampled_from(LAYOUTS),
       lead=st.lists(st.integers(1, 3), max_size=3), seq=st.integers(1, 40),
       h=st.integers(1, 9), extra=st.integers(0, 3),
       mode=st.sampled_from(("alloc", "out=", "in place")), seed=st.integers(0, 2**32 - 1),
       scale=st.sampled_from((1.0, 1e-6, 3e4)))
def test_kernels_on_drawn_shapes(dtype, layout, lead, seq, h, extra, mode, seed, scale):
    pytest.importorskip("numba", exc_type=ImportError)
    if _rope_kernels.HALF_KERNELS.get() is None:
        pytest.skip(f"the 16-bit kernels are not used: {_rope_kernels.HALF_KERNELS.unavailable}")
    x = _x(tuple(lead) + (seq, 2 * h + 2 * extra), dtype, seed, scale)
    rng = np.random.default_rng(seed)
    per_head = bool(lead) and rng.random() < 0.5
    pos = rng.uniform(-1e4, 1e4, (lead[-1], seq) if per_head else (seq,))
    _both(x, mode, layout, positions=pos, rotary_dim=2 * h)


# ----------------------------------------------------------------------------------------
# the route: automatic by size, and the fallback without numba


def test_small_x_stays_in_numpy_and_large_x_takes_the_kernels(fused16):
    x = _x((4, 64, 8), ml_dtypes.bfloat16)
    for layout in LAYOUTS:
        with _route(None), _count_fused() as seen:
            numeric.apply_rope(x, np.arange(64.0), layout=layout)
        assert seen == [False]
        with _route(None, FUSED_MIN_BYTES=x.size * 4), _count_fused() as seen:
            numeric.apply_rope(x, np.arange(64.0), layout=layout)
        assert seen == [True]


def test_medium_x_takes_the_kernels_once_they_are_imported(fused16, monkeypatch):
    """Between FUSED_LOADED_MIN_BYTES and FUSED_MIN_BYTES (of the float32 copy) the kernels
    run only when imported already, with the NumPy route's bits."""
    x = _x((4, 64, 32), ml_dtypes.bfloat16)  # 16 KiB, 32 KiB as float32
    assert _rope_kernels.FUSED_LOADED_MIN_BYTES <= x.size * 4 < _rope_kernels.FUSED_MIN_BYTES
    fresh = OptionalKernel("the kernels", _rope_kernels._load_half)
    monkeypatch.setattr(_rope_kernels, "HALF_KERNELS", fresh)
    want = {}
    for layout in LAYOUTS:
        with _route(None), _count_fused() as seen:
            want[layout] = numeric.apply_rope(x, np.arange(64.0), layout=layout)
        assert seen == [False]
    assert fresh.get() is not None
    for layout in LAYOUTS:
        with _route(None), _count_fused() as seen:
            got = numeric.apply_rope(x, np.arange(64.0), layout=layout)
        assert seen == [True]
        assert same_bits(got, want[layout])


def test_without_the_extra_the_numpy_route_runs_quietly(monkeypatch, recwarn):
    monkeypatch.setattr(_rope_kernels, "HALF_KERNELS", OptionalKernel("the kernels", no_numba))
    monkeypatch.setattr(_rope_kernels, "SPLIT_KERNEL", OptionalKernel("the kernel", no_numba))
    monkeypatch.setattr(_rope_kernels, "FUSED_MIN_BYTES", 0)
    x = _x((2, 9, 8), ml_dtypes.bfloat16)
    for layout in LAYOUTS:
        got = numeric.apply_rope(x, np.arange(9.0), layout=layout)
        with _route(False):
            assert same_bits(got, numeric.apply_rope(x, np.arange(9.0), layout=layout))
    assert not recwarn.list
    with _route(True), pytest.raises(ImportError, match="no numba"):
        numeric.apply_rope(x, np.arange(9.0))


def test_an_unrecognised_complex_multiply_keeps_the_interleaved_layout_in_numpy(fused16,
                                                                                monkeypatch):
    """The probe found neither model of NumPy's complex multiply: interleaved 16-bit x takes
    the NumPy route (the split layout does not depend on it)."""
    monkeypatch.setattr(_rope_kernels, "HALF_FMA", None)
    monkeypatch.setattr(_rope_kernels, "_HALF_FMA_PROBED", True)
    x = _x((2, 9, 8), np.float16)
    _both(x, "alloc", "interleaved", must_fuse=False, positions=np.arange(9.0))
    with _route(True), _count_fused() as seen:
        numeric.apply_rope(x, np.arange(9.0), layout="interleaved")
        numeric.apply_rope(x, np.arange(9.0), layout="split")
    assert seen == [False, True]


def test_the_probe_recognises_this_numpy(fused16, monkeypatch):
    monkeypatch.setattr(_rope_kernels, "_HALF_FMA_PROBED", False)
    from pe_symbolic.numeric import _core, _rope_fused16

    assert _rope_kernels._probe_fma(_rope_fused16, _core._rope_product()) in (True, False)


# ----------------------------------------------------------------------------------------
# the fast loops: rows of finite x (finite table) skip the NaN selects; a row holding a
# non-finite value takes the exact loop, which must give the same bits as the NumPy route


def _non_finite_bits(dtype) -> list[int]:
    """Infs of both signs, quiet and signalling NaNs of both signs and several payloads."""
    if dtype == np.float16:
        return [0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFDFF, 0x7FFF]
    return [0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0xFFBF, 0x7FFF]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [128, 18])
@pytest.mark.parametrize("mode", ["out=", "in place"])
def test_rows_mixing_finite_and_non_finite_values(fused16, dtype, layout, d, mode):
    """Every other row holds one non-finite value among finite ones, at its first column, at
    a middle one (the last of the first half and the first of the second) or at its last;
    the rows between are finite, some with the largest finite values (still the fast loop).
    In place the row is checked before it is written. Rows of 128 (whole vectors) and 18
    (a scalar tail) values."""
    info = ml_dtypes.finfo(dtype) if dtype != np.float16 else np.finfo(dtype)
    cols = [0, d // 2 - 1, d // 2, d - 1]
    bad = _non_finite_bits(dtype)
    rows = 2 * len(cols) * len(bad) + 1
    x = _x((2, rows, d), dtype, seed=11, scale=4.0)
    u = x.view(np.uint16)
    for k, (c, v) in enumerate((c, v) for c in cols for v in bad):
        u[k % 2, 2 * k + 1, c] = v
    x[:, 0::4, 1] = info.max  # finite extremes in the finite rows
    x[:, 2::4, -2] = -info.max
    pos = np.arange(rows, dtype=np.float64) * 0.37
    _both(x, mode, layout, positions=pos)
    # one head's row non-finite, the other heads' rows at that position (same table row) not
    y = _x((3, 4, d), dtype, seed=12)
    y.view(np.uint16)[1, 2, d // 2] = bad[2]
    _both(y, mode, layout, positions=np.arange(4.0) + 5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mode", ["out=", "in place"])
def test_fast_rows_whose_sums_overflow(fused16, dtype, layout, mode):
    """Finite x whose rotated pairs overflow: the sum (bfloat16, in float32) or its rounding
    (float16) to inf, which the fast loop's rounding must carry into inf as ``astype`` does;
    with an attention factor of 2 the products overflow too, and ``inf - inf`` is the default
    NaN, which the fast loop rounds to NumPy's bits without the NaN select."""
    info = ml_dtypes.finfo(dtype) if dtype != np.float16 else np.finfo(dtype)
    x = np.empty((2, 6, 32), dtype)
    big = float(info.max)
    x[0], x[1] = big, -big
    x[:, 1::2, 8:16] = -big  # pairs of opposite signs (both layouts mix them)
    x[:, 3, 20:] = info.max * 0.75
    pos = np.array([np.pi / 4, 0.3, 2.0, 1.1, np.pi * 0.75, 5.0])
    _both(x, mode, layout, positions=pos)
    _both(x, mode, layout, positions=pos, attention_factor=2.0)
    _both(x, mode, layout, positions=pos, attention_factor=1.0 + 2.0**-7)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mode", ["out=", "in place"])
def test_a_non_finite_table_takes_the_exact_loops(fused16, dtype, layout, mode):
    """A table with infs (an attention factor past float32's range) or NaNs (angles past
    float64's range): x finite everywhere, the NaNs come from the table (``0 * inf`` too)."""
    x = _x((2, 5, 16), dtype, seed=13)
    x.view(np.uint16)[0, 2, :3] = 0
    pos = np.arange(5.0)
    _both(x, mode, layout, positions=pos, attention_factor=1e39)
    _both(x, mode, layout, positions=pos + 1e15, inv_freq=np.full(8, 1e300))
    _both(x, mode, layout, positions=pos, inv_freq=np.array([1e308] + [1.0] * 7))


def test_the_fast_loops_match_the_exact_ones_on_finite_rows(fused16):
    """The kernels called directly on every finite 16-bit pattern, with tables of |c|, |s| up
    to 2 (products that overflow): the fast loops (a finite table) and the exact ones (the
    same table with a NaN in a row of its own, which the check sees, so the whole call takes
    the exact loops) give the same bits. (Float16 split has the exact loop only.)"""
    from pe_symbolic.numeric import _rope_fused16 as F

    rng = np.random.default_rng(14)
    h, off = 64, np.zeros(1, np.int64)
    for f16 in (False, True):
        bits = np.arange(65536, dtype=np.uint16)
        inf = 0x7C00 if f16 else 0x7F80
        finite = rng.permutation(bits[(bits & inf) != inf])
        rows = finite.size // (2 * h)
        xf = finite[: rows * 2 * h].copy()
        for layout, fmas in (("split", (None,)), ("interleaved", (True, False))):
            w = 2 if layout == "split" else 3
            ang = rng.uniform(-4, 4, (rows + 1, h))
            scale = rng.choice([1.0, 2.0, 1.0 + 2.0**-8], (rows + 1, 1))
            c = (np.cos(ang) * scale).astype(np.float32)
            s = (np.sin(ang) * scale).astype(np.float32)
            tab = np.concatenate([c, s, -s][:w], axis=1)
            nan_tab = tab.copy()
            nan_tab[rows, 0] = np.nan  # (row ``rows``: not read for x's rows)
            for fma in fmas:
                outs = []
                for cs in (tab, nan_tab):
                    of = np.zeros(rows * 2 * h, np.uint16)
                    args = (xf, off, 2 * h, of, off, 2 * h, cs.reshape(-1), off, rows + 1, 1,
                            0, rows, h, 1, f16)
                    with np.errstate(all="ignore"):
                        if fma is None:
                            F.split16(*args)
                        else:
                            F.interleaved16(*args, fma)
                    outs.append(of)
                assert np.array_equal(outs[0], outs[1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_table_nan_with_a_payload(fused16, dtype):
    """The kernels called directly with cosines that are NaNs with payloads (no phasor source
    makes them; a caller's table might): the fast loops' rounding would keep the payload, so
    the table check must send the call to the exact loops. Against NumPy's float32 arithmetic
    and ``astype``, as the NumPy route computes. (Only cosines: where a sine alone is NaN the
    split kernel's NaN has the other sign than NumPy's, in the exact loop as before: LLVM
    folds ``x_b * -s`` into ``-(x_b s)``; no phasor source makes such a table either.)"""
    from pe_symbolic.numeric import _core
    from pe_symbolic.numeric import _rope_fused16 as F

    f16 = dtype == np.float16
    rows, h = 6, 16
    x = _x((rows, 2 * h), dtype, seed=15)
    xf = x.view(np.uint16).reshape(-1)
    rng = np.random.default_rng(16)
    ang = rng.uniform(-4, 4, (rows, h))
    c, s = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    for nan in (0x7FA00001, 0xFFE01234):
        c2, s2 = c.copy(), s.copy()
        c2.view(np.uint32)[1, 3] = nan
        c2.view(np.uint32)[4, 0] = nan ^ 0x80000000
        x32 = x.astype(np.float32)
        off = np.zeros(1, np.int64)
        with np.errstate(all="ignore"):
            xa, xb = x32[:, :h], x32[:, h:]
            want = np.concatenate([xa * c2 + xb * -s2, xb * c2 + xa * s2], axis=1).astype(dtype)
            got = np.zeros_like(xf)
            F.split16(xf, off, 2 * h, got, off, 2 * h, np.concatenate([c2, s2], 1).reshape(-1),
                      off, rows, 1, 0, rows, h, 1, f16)
        assert np.array_equal(got, want.view(np.uint16).reshape(-1))
        fma = _rope_kernels._probe_fma(F, _core._rope_product())
        if fma is None:  # pragma: no cover (a complex multiply of neither model)
            continue
        with np.errstate(all="ignore"):
            z = (c2 + 1j * s2).astype(np.complex64)
            want = np.multiply(x32.view(np.complex64), z).view(np.float32).astype(dtype)
            got = np.zeros_like(xf)
            F.interleaved16(xf, off, 2 * h, got, off, 2 * h,
                            np.concatenate([c2, s2, -s2], 1).reshape(-1), off, rows, 1, 0,
                            rows, h, 1, f16, fma)
        assert np.array_equal(got, want.view(np.uint16).reshape(-1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_in_place_takes_the_one_array_kernels(fused16, dtype, layout):
    """out is x: the kernels that read x's rows through out itself run (two arrays on one
    buffer defeat the loops' vectorisation), with the NumPy route's bits; a non-finite entry
    and a partial rotary dim included. Out of place and an overlapping out do not take them."""
    from pe_symbolic.numeric import _rope_fused16 as F

    x = _x((3, 2, 37, 20), dtype, seed=5)
    x[1, 0, 7, 3] = np.inf
    x[2, 1, 30, 11] = np.nan
    with calls_of(F, f"{layout}16_inplace") as calls:
        _both(x, "in place", layout, positions=np.arange(37.0) * 7, rotary_dim=16)
        assert calls
        calls.clear()
        _both(x, "out=", layout, positions=np.arange(37.0) * 7)
        assert not calls
