r"""Which position each token was rotated at: read from the output, then named by a second check.

A wrong output that is still a rotation by the config's frequencies -- at the wrong
position -- is the commonest RoPE bug of a serving stack: position_ids ignored (``arange``
used), a table clamped at its last row or read modulo its length, positions narrowed to
``k`` bits, a cache extended without its offset, a chunked prefill that hands every chunk the
first chunk's ``position_ids``. :func:`effective_positions` reads, for each token, the
position its rotation corresponds to: each pair's angle :math:`\phi_p =
\arg\big((o_a + i o_b) / (x_a + i x_b)\big)`, unwrapped from the slowest pair to the fastest
(each pair's angle fixes the position to within :math:`\pi / \omega_p`), rounded to an
integer. :func:`name_positions` then tries the named maps of the true positions against what
was read, and keeps a map only when the oracle at the mapped positions *reproduces* the
output (a second check, never a guess); where two bugs give the same map on the failing
call (a table read modulo ``N``, a cache extended without its offset and a chunk's ids reused, on
a prefill from 0), a further call at another offset tells them apart, or the cause names each.

>>> import numpy as np
>>> from pe_symbolic.audit.verify.geometry import Oracle
>>> from pe_symbolic.audit.verify.probe import exact
>>> from pe_symbolic.numeric.config import parse_rope_config
>>> cfg = {"head_dim": 8, "rope_theta": 10000.0}
>>> geo = Oracle(cfg, parse_rope_config(cfg), "split", None).at()
>>> ids = np.arange(3000)[None]
>>> x = np.random.default_rng(0).standard_normal((1, 1, 3000, 8))
>>> m = effective_positions(x, exact(x, ids % 2048, geo), geo)
>>> int(m[0, 2500])
452
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .geometry import Geometry

__all__ = ["effective_positions", "name_positions", "wrong_from"]


def wrong_from(ids: np.ndarray, bad: np.ndarray) -> int | None:
    """The first failing position when every position of the call below it is right (and it is
    past the first few), else None: "wrong from N on", said where no cause is named."""
    pos = ids if ids.ndim == 2 else ids.max(axis=0)
    tok_bad = bad.any(axis=1)
    if not tok_bad.any():
        return None
    first = int(pos[tok_bad].min())
    below = pos < first
    return first if first > 16 and below.any() and not tok_bad[below].any() else None


def effective_positions(x: np.ndarray, out: np.ndarray, geo: Geometry) -> np.ndarray:
    """``(batch, seq)``: the integer position each token's rotation corresponds to (the median
    over heads), or NaN where the output is not a rotation by the config's frequencies at
    some position (one position axis only)."""
    if geo.n_axes != 1 or not geo.pairs:
        return np.full(x.shape[:1] + x.shape[2:3], np.nan)
    a_idx = np.array([a for a, _ in geo.pairs])
    b_idx = np.array([b for _, b in geo.pairs])
    z_in = x[..., a_idx] + 1j * x[..., b_idx]
    z_out = out[..., a_idx] + 1j * out[..., b_idx]
    with np.errstate(all="ignore"):
        phi = np.angle(z_out / z_in) * geo.direction  # (b, h, s, pairs)
    omega = np.asarray(geo.want, dtype=np.float64)
    order = [int(p) for p in np.argsort(omega) if omega[p] > 0]
    if not order:
        return np.full(x.shape[:1] + x.shape[2:3], np.nan)
    p0 = order[0]
    m = phi[..., p0] / omega[p0]
    m = np.where(m < -0.5, m + 2 * np.pi / omega[p0], m)  # positions are >= 0
    for p in order[1:]:
        pred = m * omega[p]
        m = m + (((phi[..., p] - pred) + np.pi) % (2 * np.pi) - np.pi) / omega[p]
    m = np.rint(m)
    with np.errstate(all="ignore"):
        return np.nanmedian(m, axis=1)


def name_positions(x: np.ndarray, ids: np.ndarray, out: np.ndarray, bad: np.ndarray, geo: Geometry,
                   reproduces: Callable[[np.ndarray], bool],
                   rerun: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray] | None]) -> list[str]:
    """The named position map that reproduces the failing call, as sentences (empty when none).

    ``bad``: ``(batch, heads, seq)`` rows that fail; ``reproduces(ids2)``: whether the oracle
    at positions ``ids2`` reproduces the whole call's output; ``rerun(ids3)``: ``(x, out)`` of
    a fresh call of the function at positions ``ids3`` (``(1, seq)``), for the second check."""
    if ids.ndim != 2 or not bad.any():
        return []
    m = effective_positions(x, out, geo)
    ids64 = ids.astype(np.int64)
    tok_bad = bad.any(axis=1)
    if np.isnan(m[tok_bad]).any():
        return []
    seen = m.astype(np.int64)
    if not np.any(seen[tok_bad]):  # rotated at position 0 everywhere it fails: not rotated (the candidates say)
        return []
    fail_pos = np.unique(ids64[tok_bad])
    first = int(fail_pos[0])
    right_below = bool(np.all(~tok_bad[ids64 < first])) if (ids64 < first).any() else False
    arange = np.broadcast_to(np.arange(ids.shape[1]), ids.shape)
    named: list[tuple[str, np.ndarray]] = []
    if not np.array_equal(arange, ids64):
        named.append(("it ignores position_ids: each token is rotated at its index in the sequence (arange(seq)), "
                      "not at its position -- pass position_ids through (or the cache's offset)", arange))
    if first > 0:
        named.append(("it is rotated twice: each token turns by twice its position's angle (a key stored already "
                      "rotated and rotated again, or RoPE applied in two places)", 2 * ids64))
    top = int(seen[tok_bad].max())
    if top + 1 <= first:
        named.append((f"a table of {top + 1} rows, clamped: every position from {top + 1} on is rotated as {top} "
                      f"(a gather clamped at the table's end; wrong from {top + 1} on) -- build the table for the "
                      "largest position the model admits", np.minimum(ids64, top)))
    for cause, ids2 in named:
        if reproduces(ids2):
            return [cause]
    shift = (ids64 - seen)[tok_bad]
    n = int(shift.min()) if len(shift) else 0
    if n <= 0 or not right_below or n > first:
        return []
    maps = {"table": ids64 % n, "offset": np.where(ids64 >= n, ids64 - n, ids64)}
    fits = [k for k, v in maps.items() if reproduces(v)]
    if not fits:
        return []
    return _which_of(n, fits, rerun, geo)


_SAYS = {
    "table": "a table of {n} rows read modulo its length: position p is rotated as p mod {n} (wrong from {n} on) -- "
             "build the table for the largest position the model admits",
    "bits": "positions are reduced modulo 2^{k} = {n}: position p is rotated as p mod {n} (wrong from {n} on; held "
            "in a {k}-bit unsigned integer, or a table of {n} rows read modulo its length)",
    "chunk": "wrong from sequence index {n} on: a prefill in chunks of {n} tokens gives every chunk the first "
             "chunk's position_ids (token i is rotated as position_ids[i mod {n}]) -- slice position_ids with each "
             "chunk",
    "offset": "wrong from position {n} on: position p is rotated as p - {n} (right below {n}): the rows of a cos / "
              "sin cache extended past {n} restart at 0 -- a cache extended without its offset (compute the new "
              "rows at positions {n}, {n1}, ...)",
}


def _which_of(n: int, fits: list[str], rerun: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray] | None],
              geo: Geometry) -> list[str]:
    """Positions ``p`` read as ``p - n`` from ``n`` on, on a call from position 0: a table of
    ``n`` rows read modulo its length, a cache extended without its offset, or a chunked
    prefill (chunks of ``n``) whose every chunk gets the first chunk's ids. A second call of
    ``2 n + 64`` tokens from position ``n // 2`` tells them apart."""
    start = max(1, n // 2)
    probe = np.arange(start, start + 2 * n + 64)[None]
    cands = {"table": probe[0] % n, "offset": np.where(probe[0] >= n, probe[0] - n, probe[0]),
             "chunk": probe[0][np.arange(probe.shape[1]) % n]}
    if "table" not in fits:
        cands.pop("table")
    if "offset" not in fits:
        cands.pop("offset")
    if "table" not in fits and "offset" not in fits:
        return []
    got = rerun(probe)
    m = None
    if got is not None:
        m = effective_positions(got[0], got[1], geo)[0]
    if m is not None and not np.isnan(m).any():
        hit = [k for k, v in cands.items() if np.array_equal(m, v)]
        if len(hit) == 1:
            key = "bits" if hit[0] == "table" and n & (n - 1) == 0 else hit[0]
            return [_SAYS[key].format(n=n, n1=n + 1, k=n.bit_length() - 1) + f" (told apart by a second call of "
                    f"{probe.shape[1]} tokens from position {start})"]
    return ["wrong from position {n} on: position p is rotated as p - {n} -- one of: ".format(n=n)
            + "; ".join(_SAYS[k].format(n=n, n1=n + 1, k=n.bit_length() - 1) for k in cands)]
