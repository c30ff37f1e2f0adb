r"""The inputs that make a recipe's output and score errors largest: the audit's measured column.

A random unit pair measures a typical error, not the worst one: the rotation's roundings
line up with the table's error only for some inputs, and a score's pairs add up only when
every pair's error has the same sign. :func:`worst_output` and :func:`worst_score` search
for those inputs through the recipe's own rotation (``Emulation.rotate``):

* **output**: at the (position, pair) entries whose table error (as a vector) is largest,
  every candidate unit pair -- ``directions`` directions rounded to the activation dtype,
  each component moved by ``-spread .. spread`` ulps, norms above ``1 + u`` dropped -- is
  rotated; the longest error vector is kept;
* **score** (``<R(m) q, R(m + D) k> / h`` against the exact value, unit pairs): at the query
  positions ``m`` where the table-level error with every pair's error lined up (``mean_i
  |conj(C_m) C_n - conj(C_m*) C_n*|``, ``*`` exact) is largest, per pair the candidate
  queries and keys are crossed (the ``best`` of each side by its own output error against
  all of the other side) and each pair's largest error of each sign kept; the sign shared by
  all pairs that gives the larger mean wins.

Each result says where it was found and how (``Found.how``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .emulate import PRECISION, Emulation, rnd

__all__ = ["SEARCH", "Found", "candidates", "worst_output", "worst_score"]

#: The search's sizes: output entries searched, candidate directions, ulps moved per
#: component, query positions per offset, best candidates of each side crossed.
SEARCH: dict[str, int] = {"entries": 12, "directions": 256, "spread": 1, "positions": 1, "best": 16}


@dataclass(frozen=True)
class Found:
    """The largest error found, where, and how it was searched."""

    value: float
    where: str
    how: str

    def to_dict(self) -> dict[str, object]:
        """JSON-ready."""
        return {"value": self.value, "where": self.where, "how": self.how}


def _step(x: np.ndarray, k: int, dtype: str) -> np.ndarray:
    if k == 0:
        return x
    ax = np.abs(x)
    _, e = np.frexp(np.where(ax > 0, ax, 1.0))
    ulp = np.where(ax > 0, np.ldexp(1.0, e - PRECISION[dtype]), 2.0 ** -24)
    return rnd(x + k * ulp, dtype).astype(np.float64)


def candidates(dtype: str, directions: int, spread: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit pairs of ``directions`` directions rounded to ``dtype``, each component moved by
    ``-spread .. spread`` ulps, norms above ``1 + u`` dropped, duplicates removed.

    >>> xa, xb = candidates("bfloat16", 8, 1)
    >>> bool(np.all(np.hypot(xa, xb) <= 1 + 2.0**-8)), len(xa) > 8
    (True, True)
    """
    phi = 2 * np.pi * (np.arange(directions) + 0.5) / directions
    a = rnd(np.cos(phi), dtype).astype(np.float64)
    b = rnd(np.sin(phi), dtype).astype(np.float64)
    lim = (1 + 2.0 ** -PRECISION[dtype]) ** 2
    out = []
    for da in range(-spread, spread + 1):
        for db in range(-spread, spread + 1):
            aa, bb = _step(a, da, dtype), _step(b, db, dtype)
            keep = aa * aa + bb * bb <= lim
            out.append(np.stack([aa[keep], bb[keep]], 1))
    pairs = np.unique(np.concatenate(out), axis=0)
    return pairs[:, 0], pairs[:, 1]


def _tables(em: Emulation, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The recipe's and the exact cos / sin tables at positions ``t``, (len(t), h) each."""
    with np.errstate(over="ignore", invalid="ignore"):
        c, s = em.tables(t, em.angles(t))
    cx, sx = em.target.exact_cos_sin(t)
    return np.asarray(c, np.float64), np.asarray(s, np.float64), cx, sx


def _rotated(em: Emulation, xa: np.ndarray, xb: np.ndarray, c: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Candidates (N,) rotated by one row of tables (h,): (N, h, 2)."""
    oa, ob = em.rotate((xa[:, None], xb[:, None]), c[None, :], s[None, :])
    return np.stack([np.asarray(oa, np.float64), np.asarray(ob, np.float64)], -1)


def worst_output(em: Emulation, entries: list[tuple[int, int]], search: dict[str, int] | None = None) -> Found | None:
    """The longest output error vector over every candidate input at ``entries`` (position,
    pair); ``None`` when there are none."""
    if not entries:
        return None
    sz = SEARCH | (search or {})
    xa, xb = candidates(em.act, sz["directions"], sz["spread"])
    t = np.array(sorted({e[0] for e in entries}), dtype=np.float64)
    c, s, cx, sx = _tables(em, t)
    row = {int(v): k for k, v in enumerate(t)}
    best = (-1.0, "")
    for pos, i in entries:
        k = row[pos]
        y = _rotated(em, xa, xb, c[k, i: i + 1], s[k, i: i + 1])[:, 0]
        ea = y[:, 0] - (xa * cx[k, i] - xb * sx[k, i])
        eb = y[:, 1] - (xa * sx[k, i] + xb * cx[k, i])
        err = np.hypot(ea, eb)
        j = int(np.nanargmax(np.where(np.isfinite(err), err, -1.0)))
        if err[j] > best[0]:
            best = (float(err[j]), f"position {pos}, pair {i}, x = ({xa[j]:.6g}, {xb[j]:.6g})")
    how = (f"the {len(entries)} (position, pair) entries with the largest table error, each rotated for "
           f"{len(xa)} unit pairs ({sz['directions']} directions rounded to {em.act}, +-{sz['spread']} ulp)")
    return Found(best[0], best[1], how)


def _aligned(y_a: np.ndarray, x_a: np.ndarray, y_b: np.ndarray, x_b: np.ndarray, order: np.ndarray,
             angles: np.ndarray, C_a: complex, window: int) -> dict[int, float]:
    """For every candidate ``b`` (output ``y_b``, exact ``x_b``), the candidates ``a`` whose exact
    rotated vector ``a C_a`` points along ``b``'s output error (or against it: sign -1), the
    ``window`` nearest by angle: the largest ``sign * (<y_a, y_b> - <x_a, x_b>)`` of each sign."""
    e_b = y_b - x_b
    target = np.arctan2(e_b[:, 1], e_b[:, 0]) - np.angle(C_a)
    out = {}
    n = len(order)
    for sign in (1, -1):
        goal = np.mod(target + (0.0 if sign == 1 else np.pi), 2 * np.pi)
        at = np.searchsorted(angles, goal)
        idx = order[(at[:, None] + np.arange(-window // 2, window - window // 2)[None, :]) % n]  # (N_b, W)
        err = np.einsum("nwc,nc->nw", y_a[idx], y_b) - np.einsum("nwc,nc->nw", x_a[idx], x_b)
        err = np.where(np.isfinite(err), sign * err, -np.inf)
        out[sign] = float(np.max(err))
    return out


def worst_score(em: Emulation, picks: dict[int, list[int]], search: dict[str, int] | None = None) -> Found | None:
    """The largest score error over the candidate queries and keys at the query positions
    ``picks[offset]`` (see the module docstring); ``None`` when there are none.

    Per pair, for every candidate key the queries whose exactly rotated vector points along
    the key's output error (the ``best`` nearest by angle) are tried, and for every query the
    keys likewise: the error ``<y_q, y_k> - <q C_m, k C_n>`` is largest where each side's
    rounding lines up with the other side's vector."""
    sz = SEARCH | (search or {})
    xa, xb = candidates(em.act, sz["directions"], sz["spread"])
    angles_all = np.mod(np.arctan2(xb, xa), 2 * np.pi)
    order = np.argsort(angles_all)
    angles = angles_all[order]
    W = min(sz["best"], len(xa))
    best = (-1.0, "")
    tried = 0
    for D, ms in picks.items():
        for m in ms:
            tried += 1
            c, s, cx, sx = _tables(em, np.array([m, m + D], dtype=np.float64))
            yq = _rotated(em, xa, xb, c[0], s[0])  # (N, h, 2)
            yk = _rotated(em, xa, xb, c[1], s[1])
            xq = np.stack([xa[:, None] * cx[0] - xb[:, None] * sx[0], xa[:, None] * sx[0] + xb[:, None] * cx[0]], -1)
            xk = np.stack([xa[:, None] * cx[1] - xb[:, None] * sx[1], xa[:, None] * sx[1] + xb[:, None] * cx[1]], -1)
            tot = {1: 0.0, -1: 0.0}
            for i in range(em.h):
                Cq, Ck = complex(cx[0, i], sx[0, i]), complex(cx[1, i], sx[1, i])
                one = _aligned(yq[:, i], xq[:, i], yk[:, i], xk[:, i], order, angles, Cq, W)
                two = _aligned(yk[:, i], xk[:, i], yq[:, i], xq[:, i], order, angles, Ck, W)
                for sign in (1, -1):
                    tot[sign] += max(one[sign], two[sign])
            for sign in (1, -1):
                v = tot[sign] / em.h
                if v > best[0]:
                    best = (v, f"offset {D}, query position {m}, key position {m + D}, every pair's error "
                               f"{'positive' if sign == 1 else 'negative'}")
    if not tried:
        return None
    how = (f"{tried} query position(s) (per offset, the largest table-level error with pairs lined up); per "
           f"pair, for each of {len(xa)} candidate keys ({sz['directions']} directions rounded to {em.act}, "
           f"+-{sz['spread']} ulp) the {W} queries whose rotated vector points along the key's output error, "
           "and the same with the roles swapped")
    return Found(best[0], best[1], how)
