r"""Randomized cross-checks, drawn per run: the user's function against the oracle at the
positions, shapes, position dtypes, lengths and calls it will meet.

A :class:`Plan` is drawn from a seed (reported, and accepted back as ``seed=``). In the
order the calls are made:

1. positions ``0 .. 255`` (three batch rows, each its own order of them, three heads),
   twice: identical calls must give identical results;
2. linearity before anything else is read: ``f(a x + b y)`` against ``a f(x) + b f(y)``
   at small and large magnitudes (``|x|`` about 1e-3 to 1e5, as far as the dtype holds);
3. every position of ``[0, context)`` up to :data:`DENSE_CAP`, in chunks, with ``x`` of
   mixed magnitudes; positions spread over ``[0, context)`` including ``context - 1`` and
   the config's largest admitted position, and windows of 64 positions around random points
   (and the last 64); where the config admits positions beyond the context, 64 spread
   between and the last 64 it admits;
4. shapes: a sequence of 1 (decode, 48 calls at random positions), sequences of 65 and
   257, batch >= 3, heads >= 3; ``position_ids`` in int32 and int64;
5. the first call again, last: a result that changed is stateful code.

Every call is held to the oracle: :func:`exact` forms each angle as a double-double
``m * theta`` (the oracle's 40-digit frequencies split into two float64), reduces it
modulo :math:`2\pi` in double-double and takes ``cos`` / ``sin`` in float64 (in
``long double`` for a float64 check), so its own error is far below any dtype's roundoff.
Each output slot must lie within :func:`bound` of it: the rounding of one rotation in the
dtype (tables rounded once, one product each and one difference: 6 units, or Gappa's
proved constant where Gappa is installed) plus the angle error of the recipe, ``2 |x|
gamma_p m omega_p``, where ``gamma_p`` is the relative error of pair ``p``'s angle when its
inverse frequency comes from ``base ** (-2i/d)`` in a dtype of unit roundoff ``u``: the
rounded exponent, amplified by :math:`|\ln \omega_p|` through the power, a few roundings of
the power, the reciprocal and the scaling, and the product:
:math:`\gamma_p = u\,(|\ln\omega_p| + 8)` (+ the position's own rounding beyond the dtype's
exact integers). HF's recipe forms its angles in float32 whatever the model's dtype, and is
the reference: a float32 / bfloat16 / float16 check is held to its bound; a float64 one to
float64 angles'.

For a length-dependent rule each call is held to the oracle at the length it sees
(``max(position_ids) + 1``, or the length the user states); the calls are made in order of
length, as a generation would meet them (HF's dynamic NTK keeps the frequencies of the
longest length seen until the length falls to the original context).

>>> plan = draw_plan(seed=7, context=4096, top=4095, axes=1, switch=None, length=None, dtype="float32")
>>> plan.seed, sum(c.kind == "decode" for c in plan.calls)
(7, 48)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

from ..gappa import gappa_path, rotation_script, run_gappa
from .geometry import Geometry, Oracle

__all__ = ["CHUNK", "DENSE_CAP", "EPS", "CallSpec", "Failure", "Plan", "ProbeResult", "bound", "draw_plan",
           "exact", "run_plan"]

#: Unit roundoff of each dtype a check runs in.
EPS = {"float64": 2.0**-53, "float32": 2.0**-24, "bfloat16": 2.0**-8, "float16": 2.0**-11}
#: Every position below this is tested (in chunks of :data:`CHUNK`); beyond, a sample.
DENSE_CAP = 2**15
CHUNK = 8192
#: Elements of ``x`` in one prefill call (beyond it the call has fewer heads, then chunks).
PREFILL_BUDGET = 2**25
#: Tokens of the longest prefill (beyond it positions are sampled, and the report says so).
PREFILL_CAP = 2**21
#: Magnitudes of ``x`` the linearity test uses, per dtype (float16 tops out at 65504).
SCALES = {"float64": (1e-3, 30.0, 1e3, 1e5), "float32": (1e-3, 30.0, 1e3, 1e5),
          "bfloat16": (1e-3, 30.0, 1e3, 1e5), "float16": (1e-2, 30.0, 1e3)}

with mpmath.workdps(40):
    _TWO_PI_HI = float(2 * mpmath.pi)
    _TWO_PI_LO = float(2 * mpmath.pi - mpmath.mpf(_TWO_PI_HI))


@dataclass
class CallSpec:
    """One planned call: its ``position_ids`` (``(batch, seq)`` or ``(axes, batch, seq)``),
    heads, the magnitude of ``x`` (None: mixed per position) and the oracle's length."""

    label: str
    kind: str
    ids: np.ndarray
    heads: int
    scale: float | None
    length: int | None
    linear: tuple[float, float] | None = None  # (a, b): f(a x + b y) against a f(x) + b f(y)
    check: np.ndarray | None = None  # the sequence indices held to the oracle (None: all of them)

    @property
    def batch(self) -> int:
        return int(self.ids.shape[-2])

    @property
    def seq(self) -> int:
        return int(self.ids.shape[-1])


@dataclass
class Plan:
    """The drawn calls (see the module notes)."""

    seed: int
    context: int
    top: int
    calls: list[CallSpec]
    dense_to: int
    notes: list[str] = field(default_factory=list)


def _length(ids: np.ndarray) -> int:
    return int(ids.max()) + 1


def draw_plan(*, seed: int, context: int, top: int, axes: int, switch: int | None, length: int | None,
              dtype: str, decode_only: bool = False, heads: tuple[int, int] = (1, 1), pair: bool = False,
              head_dim: int | None = None) -> Plan:
    """The calls of one run (see the module notes).

    ``context``: positions ``0 .. context - 1``; ``top``: the config's largest admitted
    position (tested too); ``switch``: a length-dependent rule's switch length (lengths
    on each side are tested); ``length``: the length the user states the implementation
    sees (every call's oracle length; None: ``max(position_ids) + 1``); ``decode_only``:
    an entry point that takes one position per row (``"decode"``); ``heads``: the config's
    (q heads, kv heads); ``pair``: HF's pair, each call's heads split into q and k heads
    (one head per call at least is then two); ``head_dim``: for the prefill's memory (no
    prefill without it).
    """
    rng = np.random.default_rng(seed)
    calls: list[CallSpec] = []
    dep = switch is not None
    one = 2 if pair else 1  # the fewest heads of a call: one q head and one k head for a pair
    plan_notes: list[str] = []

    def ids_of(pos: np.ndarray, dt: Any, *, same_axes: bool = True) -> np.ndarray:
        pos = np.asarray(pos, dtype=np.int64)
        if axes == 1:
            return pos.astype(dt)
        out = np.stack([pos] + [pos if same_axes else rng.permuted(pos, axis=-1) for _ in range(axes - 1)])
        return out.astype(dt)

    def spec(label: str, kind: str, ids: np.ndarray, heads: int, scale: float | None,
             linear: tuple[float, float] | None = None) -> CallSpec:
        return CallSpec(label, kind, ids, heads, scale, (length if length is not None else _length(ids)) if dep
                        else None, linear)

    n0 = min(256, context)
    if decode_only:
        first = np.stack([rng.integers(0, n0, 1) for _ in range(3)])
    else:
        first = np.stack([np.arange(n0), np.arange(n0)[::-1], rng.permutation(n0)])
    f_ids = ids_of(first, np.int64)
    calls += [spec(f"positions 0..{n0 - 1}", "first", f_ids, 3, 1.0),
              spec(f"positions 0..{n0 - 1}, the same call again", "again", f_ids, 3, 1.0)]
    # linearity at magnitudes, at spread positions, before anything else is read
    spread_n = 1 if decode_only else 64
    lin: list[CallSpec] = []
    for s in SCALES[dtype]:
        pos = rng.integers(0, context, (3, spread_n))
        pos[0, -1] = context - 1
        a, b = (rng.uniform(0.5, 2.0) * rng.choice([-1, 1]) for _ in range(2))
        lin.append(spec(f"linearity at |x| ~ {s:g}", "linearity", ids_of(pos, np.int32), 3, s, (float(a), float(b))))
    dense_to = min(context, DENSE_CAP)
    body: list[CallSpec] = []
    if not decode_only:
        for k, start in enumerate(range(0, dense_to, CHUNK)):
            stop = min(start + CHUNK, dense_to)
            body.append(spec(f"every position {start}..{stop - 1}", "dense",
                             ids_of(np.arange(start, stop)[None], np.int32 if k % 2 else np.int64, same_axes=k % 2 == 0),
                             one, None))
        pts = set(int(v) for v in rng.integers(0, context, 510)) | {context - 1, min(top, 2**31 - 1)}
        if dep and switch is not None:
            pts |= {p for p in (switch - 1, switch) if p < context}
        pts_arr = np.array(sorted(pts), dtype=np.int64)
        per = -(-len(pts_arr) // 3)
        rows = np.resize(np.concatenate([pts_arr, rng.choice(pts_arr, 3 * per - len(pts_arr))]), (3, per))
        rows = rng.permuted(rows, axis=1)
        body.append(spec(f"{len(pts_arr)} positions spread over 0..{context - 1}" +
                         (f" and {top}" if top >= context else ""), "spread", ids_of(rows, np.int32, same_axes=False),
                         3, None))
        for c in sorted(set(int(v) for v in rng.integers(0, context, 8))) + [context - 32]:
            lo = max(0, min(c - 32, context - 64))
            body.append(spec(f"a window {lo}..{lo + 63}", "window", ids_of(np.arange(lo, lo + 64)[None], np.int64),
                             3, None))
        if top >= context:  # admitted beyond the context tested: a spread up to it and its last window
            hi = min(top, 2**31 - 1)
            pos = np.sort(rng.integers(context, hi + 1, (3, 64)), axis=1)
            body.append(spec(f"64 positions spread over {context}..{hi} (admitted by the config, beyond the "
                             "context)", "beyond", ids_of(pos, np.int64), 3, None))
            body.append(spec(f"the last window {hi - 63}..{hi} (the config's largest admitted positions)", "window",
                             ids_of(np.arange(hi - 63, hi + 1)[None], np.int32), 3, None))
        for n in (65, 257):
            pos = np.sort(rng.integers(0, context, (3, n)), axis=1)
            body.append(spec(f"a sequence of {n}", "long", ids_of(pos, np.int32), 5 if n == 65 else 3, None))
        if dep and switch is not None and length is None:
            for L in sorted({min(switch, context), min(switch + 1, context), context}):
                if L > 64:
                    pos = np.sort(rng.integers(0, L - 1, (3, 63)), axis=1)
                    pos[:, -1] = L - 1
                    body.append(spec(f"length {L} ({'<=' if L <= switch else '>'} the switch at {switch})", "length",
                                     ids_of(pos, np.int64), 3, None))
    hq, hk = heads
    shapes = [(hq + hk, "q and k heads")] if pair else [(hq, "q-shaped")] + ([(hk, "k-shaped")] if hk != hq else [])
    n_model = 1 if decode_only else min(64, context)
    for h, what in shapes:  # every head of the model, batch 2 with distinct positions, the end included
        pos = np.sort(rng.integers(0, context, (2, n_model)), axis=1)
        pos[1, -1] = context - 1
        body.append(spec(f"the model's {h} heads ({what}), batch rows with distinct positions", "heads",
                         ids_of(pos, np.int64), max(h, one), None))
    if not decode_only and head_dim:
        body += _prefill(spec, ids_of, rng, context, shapes[0][0] if shapes else one, one, head_dim, plan_notes)
    for k in range(48):
        pos = rng.integers(0, context, (3, 1))
        if k == 0:
            pos[0, 0] = context - 1
        body.append(spec("decode (a sequence of 1)", "decode", ids_of(pos, np.int32 if k % 2 else np.int64), 3, None))
    if dep:  # a generation meets the lengths in order (linearity first among equals)
        body = sorted(lin + body, key=lambda c: c.length or 0)
    else:
        body = lin + body
    calls += body
    calls.append(spec(f"positions 0..{n0 - 1} once more, last", "repeat", f_ids, 3, 1.0))
    notes = plan_notes
    if dep:
        notes.append("calls made in order of length, as a generation meets them")
    return Plan(seed, context, top, calls, 0 if decode_only else dense_to, notes)


#: Sequence indices of a prefill held to the oracle: both ends and random interior points.
PREFILL_ENDS, PREFILL_INTERIOR = 256, 768


def _prefill(spec: Callable, ids_of: Callable, rng: np.random.Generator, context: int, heads: int, one: int, d: int,
             notes: list[str]) -> list[CallSpec]:
    """One prefill of the whole context (``context`` tokens, positions ``0 .. context - 1``),
    with every head of the model where it fits :data:`PREFILL_BUDGET` elements, else fewer
    heads, else in chunks with their true offsets (as a chunked prefill would); at most
    :data:`PREFILL_CAP` tokens. Every position's output is computed by ``fn``; the oracle
    checks both ends and random interior points of each call."""
    n = min(context, PREFILL_CAP)
    if n <= 256:
        return []
    h = heads if n * heads * d <= PREFILL_BUDGET else one
    per = max(256, PREFILL_BUDGET // (h * d))
    out = []
    starts = list(range(0, n, per))
    for k, start in enumerate(starts):
        stop = min(start + per, n)
        m = stop - start
        inner = np.arange(PREFILL_ENDS, max(PREFILL_ENDS, m - PREFILL_ENDS))
        pick = rng.choice(inner, min(PREFILL_INTERIOR, len(inner)), replace=False) if len(inner) else inner
        check = np.unique(np.concatenate([np.arange(min(PREFILL_ENDS, m)), np.arange(max(0, m - PREFILL_ENDS), m),
                                          pick]))
        label = (f"a prefill of {n} tokens (positions 0..{n - 1}) in one call" if len(starts) == 1 else
                 f"prefill chunk {k + 1} of {len(starts)} (positions {start}..{stop - 1}, its true offset)")
        c = spec(label, "prefill", ids_of(np.arange(start, stop)[None], np.int64 if k % 2 == 0 else np.int32), h, None)
        c.check = check
        out.append(c)
    how = ("in one call" if len(starts) == 1 else f"in {len(starts)} chunks of up to {per} tokens with their true "
           f"offsets (one call of {n} x {h} heads x {d} would exceed {PREFILL_BUDGET:,} elements)")
    notes.append(f"a prefill of {n} tokens {how}, {h} head{'s' if h > 1 else ''}"
                 + (f" (the model's {heads} do not fit one call: they are run at 64 positions)" if h < heads else "")
                 + f"; every position computed by fn, the oracle at the first and last {PREFILL_ENDS} and "
                 f"{PREFILL_INTERIOR} random interior positions of each call"
                 + (f"; positions beyond {n - 1} are sampled, not prefilled" if n < context else ""))
    return out


# ---------------------------------------------------------------------------- the oracle, vectorized


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def reduced_angles(m: np.ndarray, hi: np.ndarray, lo: np.ndarray, *, extended: bool = False) -> np.ndarray:
    """``m * theta`` reduced modulo :math:`2\\pi` (``theta = hi + lo``), accurate to far
    below float64's roundoff of the result (double-double product and reduction)."""
    m = np.asarray(m, dtype=np.float64)
    p, e = _two_prod(m, hi)
    e = e + m * lo
    k = np.rint(p / _TWO_PI_HI)
    q, qe = _two_prod(k, np.full_like(k, _TWO_PI_HI))
    if extended:
        ld = np.longdouble
        return ((p - q).astype(ld) - qe.astype(ld)) + (e.astype(ld) - (k * _TWO_PI_LO).astype(ld))
    return ((p - q) - qe) + (e - k * _TWO_PI_LO)


def pair_positions(ids: np.ndarray, geo: Geometry) -> np.ndarray:
    """``(batch, 1, seq, pairs)``: each pair's position (its axis' ids)."""
    if geo.n_axes == 1:
        m = np.broadcast_to(ids[..., None], ids.shape + (len(geo.pairs),))
    else:
        m = np.stack([ids[geo.axes[p]] for p in range(len(geo.pairs))], -1)
    return m[:, None].astype(np.float64)


def exact(x: np.ndarray, ids: np.ndarray, geo: Geometry, *, extended: bool = False) -> np.ndarray:
    """The config's RoPE of ``x`` ``(batch, heads, seq, head_dim)`` at ``ids``, from the
    oracle's frequencies (see the module notes); slots outside the rotary pairs pass through."""
    out = np.array(x, dtype=np.longdouble if extended else np.float64)
    if not geo.pairs:
        return out
    a_idx = np.array([a for a, _ in geo.pairs])
    b_idx = np.array([b for _, b in geo.pairs])
    r = reduced_angles(pair_positions(ids, geo), geo.hi, geo.lo, extended=extended)
    fac = np.longdouble(geo.factor) if extended else geo.factor
    c, s = np.cos(r) * fac, np.sin(r) * (fac * geo.direction)
    xa, xb = out[..., a_idx].copy(), out[..., b_idx].copy()
    out[..., a_idx] = xa * c - xb * s
    out[..., b_idx] = xa * s + xb * c
    return out


def _pow2(v: np.ndarray) -> np.ndarray:
    """The smallest power of two >= v (rounding bounds scale exactly by powers of two)."""
    v = np.maximum(np.asarray(v, dtype=np.float64), 1e-300)
    return 2.0 ** np.ceil(np.log2(v))


@functools.lru_cache(maxsize=16)
def gappa_rotation_units(dtype: str, table_max: float) -> float | None:
    """The smallest of 3, 4, 6 units ``u * table_max`` (``x`` in [-1, 1]) that Gappa proves
    bounds one rotated coordinate in ``dtype``; None without Gappa or a proof. The bound
    scales by the power of two of ``|x|``."""
    if gappa_path() is None:
        return None
    u = EPS[dtype]
    for k in (3 * (1 + 1e-9), 4, 6):  # 3u (a hair above: the script's decimals must not round below it)
        if run_gappa(rotation_script(dtype, 1.0, table_max, k * u * table_max)).proved:
            return k
    return None


def gamma(angle_dtype: str, omega: np.ndarray, top: int) -> np.ndarray:
    """Each pair's relative angle error when its inverse frequency and the angle are formed
    in ``angle_dtype`` (see the module notes)."""
    u = EPS[angle_dtype]
    exact_limit = {"float64": 2**53, "float32": 2**24, "float16": 2**11, "bfloat16": 2**8}[angle_dtype]
    ln = np.abs(np.log(np.where(omega > 0, omega, 1.0)))
    return u * (ln + 8) + (u if top > exact_limit else 0.0)


def bound(x: np.ndarray, ids: np.ndarray, geo: Geometry, dtype: str, angle_dtype: str,
          top: int) -> tuple[np.ndarray, str]:
    """Each rotated pair's error bound ``(batch, heads, seq, pairs)`` and how it is known."""
    eps = EPS[dtype]
    omega = np.abs(geo.want)
    xr = np.abs(x).max(axis=-1, keepdims=True)
    table = max(abs(geo.factor), 1.0)
    m = pair_positions(ids, geo)
    angle = 2 * gamma(angle_dtype, omega, top) * m * omega
    tp = float(_pow2(np.array(table)))
    k = gappa_rotation_units(dtype, tp)
    if k is None:
        how = ("first-order estimate (gappa is not installed)" if gappa_path() is None
               else "first-order estimate (Gappa did not prove the rotation's rounding)")
        return xr * table * (6 * eps + angle) + 1e-300, how
    return _pow2(xr) * tp * (k * eps + angle) + 1e-300, f"rounding proved by Gappa ({k:.3g} units per row's power of two)"


# ---------------------------------------------------------------------------- running the plan


@dataclass
class Failure:
    """The first place a call leaves its bound (or fails): where, by how much, and the data
    to explain it."""

    call: int
    spec: CallSpec
    what: str
    b: int = 0
    h: int = 0
    s: int = 0
    position: Any = None
    slot: int | None = None
    pair: int | None = None
    err: float = math.inf
    bound: float = 0.0
    positions_failing: list[int] = field(default_factory=list)
    x: np.ndarray | None = None
    out: np.ndarray | None = None
    want: np.ndarray | None = None
    ncall: int = 0
    side: str | None = None  # HF's pair: "q" or "k", the side whose heads failed
    nq: int = 0  # HF's pair: the call's q heads (the first ones); the rest are k heads


@dataclass
class ProbeResult:
    """What the plan's calls found."""

    plan: Plan
    calls: int = 0
    positions: set[int] = field(default_factory=set)
    shapes: list[tuple[int, ...]] = field(default_factory=list)
    ids_dtypes: set[str] = field(default_factory=set)
    lengths: set[int] = field(default_factory=set)
    max_error: float = 0.0
    max_rel_error: float = 0.0
    max_ratio: float = 0.0
    beyond64: Any = None
    beyond64_err: tuple[float, float] = (0.0, 0.0)
    bound_how: str = ""
    failure: Failure | None = None
    stateful: str | None = None
    nondeterministic: str | None = None
    linearity: list[str] = field(default_factory=list)
    outputs: dict[int, np.ndarray] = field(default_factory=dict)
    first_x: np.ndarray | None = None
    sides: dict[str, Failure | None] = field(default_factory=dict)  # HF's pair: q, k -> its first failure
    side_calls: dict[str, int] = field(default_factory=dict)  # HF's pair: calls that checked each side
    heads_seen: set[int] = field(default_factory=set)
    prefill: list[str] = field(default_factory=list)

    def positions_text(self) -> str:
        """The positions tested, in ranges."""
        pts = sorted(self.positions)
        if not pts:
            return "none"
        ranges, start, prev = [], pts[0], pts[0]
        for p in pts[1:]:
            if p != prev + 1:
                ranges.append((start, prev))
                start = p
            prev = p
        ranges.append((start, prev))
        dense = [r for r in ranges if r[1] - r[0] >= 255]
        text = ", ".join(f"{a}..{b}" for a, b in dense) or ""
        rest = sum(b - a + 1 for a, b in ranges if (a, b) not in dense)
        return (f"every position {text}" if text else "") + (f"{' and ' if text else ''}{rest} more" if rest else "") \
            + f" up to {pts[-1]}"


def _x(rng: np.random.Generator, spec: CallSpec, d: int, dtype: str) -> np.ndarray:
    shape = (spec.batch, spec.heads, spec.seq, d)
    x = rng.standard_normal(shape)
    if spec.scale is None:  # mixed magnitudes, per position row
        x *= 10.0 ** rng.uniform(-2, 2, shape[:-1] + (1,))
    else:
        x *= spec.scale
    return cast(x, dtype)


def cast(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x`` rounded to ``dtype`` (kept as float64 values), so the oracle sees the input ``fn`` sees."""
    if dtype == "bfloat16":
        import ml_dtypes

        return x.astype(ml_dtypes.bfloat16).astype(np.float64)
    return x.astype(dtype).astype(np.float64)


def _check(x: np.ndarray, ids: np.ndarray, out: np.ndarray, ex: np.ndarray, geo: Geometry, dtype: str,
           angle_dtype: str, top: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Per (b, h, s, slot): the error against the exact output ``ex`` and its bound."""
    err = np.abs(out.astype(ex.dtype) - ex).astype(np.float64)
    err = np.where(np.isfinite(out), err, np.inf)
    bnd_pairs, how = bound(x, ids, geo, dtype, angle_dtype, top)
    bnd = np.broadcast_to(2 * EPS[dtype] * np.abs(x) + 1e-300, x.shape).copy()  # pass-through slots
    for p, (a, b) in enumerate(geo.pairs):
        bnd[..., a] = bnd_pairs[..., p]
        bnd[..., b] = bnd_pairs[..., p]
    return err, bnd, how


def run_plan(run: Callable[[np.ndarray, np.ndarray], np.ndarray], oracle: Oracle, plan: Plan, dtype: str, *,
             angle_dtype: str, tight_angle_dtype: str = "float64",
             kv_split: Callable[[int], int] | None = None) -> ProbeResult:
    """Make the plan's calls; stop at the first that leaves its bound (``failure``).

    ``kv_split(heads)``: HF's pair -- how many of a call's heads are k heads (the last ones).
    Each side is then held to the oracle on its own: a side that fails is recorded
    (``sides``) and the calls go on for the other, until both have failed or the plan ends."""
    res = ProbeResult(plan)
    if kv_split is not None:
        res.sides = {"q": None, "k": None}
        res.side_calls = {"q": 0, "k": 0}
    d = oracle.at(None if not oracle.length_dependent else max(plan.context, 2)).d
    eps = EPS[dtype]
    rng = np.random.default_rng([plan.seed, 1])
    first_out: np.ndarray | None = None
    seen: dict[int, tuple[int, int]] = {}  # hash of an output -> (the call that gave it, hash of its input)

    def call(k: int, spec: CallSpec, x: np.ndarray) -> np.ndarray | None:
        res.calls += 1
        try:
            out = run(x, spec.ids)
        except Exception as exc:  # noqa: BLE001 - the user's code: said, with the call that made it
            what = "" if spec.ids.ndim == 2 else {
                2: " -- an axial config: position_ids (2, batch, seq), h and w",
                3: " -- an M-RoPE config: position_ids (3, batch, seq), t, h, w"}.get(spec.ids.shape[0], "")
            res.failure = Failure(k, spec, f"fn raised {type(exc).__name__} on x of shape {x.shape} and position_ids "
                                  f"{spec.ids.dtype} of shape {spec.ids.shape} ({spec.label}{what}): "
                                  f"{str(exc).splitlines()[0] if str(exc) else ''}")
            return None
        if out.shape != x.shape:
            res.failure = Failure(k, spec, f"fn returned shape {out.shape} for x of shape {x.shape} ({spec.label}); "
                                  "it must return x's shape")
            return None
        # an output that repeats an earlier call's for a different input: memoised
        if spec.kind not in ("again", "repeat") and np.any(out):
            key = hash((out.shape, out.tobytes()))
            xkey = hash((x.shape, x.tobytes(), spec.ids.tobytes()))
            prev = seen.get(key)
            if prev is not None and prev[1] != xkey:
                res.failure = Failure(k, spec, f"call {res.calls} ({spec.label}) returned exactly what call {prev[0]} "
                                      "returned, for a different x: its outputs are memoised (by shape?) -- stateful")
                return None
            seen[key] = (res.calls, xkey)
        return out

    for k, spec in enumerate(plan.calls):
        geo = oracle.at(spec.length)
        if spec.kind in ("again", "repeat"):
            x = xs_first
        else:
            x = _x(rng, spec, d, dtype)
        if spec.kind == "first":
            xs_first = res.first_x = x
        out = call(k, spec, x)
        if out is None:
            return res
        if spec.kind == "linearity":
            y = cast(rng.standard_normal(x.shape) * spec.scale, dtype)
            a, b = spec.linear or (1.0, 1.0)
            z = cast(a * x + b * y, dtype)
            fy, fz = call(k, spec, y), None
            if fy is not None:
                fz = call(k, spec, z)
            if fy is None or fz is None:
                return res
            amp = max(abs(geo.factor), 1.0)
            tol = 16 * eps * amp * (abs(a) * np.abs(x).max(-1, keepdims=True) + abs(b) * np.abs(y).max(-1, keepdims=True)
                                    + np.abs(z).max(-1, keepdims=True)) + 1e-300
            dev = np.abs(fz - (a * out + b * fy))
            bad = np.argwhere(~(dev <= tol))
            if len(bad):
                bb, hh, ss, jj = (int(v) for v in bad[0])
                res.failure = Failure(k, spec, "linearity", bb, hh, ss, _pos(spec.ids, bb, ss), jj, None,
                                      float(dev[bb, hh, ss, jj]), float(tol[bb, hh, ss, 0]), x=x, out=out)
                res.failure.what = (f"fn is not linear in x: at |x| ~ {spec.scale:g}, f(a x + b y) departs from "
                                    f"a f(x) + b f(y) by {dev[bb, hh, ss, jj]:.3g} (tolerance "
                                    f"{tol[bb, hh, ss, 0]:.3g}) at batch row {bb}, head {hh}, position "
                                    f"{_pos(spec.ids, bb, ss)}, slot {jj} (a clip, a threshold or a branch on x?)")
                return res
            res.linearity.append(f"{spec.scale:g}")
        full_spec = spec
        if spec.check is not None:  # a prefill: every position computed by fn, the oracle at a sample
            idx = spec.check
            x, out = x[:, :, idx], out[:, :, idx]
            spec = CallSpec(spec.label + f" (the oracle at {len(idx)} of its {spec.seq} positions)", spec.kind,
                            spec.ids[..., idx], spec.heads, spec.scale, spec.length)
            res.prefill.append(full_spec.label)
        res.heads_seen.add(int(x.shape[1]))
        ex = exact(x, spec.ids, geo, extended=dtype == "float64")
        err, bnd, how = _check(x, spec.ids, out, ex, geo, dtype, angle_dtype, plan.top)
        ex = ex.astype(np.float64)
        nq = x.shape[1] - (kv_split(x.shape[1]) if kv_split is not None else 0)
        if kv_split is not None:
            for side, sl in (("q", slice(0, nq)), ("k", slice(nq, None))):
                if res.sides.get(side) is not None:
                    err[:, sl], bnd[:, sl] = 0.0, 1.0  # this side failed earlier: the other is still checked
                elif side == "q" or nq < x.shape[1]:
                    res.side_calls[side] += 1
        res.bound_how = how
        res.shapes.append(x.shape)
        res.ids_dtypes.add(str(spec.ids.dtype))
        if spec.length is not None:
            res.lengths.add(spec.length)
        flat_ids = spec.ids if spec.ids.ndim == 2 else spec.ids.max(axis=0)
        res.positions.update(int(v) for v in np.unique(flat_ids))
        ratio = err / bnd
        over = ~(ratio <= 1)
        if spec.kind == "again" and first_out is not None and not np.array_equal(out, first_out, equal_nan=True):
            dev = float(np.nanmax(np.abs(out - first_out)))
            res.stateful = (f"the same call twice in a row gave different results (by {dev:.3g}): its output depends "
                            "on more than x and position_ids (a cache, a counter, a random draw?)")
        if spec.kind == "repeat" and first_out is not None and not np.array_equal(out, first_out, equal_nan=True):
            dev = float(np.nanmax(np.abs(out - first_out)))
            res.stateful = (f"the first call ({plan.calls[0].label}) made again after {res.calls - 1} calls gave a "
                            f"different result (by {dev:.3g}): stateful code (a counter, a cache filled by earlier "
                            "calls?)")
        if spec.kind == "first":
            first_out = out
        if over.any() or res.stateful:
            f = _first_over(over, spec) if over.any() else None
            if f is None:
                res.failure = Failure(k, spec, res.stateful or "", x=x, out=out, want=ex)
                return res
            bb, hh, ss, jj = f
            pair = next((p for p, (a, b) in enumerate(geo.pairs) if jj in (a, b)), None)
            if kv_split is not None and not res.stateful:
                side = "q" if hh < nq else "k"
                rows = slice(0, nq) if side == "q" else slice(nq, None)
                ov = over[:, rows]
                failing = sorted({int(v) for v in np.unique(_positions_of(spec.ids)[np.nonzero(ov.any(axis=(1, 3)))])})
                fl = Failure(k, spec, "oracle", bb, hh, ss, _pos(spec.ids, bb, ss), jj, pair,
                             float(err[bb, hh, ss, jj]), float(bnd[bb, hh, ss, jj]), failing, x, out, ex,
                             ncall=res.calls, side=side, nq=nq)
                res.sides[side] = fl
                res.failure = res.failure or fl
                other = "k" if side == "q" else "q"
                ov2 = over[:, slice(nq, None) if side == "q" else slice(0, nq)]
                if ov2.any():  # both sides fail in this call
                    f2 = _first_over(np.concatenate([np.zeros_like(over[:, :nq]), ov2], 1) if side == "q"
                                     else np.concatenate([ov2, np.zeros_like(over[:, nq:])], 1), spec)
                    assert f2 is not None
                    b2, h2, s2, j2 = f2
                    res.sides[other] = Failure(
                        k, spec, "oracle", b2, h2, s2, _pos(spec.ids, b2, s2), j2,
                        next((p for p, (a, b) in enumerate(geo.pairs) if j2 in (a, b)), None),
                        float(err[f2]), float(bnd[f2]), sorted({int(v) for v in np.unique(
                            _positions_of(spec.ids)[np.nonzero(ov2.any(axis=(1, 3)))])}), x, out, ex,
                        ncall=res.calls, side=other, nq=nq)
                if all(v is not None for v in res.sides.values()):
                    return res
                continue
            failing = sorted({int(v) for v in np.unique(_positions_of(spec.ids)[np.nonzero(over.any(axis=(1, 3)))])})
            res.failure = Failure(k, spec, "oracle", bb, hh, ss, _pos(spec.ids, bb, ss), jj, pair,
                                  float(err[bb, hh, ss, jj]), float(bnd[bb, hh, ss, jj]), failing, x, out, ex,
                                  ncall=res.calls, nq=nq)
            return res
        finite = err[np.isfinite(err)]
        res.max_error = max(res.max_error, float(finite.max()) if finite.size else 0.0)
        rel = err / np.maximum(np.abs(x).max(axis=-1, keepdims=True), 1e-300)
        res.max_rel_error = max(res.max_rel_error, float(np.nanmax(np.where(np.isfinite(rel), rel, 0.0))))
        res.max_ratio = max(res.max_ratio, float(np.nanmax(ratio)))
        if angle_dtype != tight_angle_dtype:  # where the tighter (float64-angle) bound is left
            _, b64, _ = _check(x, spec.ids, out, ex, geo, dtype, tight_angle_dtype, plan.top)
            over64 = ~(err <= b64)
            if over64.any():
                f = _first_over(over64, spec)
                assert f is not None
                pos = _pos(spec.ids, f[0], f[2])
                key64 = pos if isinstance(pos, int) else max(pos)
                if res.beyond64 is None or key64 < (res.beyond64 if isinstance(res.beyond64, int) else max(res.beyond64)):
                    res.beyond64 = pos
                    res.beyond64_err = (float(err[f]), float(b64[f]))
        if spec.kind == "first":
            res.outputs[k] = out
    return res


def _positions_of(ids: np.ndarray) -> np.ndarray:
    """``(batch, seq)``: the position of each token (the largest axis for M-RoPE / axial)."""
    return ids if ids.ndim == 2 else ids.max(axis=0)


def _pos(ids: np.ndarray, b: int, s: int) -> Any:
    if ids.ndim == 2:
        return int(ids[b, s])
    return tuple(int(v) for v in ids[:, b, s])


def _first_over(over: np.ndarray, spec: CallSpec) -> tuple[int, int, int, int] | None:
    """The failing (b, h, s, slot) at the smallest position (then batch row, head, slot)."""
    idx = np.argwhere(over)
    if not len(idx):
        return None
    pos = _positions_of(spec.ids)
    order = np.lexsort((idx[:, 3], idx[:, 1], idx[:, 0], pos[idx[:, 0], idx[:, 2]]))
    return tuple(int(v) for v in idx[order[0]])  # type: ignore[return-value]


def summary(res: ProbeResult, dtype: str) -> str:
    """What was tested, in one sentence (the report's ``tests`` summary)."""
    shapes = sorted({(s[0], s[1], s[2]) for s in res.shapes})
    seqs = sorted({s[2] for s in shapes})
    batch = max((s[0] for s in shapes), default=0)
    heads = max((s[1] for s in shapes), default=0)
    text = (f"seed {res.plan.seed}: {res.calls} calls in {dtype}; positions: {res.positions_text()}; shapes: batch up "
            f"to {batch}, heads up to {heads}, sequences of {', '.join(map(str, seqs[:3]))}"
            + (f" ... {seqs[-1]}" if len(seqs) > 3 else "") + f"; position_ids {' and '.join(sorted(res.ids_dtypes))}")
    if res.prefill:
        text += (f"; {res.prefill[0]}" if len(res.prefill) == 1 else
                 f"; a prefill in {len(res.prefill)} chunks with their true offsets")
    if res.linearity:
        text += f"; linear in x at |x| ~ {', '.join(res.linearity)}"
    if res.lengths:
        ls = sorted(res.lengths)
        text += f"; lengths {ls[0]} .. {ls[-1]} ({len(ls)} of them), each against the oracle at its length"
    return text


def sequence(values: Sequence[int]) -> str:
    """``1500..1509, 2000`` for a sorted list of positions."""
    out, i = [], 0
    vals = list(values)
    while i < len(vals):
        j = i
        while j + 1 < len(vals) and vals[j + 1] == vals[j] + 1:
            j += 1
        out.append(f"{vals[i]}..{vals[j]}" if j > i else str(vals[i]))
        i = j + 1
    return ", ".join(out[:6]) + (", ..." if len(out) > 6 else "")
