r"""The attention path's four checks, each held to a bound derived from the dtype, and the
causes named by reproducing what the step did.

For a run of a :class:`~pe_symbolic.audit.verify.scenarios.Scenario` (its calls' results):

(a) **the cache** (:func:`check_cache`): after every call, each stored key against the
    oracle's :math:`R(\theta(n))\,k` at its own position ``n`` (pads left out), within the
    bound of one rotation in the dtype (:func:`~pe_symbolic.audit.verify.probe.bound`); keys
    already cached must not change on a later call;
(b) **the scores** (:func:`check_scores`): the pre-softmax scores against the oracle's
    :math:`s \langle R(\theta(m)) q, R(\theta(n)) k\rangle` (``s`` the softmax scale) on every
    query / key pair the query attends to (causal, real tokens, one document) -- or, for a step
    that gives probabilities, their logarithms centred over those keys (softmax forgets a
    constant per row);
(c) **the relative property** (:func:`check_relative`): a shifted scenario's scores (and
    outputs) against the unshifted one's -- the step against itself, no oracle;
(d) **the output** (:func:`check_output`): against the values weighted by the step's own
    probabilities, each value rotated at its key's position ``n`` and the sum rotated back at
    the query's ``m`` where the config says so (DeepSeek-V4: :math:`R(-m) R(n) = R(n - m)`),
    else the values as they are.

The bounds: a rotated slot within :func:`~pe_symbolic.audit.verify.probe.bound` of the oracle
(the rounding of one rotation in the dtype plus the angle error of HF's recipe); a score
within ``s (|e_q| |k| + |q| |e_k| + |e_q| |e_k|)`` plus the rounding of a dot product of
``head_dim`` terms accumulated in float32 or wider (as torch's and the BLAS's half-precision
matmuls accumulate) and rounded to the dtype twice, with ``|k|`` bounded by each pair's norm
(a rotation keeps it) -- so the bound needs no oracle value; a probability within the rounding
of a softmax over the call's keys; an output slot within the rounding of its weighted sum and
of the rotations of its values.

A failed check is named by *candidates*: the positions a common bug rotates at
(:func:`~pe_symbolic.audit.verify.scenarios.position_maps`), the cached keys rotated again when
read, the query rotated elsewhere, the output rotated back at another position -- and a
candidate is kept only when the oracle at it *reproduces* what the step gave (within twice
the bound); otherwise the report says where it is wrong and stops.

>>> import numpy as np
>>> from pe_symbolic.audit.verify.geometry import Oracle
>>> from pe_symbolic.numeric.config import parse_rope_config
>>> cfg = {"head_dim": 8, "rope_theta": 10000.0}
>>> ctx = Ctx(Oracle(cfg, parse_rope_config(cfg), "split", None).at(), "float32", 4095, 8 ** -0.5, False, (2, 1))
>>> t = score_tol(ctx, np.ones((1, 2, 1, 8)), np.array([[5]]), np.ones((1, 1, 1, 8)), np.array([[3]]))
>>> t.shape, bool(1e-7 < t.max() < 1e-4)      # |score| <= 8 / sqrt(8): a few hundred float32 roundoffs of it
((1, 2, 1, 1), True)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .geometry import Geometry
from .positions import effective_positions
from .probe import EPS, bound, exact
from .scenarios import Call, Scenario, position_maps
from .steps import StepResult

__all__ = ["Ctx", "Finding", "Run", "check_agree", "check_cache", "check_output", "check_relative", "check_scores",
           "score_tol"]


@dataclass
class Ctx:
    """What the checks need: the oracle's geometry, the dtype, the largest admitted position,
    the softmax scale, whether the output is rotated back, and the config's (q, kv) heads."""

    geo: Geometry
    dtype: str
    top: int
    scale: float
    derotate: bool
    heads: tuple[int, int]
    softcap: float | None = None

    def cap(self, scores: np.ndarray) -> np.ndarray:
        """The scores through the logit soft-capping ``c tanh(s / c)`` (Gemma 2) where the
        config has one (its slope is at most 1: the bounds hold through it)."""
        return scores if not self.softcap else self.softcap * np.tanh(scores / self.softcap)

    @property
    def u(self) -> float:
        return EPS[self.dtype]

    @property
    def u_acc(self) -> float:
        """The unit roundoff sums are accumulated in (float32 at least)."""
        return min(EPS[self.dtype], EPS["float32"])

    @property
    def angle_dtype(self) -> str:
        return "float64" if self.dtype == "float64" else "float32"


@dataclass
class Run:
    """One scenario's calls: each call's result, the probabilities the step used (its weights,
    or read from its output; None where neither), and the step's exception if it raised."""

    scn: Scenario
    res: list[StepResult] = field(default_factory=list)
    probs: list[np.ndarray | None] = field(default_factory=list)
    v: np.ndarray | None = None
    error: str | None = None


@dataclass
class Finding:
    """A failed check: the scenario, the call, where (a sentence) and the cause (or None)."""

    check: str
    scn: Scenario
    call: int
    where: str
    cause: str | None = None

    def lines(self) -> list[str]:
        out = [f"{self.scn.name}, {self.scn.label(self.call)}: {self.where}"]
        out.append(self.cause if self.cause else "no cause named: none of the candidates (a key rotated twice, "
                   "positions counted from the cache or the pad, a decode step one off, ...) reproduces it")
        return out


# ---------------------------------------------------------------------------- bounds


def kv_to_q(ctx: Ctx, a: np.ndarray) -> np.ndarray:
    """kv heads repeated for their q heads (GQA / MQA)."""
    hq, hk = ctx.heads
    return np.repeat(a, hq // hk, axis=1) if hq != hk else a


def slot_bounds(ctx: Ctx, x: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Per slot: the bound of ``R(theta(ids)) x`` in the dtype (pass-through slots: 2 units)."""
    bp, _ = bound(x, np.abs(ids), ctx.geo, ctx.dtype, ctx.angle_dtype, ctx.top)
    out = np.broadcast_to(2 * ctx.u * np.abs(x), x.shape).copy()
    for p, (a, b) in enumerate(ctx.geo.pairs):
        out[..., a] = bp[..., p]
        out[..., b] = bp[..., p]
    return out


def magnitudes(ctx: Ctx, x: np.ndarray) -> np.ndarray:
    """Per slot: a bound on ``|R(theta) x|`` for every angle (each pair's norm times the
    attention factor; pass-through slots as they are)."""
    out = np.abs(x).astype(np.float64)
    f = abs(ctx.geo.factor)
    for a, b in ctx.geo.pairs:
        nrm = np.hypot(x[..., a], x[..., b]) * f
        out[..., a] = nrm
        out[..., b] = nrm
    return out


def oracle_scores(ctx: Ctx, q: np.ndarray, m: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``s <R(m) q, R(n) k>`` ``(batch, q_heads, seq, slots)`` from the oracle's rotations (soft-capped
    where the config says so)."""
    return ctx.cap(ctx.scale * (exact(q, m, ctx.geo) @ np.swapaxes(kv_to_q(ctx, exact(k, n, ctx.geo)), -1, -2)))


def score_tol(ctx: Ctx, q: np.ndarray, m: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The bound of each score (see the module notes)."""
    eq, ek = slot_bounds(ctx, q, m), kv_to_q(ctx, slot_bounds(ctx, k, n))
    mq, mk = magnitudes(ctx, q), kv_to_q(ctx, magnitudes(ctx, k))
    t = lambda a: np.swapaxes(a, -1, -2)  # noqa: E731
    d = q.shape[-1]
    gam = d * ctx.u_acc / (1 - d * ctx.u_acc)
    s1 = eq @ t(mk) + mq @ t(ek) + eq @ t(ek)
    s2 = (mq + eq) @ t(mk + ek)
    return ctx.scale * (s1 + (gam + 2 * ctx.u) * s2) * (1 + 4 * ctx.u) + 1e-300


def _log_tol(ctx: Ctx, tol: np.ndarray, spread: Any, slots: int, runs: int = 1) -> np.ndarray:
    """The bound of a centred log-probability: the scores' (twice: the entry and the row's
    mean) and the rounding of ``runs`` softmaxes (each: exp, a sum of ``slots`` terms, a
    division, a cast)."""
    delta = 3 * ctx.u + (slots + 4) * ctx.u_acc + ctx.u_acc * spread
    return tol + tol.max(axis=-1, keepdims=True) + 2 * runs * delta / (1 - np.minimum(delta, 0.5))


def _centred(x: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    n = np.maximum(allowed.sum(-1, keepdims=True), 1)
    with np.errstate(all="ignore"):
        mean = np.where(allowed, x, 0.0).sum(-1, keepdims=True) / n
        return x - mean


def _where(bad: np.ndarray, got: np.ndarray, want: np.ndarray, tol: np.ndarray, scn: Scenario, call: Call,
           what: str) -> str:
    """The first bad entry as a sentence (``bad``: (batch, heads, seq, X))."""
    b, h, i, j = (int(t[0]) for t in np.nonzero(bad))
    slot = call.start + i
    pos = int(scn.ids[b, slot])
    col = f", key slot {j} (position {int(scn.ids[b, j])})" if what != "output" else f", channel {j}"
    return (f"row {b}, head {h}, query slot {slot} (position {pos}){col}: {what} {got[b, h, i, j]:.6g}, the oracle's "
            f"{want[b, h, i, j]:.6g} (bound {tol[b, h, i, j]:.3g})")


# ---------------------------------------------------------------------------- (a) the cache


_MAP_ORDER = ("twice", "plus1", "minus1", "first_chunk", "restart", "run_on", "slot", "zero")


def _reproduces(ctx: Ctx, x: np.ndarray, ids: np.ndarray, got: np.ndarray, mask: np.ndarray) -> bool:
    """Whether the oracle at ``ids`` reproduces ``got`` (within twice the bound) where ``mask``
    ``(batch, seq)`` is set."""
    err = np.abs(got - exact(x, ids, ctx.geo))
    ok = err <= 2 * slot_bounds(ctx, x, ids)
    return bool(np.all(ok | ~mask[:, None, :, None]))


def _priority(scn: Scenario) -> tuple[str, ...]:
    """The maps in the order a scenario names them (where two give the same positions, the
    one the scenario is about first: the pad's slot in a left-padded batch, no reset in a pack)."""
    first = {"left_pad": ("slot",), "packed": ("run_on",), "shift": ("slot",), "shift_far": ("slot",)}.get(scn.key, ())
    return first + tuple(m for m in _MAP_ORDER if m not in first)


def _name_maps(ctx: Ctx, scn: Scenario, x: np.ndarray, got: np.ndarray, lo: int, hi: int) -> list[str]:
    """Every position map that reproduces ``got`` (slots ``[lo, hi)`` of ``x``), in the
    scenario's order."""
    valid = scn.valid[:, lo:hi]
    maps = position_maps(scn)
    out = []
    for name in _priority(scn):
        mm = maps[name][:, lo:hi]
        if np.array_equal(np.where(valid, mm, 0), np.where(valid, scn.ids[:, lo:hi], 0)):
            continue  # the truth on these slots: not a cause
        if _reproduces(ctx, x, mm, got, valid):
            out.append(name)
    return out


def _seen(ctx: Ctx, scn: Scenario, x: np.ndarray, got: np.ndarray, lo: int, hi: int) -> str:
    """The positions the stored keys were rotated at, read from them (no cause)."""
    seen = effective_positions(x, got, ctx.geo)
    valid = scn.valid[:, lo:hi]
    if np.isnan(seen[valid]).any():
        return "the stored keys are not the keys rotated by the config's frequencies at any position"
    true = scn.ids[:, lo:hi][valid][:6].tolist()
    read = seen[valid][:6].astype(np.int64).tolist()
    return f"the stored keys read as rotated at positions {read} where they are at {true}"


def check_cache(ctx: Ctx, run: Run) -> tuple[list[dict[str, Any]], Finding | None]:
    """Each call's stored keys (see the module notes): per call a status dict (``ok``,
    ``map``: the named position map of its new keys, ``again``: keys cached before were
    changed, ``unrotated``), and the first failure with its cause."""
    scn, geo = run.scn, ctx.geo
    prev: np.ndarray | None = None
    statuses: list[dict[str, Any]] = []
    first: Finding | None = None
    for ci, res in enumerate(run.res):
        call = scn.calls[ci]
        st: dict[str, Any] = {"call": ci, "kind": call.kind, "ok": True, "maps": [], "again": None,
                              "unrotated": False, "new_bad": False}
        keys, stop, start = res.keys, call.stop, call.start
        statuses.append(st)
        if keys is None or keys.shape[2] < stop:
            st["ok"] = False
            rows = 0 if keys is None else keys.shape[2]
            where = f"the cache holds {rows} keys after {stop} tokens were fed: it is not extended by each call"
            first = first or Finding("cache", scn, ci, where)
            prev = None
            continue
        k, ids, valid = scn.k[:, :, :stop], scn.ids[:, :stop], scn.valid[:, :stop]
        want = exact(k, ids, geo)
        bnd = slot_bounds(ctx, k, ids)
        err = np.abs(keys - want)
        bad = ((err > bnd) | ~np.isfinite(keys)) & valid[:, None, :, None]
        if not bad.any():
            prev = keys
            continue
        st["ok"] = False
        st["unrotated"] = bool(np.all((np.abs(keys - k) <= 2 * ctx.u * np.abs(k) + 1e-300) | ~valid[:, None, :, None]))
        if prev is not None and start > 0:
            old = valid[:, :start]
            moved = (np.abs(keys[:, :, :start] - prev[:, :, :start]) > 2 * ctx.u * np.abs(prev[:, :, :start]) + 1e-300)
            if (moved & old[:, None, :, None]).any():
                st["again"] = "twice" if _reproduces(ctx, k[:, :, :start], 2 * ids[:, :start], keys[:, :, :start],
                                                     old) else "changed"
        if bad[:, :, start:stop].any():
            st["new_bad"] = True
            st["maps"] = _name_maps(ctx, scn, k[:, :, start:stop], keys[:, :, start:stop], start, stop)
            if not st["maps"]:
                st["seen"] = _seen(ctx, scn, k[:, :, start:stop], keys[:, :, start:stop], start, stop)
        if first is None:
            bb, h, j, c = (int(t[0]) for t in np.nonzero(bad))
            first = Finding("cache", scn, ci, f"row {bb}, kv head {h}, slot {j} (position {int(ids[bb, j])}), channel "
                                              f"{c}: stored {keys[bb, h, j, c]:.6g}, the oracle's {want[bb, h, j, c]:.6g} "
                                              f"(bound {bnd[bb, h, j, c]:.3g})")
        prev = keys
    if first is not None:
        first.cause = cache_cause(scn, statuses)
    return statuses, first


def cache_cause(scn: Scenario, statuses: list[dict[str, Any]]) -> str | None:
    """The scenario's cause, from the calls' named maps: the map that reproduces the new keys
    of every call that stored them wrong (see the module notes)."""
    bad = [s for s in statuses if not s["ok"]]
    if not bad:
        return None
    again = [s for s in bad if s["again"]]
    if again:
        c = again[0]["call"] + 1
        if again[0]["again"] == "twice":
            return (f"keys already in the cache were rotated again by call {c}: stored rotated, then rotated a second "
                    "time (now at twice their position's angle) -- the cached keys pass through RoPE again "
                    "(TensorRT-LLM's recurring bug); rotate only the new tokens' keys, once, before they are stored")
        return f"keys already in the cache were changed by call {c} (not rotated again: something else rewrote them)"
    if all(s["unrotated"] for s in bad) and len(bad) == len(statuses):
        return ("the cache holds the keys unrotated: they must be rotated when read (the scores check says whether "
                "they are)")
    new_bad = [s for s in bad if s["new_bad"]]
    common = [m for m in _priority(scn) if all(m in s["maps"] for s in new_bad)] if new_bad else []
    kinds = {s["kind"] for s in new_bad}
    if not common:
        first = new_bad[0] if new_bad else bad[0]
        return first.get("seen")
    name = common[0]
    if name in ("restart", "first_chunk") and "decode" in kinds and "restart" in common:
        return ("cache extended without its offset: each call's keys are rotated from position 0 -- the decode "
                "step's key at 0, not at the cache's length; add the cached length (cache_position) to the new "
                "tokens' positions")
    if name in ("restart", "first_chunk") and kinds == {"chunk"}:
        n = scn.calls[0].seq
        return (f"chunked prefill reusing the first chunk's position_ids: every chunk's keys are rotated at the first "
                f"chunk's positions (0..{n - 1}) while the decode steps are right -- slice position_ids with each "
                "chunk (or offset them by the chunk's start)")
    if name in ("plus1", "minus1") and kinds == {"decode"}:
        sign = "+ 1" if name == "plus1" else "- 1"
        return (f"decode offset off by one: each decode step's key is stored rotated at its position {sign} (the "
                "prefill is right) -- the decode position is the cached length, no more, no less")
    texts = {
        "twice": "rotated twice: the keys are stored at twice their position's angle (rotated, then rotated again "
                 "before they are stored -- RoPE applied in two places)",
        "slot": ("left padding with positions counted from the pad: each key is rotated at its slot in the padded row, "
                 "not at its position (slot - pads) -- take the positions from position_ids (cumsum of the mask), not "
                 "from cache_position / arange" if scn.key == "left_pad" else
                 f"position_ids ignored: the keys are rotated at their slot in the cache, not at position_ids "
                 f"(shifted by {scn.shift})" if scn.shift else
                 "the keys are rotated at their slot in the cache, not at position_ids"),
        "run_on": ("packed sequences without position reset: positions run on across documents (each key at its "
                   "index in the pack, not in its document) -- reset the positions at each document's start (read "
                   "them from position_ids)" if scn.key == "packed" else
                   "positions run on within the call from its first position_id (the ids are not read one by one)"),
        "restart": "each call's keys are rotated from position 0: the cache's offset is not added",
        "first_chunk": "each chunk's keys are rotated at the first chunk's positions",
        "zero": "the new keys are stored unrotated",
        "plus1": "the keys are stored at their position + 1 on the decode steps",
        "minus1": "the keys are stored at their position - 1 on the decode steps",
    }
    return texts[name]


# ---------------------------------------------------------------------------- (b) the scores


def _call_parts(scn: Scenario, call: Call) -> tuple[np.ndarray, ...]:
    s, e = call.start, call.stop
    return scn.q[:, :, s:e], scn.ids[:, s:e], scn.k[:, :, :e], scn.ids[:, :e]


def _compare(ctx: Ctx, got: np.ndarray, probs: bool, want: np.ndarray, tol: np.ndarray, allowed: np.ndarray,
             spread: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(bad, got, want, tol) as compared: scores directly, probabilities as centred logs."""
    a = allowed[:, None]
    if probs:
        with np.errstate(divide="ignore", invalid="ignore"):
            lg = np.log(got)
        got_c, want_c = _centred(lg, a), _centred(want, a)
        tol_c = _log_tol(ctx, np.where(a, tol, 0.0), spread if spread is not None else 0.0, got.shape[-1])
        bad = a & ~(np.abs(got_c - want_c) <= tol_c)
        return bad, got_c, want_c, tol_c
    bad = a & ~(np.abs(got - want) <= tol)
    return bad, got, want, tol


def _scores_of(run: Run, ci: int) -> tuple[np.ndarray | None, bool]:
    r = run.res[ci]
    if r.scores is not None:
        return r.scores, False
    p = r.weights if r.weights is not None else run.probs[ci] if ci < len(run.probs) else None
    return p, p is not None


def check_scores(ctx: Ctx, run: Run) -> tuple[int, Finding | None]:
    """Each call's scores (or probabilities) against the oracle's: (calls checked, the first
    failure with its cause)."""
    scn = run.scn
    checked = 0
    first: Finding | None = None
    for ci, _ in enumerate(run.res):
        call = scn.calls[ci]
        got, probs = _scores_of(run, ci)
        if got is None:
            continue
        checked += 1
        q, m, k, n = _call_parts(scn, call)
        want = oracle_scores(ctx, q, m, k, n)
        tol = score_tol(ctx, q, m, k, n)
        allowed = scn.allowed(call)
        spread = 2 * ctx.scale * (magnitudes(ctx, q) @ np.swapaxes(kv_to_q(ctx, magnitudes(ctx, k)), -1, -2)).max(
            -1, keepdims=True)
        bad, g, w, t = _compare(ctx, got, probs, want, tol, allowed, spread)
        if bad.any() and first is None:
            what = "centred log-probability" if probs else "score"
            first = Finding("scores", scn, ci, _where(bad, g, w, t, scn, call, what))
            first.cause = _score_cause(ctx, run, ci, got, probs, tol, allowed, spread, want)
    return checked, first


_Q_TEXT = {
    "twice": "the query is rotated twice (at twice its position's angle)",
    "plus1": "the decode step's query is rotated at its position + 1 (decode offset off by one)",
    "minus1": "the decode step's query is rotated at its position - 1 (decode offset off by one)",
    "restart": "each call's queries are rotated from position 0 (the cache's offset is not added)",
    "first_chunk": "every chunk's queries are rotated at the first chunk's position_ids",
    "slot": "the queries are rotated at their slot in the cache, not at position_ids",
    "run_on": "the queries' positions run on across documents (not reset at a document's start)",
    "zero": "the query is not rotated",
}


def _score_cause(ctx: Ctx, run: Run, ci: int, got: np.ndarray, probs: bool, tol: np.ndarray, allowed: np.ndarray,
                 spread: np.ndarray, want: np.ndarray) -> str | None:
    scn, call = run.scn, run.scn.calls[ci]
    q, m, k, n = _call_parts(scn, call)
    stored = run.res[ci].keys
    stored = stored[:, :, : call.stop] if stored is not None and stored.shape[2] >= call.stop else None

    def fits(cand: np.ndarray) -> bool:
        return not _compare(ctx, got, probs, cand, 2 * tol, allowed, spread)[0].any()

    def dots(qq: np.ndarray, kk: np.ndarray) -> np.ndarray:
        return ctx.cap(ctx.scale * (qq @ np.swapaxes(kv_to_q(ctx, kk), -1, -2)))

    qr = exact(q, m, ctx.geo)
    if stored is not None:
        if fits(dots(qr, stored)):
            return ("the scores are those of the keys as the cache holds them: the stored keys are wrong (the cache "
                    "check names the cause)")
        again = stored.copy()
        again[:, :, : call.start] = exact(stored[:, :, : call.start], n[:, : call.start], ctx.geo)
        if call.start and fits(dots(qr, again)) or fits(dots(qr, exact(stored, n, ctx.geo))):
            return ("the cached keys are rotated again when read: stored rotated, then rotated a second time before "
                    "the product (TensorRT-LLM's recurring bug) -- rotate the keys once, either before they are "
                    "stored or when they are read")
    kr = exact(k, n, ctx.geo)
    maps = position_maps(scn)
    for name in _MAP_ORDER:
        mm = maps[name][:, call.start: call.stop]
        if np.array_equal(mm, m):
            continue
        if fits(dots(exact(q, mm, ctx.geo), kr if stored is None else stored)):
            return _Q_TEXT[name]
    a = allowed[:, None] & (np.abs(want) > 1e-3)
    if not probs and a.any():
        ratio = float(np.median(got[np.broadcast_to(a, got.shape)] / want[np.broadcast_to(a, want.shape)]))
        if abs(ratio - 1) > 1e-3 and fits(want * ratio):
            return (f"the scores are {ratio:.6g} times the oracle's: a softmax scale of {ctx.scale * ratio:.6g}, where "
                    f"{ctx.scale:.6g} is assumed (pass scale= if that is the model's)")
    return None


# ---------------------------------------------------------------------------- (d) the output


def want_output(ctx: Ctx, scn: Scenario, call: Call, p: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The oracle's output for the step's own probabilities ``p`` and the values ``v``, and its
    bound (see the module notes)."""
    n, m = scn.ids[:, : call.stop], scn.ids[:, call.start: call.stop]
    v = v[:, :, : call.stop]
    slots = call.stop
    gam = slots * ctx.u_acc / (1 - slots * ctx.u_acc) + 3 * ctx.u + (slots + 4) * ctx.u_acc
    mv = kv_to_q(ctx, magnitudes(ctx, v) if ctx.derotate else np.abs(v))
    if ctx.derotate:
        vt = kv_to_q(ctx, exact(v, n, ctx.geo))
        u = p @ vt
        want = exact(u, -m, ctx.geo)
        tol = p @ (kv_to_q(ctx, slot_bounds(ctx, v, n)) + gam * mv) + slot_bounds(ctx, u, m)
    else:
        want = p @ kv_to_q(ctx, v)
        tol = p @ (gam * mv)
    return want, tol * (1 + 4 * ctx.u) + 1e-300


def check_output(ctx: Ctx, run: Run) -> tuple[int, Finding | None]:
    """Each call's output against ``want_output``: (calls checked, the first failure)."""
    scn = run.scn
    checked = 0
    first: Finding | None = None
    for ci, res in enumerate(run.res):
        p = run.probs[ci] if ci < len(run.probs) else None
        if res.out is None or p is None or run.v is None:
            continue
        checked += 1
        call = scn.calls[ci]
        want, tol = want_output(ctx, scn, call, p, run.v)
        qv = scn.valid[:, call.start: call.stop][:, None, :, None]
        bad = qv & ~(np.abs(res.out - want) <= tol)
        if bad.any() and first is None:
            first = Finding("output", scn, ci, _where(bad, res.out, want, tol, scn, call, "output"))
            first.cause = _output_cause(ctx, scn, call, p, run.v, res.out, tol, qv)
    return checked, first


def _output_cause(ctx: Ctx, scn: Scenario, call: Call, p: np.ndarray, v: np.ndarray, out: np.ndarray,
                  tol: np.ndarray, qv: np.ndarray) -> str | None:
    n, m = scn.ids[:, : call.stop], scn.ids[:, call.start: call.stop]
    v = v[:, :, : call.stop]

    def fits(cand: np.ndarray) -> bool:
        return bool(np.all((np.abs(out - cand) <= 2 * tol) | ~qv))

    vt = p @ kv_to_q(ctx, exact(v, n, ctx.geo))
    plain = p @ kv_to_q(ctx, v)
    if not ctx.derotate:
        if fits(vt):
            return "the values are rotated at their keys' positions (RoPE applied to v), where the config rotates none"
        if fits(exact(plain, -m, ctx.geo)):
            return ("the output is rotated back at the query position, where the config has no de-rotation (values "
                    "and output pass through)")
        return None
    if fits(vt):
        return ("de-rotation missing: the output is not rotated back at the query position (R(-m) on the rotary "
                "channels, after the weighted sum of values rotated at their keys' positions)")
    if fits(exact(plain, -m, ctx.geo)):
        return "the values are not rotated at their keys' positions before the output is rotated back"
    if fits(exact(vt, m, ctx.geo)):
        return "the output is rotated the wrong way: R(+m) at the query position, where R(-m) undoes the keys' R(n)"
    neg = dataclasses.replace(ctx.geo, direction=-ctx.geo.direction)
    seen = effective_positions(vt, out, neg)
    valid = scn.valid[:, call.start: call.stop]
    if np.isnan(seen[valid]).any():
        return None
    at = np.where(valid, seen, 0).astype(np.int64)
    if not fits(exact(vt, -at, ctx.geo)):
        return None
    keys = set(scn.ids[:, : call.stop][scn.valid[:, : call.stop]].tolist())
    wrong = valid & (at != m)
    got_pos, q_pos = at[wrong][:4].tolist(), m[wrong][:4].tolist()
    if set(at[wrong].tolist()) <= keys:
        return (f"de-rotation at a key's position instead of the query's: the output is rotated back at positions "
                f"{got_pos} where the queries are at {q_pos} (each a position of a cached key -- the compressed "
                "keys' positions used for the output?) -- rotate back at the query position m")
    return f"the output is rotated back at positions {got_pos} where the queries are at {q_pos}"


# ---------------------------------------------------------------------------- (c) the relative property


def check_relative(ctx: Ctx, base: Run, shifted: Run) -> tuple[int, Finding | None]:
    """The shifted run's scores (or probabilities) and outputs against the base run's, call by
    call, within the sum of their bounds: (calls compared, the first difference)."""
    scn, b0 = shifted.scn, base.scn
    compared = 0
    first: Finding | None = None
    for ci in range(min(len(base.res), len(shifted.res))):
        call = scn.calls[ci]
        g0, p0 = _scores_of(base, ci)
        g1, p1 = _scores_of(shifted, ci)
        allowed = scn.allowed(call)
        if g0 is not None and g1 is not None and p0 == p1:
            compared += 1
            q, m, k, n = _call_parts(scn, call)
            tol = score_tol(ctx, q, m, k, n) + score_tol(ctx, *_call_parts(b0, call))
            spread = 2 * ctx.scale * (magnitudes(ctx, q) @ np.swapaxes(kv_to_q(ctx, magnitudes(ctx, k)), -1, -2)).max(
                -1, keepdims=True)
            if p0:
                a_ = allowed[:, None]
                with np.errstate(divide="ignore", invalid="ignore"):
                    a, b = _centred(np.log(g1), a_), _centred(np.log(g0), a_)
                t = _log_tol(ctx, np.where(a_, tol, 0.0), spread, g1.shape[-1], runs=2)
                bad = a_ & ~(np.abs(a - b) <= t)
            else:
                bad, a, b, t = _compare(ctx, g1, False, g0, tol, allowed)
            if bad.any() and first is None:
                what = "centred log-probability" if p0 else "score"
                where = _where(bad, a, b, t, scn, call, what).replace("the oracle's", "unshifted")
                first = Finding("relative", scn, ci, where,
                                f"the scores change when every position is shifted by {scn.shift}: they depend on the "
                                "positions themselves, not on n - m alone (an absolute position leaks in: a key or "
                                "query rotated at a position that is not its own)")
        o0, o1 = base.res[ci].out, shifted.res[ci].out
        pr0 = base.probs[ci] if ci < len(base.probs) else None
        pr1 = shifted.probs[ci] if ci < len(shifted.probs) else None
        if o0 is not None and o1 is not None and pr0 is not None and pr1 is not None and base.v is not None:
            _, t0 = want_output(ctx, b0, call, pr0, base.v)
            _, t1 = want_output(ctx, scn, call, pr1, shifted.v if shifted.v is not None else base.v)
            qv = scn.valid[:, call.start: call.stop][:, None, :, None]
            w = kv_to_q(ctx, magnitudes(ctx, base.v[:, :, : call.stop]) if ctx.derotate else
                        np.abs(base.v[:, :, : call.stop]))
            t = t0 + t1 + np.abs(pr1 - pr0) @ w  # the probabilities' own difference (the scores check bounds it)
            bad = qv & ~(np.abs(o1 - o0) <= t)
            if bad.any() and first is None:
                where = _where(bad, o1, o0, t, scn, call, "output").replace("the oracle's", "unshifted")
                first = Finding("relative", scn, ci, where,
                                f"the output changes when every position is shifted by {scn.shift}: a value or the "
                                "output is rotated at an absolute position, not by n - m")
    return compared, first


def check_agree(ctx: Ctx, scn: Scenario, a: list[StepResult], b: list[StepResult]) -> str:
    """Two paths' results on the same calls (eager and compiled), each allowed its own bound:
    the stored keys, the scores, the probabilities (as centred logs) and the outputs (beside
    their probabilities' own difference). The first call and quantity that differ, or ``""``."""
    for ci, (x, y) in enumerate(zip(a, b)):
        call = scn.calls[ci]
        if x.keys is not None and y.keys is not None and x.keys.shape == y.keys.shape:
            k, ids = scn.k[:, :, : x.keys.shape[2]], scn.ids[:, : x.keys.shape[2]]
            if not np.all(np.abs(x.keys - y.keys) <= 2 * slot_bounds(ctx, k, ids)):
                return f"{scn.label(ci)}: the stored keys"
        q, m, k, n = _call_parts(scn, call)
        tol = 2 * score_tol(ctx, q, m, k, n)
        a_ = scn.allowed(call)[:, None]
        if x.scores is not None and y.scores is not None and np.any(a_ & ~(np.abs(x.scores - y.scores) <= tol)):
            return f"{scn.label(ci)}: the scores"
        if x.weights is not None and y.weights is not None:
            spread = 2 * ctx.scale * (magnitudes(ctx, q) @ np.swapaxes(kv_to_q(ctx, magnitudes(ctx, k)), -1, -2)).max(
                -1, keepdims=True)
            with np.errstate(divide="ignore", invalid="ignore"):
                d = np.abs(_centred(np.log(x.weights), a_) - _centred(np.log(y.weights), a_))
            if np.any(a_ & ~(d <= _log_tol(ctx, np.where(a_, tol, 0.0), spread, call.stop, runs=2))):
                return f"{scn.label(ci)}: the weights"
        if x.out is not None and y.out is not None and x.weights is not None and y.weights is not None:
            v = scn.v
            t = want_output(ctx, scn, call, x.weights, v)[1] + want_output(ctx, scn, call, y.weights, v)[1]
            w = kv_to_q(ctx, magnitudes(ctx, v[:, :, : call.stop]) if ctx.derotate else np.abs(v[:, :, : call.stop]))
            t = t + np.abs(x.weights - y.weights) @ w
            if not np.all(np.abs(x.out - y.out) <= t):
                return f"{scn.label(ci)}: the output"
    return ""
