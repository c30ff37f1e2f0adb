r"""The calls a serving stack makes with its KV cache, for :func:`pe_symbolic.verify_attention`.

A :class:`Scenario` is one sequence of calls of the user's attention step on one fresh cache:
every slot of the cache (a token, or a pad) with its true position, whether it is a real token,
its document (packed sequences), and which call feeds it. The drawn scenarios
(:func:`draw_scenarios`), in order:

``prefill + decode``
    a prefill of 12 tokens from position 0, then 4 decode steps (one token each);
``chunked prefill``
    24 tokens in three chunks of 8 (each call with its true positions), then 2 decode steps;
``left padding``
    a batch of two rows, the first with 3 pads in front (position_ids as HF's ``generate``
    gives them: ``cumsum(mask) - 1``, pads at 1), a prefill of 12 slots and 3 decode steps;
``packed sequences``
    one row holding three documents of 5, 7 and 4 tokens, position_ids restarting at 0 at each
    document's start (one call, as a packed prefill is made);
``shifted by N``
    ``prefill + decode`` again with the same ``q``, ``k``, ``v`` and every position moved by a
    common ``N`` (drawn, and the largest that keeps the last position admitted): the relative
    property -- the scores of a RoPE attention depend on ``n - m`` only -- says its scores are
    those of ``prefill + decode``, which the check compares without the oracle.

:func:`position_maps` gives, per scenario, the positions a common bug would rotate each slot
at (twice its position, its slot in the cache, the call's index from 0, the first chunk's ids,
one past on a decode step, no reset within a call, none); the check keeps a map only where the
oracle at the mapped positions reproduces what was stored.

>>> scns = draw_scenarios(seed=3, top=4095, switch=None, heads=(4, 2), head_dim=8, dtype="float32")
>>> [s.key for s in scns]
['decode', 'chunked', 'left_pad', 'packed', 'shift', 'shift_far']
>>> scns[2].ids[0, :6].tolist(), scns[2].valid[0, :4].tolist()
([1, 1, 1, 0, 1, 2], [False, False, False, True])
>>> [c.kind for c in scns[1].calls]
['prefill', 'chunk', 'chunk', 'decode', 'decode']
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .probe import cast

__all__ = ["Call", "Scenario", "draw_scenarios", "position_maps"]

#: Tokens of the ``prefill + decode`` scenario's prefill, and its decode steps.
PREFILL, DECODES = 12, 4


@dataclass
class Call:
    """One call of the step: the cache slots ``[start, stop)`` it feeds, and its kind
    (``"prefill"``, ``"chunk"`` -- a prefill chunk after the first --, ``"decode"``, ``"packed"``)."""

    start: int
    stop: int
    kind: str

    @property
    def seq(self) -> int:
        """Tokens (slots) of the call."""
        return self.stop - self.start


@dataclass
class Scenario:
    """One sequence of calls on a fresh cache (see the module notes).

    ``ids``, ``valid``, ``doc``: ``(batch, slots)`` -- each slot's true position, whether it is a
    real token (pads are not), its document (``-1`` for a pad). ``q``: ``(batch, q_heads,
    slots, head_dim)``, ``k`` and ``v``: ``(batch, kv_heads, slots, head_dim)``, float64 values
    of the dtype checked (drawn unrotated). ``base``: the scenario this one shifts by
    ``shift`` (the relative check compares the two)."""

    key: str
    name: str
    ids: np.ndarray
    valid: np.ndarray
    doc: np.ndarray
    calls: list[Call]
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    shift: int = 0
    base: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def batch(self) -> int:
        return int(self.ids.shape[0])

    @property
    def slots(self) -> int:
        return int(self.ids.shape[1])

    def allowed(self, call: Call) -> np.ndarray:
        """``(batch, seq, stop)``: query slot ``i`` of ``call`` attends key slot ``j`` -- causal
        (``j <= i``), both real tokens, the same document."""
        i = np.arange(call.start, call.stop)[:, None]
        j = np.arange(call.stop)[None, :]
        causal = (j <= i)[None]
        v = self.valid[:, : call.stop]
        d = self.doc[:, : call.stop]
        same = d[:, call.start: call.stop, None] == d[:, None, :]
        return causal & v[:, call.start: call.stop, None] & v[:, None, :] & same

    def mask2d(self, stop: int) -> np.ndarray:
        """HF's 2-D ``attention_mask`` for the slots ``[0, stop)``: 1 for a token, 0 for a pad."""
        return self.valid[:, :stop].astype(np.int64)

    def label(self, call_index: int) -> str:
        """``call 2 (decode, position 12)`` -- a call and its positions, for a report."""
        c = self.calls[call_index]
        pos = self.ids[:, c.start: c.stop][self.valid[:, c.start: c.stop]]
        where = (f"position {int(pos[0])}" if c.seq == 1 and pos.size else
                 f"positions {int(pos.min())}..{int(pos.max())}" if pos.size else "pads only")
        return f"call {call_index + 1} ({c.kind}, {where})"


def _draw(rng: np.random.Generator, batch: int, heads: tuple[int, int], slots: int, d: int,
          dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    hq, hk = heads
    q = cast(rng.standard_normal((batch, hq, slots, d)), dtype)
    k = cast(rng.standard_normal((batch, hk, slots, d)), dtype)
    v = cast(rng.standard_normal((batch, hk, slots, d)), dtype)
    return q, k, v


def _calls(sizes: list[tuple[int, str]]) -> list[Call]:
    out, t = [], 0
    for n, kind in sizes:
        out.append(Call(t, t + n, kind))
        t += n
    return out


def draw_scenarios(*, seed: int, top: int, switch: int | None, heads: tuple[int, int], head_dim: int,
                   dtype: str) -> list[Scenario]:
    """The scenarios of a run (see the module notes), their inputs drawn from ``seed``.

    ``top``: the largest position the config admits; ``switch``: the length at which a
    length-dependent rule changes its tables (positions are then kept below it)."""
    rng = np.random.default_rng([seed, 40])
    d = head_dim
    limit = top if switch is None else min(top, switch - 1)
    out: list[Scenario] = []

    n = PREFILL + DECODES
    ids = np.arange(n)[None]
    q, k, v = _draw(rng, 1, heads, n, d, dtype)
    one = np.ones((1, n), bool)
    out.append(Scenario("decode", "prefill + decode", ids, one, np.zeros((1, n), np.int64),
                        _calls([(PREFILL, "prefill")] + [(1, "decode")] * DECODES), q, k, v))

    n = 26
    ids = np.arange(n)[None]
    q, k, v = _draw(rng, 1, heads, n, d, dtype)
    out.append(Scenario("chunked", "chunked prefill", ids, np.ones((1, n), bool), np.zeros((1, n), np.int64),
                        _calls([(8, "prefill"), (8, "chunk"), (8, "chunk"), (1, "decode"), (1, "decode")]), q, k, v))

    pads, n = 3, 15
    valid = np.ones((2, n), bool)
    valid[0, :pads] = False
    ids = np.cumsum(valid, axis=1) - 1
    ids = np.where(valid, ids, 1)  # HF's generate: masked_fill(attention_mask == 0, 1)
    q, k, v = _draw(rng, 2, heads, n, d, dtype)
    out.append(Scenario("left_pad", "left padding", ids, valid, np.where(valid, 0, -1),
                        _calls([(12, "prefill")] + [(1, "decode")] * 3), q, k, v))

    docs = [5, 7, 4]
    ids = np.concatenate([np.arange(m) for m in docs])[None]
    doc = np.concatenate([np.full(m, i) for i, m in enumerate(docs)])[None]
    q, k, v = _draw(rng, 1, heads, sum(docs), d, dtype)
    out.append(Scenario("packed", "packed sequences", ids, np.ones_like(ids, bool), doc,
                        _calls([(sum(docs), "packed")]), q, k, v))

    base = out[0]
    far = max(limit - (base.slots - 1), 0)
    near = int(rng.integers(1000, far // 2)) if far > 2002 else int(rng.integers(1, far)) if far > 1 else 0
    for key, shift in (("shift", near), ("shift_far", far)):
        if shift <= 0 or (key == "shift_far" and shift == near):
            continue
        s = Scenario(key, f"shifted by {shift}", base.ids + shift, base.valid, base.doc, base.calls, base.q, base.k,
                     base.v, shift=shift, base=base.key)
        if switch is not None:
            s.notes.append(f"positions kept below {switch}: the rule changes its tables there, and a cached key keeps "
                           "the tables of the call that stored it")
        out.append(s)
    return out


def position_maps(s: Scenario) -> dict[str, np.ndarray]:
    """``{name: (batch, slots) positions}``: where a common bug rotates each slot (see the
    module notes). ``restart``: each call's tokens from 0; ``first_chunk``: every prefill chunk
    at the first call's ids (decode steps right); ``slot``: the slot in the cache, pads
    included (``cache_position`` for ``position_ids``); ``run_on``: no reset within a call
    (the call's first id, counting on); ``plus1`` / ``minus1``: one off on the decode steps;
    ``twice``: twice the position; ``zero``: not rotated."""
    ids = s.ids.astype(np.int64)
    slot = np.broadcast_to(np.arange(s.slots), ids.shape).copy()
    restart = np.empty_like(ids)
    first_chunk = ids.copy()
    run_on = np.empty_like(ids)
    plus1, minus1 = ids.copy(), ids.copy()
    c0 = s.calls[0]
    for c in s.calls:
        idx = np.arange(c.seq)
        restart[:, c.start: c.stop] = idx
        run_on[:, c.start: c.stop] = ids[:, c.start: c.start + 1] + idx
        if c.kind == "chunk":
            first_chunk[:, c.start: c.stop] = ids[:, c0.start + idx % c0.seq]
        if c.kind == "decode":
            plus1[:, c.start: c.stop] += 1
            minus1[:, c.start: c.stop] -= 1
    return {"twice": 2 * ids, "plus1": plus1, "minus1": minus1, "restart": restart, "first_chunk": first_chunk,
            "slot": slot, "run_on": run_on, "zero": np.zeros_like(ids)}
