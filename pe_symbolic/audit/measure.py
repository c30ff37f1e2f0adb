r"""Measuring a recipe band by band, and checking the measurement against the oracle.

Positions ``0 .. context-1`` are split into bands ``[0, 1024)``, ``[1024, 2048)``,
``[2048, 4096)``, ... Every position of a band is evaluated (vectorised over positions and
pairs, in blocks of ``BLOCK`` positions) when the context is at most
``EXHAUSTIVE_LIMIT``; beyond it, a band larger than ``SAMPLE_BUDGET`` is sampled:
runs of ``RUN`` positions at its start, at its end (where the angle bounds are largest)
and at a few seeded random places, and the report says so.

The fast reference (double-double angles, the numeric core's tables) is itself checked by
the independent oracle (:mod:`pe_symbolic.reference`, 50 digits, its own frequencies) at the
worst and at a random point of every band: ``RecipeAudit.oracle`` holds the largest
disagreement, which the tests hold to ~1e-15.

**Non-finite values are measured, never dropped.** A recipe whose values overflow (float16
positions or angles >= 65520 become ``inf``; ``cos(inf)`` is NaN) has an unbounded error
there: the band's measurement of that quantity is ``inf`` (NaN or ``inf``, both count),
``Band.nonfinite`` / ``RecipeAudit.nonfinite`` say where it first happens (position, pair,
``"nan"`` or ``"inf"``) and why, and any tolerance fails
(:attr:`~pe_symbolic.audit.report.AuditReport.passed`). A NaN returned by
:meth:`RecipeAudit.measured` means *not measured* (a sinusoidal table has no output).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

from .. import reference
from .bounds import AngleBound, angle_bound, derived_bounds, exact_integer_limit, overflow, position_overflow
from .emulate import NOT_EVALUATED, Emulation, Target

__all__ = ["BLOCK", "EXHAUSTIVE_LIMIT", "Band", "RecipeAudit", "band_edges", "measure"]

#: Positions per vectorised block (each block is ~BLOCK x pairs entries per array).
BLOCK = 16384
#: Contexts up to this many positions are evaluated at every position.
EXHAUSTIVE_LIMIT = 2**21
#: Beyond EXHAUSTIVE_LIMIT, bands up to this size are still evaluated whole.
SAMPLE_BUDGET = 2**16
#: Length of a sampled run.
RUN = 4096
METRICS = ("angle", "table", "output", "score")


def band_edges(context: int) -> list[int]:
    """``[0, 1024, 2048, 4096, ..., context]``.

    >>> band_edges(5000)
    [0, 1024, 2048, 4096, 5000]
    >>> band_edges(100)
    [0, 100]
    """
    edges = [0]
    e = 1024
    while e < context:
        edges.append(e)
        e *= 2
    edges.append(context)
    return edges


@dataclass
class Band:
    """One band's measurements (max over the positions evaluated) and bounds.

    ``measured[m]`` is ``inf`` when some value of ``m`` in the band is not finite; then
    ``nonfinite[m] = (position, pair, "nan" | "inf")`` is the first such value (smallest
    position, then pair; for ``score``: the query position and the offset, whose key
    ``position + offset`` is where the overflow is) and ``worst[m]`` that place.
    """

    start: int
    stop: int
    evaluated: int
    exhaustive: bool
    measured: dict[str, float] = field(default_factory=dict)
    bound: dict[str, float] = field(default_factory=dict)
    worst: dict[str, tuple[int, int]] = field(default_factory=dict)
    dominant: str = ""
    parts: dict[str, float] = field(default_factory=dict)
    nonfinite: dict[str, tuple[int, int, str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"start": self.start, "stop": self.stop, "evaluated": self.evaluated,
                "exhaustive": self.exhaustive, "measured": self.measured, "bound": self.bound,
                "worst": {k: list(v) for k, v in self.worst.items()}, "dominant": self.dominant,
                "parts": self.parts,
                "nonfinite": {k: {"position": p, "offset" if k == "score" else "pair": i, "value": v}
                              for k, (p, i, v) in self.nonfinite.items()}}


@dataclass
class RecipeAudit:
    """The audit of one recipe in one activation dtype over the whole context."""

    recipe: Any
    dtype: str
    backend: str
    context: int
    bands: list[Band]
    representability: dict[str, Any]
    oracle: dict[str, float]
    seconds: float
    inv_freq_eps: float
    fix: Any = None
    note: str = ""
    search: dict[str, Any] = field(default_factory=dict)
    """How the output and score maxima were found: ``{metric: {"value", "where", "how"}}``
    from the adversarial search (:mod:`~pe_symbolic.audit.adversary`); empty where only the
    seeded random pairs were measured."""

    def measured(self, metric: str) -> float:
        """The largest measured error of ``metric`` over the context: ``inf`` when some value
        was not finite (see :attr:`nonfinite`), NaN when ``metric`` was not measured."""
        vals = [b.measured.get(metric, math.nan) for b in self.bands]
        vals = [v for v in vals if not math.isnan(v)]
        return max(vals) if vals else math.nan

    def bound(self, metric: str) -> float:
        """The largest bound of ``metric`` over the context."""
        vals = [b.bound.get(metric, math.nan) for b in self.bands]
        vals = [v for v in vals if not math.isnan(v)]
        return max(vals) if vals else math.nan

    @property
    def dominant(self) -> str:
        """What dominates the angle bound in the last band."""
        return self.bands[-1].dominant if self.bands else ""

    @property
    def nonfinite(self) -> dict[str, dict[str, Any]]:
        """Where each quantity first stopped being finite: ``{metric: {"position", "pair"
        (``score``: "offset"), "value" ("nan" or "inf"), "band" ([start, stop]), "why"}}``;
        empty when every measured value was finite."""
        out: dict[str, dict[str, Any]] = {}
        for b in self.bands:
            for m, (pos, pair, val) in b.nonfinite.items():
                if m not in out or pos < out[m]["position"]:
                    out[m] = {"position": pos, "offset" if m == "score" else "pair": pair, "value": val,
                              "band": [b.start, b.stop],
                              "why": b.dominant if math.isinf(b.bound.get("angle", 0.0)) else
                              "non-finite value (not an overflow the bound predicts)"}
        return out

    @property
    def finite(self) -> bool:
        """Whether every measured value was finite (no overflow to ``inf``, no NaN)."""
        return not any(b.nonfinite for b in self.bands)

    @property
    def within_bounds(self) -> bool:
        """Whether every measurement is within its bound (a non-finite one only within an
        ``inf`` bound, i.e. where the bound predicts the overflow)."""
        return all(b.measured[m] <= b.bound[m] for b in self.bands for m in b.measured
                   if m in b.bound and not math.isnan(b.measured[m]))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "recipe": self.recipe.to_dict(), "dtype": self.dtype, "backend": self.backend,
            "context": self.context, "seconds": self.seconds, "inv_freq_max_rel_error": self.inv_freq_eps,
            "max": {m: self.measured(m) for m in METRICS}, "bound": {m: self.bound(m) for m in METRICS},
            "within_bounds": self.within_bounds, "dominant": self.dominant,
            "finite": self.finite, "nonfinite": self.nonfinite,
            "representability": self.representability, "oracle": self.oracle,
            "fix": None if self.fix is None else self.fix.to_dict(), "note": self.note, "search": self.search,
            "bands": [b.to_dict() for b in self.bands],
        }


def _runs(start: int, stop: int, exhaustive: bool, rng: np.random.Generator) -> list[tuple[int, int]]:
    if exhaustive or stop - start <= SAMPLE_BUDGET:
        return [(start, stop)]
    picks = {start, stop - RUN}
    for x in rng.integers(start, stop - RUN, 4):
        picks.add(int(x))
    runs, last = [], -1
    for s in sorted(picks):
        s = max(s, last)
        e = min(s + RUN, stop)
        if e > s:
            runs.append((s, e))
            last = e
    return runs


def _blocks(runs: list[tuple[int, int]]) -> Iterator[np.ndarray]:
    for s, e in runs:
        for b in range(s, e, BLOCK):
            yield np.arange(b, min(e, b + BLOCK), dtype=np.float64)


def representability(em: Emulation, context: int) -> dict[str, Any]:
    """The first position not exact on its way to the multiply, the first colliding pair, and
    the first position that overflows to ``inf`` there (``first_overflow``, in
    ``overflow_dtype``; ``None`` when no position up to 2**53 does).

    >>> from pe_symbolic import numeric
    >>> from pe_symbolic.audit.emulate import rope_target
    >>> from pe_symbolic.audit.recipes import PRESETS
    >>> tg = rope_target(numeric.model_config("llama-3.1-8b"), "l")
    >>> representability(Emulation(tg, PRESETS["hf-autocast"], "bfloat16"), 131072)
    {'dtype': 'bfloat16', 'first_inexact': 257, 'first_collision': [256, 257], 'within_context': True, 'first_overflow': None, 'overflow_dtype': None, 'overflow_within_context': False}
    >>> rep = representability(Emulation(tg, PRESETS["hf-autocast"], "float16"), 131072)
    >>> rep["first_inexact"], rep["first_overflow"], rep["overflow_dtype"], rep["overflow_within_context"]
    (2049, 65520, 'float16', True)
    """
    if em.recipe.inv_freq == "exact":
        return {"dtype": "float64", "first_inexact": 2**53 + 1, "first_collision": [2**53, 2**53 + 1],
                "within_context": False, "first_overflow": None, "overflow_dtype": None,
                "overflow_within_context": False}
    dts = [em.dt["position_dtype"], em.dt["angle_dtype"]]
    dt = min(dts, key=exact_integer_limit)
    lim = exact_integer_limit(dt)
    over = position_overflow(em)
    return {"dtype": dt, "first_inexact": lim + 1, "first_collision": [lim, lim + 1],
            "within_context": lim + 1 < context,
            "first_overflow": None if over is None else over[0],
            "overflow_dtype": None if over is None else over[1],
            "overflow_within_context": over is not None and over[0] < context}


def measure(em: Emulation, context: int, *, exhaustive: bool | None = None, seed: int = 0,
            chunker: Callable[[np.ndarray], Any] | None = None,
            progress: Callable[[int, int], None] | None = None, oracle_points: int = 1,
            positions: list[tuple[int, int]] | None = None, search: bool | dict[str, int] = True) -> RecipeAudit:
    """Measure ``em`` over ``0 .. context-1`` band by band (see the module docstring).

    ``chunker(t)`` replaces :meth:`Emulation.chunk` (the torch backend); ``positions``
    restricts the evaluation to those runs (the fix search's quick pass);
    ``oracle_points < 0`` skips the oracle check; ``search`` (default on) searches the inputs
    that make the output and score errors largest (:mod:`~pe_symbolic.audit.adversary`: a dict
    changes its sizes, ``False`` measures the seeded random pairs only).
    """
    start_time = time.perf_counter()
    if exhaustive is None:
        exhaustive = context <= EXHAUSTIVE_LIMIT
    rng = np.random.default_rng(seed)
    edges = band_edges(context)
    total = sum(e - s for s, e in zip(edges[:-1], edges[1:]))
    done = 0
    bands: list[Band] = []
    chunk_fn = chunker or (lambda t: em.chunk(t, context=context))
    track = _Candidates(em, search is not False and chunker is None)
    for s, e in zip(edges[:-1], edges[1:]):
        if positions is not None:
            runs = [(max(a, s), min(b, e)) for a, b in positions if min(b, e) > max(a, s)]
            if not runs:
                continue
        else:
            runs = _runs(s, e, exhaustive, rng)
        band = Band(s, e, sum(b - a for a, b in runs), runs == [(s, e)])
        best = {m: (-1.0, (0, 0)) for m in METRICS}
        for t in _blocks(runs):
            ch = chunk_fn(t)
            track.add(ch)
            for m in METRICS:
                arr = getattr(ch, m)
                if arr is None:
                    continue
                evaluated = arr != NOT_EVALUATED  # scores whose key is beyond the context
                bad = evaluated & ~np.isfinite(arr)
                if m not in band.nonfinite and bad.any():  # blocks come in order: the first
                    k = int(np.argmax(bad))
                    r, c = divmod(k, arr.shape[1])
                    band.nonfinite[m] = (int(t[r]), em.offsets[c] if m == "score" else int(c),
                                         "nan" if np.isnan(arr.flat[k]) else "inf")
                arr = np.where(evaluated & ~bad, arr, -1.0)
                k = int(np.argmax(arr))
                v = float(arr.flat[k])
                if v > best[m][0]:
                    r, c = divmod(k, arr.shape[1])
                    best[m] = (v, (int(t[r]), int(c)))
            done += t.size
            if progress is not None:
                progress(done, total)
        for m, (v, at) in best.items():
            if m in band.nonfinite:
                band.measured[m] = math.inf
                band.worst[m] = band.nonfinite[m][:2]
            elif v >= 0:
                band.measured[m] = v
                band.worst[m] = at
        if "score" in band.nonfinite:  # worst: (query position, offset index) as for finite scores
            pos, off, _ = band.nonfinite["score"]
            band.worst["score"] = (pos, em.offsets.index(off))
        ab: AngleBound = angle_bound(em, float(e - 1))
        # a RoPE score pairs the band's queries with keys up to `offset` positions further
        # (within the context): the keys' angles are bounded at the furthest key
        t_key = max(min(e - 1 + max(em.offsets, default=0), context - 1), e - 1)
        band.bound = {"angle": ab.value, **derived_bounds(em, ab, float(e - 1), t_key=float(t_key))}
        band.dominant, band.parts = ab.dominant, ab.parts
        bands.append(band)
    oracle = (check_with_oracle(em, bands, rng, points=oracle_points)
              if chunker is None and oracle_points >= 0 else {})
    res = RecipeAudit(em.recipe, em.act, "numpy", context, bands, representability(em, context), oracle,
                      time.perf_counter() - start_time, float(np.max(em.eps)))
    res.search = track.search(bands, search if isinstance(search, dict) else None)
    res.seconds = time.perf_counter() - start_time
    res.note = nonfinite_note(res, em)
    return res


class _Candidates:
    """Where the adversarial search looks: the (position, pair) entries of largest table error
    and, per offset, the query positions of largest lined-up score error, over every block."""

    def __init__(self, em: Emulation, active: bool) -> None:
        self.em = em
        self.active = active and em.target.kind == "rope" and em.recipe.inv_freq != "exact"
        self.entries: list[tuple[float, int, int]] = []
        self.picks: dict[int, list[tuple[float, int]]] = {o: [] for o in em.offsets}

    def add(self, ch: Any) -> None:
        if not self.active or getattr(ch, "table_vec", None) is None:
            return
        from .adversary import SEARCH

        vec = np.where(np.isfinite(ch.table_vec), ch.table_vec, -1.0)
        k = min(SEARCH["entries"], vec.size)
        flat = np.argpartition(vec, -k, axis=None)[-k:]
        for f in flat:
            r, c = divmod(int(f), vec.shape[1])
            self.entries.append((float(vec[r, c]), int(ch.t[r]), c))
        self.entries = sorted(self.entries, reverse=True)[: SEARCH["entries"]]
        if ch.score_aligned is not None:
            for j, o in enumerate(self.em.offsets):
                col = np.where(np.isfinite(ch.score_aligned[:, j]), ch.score_aligned[:, j], -1.0)
                n = min(SEARCH["positions"], col.size)
                for r in np.argpartition(col, -n)[-n:]:
                    if col[r] >= 0:
                        self.picks[o].append((float(col[r]), int(ch.t[r])))
                self.picks[o] = sorted(self.picks[o], reverse=True)[: SEARCH["positions"]]

    def search(self, bands: list[Band], sizes: dict[str, int] | None) -> dict[str, Any]:
        """Run the search (:mod:`~pe_symbolic.audit.adversary`), raise the measured maxima of
        the bands where it found more, and say how it was found."""
        if not self.active:
            return {}
        from .adversary import worst_output, worst_score

        out: dict[str, Any] = {}
        found = {"output": worst_output(self.em, [(t, i) for _, t, i in self.entries], sizes),
                 "score": worst_score(self.em, {o: [m for _, m in v] for o, v in self.picks.items() if v}, sizes)}
        for metric, f in found.items():
            if f is None:
                continue
            out[metric] = f.to_dict()
            pos = int(f.where.split("position ")[1].split(",")[0])
            for b in bands:
                if b.start <= pos < b.stop and math.isfinite(b.measured.get(metric, math.inf)) \
                        and f.value > b.measured.get(metric, -1.0):
                    b.measured[metric] = f.value
        return out


def nonfinite_note(res: RecipeAudit, em: Emulation) -> str:
    """One line on the non-finite values of ``res`` (``""`` when every value was finite):
    which quantities, from which position, and why.

    >>> from pe_symbolic import numeric
    >>> from pe_symbolic.audit.emulate import rope_target
    >>> from pe_symbolic.audit.recipes import PRESETS
    >>> em = Emulation(rope_target(numeric.model_config("llama-3.1-8b"), "l"), PRESETS["gpt-neox"], "float16")
    >>> nonfinite_note(measure(em, 65600, positions=[(65500, 65600)], oracle_points=-1), em)
    'NON-FINITE: angle inf, table NaN, output NaN, score NaN from position 65520 (pair 0, band 32768 .. 65535); overflow: positions >= 65520 are inf in float16'
    """
    nf = res.nonfinite
    if not nf:
        return ""
    what = ", ".join(f"{m} {'NaN' if v['value'] == 'nan' else 'inf'}" for m, v in nf.items())
    per_pair = [v for m, v in nf.items() if m != "score"]
    if per_pair:
        first = min(per_pair, key=lambda x: (x["position"], x["pair"]))
        where, pos = f"pair {first['pair']}", first["position"]
    else:  # only scores: the key at position + offset overflowed
        first = nf["score"]
        where, pos = f"score of the key at offset {first['offset']}", first["position"] + first["offset"]
    why = overflow(em, float(pos)) or first["why"]
    return (f"NON-FINITE: {what} from position {first['position']} ({where}, band "
            f"{first['band'][0]} .. {first['band'][1] - 1}); {why}")


# ----------------------------------------------------------------------------------------
# the oracle


def _oracle_frequencies(target: Target) -> tuple[list, mpmath.mpf]:
    if target.kind == "rope":
        vals, af = reference.rope_frequencies(dict(target.config), seq_len=target.seq_len,
                                              layer_type=target.layer_type)
        return list(vals), af
    return [reference.frequency(i, target.rotary_dim, base=target.base, schedule=target.schedule)
            for i in range(target.pairs)], mpmath.mpf(1)


def check_with_oracle(em: Emulation, bands: list[Band], rng: np.random.Generator, points: int = 1) -> dict[str, float]:
    """Recompute the angle and table errors at each band's worst points (and ``points``
    random ones) with the 50-digit oracle; return the largest disagreements with the fast
    measurement: ``angle`` relative to the error, ``table`` absolute. Points where the
    recipe's values are not finite (an overflow) are skipped and counted
    (``nonfinite_points_skipped``): the measurement reports them."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _check_with_oracle(em, bands, rng, points)


def _check_with_oracle(em: Emulation, bands: list[Band], rng: np.random.Generator, points: int) -> dict[str, float]:
    tg = em.target
    theta, af = _oracle_frequencies(tg)
    worst_angle, worst_table, checked, skipped = 0.0, 0.0, 0, 0
    for band in bands:
        pts = {band.worst[m] for m in ("angle", "table") if m in band.worst}
        for _ in range(points):
            pts.add((int(rng.integers(band.start, band.stop)), int(rng.integers(0, em.h))))
        for t, i in pts:
            if theta[i] == 0:
                continue
            tt = np.array([float(t)])
            ang = float(np.asarray(em.angles(tt), np.float64)[0, i])
            c, s = em.tables(tt, em.angles(tt))
            p, e = em.exact_angles(tt)
            fast_angle = 0.0 if em.recipe.inv_freq == "exact" else float(em.angle_errors(em.angles(tt), p, e)[0, i])
            ang = float(np.asarray(em.fed(em.angles(tt)), np.float64)[0, i])
            cx, sx = tg.exact_cos_sin(tt)
            fast_table = max(abs(float(c[0, i]) - cx[0, i]), abs(float(s[0, i]) - sx[0, i]))
            if not (math.isfinite(fast_angle) and math.isfinite(fast_table)):
                skipped += 1  # an overflow: reported as such, nothing for the oracle to check
                continue
            with mpmath.workdps(50):
                exact = mpmath.mpf(t) * theta[i]
                diff = mpmath.mpf(ang) - exact
                if em.recipe.reduce:
                    diff -= 2 * mpmath.pi * mpmath.nint(diff / (2 * mpmath.pi))
                oracle_angle = 0.0 if em.recipe.inv_freq == "exact" else float(abs(diff))
                oc = af * mpmath.cos(exact)
                os_ = af * mpmath.sin(exact)
                oracle_table = float(max(abs(mpmath.mpf(float(c[0, i])) - oc), abs(mpmath.mpf(float(s[0, i])) - os_)))
            if oracle_angle > 0:
                worst_angle = max(worst_angle, abs(fast_angle - oracle_angle) / oracle_angle)
            elif fast_angle > 1e-30:
                worst_angle = max(worst_angle, 1.0)
            worst_table = max(worst_table, abs(fast_table - oracle_table))
            checked += 1
    out: dict[str, float] = {"points": checked, "angle_rel": worst_angle, "table_abs": worst_table}
    if skipped:
        out["nonfinite_points_skipped"] = skipped
    return out
