"""Why a test failed: the first position / slot, and the cause, found by reproducing it.

A failed call is explained by *candidates*: each is what a common bug would output --
no rotation at all, positions offset by one, the rotation the other way, the other layout's
pairs, the scaling ignored, ``rope_theta`` back to 10000, the partial-rotary exponent over
the head dim, the factor applied the wrong way or twice, the attention factor missing or
on one table only, the tables of the other side of a length switch (PhiMoE's bug), the
positions narrowed to int16, every row given row 0's positions, angles formed in float32,
bfloat16 or float16 -- and a candidate *explains* the failure when it reproduces the
output at the failing rows (what is left is within twice the bound, or a fifth of the
difference). Then the call is taken apart: the same inputs again (stateful code), the
failing position alone (a sequence of 1), the failing batch row or head alone, the other
position dtype -- so that "wrong only for sequences longer than 64" or "batch rows 2 and
up" is said as such. Positions that fail inside a call that is right elsewhere are named
as a window.

A cause that is only a loss of precision (angles formed in a low precision) makes the
verdict ``out of bound``; every other ``differs``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .geometry import Geometry, Oracle, expected_pairs
from .positions import name_positions, wrong_from
from .probe import Failure, ProbeResult, bound, cast, exact, pair_positions, reduced_angles, sequence

__all__ = ["diagnose"]


def _variant(geo: Geometry, want: np.ndarray | None = None, **changes: Any) -> Geometry:
    if want is not None:
        changes.update(want=np.asarray(want, dtype=np.float64), hi=np.asarray(want, dtype=np.float64),
                       lo=np.zeros(len(want)))
    if "factor" in changes:
        changes["factor_exact"] = changes["factor"]
    return dataclasses.replace(geo, **changes)


def _low_angles(x: np.ndarray, ids: np.ndarray, geo: Geometry, dt: str, cos_only_factor: bool = False) -> np.ndarray:
    """RoPE with angles formed as ``fl(fl(m) fl(omega))`` in ``dt`` (float64 cos / sin)."""
    def rnd(v: np.ndarray) -> np.ndarray:
        return cast(np.asarray(v, dtype=np.float64), dt)

    out = np.array(x, dtype=np.float64)
    for p, (a, b) in enumerate(geo.pairs):
        m = ids if ids.ndim == 2 else ids[geo.axes[p]]
        ang = rnd(rnd(m.astype(np.float64)) * rnd(np.array(geo.want[p])))[:, None, :]
        c, s = np.cos(ang) * geo.factor, np.sin(ang) * geo.factor * geo.direction
        xa, xb = out[..., a].copy(), out[..., b].copy()
        out[..., a], out[..., b] = xa * c - xb * s, xa * s + xb * c
    return out


def _fast_trig(x: np.ndarray, ids: np.ndarray, geo: Geometry) -> np.ndarray:
    """RoPE with float32 angles and a fast-math intrinsic's cos / sin."""
    from ..emulate import fast_cos_sin

    out = np.array(x, dtype=np.float64)
    for p, (a, b) in enumerate(geo.pairs):
        m = ids if ids.ndim == 2 else ids[geo.axes[p]]
        ang = (m.astype(np.float32) * np.float32(geo.want[p])).astype(np.float32)[:, None, :]
        c, s = fast_cos_sin(ang)
        c, s = c.astype(np.float64) * geo.factor, s.astype(np.float64) * geo.factor * geo.direction
        xa, xb = out[..., a].copy(), out[..., b].copy()
        out[..., a], out[..., b] = xa * c - xb * s, xa * s + xb * c
    return out


def _one_table(x: np.ndarray, ids: np.ndarray, geo: Geometry) -> np.ndarray:
    """RoPE with the attention factor on the cos table only."""
    r = reduced_angles(pair_positions(ids, geo), geo.hi, geo.lo)
    c, s = np.cos(r) * geo.factor, np.sin(r) * geo.direction
    a_idx = np.array([a for a, _ in geo.pairs])
    b_idx = np.array([b for _, b in geo.pairs])
    out = np.array(x, dtype=np.float64)
    xa, xb = out[..., a_idx].copy(), out[..., b_idx].copy()
    out[..., a_idx] = xa * c - xb * s
    out[..., b_idx] = xa * s + xb * c
    return out


def _candidates(f: Failure, geo: Geometry, oracle: Oracle, spec: Any, config: Mapping[str, Any],
                context: int) -> list[tuple[str, str, Callable[[np.ndarray, np.ndarray], np.ndarray]]]:
    """``(kind, cause, predict)``: kind ``"differs"`` or ``"precision"``."""
    cands: list[tuple[str, str, Callable]] = []

    def ex(g: Geometry) -> Callable:
        return lambda x, ids: exact(x, ids, g)

    cands.append(("differs", "it is not rotated at all there (the output is x itself)", lambda x, ids: x))
    for k in (1, -1):
        cands.append(("differs", f"positions are offset by {k:+d} (off-by-one position_ids?)",
                      lambda x, ids, k=k: exact(x, ids + k, geo)))
    def diagonal(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
        r = reduced_angles(pair_positions(ids, geo), geo.hi, geo.lo)
        c, s = np.cos(r) * geo.factor, np.sin(r) * geo.factor * geo.direction
        a_idx = np.array([a for a, _ in geo.pairs])
        b_idx = np.array([b for _, b in geo.pairs])
        out = np.array(x, dtype=np.float64)
        out[..., a_idx] = x[..., a_idx] * (c - s)
        out[..., b_idx] = x[..., b_idx] * (c + s)
        return out

    cands.append(("differs", "each slot is mixed only with itself: the rotation's halves are not swapped "
                  "(rotate_half must return cat(-x2, x1))", diagonal))

    def abs_sin(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
        r = reduced_angles(pair_positions(ids, geo), geo.hi, geo.lo)
        c, s = np.cos(r) * geo.factor, np.abs(np.sin(r)) * geo.factor * geo.direction
        a_idx = np.array([a for a, _ in geo.pairs])
        b_idx = np.array([b for _, b in geo.pairs])
        out = np.array(x, dtype=np.float64)
        out[..., a_idx] = x[..., a_idx] * c - x[..., b_idx] * s
        out[..., b_idx] = x[..., a_idx] * s + x[..., b_idx] * c
        return out

    cands.append(("differs", "sin has lost its sign: it is never negative where the angle is past pi (sin computed as "
                  "sqrt(1 - cos^2)?) -- take sin from the angle itself", abs_sin))

    def sqrt_sin(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
        r = reduced_angles(pair_positions(ids, geo), geo.hi, geo.lo)
        c32 = np.cos(r).astype(np.float32)
        s = np.sqrt(np.float32(1) - c32 * c32).astype(np.float64) * geo.factor * geo.direction
        c = c32.astype(np.float64) * geo.factor
        a_idx = np.array([a for a, _ in geo.pairs])
        b_idx = np.array([b for _, b in geo.pairs])
        out = np.array(x, dtype=np.float64)
        out[..., a_idx] = x[..., a_idx] * c - x[..., b_idx] * s
        out[..., b_idx] = x[..., a_idx] * s + x[..., b_idx] * c
        return out

    cands.append(("emulated", "sin is computed as sqrt(1 - cos^2): it has lost its sign (never negative past pi) and "
                  "its precision near 0 and pi -- take sin from the angle itself", sqrt_sin))
    if geo.r < geo.d:
        sh = geo.d - geo.r
        cands.append(("differs", f"it rotates the trailing {geo.r} channels (slots {sh}..{geo.d - 1}), where the "
                      f"config rotates the leading {geo.r} (slots 0..{geo.r - 1}): rotate x[..., :{geo.r}] and pass "
                      f"x[..., {geo.r}:] through", ex(_variant(geo, pairs=[(a + sh, b + sh) for a, b in geo.pairs]))))
    elif geo.r == geo.d and getattr(spec, "rotary_channels", "leading") == "trailing":
        pass
    for dt in ("bfloat16", "float16"):
        def low_tables(x: np.ndarray, ids: np.ndarray, dt: str = dt) -> np.ndarray:
            r = reduced_angles(pair_positions(ids, geo), geo.hi, geo.lo)
            c = cast(np.cos(r) * geo.factor, dt)
            s_ = cast(np.sin(r) * geo.factor, dt) * geo.direction
            a_idx = np.array([a for a, _ in geo.pairs])
            b_idx = np.array([b for _, b in geo.pairs])
            out = np.array(x, dtype=np.float64)
            out[..., a_idx] = x[..., a_idx] * c - x[..., b_idx] * s_
            out[..., b_idx] = x[..., a_idx] * s_ + x[..., b_idx] * c
            return out

        cands.append(("precision", f"its cos / sin tables are stored in {dt}, a lower dtype than x: each table entry "
                      f"carries {dt}'s rounding into the rotation -- keep the tables in x's dtype (cast them with x, not "
                      "with the model's buffers)", low_tables))
    cands.append(("differs", "the rotation turns the wrong way (every sin has the opposite sign): the minus of "
                  "rotate_half is on the wrong half, or sin is negated", ex(_variant(geo, direction=-geo.direction))))
    other = "interleaved" if geo.layout == "split" else "split"
    cands.append(("differs", f"it pairs the slots as the {other} layout, where the config's weights expect {geo.layout}: "
                  "apply the other layout, or permute the q/k weights",
                  ex(_variant(geo, pairs=expected_pairs(geo.r, other)))))
    i = np.arange(len(geo.want), dtype=np.float64)
    r = spec.rotary_dim
    theta = float(spec.rope_theta)
    if geo.kind == "rope":
        if spec.rope_type not in ("default",):
            cands.append(("differs", f"its frequencies are the plain ladder of rope_theta = {theta:g}: the scaling "
                          f"(rope_type {spec.rope_type!r}) is ignored", ex(_variant(geo, theta ** (-2 * i / r)))))
        if theta != 10000.0:
            cands.append(("differs", "its frequencies are the ladder of base 10000: rope_theta fell back to 10000 (a "
                          "config migration that lost it?)", ex(_variant(geo, 10000.0 ** (-2 * i / r)))))
            if spec.rope_type != "default":
                cands.append(("differs", "its frequencies are the config's scaling applied to base 10000: rope_theta "
                              "fell back to 10000", ex(_variant(geo, geo.want * (10000.0 / theta) ** (-2 * i / r)))))
        if spec.head_dim != r:
            cands.append(("differs", f"the partial-rotary exponent uses head_dim = {spec.head_dim} instead of the "
                          f"rotary dim {r}", ex(_variant(geo, theta ** (-2 * i / spec.head_dim)))))
        if spec.factor:
            fac = float(spec.factor)
            cands.append(("differs", f"the factor {fac:g} is applied the wrong way (multiplied, not divided)",
                          ex(_variant(geo, geo.want * fac**2))))
            cands.append(("differs", f"the factor {fac:g} is applied twice", ex(_variant(geo, geo.want / fac))))
    if oracle.length_dependent and oracle.switch is not None and geo.length is not None:
        sw = oracle.switch
        if geo.length > sw:
            g2 = oracle.at(sw)
            what = ("the short_factor" if spec.rope_type == "longrope" else "the original frequencies")
            cands.append(("differs", f"at length {geo.length} (past the switch at {sw}) its tables are those of a "
                          f"length <= {sw} ({what}): they never switch -- the length is not passed to the rope init, "
                          "or not read from position_ids", ex(_variant(g2, factor=g2.factor))))
            cands.append(("differs", f"at length {geo.length} (past the switch at {sw}) its frequencies are those of "
                          f"a length <= {sw} ({what}) with the long attention factor {geo.factor:.6g}: the tables "
                          "never switch -- the length is not passed to the rope init",
                          ex(_variant(geo, g2.want, factor=geo.factor))))
        else:
            g2 = oracle.at(max(sw + 1, context))
            cands.append(("differs", f"at length {geo.length} (not past the switch at {sw}) it uses the tables of a "
                          "longer length (stale frequencies from an earlier, longer call?)", ex(g2)))
    if geo.factor != 1.0:
        cands.append(("differs", f"attention factor: the rotation is scaled by 1, the config means {geo.factor:.6g} "
                      f"(rope_type {spec.rope_type!r}: mscale / attention_factor)", ex(_variant(geo, factor=1.0))))
        cands.append(("differs", f"attention factor: applied twice ({geo.factor**2:.6g}, the config means "
                      f"{geo.factor:.6g})", ex(_variant(geo, factor=geo.factor**2))))
        cands.append(("differs", "the attention factor (mscale) is applied to the cos table only",
                      lambda x, ids: _one_table(x, ids, geo)))
    cands.append(("differs", "position_ids are narrowed to int16: positions from 32768 on wrap around",
                  lambda x, ids: exact(x, ((ids.astype(np.int64) + 2**15) % 2**16) - 2**15, geo)))
    if f.spec.batch > 1:
        cands.append(("differs", "every batch row is rotated with the first row's positions (position_ids mixed "
                      "between rows)", lambda x, ids: exact(x, np.broadcast_to(ids[..., :1, :], ids.shape).copy(), geo)))
    cands.append(("precision", "its cos / sin are a fast-math intrinsic's (CUDA __sinf / __cosf, Metal fast::): the "
                  "argument is reduced in float32, an error growing with the angle; use the IEEE sin / cos (no "
                  "--use_fast_math) or reduce the angle in float64 first", lambda x, ids: _fast_trig(x, ids, geo)))
    for dt in ("bfloat16", "float16"):
        cands.append(("precision", f"its inverse frequencies are held in {dt} (an inv_freq buffer cast with the model, "
                      "model.to(torch.bfloat16) -- HF issue 25681): the angles drift as the position grows; keep "
                      "inv_freq in float32 (or build the tables in float32 and cast them)",
                      lambda x, ids, dt=dt: _low_angles(x, ids, _variant(geo, cast(geo.want, dt)), "float32")))
        cands.append(("precision", f"its positions are held in {dt} (integers above {2 ** (8 if dt == 'bfloat16' else 11)} "
                      f"are rounded there: a position, then its angle, moves): hold position_ids as integers or float32 "
                      "(rotary-embedding-torch's positions in x's dtype)",
                      lambda x, ids, dt=dt: exact(x, cast(ids.astype(np.float64), dt), geo)))
        cands.append(("precision", f"its positions are held in {dt} and its cos / sin are a fast-math intrinsic's",
                      lambda x, ids, dt=dt: _fast_trig(x, cast(ids.astype(np.float64), dt), geo)))
    for dt in ("float32", "bfloat16", "float16"):
        cands.append(("precision", f"its angles are formed in {dt} (position x frequency rounded to {dt}): they lose "
                      "digits as the position grows; form them in float64 (or float32, as HF's recipe) and round the "
                      "tables once", lambda x, ids, dt=dt: _low_angles(x, ids, geo, dt)))
    return cands


_OFFSET = re.compile(r"^positions are offset by ([+-]\d+) \(off-by-one position_ids\?\)$")


def _rows(a: np.ndarray) -> np.ndarray:
    return np.nanmax(a, axis=-1)


def diagnose(res: ProbeResult, run: Callable[[np.ndarray, np.ndarray], np.ndarray], oracle: Oracle, spec: Any,
             config: Mapping[str, Any], dtype: str, angle_dtype: str) -> tuple[str, list[str]]:
    """``(verdict, why)`` for a probe result with a failure."""
    f = res.failure
    assert f is not None
    plan = res.plan
    if f.what != "oracle":
        return "differs", [f.what]
    geo = oracle.at(f.spec.length)
    x, ids, out, want = f.x, f.spec.ids, f.out, f.want
    assert x is not None and out is not None and want is not None
    pos = f.position
    head = f"head {f.h}" if f.side is None else (f"q head {f.h}" if f.side == "q" else f"k head {f.h - f.nq}")
    where = (f"{f.side}: " if f.side else "") + (
        f"at position {pos}" + (f" (batch row {f.b}, {head}" if f.spec.batch > 1 or f.spec.heads > 1 else " (")
             + f"{', ' if f.spec.batch > 1 or f.spec.heads > 1 else ''}slot {f.slot}"
             + (f", pair {f.pair}" if f.pair is not None else "") + f") in call {f.ncall} ({f.spec.label}, x of shape "
             f"{x.shape}, position_ids {ids.dtype}" + (f", length {f.spec.length}" if f.spec.length is not None else "")
             + ")")
    why = [f"{where}: the output differs from R(theta(m)) x by {f.err:.3g} (bound {f.bound:.3g})"]
    # 1. stateful: the first call again
    first = plan.calls[0]
    if f.call > 1 and 0 in res.outputs and res.first_x is not None:
        again = run(res.first_x, first.ids)
        if not np.array_equal(again, res.outputs[0], equal_nan=True):
            dev = float(np.nanmax(np.abs(again - res.outputs[0])))
            why.append(f"stateful: the first call ({first.label}) made again now gives a different result (by "
                       f"{dev:.3g}) -- its results drift with the calls made (a counter, a cache?); the first "
                       f"{f.ncall - 1} test calls were right")
    # 2. linear in x? (before anything is read as a rotation)
    nonlinear = _linearity(run, x, ids, dtype, geo.factor)
    if nonlinear:
        why.append(nonlinear)
        return "differs", why
    # 3. the failing rows, explained by a candidate (HF's pair: the failing side's heads only)
    dev = np.abs(out - want)
    bpairs, _ = bound(x, ids, geo, dtype, angle_dtype, plan.top)
    brow = bpairs.max(axis=-1) if bpairs.shape[-1] else np.full(out.shape[:-1], 1e-300)
    bad = _rows(dev) > brow
    side = slice(None) if f.side is None else slice(0, f.nq) if f.side == "q" else slice(f.nq, None)
    if f.side is not None:
        bad[:, slice(f.nq, None) if f.side == "q" else slice(0, f.nq)] = False
        cross = _cross_side(run, x, ids, out, f, brow)
        if cross:
            why.append(cross)
            return "differs", why

    def reproduces(ids2: np.ndarray) -> bool:
        pred = exact(x, ids2, geo)
        return bool(np.all(_rows(np.abs(out - pred))[:, side] <= 4 * brow[:, side]))

    def rerun(ids3: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        h = x.shape[1] if ids3.shape[1] * x.shape[1] * x.shape[-1] <= 2**25 else (2 if f.side else 1)
        xx = cast(np.random.default_rng(5).standard_normal((1, h, ids3.shape[1], x.shape[-1])), dtype)
        try:
            got = run(xx, ids3.astype(ids.dtype))
        except Exception:  # noqa: BLE001
            return None
        if f.side is None:
            return xx, got
        nq = h - (h - f.nq if h == x.shape[1] else 1)
        sl = slice(0, nq) if f.side == "q" else slice(nq, None)
        return xx[:, sl], got[:, sl]

    named = name_positions(x, ids, out, bad, geo, reproduces, rerun) if geo.n_axes == 1 else []
    matched: list[tuple[float, str, str]] = [(0.0, "differs", c) for c in named]
    for kind, cause, predict in [] if named else _candidates(f, geo, oracle, spec, config, plan.context):
        try:
            pred = predict(x, ids)
        except Exception:  # noqa: BLE001 - a candidate that does not apply
            continue
        resid = _rows(np.abs(out - pred))
        share = 0.25 if kind in ("precision", "emulated") else 0.02  # an emulated rounding matches less closely
        ok = resid[bad] <= np.maximum(4 * brow[bad], share * _rows(dev)[bad])
        if ok.all():
            matched.append((float(np.max(resid[bad] / np.maximum(_rows(dev)[bad], 1e-300))), kind, cause))
    # 4. taken apart: the failing position alone, the row alone, the other position dtype
    apart = _apart(f, run, geo, dtype, angle_dtype, plan.top) if f.side is None else []
    why += apart
    # 5. a window: the failing positions, when the call is right elsewhere; their extent, every
    #    position within 128 of the first
    tested = np.unique(ids if ids.ndim == 2 else ids.max(axis=0))
    fail = f.positions_failing
    if fail and len(fail) <= max(1, len(tested) // 4) and len(tested) > len(fail):
        lo = max(0, fail[0] - 128)
        near = _failing_near(run, geo, dtype, angle_dtype, plan.top, lo, min(fail[0] + 129, plan.context),
                             ids.shape[0] if ids.ndim == 3 else 0, x.shape[-1])
        shown = sorted(set(fail) | set(near))
        why.append(f"wrong only at positions {sequence(shown)} (right at the other {len(tested) - len(fail)} "
                   f"positions of this call{f' and at every other position in {lo}..{min(fail[0] + 128, plan.context - 1)}' if near else ''}): "
                   "a branch, a table entry or a special case at those positions")
    if matched:
        matched.sort(key=lambda m: m[0])
        exact_ones = [m for m in matched if m[0] <= 1e-3]  # reproduced to the dtype's roundoff: name those only
        causes = [c for _, _, c in (exact_ones or matched)[:2]]
        if fail and any(w.startswith("wrong only at positions") for w in why):
            # matched where a few positions fail: it says what those positions get, not a property
            # of the whole code (off-by-one position_ids would be wrong at every position)
            causes = [_OFFSET.sub(lambda m: f"at those positions only, the position is offset by {m[1]} "
                                  f"(position {fail[0]} is rotated as {fail[0] + int(m[1])})", c) for c in causes]
        why += causes
        if matched[0][1] == "precision":
            return "out of bound", why
        return "differs", why
    n = wrong_from(ids, bad)
    if n is not None and not any(w.startswith("wrong only at positions") for w in why):
        why.append(f"right at every position of this call below {n}, wrong from {n} on (no named cause reproduces it)")
    return "differs", why


def _failing_near(run: Callable, geo: Geometry, dtype: str, angle_dtype: str, top: int, lo: int, hi: int,
                  axes: int, d: int) -> list[int]:
    """The positions in ``lo .. hi - 1`` where ``fn`` leaves its bound (one call, one row)."""
    pos = np.arange(lo, hi, dtype=np.int64)[None]
    ids = pos if not axes else np.stack([pos] * axes)
    x = cast(np.random.default_rng(1).standard_normal((1, 1, pos.shape[1], d)), dtype)
    try:
        got = run(x, ids)
    except Exception:  # noqa: BLE001
        return []
    if got.shape != x.shape:
        return []
    b, _ = bound(x, ids, geo, dtype, angle_dtype, top)
    brow = b.max(axis=-1) if b.shape[-1] else np.full(got.shape[:-1], 1e-300)
    bad = _rows(np.abs(got - exact(x, ids, geo))) > brow
    return [int(p) for p in pos[0][bad[0, 0]]]


def _linearity(run: Callable, x: np.ndarray, ids: np.ndarray, dtype: str, factor: float) -> str | None:
    """``f(x + y) = f(x) + f(y)`` and ``f(3 x) = 3 f(x)`` on the failing call's input."""
    from .probe import EPS

    rng = np.random.default_rng(0)
    y = cast(rng.standard_normal(x.shape) * max(float(np.abs(x).max()), 1e-30), dtype)
    try:
        fx, fy, fxy, f3 = run(x, ids), run(y, ids), run(cast(x + y, dtype), ids), run(cast(3 * x, dtype), ids)
    except Exception:  # noqa: BLE001
        return None
    amp = max(abs(factor), 1.0)
    scale = np.abs(x).max(-1, keepdims=True) + np.abs(y).max(-1, keepdims=True)
    tol = 16 * EPS[dtype] * amp * (scale + 3 * np.abs(x).max(-1, keepdims=True)) + 1e-300
    for dev, what in ((np.abs(fxy - fx - fy), "f(x + y) departs from f(x) + f(y)"),
                      (np.abs(f3 - 3 * fx), "f(3 x) departs from 3 f(x)")):
        bad = np.argwhere(~(dev <= tol))
        if len(bad):
            b, h, s, j = (int(v) for v in bad[0])
            return (f"fn is not linear in x: {what} by {dev[b, h, s, j]:.3g} (tolerance {tol[b, h, s, 0]:.3g}) at "
                    f"batch row {b}, head {h}, slot {j} (a term in x*x, a clip, a threshold or a branch on x?)")
    return None


def _apart(f: Failure, run: Callable, geo: Geometry, dtype: str, angle_dtype: str, top: int) -> list[str]:
    """The failing (row, head, position) in smaller calls: which part of the call's shape matters."""
    x, ids = f.x, f.spec.ids
    assert x is not None
    out: list[str] = []

    def ok(xx: np.ndarray, ii: np.ndarray) -> bool | None:
        try:
            got = run(xx, ii)
        except Exception:  # noqa: BLE001
            return None
        if got.shape != xx.shape:
            return None
        want = exact(xx, ii, geo)
        b, _ = bound(xx, ii, geo, dtype, angle_dtype, top)
        brow = b.max(axis=-1) if b.shape[-1] else np.full(got.shape[:-1], 1e-300)
        return bool((_rows(np.abs(got - want)) <= brow).all())

    sub_ids = ids[..., f.b:f.b + 1, f.s:f.s + 1]
    alone = ok(x[f.b:f.b + 1, f.h:f.h + 1, f.s:f.s + 1], sub_ids)
    shape = x.shape
    if alone:
        row_ids = ids[..., f.b:f.b + 1, :]
        row = ok(x[f.b:f.b + 1, f.h:f.h + 1], row_ids)
        if row and f.h > 0 and ok(x[f.b:f.b + 1], row_ids) is False:
            got = run(x[f.b:f.b + 1], row_ids)
            b, _ = bound(x[f.b:f.b + 1], row_ids, geo, dtype, angle_dtype, top)
            brow = b.max(axis=-1) if b.shape[-1] else np.full(got.shape[:-1], 1e-300)
            badh = np.nonzero((_rows(np.abs(got - exact(x[f.b:f.b + 1], row_ids, geo))) > brow).any(axis=(0, 2)))[0]
            which = (f"head {int(badh[0])} of {shape[1]} is wrong" if len(badh) == 1 else
                     f"heads {sequence([int(h) for h in badh])} of {shape[1]} are wrong")
            out.append(f"head {f.h} alone is right; with {shape[1]} heads it is not: {which} (heads from "
                       f"{int(badh[0])} on treated differently: a loop or a slice over the heads that stops early?)")
            return out
        if f.spec.seq > 1 and row is False:
            out.append(f"the same position alone (a sequence of 1) is right, but in a sequence of {f.spec.seq} it is "
                       "not: the code takes another path for longer sequences")
        elif row and f.b > 0:
            out.append(f"batch row {f.b} alone is right; in a batch of {shape[0]} rows it is not: rows from {f.b} on "
                       "are treated differently (left unrotated, or rotated with another row's positions?)")
        elif row and f.h > 0:
            out.append(f"head {f.h} alone is right; with {shape[1]} heads it is not: heads from {f.h} on are treated "
                       "differently")
        else:
            out.append("the same position alone (a sequence of 1) is right: the result depends on the call's shape")
    other = np.int64 if ids.dtype == np.int32 else np.int32
    if ok(x, ids.astype(other)) and not ok(x, ids):
        out.append(f"with position_ids in {np.dtype(other).name} the same call is right: fn mishandles "
                   f"{ids.dtype} position_ids")
    return out


def _cross_side(run: Callable, x: np.ndarray, ids: np.ndarray, out: np.ndarray, f: Failure,
                brow: np.ndarray) -> str | None:
    """HF's pair: whether the failing side's output changes when only the other side's input
    does (k computed from q, say) -- a second call with the other side's heads redrawn."""
    nq = f.nq
    other = slice(nq, None) if f.side == "q" else slice(0, nq)
    own = slice(0, nq) if f.side == "q" else slice(nq, None)
    x2 = np.array(x)
    x2[:, other] = x2[:, other][:, ::-1] * -1.5 + 0.25  # redrawn, deterministically (exact in every dtype)
    try:
        out2 = run(x2, ids)
    except Exception:  # noqa: BLE001
        return None
    dev = _rows(np.abs(out2[:, own] - out[:, own]))
    if np.any(dev > brow[:, own]):
        o = "k" if f.side == "q" else "q"
        return (f"{f.side}'s output depends on {o}'s input: with {o} changed and {f.side} the same, {f.side}'s rotated "
                f"output changes (by {float(dev.max()):.3g}) -- {f.side} is computed from {o} (a copy-paste such as "
                f"{f.side}_embed = {f.side} * cos + rotate_half({o}) * sin?)")
    return None
