"""The fused split-layout kernel (the ``fast`` extra, numba) against the NumPy kernel, bit for bit.

:mod:`pe_symbolic.numeric._rope_fused` computes ``out_a = fl(fl(x_a c) + fl(x_b (-s)))`` and
``out_b = fl(fl(x_b c) + fl(x_a s))`` in one loop; the NumPy kernel of
:mod:`pe_symbolic.numeric._rope_kernels` the same products and sums in four calls. Every case
runs ``apply_rope(layout="split")`` twice, once per route (``_rope_kernels.FUSED``), and
compares the bytes: float32 and float64 (and float16 / bfloat16, rotated in float32), odd
shapes, positions broadcast along leading axes or constant along the sequence, partial
rotary dims, in place, an ``out`` overlapping ``x``, strided, read-only and reversed inputs,
non-finite entries, several position blocks. The tests that need numba skip without it; the
fallback tests run either way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import calls_of, no_numba, same_bits

from pe_symbolic import numeric
from pe_symbolic.numeric import _rope_kernels
from pe_symbolic.numeric._compiled import OptionalKernel

DTYPES = (np.float32, np.float64)


@pytest.fixture
def fused() -> None:
    """Skip unless the fused kernel imports (numba installed and working)."""
    pytest.importorskip("numba", exc_type=ImportError)
    if _rope_kernels.split_route() != "numba":  # pragma: no cover (a broken numba)
        pytest.skip(f"the fused kernel does not import: {_rope_kernels.SPLIT_KERNEL.unavailable}")


def _route(fused: bool, **sizes: int) -> contextlib.AbstractContextManager:
    """Force the split route (and any block-size attributes) for the duration."""
    return mock.patch.multiple(_rope_kernels, FUSED=fused, **sizes)


@contextlib.contextmanager
def _numpy_kernel_refused() -> Iterator[None]:
    """Fail if the NumPy split kernel runs (the fused route must have taken the case)."""
    numpy_kernel = _rope_kernels._split_numpy

    def refuse(*args, **kwargs):
        raise AssertionError("the NumPy split kernel ran where the fused one should have")

    _rope_kernels._split_numpy = refuse
    try:
        yield
    finally:
        _rope_kernels._split_numpy = numpy_kernel


def _run(x: np.ndarray, mode: str, **kwargs) -> np.ndarray:
    """apply_rope(layout="split") with a fresh output (``alloc``), a NaN-filled ``out=``, or in
    place (on a copy of ``x`` with the same strides)."""
    if mode == "alloc":
        return numeric.apply_rope(x, layout="split", **kwargs)
    if mode == "out=":
        out = np.full(x.shape, np.nan, x.dtype)
        assert numeric.apply_rope(x, layout="split", out=out, **kwargs) is out
        return out
    y = x.copy()
    numeric.apply_rope(y, layout="split", out=y, **kwargs)
    return y


def _both(x: np.ndarray, mode: str = "alloc", *, must_fuse: bool = True, **kwargs) -> None:
    """The two routes give the same bytes; the fused one runs without the NumPy kernel."""
    with _route(False):
        want = _run(x, mode, **kwargs)
    with _route(True), (_numpy_kernel_refused() if must_fuse else contextlib.nullcontext()):
        got = _run(x, mode, **kwargs)
    assert same_bits(got, want)


def _x(shape: tuple[int, ...], dtype, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# ----------------------------------------------------------------------------------------
# shapes, positions, output modes


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 2), (7, 6), (3, 33, 10), (2, 3, 17, 130), (5, 1, 2),
                                   (2, 1, 3, 9, 4)])
@pytest.mark.parametrize("mode", ["alloc", "out=", "in place"])
def test_fused_is_bitwise_the_numpy_kernel(fused, dtype, shape, mode):
    x = _x(shape, dtype)
    seq = shape[-2]
    _both(x, mode, positions=np.arange(seq, dtype=np.float64) + 12345)
    _both(x, mode, positions=np.random.default_rng(1).uniform(-1e5, 1e5, seq))


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_with_positions_along_leading_axes(fused, dtype):
    """Positions varying along a leading axis (broadcast over another), constant along the
    sequence (one table row), and Hugging Face position_ids (batch, seq)."""
    x = _x((2, 3, 11, 8), dtype)
    rng = np.random.default_rng(2)
    _both(x, positions=rng.integers(0, 5000, (3, 11)).astype(np.float64))  # per head
    _both(x, positions=rng.integers(0, 5000, (2, 1, 11)).astype(np.float64))  # per batch
    _both(x, positions=np.full((1, 1, 1), 77.0))  # one position for every row
    _both(x, positions=np.full((3, 1), 5.5))  # one per head, constant along the sequence
    _both(x, position_ids=rng.integers(0, 3000, (2, 11)))
    _both(x, "in place", position_ids=rng.integers(0, 3000, (1, 11)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["alloc", "out=", "in place"])
def test_fused_partial_rotary_and_accurate(fused, dtype, mode):
    x = _x((2, 19, 12), dtype)
    for rd in (2, 6, 10):
        _both(x, mode, positions=np.arange(19.0), rotary_dim=rd)
    _both(x, mode, positions=np.arange(19.0) * 1e6, accurate=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_over_several_position_blocks(fused, dtype):
    """Tables of a few rows: many blocks, a partial last one, positions per head too."""
    x = _x((3, 2, 301, 16), dtype)
    pos = np.arange(301.0) + 999
    per_head = np.random.default_rng(3).uniform(0, 1e4, (2, 301))
    with _route(False):
        want = (numeric.apply_rope(x, pos), numeric.apply_rope(x, per_head))
    for table_bytes, group in ((1, 2), (100, 1), (4096, 3), (12345, 2), (1 << 22, 5)):
        with (_route(True, FUSED_TABLE_BYTES=table_bytes, FUSED_GROUP=group),
              _numpy_kernel_refused()):
            got = (numeric.apply_rope(x, pos), numeric.apply_rope(x, per_head))
        assert all(same_bits(g, w) for g, w in zip(got, want))


# ----------------------------------------------------------------------------------------
# strides, aliasing, dtypes, special values


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_on_strided_inputs_and_outputs(fused, dtype):
    base = _x((3, 21, 2, 10), dtype)
    transposed = np.swapaxes(base, 0, 2)  # (2, 21, 3, 10) viewed as (..., seq, d) below
    _both(np.swapaxes(transposed, 1, 2), positions=np.arange(21.0))  # leading axes permuted
    _both(base[:, 1:20, 0, :], positions=np.arange(19.0))  # a slice of the sequence
    _both(base[::2, ::3, 1, :], positions=np.arange(7.0))  # steps along leading and seq axes
    wide = _x((4, 9, 14), dtype)
    in_place = []
    for route in (False, True):  # in place on a view whose rows are strided
        y = wide.copy()
        with _route(route), (_numpy_kernel_refused() if route else contextlib.nullcontext()):
            numeric.apply_rope(y[..., :10], np.arange(9.0), out=y[..., :10], rotary_dim=8)
        in_place.append(y)
    assert same_bits(in_place[1], in_place[0])
    out = np.full((4, 9, 20), np.nan, dtype)[..., 3:13]  # a strided out=
    with _route(False):
        want = numeric.apply_rope(wide[..., 2:12], np.arange(9.0))
    with _route(True), _numpy_kernel_refused():
        numeric.apply_rope(wide[..., 2:12], np.arange(9.0), out=out)
    assert same_bits(out, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_layouts_the_fused_kernel_hands_back(fused, dtype):
    """A strided last axis or a negative stride: the NumPy kernel runs, same results."""
    x = _x((2, 13, 16), dtype)
    _both(x[..., ::2], must_fuse=False, positions=np.arange(13.0))
    _both(x[:, ::-1, :], must_fuse=False, positions=np.arange(13.0))
    _both(x[::-1], must_fuse=False, positions=np.arange(13.0))
    out = np.empty((2, 13, 32), dtype)[..., ::2]
    with _route(False):
        want = numeric.apply_rope(x[..., :16], np.arange(13.0))
    with _route(True):
        numeric.apply_rope(x, np.arange(13.0), out=out)
    assert same_bits(out, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_with_out_overlapping_x(fused, dtype):
    """out shifted by one row over x: x is read as it was (copied first), on both routes."""
    buf = _x((2 * 39 * 16 + 16,), dtype)
    results = []
    for route in (False, True):
        b = buf.copy()
        x, out = b[: 2 * 39 * 16].reshape(2, 39, 16), b[16:].reshape(2, 39, 16)
        with _route(route):
            numeric.apply_rope(x, np.arange(39.0), out=out)
        results.append(out.copy())
    assert same_bits(results[1], results[0])
    assert same_bits(results[1], numeric.apply_rope(buf[: 2 * 39 * 16].reshape(2, 39, 16),
                                                     np.arange(39.0)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_on_read_only_and_broadcast_x(fused, dtype):
    x = _x((2, 5, 8), dtype)
    x.flags.writeable = False
    _both(x, positions=np.arange(5.0))
    _both(np.broadcast_to(_x((1, 5, 8), dtype), (3, 5, 8)), positions=np.arange(5.0))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_fused_under_half_precision_inputs(fused, dtype):
    if _rope_kernels.HALF_KERNELS.get() is None:  # NumPy 1.x: FUSED=True cannot be honoured
        pytest.skip(f"the 16-bit kernels are not used: {_rope_kernels.HALF_KERNELS.unavailable}")
    x = _x((2, 3, 37, 16), dtype)
    for mode in ("alloc", "out=", "in place"):
        _both(x, mode, positions=np.arange(37.0) + 4000)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_propagates_non_finite_entries_as_numpy_does(fused, dtype):
    x = _x((2, 6, 8), dtype)
    x[0, 0, 0] = np.nan
    x[0, 1, 5] = np.inf
    x[1, 2, 1] = -np.inf
    x[1, 3, 2] = -0.0
    x[1, 4, 3] = np.finfo(dtype).max
    x[1, 5, 4] = np.finfo(dtype).smallest_subnormal
    # (NumPy warns about inf * 0, the compiled loop does not: no floating-point flags there)
    with np.errstate(invalid="ignore"):
        _both(x, positions=np.arange(6.0))
        _both(x, positions=np.zeros(6))  # sin 0 = 0: inf * 0 -> NaN


@given(dtype=st.sampled_from(DTYPES), lead=st.lists(st.integers(1, 3), max_size=3),
       seq=st.integers(1, 40), h=st.integers(1, 9), extra=st.integers(0, 3),
       mode=st.sampled_from(("alloc", "out=", "in place")), seed=st.integers(0, 2**32 - 1),
       table_bytes=st.sampled_from((1, 40, 1000, 2 * 1024 * 1024)), group=st.integers(1, 4))
def test_fused_is_bitwise_the_numpy_kernel_on_drawn_shapes(dtype, lead, seq, h, extra, mode, seed,
                                                           table_bytes, group):
    pytest.importorskip("numba", exc_type=ImportError)
    x = _x(tuple(lead) + (seq, 2 * h + 2 * extra), dtype, seed)
    rng = np.random.default_rng(seed)
    per_head = bool(lead) and rng.random() < 0.5  # positions along the last leading axis too
    pos = rng.uniform(-1e4, 1e4, (lead[-1], seq) if per_head else (seq,))
    with _route(False):
        want = _run(x, mode, positions=pos, rotary_dim=2 * h)
    with (_route(True, FUSED_TABLE_BYTES=table_bytes, FUSED_GROUP=group),
          _numpy_kernel_refused()):
        got = _run(x, mode, positions=pos, rotary_dim=2 * h)
    assert same_bits(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 32, 1, 128), (2, 1, 6), (3, 5, 8), (2, 4, 3, 10)])
@pytest.mark.parametrize("mode", ["alloc", "out=", "in place"])
@pytest.mark.parametrize("positions", ["run", "per head", "constant"])
def test_small_x_is_bitwise_the_blocked_numpy_kernel(dtype, shape, mode, positions):
    """The path for small x (``SMALL_BYTES``: one block, one group, no bookkeeping) against
    the blocked NumPy kernel (``SMALL_BYTES = 0``), NaNs with distinct payloads and signs,
    infinities and partial rotary dims included; no numba needed."""
    x = _x(shape, dtype, seed=3)
    flat = x.reshape(-1)
    flat[:: 7] = np.inf
    flat[3:: 11] = -np.inf
    bits = flat.view(np.uint32 if dtype == np.float32 else np.uint64)
    nan = 0x7FC00000 if dtype == np.float32 else 0x7FF8000000000000
    sign = 1 << (31 if dtype == np.float32 else 63)
    k = np.arange(bits[5::5].size, dtype=bits.dtype)
    bits[5::5] = nan | (k + 1) | np.where(k % 2, sign, 0).astype(bits.dtype)  # NaNs told apart
    seq, d = shape[-2:]
    pos = {"run": np.arange(seq, dtype=np.float64) + 4095,
           "per head": np.random.default_rng(4).uniform(-1e4, 1e4, (shape[-3], seq))
           if len(shape) > 2 else np.arange(seq, dtype=np.float64),
           "constant": np.array([77.0])}[positions]  # the same for every row
    # the decode step must take the small path, which uses no scratch buffer
    no_scratch = (mock.patch.object(_rope_kernels, "scratch", side_effect=AssertionError)
                  if shape == (1, 32, 1, 128) else contextlib.nullcontext())
    for rd in sorted({d, d - d % 4, 2} - {0}):
        with _route(False, SMALL_BYTES=0), np.errstate(invalid="ignore"):
            want = _run(x, mode, positions=pos, rotary_dim=rd)
        with _route(False), np.errstate(invalid="ignore"), no_scratch:
            got = _run(x, mode, positions=pos, rotary_dim=rd)
        assert x.nbytes <= _rope_kernels.SMALL_BYTES
        assert same_bits(got, want), (rd, positions)


# ----------------------------------------------------------------------------------------
# the route: automatic by size, and the fallback without numba


def test_small_x_stays_in_numpy_and_large_x_takes_the_fused_route(fused):
    x = _x((4, 64, 8), np.float32)  # 8 KiB
    with _numpy_kernel_refused(), pytest.raises(AssertionError, match="NumPy split kernel"):
        numeric.apply_rope(x, np.arange(64.0))
    with _route(None, FUSED_MIN_BYTES=x.nbytes), _numpy_kernel_refused():
        numeric.apply_rope(x, np.arange(64.0))


def test_medium_x_takes_the_fused_route_once_the_kernel_is_imported(fused, monkeypatch):
    """Between FUSED_LOADED_MIN_BYTES and FUSED_MIN_BYTES the fused route runs only when its
    kernel is imported already: such a call never pays for importing numba."""
    x = _x((4, 64, 32), np.float32)  # 32 KiB
    assert _rope_kernels.FUSED_LOADED_MIN_BYTES <= x.nbytes < _rope_kernels.FUSED_MIN_BYTES
    fresh = OptionalKernel("the kernel", _rope_kernels._load_split)
    monkeypatch.setattr(_rope_kernels, "SPLIT_KERNEL", fresh)
    with _numpy_kernel_refused(), pytest.raises(AssertionError, match="NumPy split kernel"):
        numeric.apply_rope(x, np.arange(64.0))
    assert not fresh.loaded
    want = numeric.apply_rope(x, np.arange(64.0))
    assert fresh.get() is not None and fresh.loaded
    with _numpy_kernel_refused():
        assert same_bits(numeric.apply_rope(x, np.arange(64.0)), want)
    with _numpy_kernel_refused(), pytest.raises(AssertionError, match="NumPy split kernel"):
        numeric.apply_rope(x[:, :, :16].copy(), np.arange(64.0))  # 16 KiB: NumPy still


def test_without_the_extra_the_numpy_kernel_runs_quietly(monkeypatch, recwarn):
    """numba absent (or not importable): split_route() says "numpy", apply_rope runs as
    before without a warning, and only FUSED=True complains."""
    monkeypatch.setattr(_rope_kernels, "SPLIT_KERNEL", OptionalKernel("the kernel", no_numba))
    monkeypatch.setattr(_rope_kernels, "FUSED_MIN_BYTES", 0)
    assert _rope_kernels.split_route() == "numpy"
    x = _x((2, 9, 8), np.float64)
    got = numeric.apply_rope(x, np.arange(9.0))
    with _route(False):
        assert same_bits(got, numeric.apply_rope(x, np.arange(9.0)))
    assert not recwarn.list
    with _route(True), pytest.raises(ImportError, match="no numba"):
        numeric.apply_rope(x, np.arange(9.0))


def test_a_failing_import_is_caught_once(monkeypatch):
    """The first import attempt decides; an error in it (e.g. a numba built for another NumPy)
    leaves the NumPy kernel in charge."""
    import builtins

    real_import = builtins.__import__

    def broken(name, globals=None, locals=None, fromlist=(), level=0):
        if name.endswith("_rope_fused") or "_rope_fused" in (fromlist or ()):
            raise ImportError("Numba needs NumPy 2.3 or less")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(_rope_kernels, "SPLIT_KERNEL",
                        OptionalKernel("the kernel", _rope_kernels._load_split))
    monkeypatch.setattr(builtins, "__import__", broken)
    assert _rope_kernels.split_route() == "numpy"
    assert "Numba needs NumPy" in _rope_kernels.SPLIT_KERNEL.unavailable
    monkeypatch.setattr(builtins, "__import__", real_import)
    assert _rope_kernels.split_route() == "numpy"  # decided once


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_takes_the_one_array_kernel(fused, dtype):
    """out is x: the kernel that reads x's rows through out itself runs (two arrays on one
    buffer defeat the loop's vectorisation), with the NumPy kernel's bits, partial rotary dim,
    non-finite entries and positions broadcast along a leading axis included; out of place
    (and an out that overlaps x otherwise, which is copied first) it does not."""
    mod = _rope_kernels.SPLIT_KERNEL.get()
    x = _x((3, 2, 37, 20), dtype, seed=3)
    x[1, 0, 7, 3] = np.inf
    x[2, 1, 30, 11] = np.nan
    pos = np.random.default_rng(4).uniform(0, 1e4, (2, 37))
    with calls_of(mod, "split_rows_inplace") as calls, np.errstate(invalid="ignore"):
        _both(x, "in place", positions=pos, rotary_dim=16)
        assert calls
        calls.clear()
        _both(x, "out=", positions=pos)
        big = np.zeros((2, 40, 8), dtype)
        big[:, :37] = x[0, 0, :, :8]
        with _route(True):
            numeric.apply_rope(big[:, :39], np.arange(39.0), out=big[:, 1:])
        assert not calls
