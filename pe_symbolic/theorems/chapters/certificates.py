r"""Numeric certificates: claims checked over a stated finite range, never proofs.

Some claims in the seed articles are statements about *integers in a range* that no
symbolic identity captures, such as Kazemnejad's "a unique encoding for each time-step":
no two positions :math:`0 \le s < t < N` have the same encoding. For those this module
computes a :class:`Certificate`: the exact range it covers, the number it found, how that
number was confirmed at high precision, and a label that says plainly that it is a
certificate for that range and not a symbolic proof.

The computations reduce the pairwise question to offsets with the proved theorem
``kazemnejad.distance_shift_invariant``
(:math:`\lVert PE(t+k) - PE(t)\rVert^2 = \sum_i 4\sin^2(\omega_i k/2)`), then check that
reduction against a brute-force pairwise computation, and confirm the smallest values with
mpmath at ``dps`` digits.

>>> c = unique_encoding(64, 8)
>>> c.holds, c.label
(True, 'certificate (numeric, 64 positions 0..63, d=8, base=10000) - not a symbolic proof')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

__all__ = ["Certificate", "dot_decay", "unique_encoding"]

#: Absolute error allowed between the float64 and the mpmath value of one squared distance
#: (a sum of at most d/2 terms, each at most 4, each within a few ulp): generous for d <= 4096.
FLOAT64_TOLERANCE = 1e-11


@dataclass(frozen=True)
class Certificate:
    """A claim checked numerically over a stated range: informative, never a proof.

    Attributes
    ----------
    id : str
        Dotted name, e.g. ``"kazemnejad.unique"``.
    statement : str
        What was checked, in words.
    range : str
        The finite range the check covers (positions, ``d``, base).
    holds : bool
        Whether the statement held at every point of the range.
    values : Mapping[str, Any]
        The numbers found (minimum distance, where, mpmath confirmation, ...).
    method : str
        How the numbers were computed and confirmed.
    """

    id: str
    statement: str
    range: str
    holds: bool
    values: Mapping[str, Any] = field(default_factory=dict)
    method: str = ""

    verdict = "certificate"
    """Never ``"proved"``: a certificate covers its range only."""

    @property
    def label(self) -> str:
        """The one-line label every rendering starts with."""
        return f"certificate (numeric, {self.range}) - not a symbolic proof"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record; ``kind`` says ``"certificate"`` and ``label`` carries the range.

        >>> unique_encoding(16, 4).to_dict()["kind"]
        'certificate'
        """
        return {
            "format": "pe_symbolic.numeric-certificate/1",
            "kind": self.verdict,
            "id": self.id,
            "label": self.label,
            "statement": self.statement,
            "range": self.range,
            "holds": self.holds,
            "values": {k: str(v) for k, v in self.values.items()},
            "method": self.method,
        }

    def to_text(self) -> str:
        """Plain-text rendering, in the style of :meth:`pe_symbolic.proof.Proof.to_text`."""
        out = [f"{self.id}: {'HOLDS' if self.holds else 'FAILS'} -- {self.label}", f"  {self.statement}"]
        for key, val in self.values.items():
            out.append(f"  {key}: {val}")
        if self.method:
            out.append(f"  method: {self.method}")
        return "\n".join(out)


def _check(n_positions: int, d: int, base: float) -> None:
    if not isinstance(n_positions, (int, np.integer)) or n_positions < 2:
        raise ValueError(f"n_positions={n_positions!r} must be an integer >= 2")
    if not isinstance(d, (int, np.integer)) or d < 2 or d % 2:
        raise ValueError(f"d={d!r} must be a positive even integer")
    if not base > 1:
        raise ValueError(f"base={base!r} must be > 1")


def _omegas(d: int, base: float) -> np.ndarray:
    return float(base) ** (-2.0 * np.arange(d // 2) / d)


def _offset_distance2(offsets: np.ndarray, d: int, base: float) -> np.ndarray:
    """sum_i 4 sin^2(w_i k / 2) for every offset k (float64): no cancellation."""
    half = np.multiply.outer(offsets.astype(np.float64), _omegas(d, base)) / 2.0
    return (4.0 * np.sin(half) ** 2).sum(axis=-1)


def _mp_offset_distance2(k: int, d: int, base: float, dps: int) -> mpmath.mpf:
    with mpmath.workdps(dps + 10):
        b = mpmath.mpf(base)
        total = mpmath.mpf(0)
        for i in range(d // 2):
            w = b ** (-mpmath.mpf(2 * i) / d)
            total += 4 * mpmath.sin(w * k / 2) ** 2
        return +total


def _mp_pair_distance2(s: int, t: int, d: int, base: float, dps: int) -> mpmath.mpf:
    """|PE(t) - PE(s)|^2 straight from the table's definition (sin and cos entries)."""
    with mpmath.workdps(dps + 10):
        b = mpmath.mpf(base)
        total = mpmath.mpf(0)
        for i in range(d // 2):
            w = b ** (-mpmath.mpf(2 * i) / d)
            total += (mpmath.sin(w * t) - mpmath.sin(w * s)) ** 2
            total += (mpmath.cos(w * t) - mpmath.cos(w * s)) ** 2
        return +total


def unique_encoding(n_positions: int, d: int, *, base: float = 10000, dps: int = 40) -> Certificate:
    r"""Certificate: positions ``0 .. n_positions-1`` have pairwise distinct encodings.

    Computes the smallest distance :math:`\min_{0\le s<t<N}\lVert PE(t)-PE(s)\rVert` two
    ways in float64 (brute force over all pairs, and over offsets with the proved identity
    :math:`\sum_i 4\sin^2(\omega_i k/2)`), requires them to agree, and confirms the five
    smallest offsets with mpmath at ``dps`` digits (the minimal pair also straight from the
    table's sin/cos entries). The claim holds when the confirmed minimum exceeds the float64
    error bound :data:`FLOAT64_TOLERANCE`.

    Parameters
    ----------
    n_positions : int
        ``N``: positions ``0 .. N-1`` (keep it to a few hundred: the brute force is O(N^2 d)).
    d : int
        Even dimension.
    base : float, default 10000
        Frequency base (> 1).
    dps : int, default 40
        mpmath digits of the confirmation.

    Returns
    -------
    Certificate
        ``holds`` is True when no two positions in the range share an encoding.
    """
    _check(n_positions, d, base)
    pos = np.arange(n_positions)
    table = np.empty((n_positions, d))
    ang = np.multiply.outer(pos.astype(np.float64), _omegas(d, base))
    table[:, 0::2], table[:, 1::2] = np.sin(ang), np.cos(ang)
    brute = np.inf
    for start in range(0, n_positions, 64):  # chunks keep memory at 64 x N x d floats
        block = table[start:start + 64]
        diff2 = ((block[:, None, :] - table[None, :, :]) ** 2).sum(axis=-1)
        rows = np.arange(start, start + block.shape[0])
        diff2[rows[:, None] >= pos[None, :]] = np.inf  # pairs s < t only
        brute = min(brute, float(diff2.min()))
    offsets = np.arange(1, n_positions)
    by_offset = _offset_distance2(offsets, d, base)
    order = np.argsort(by_offset)
    k_min = int(offsets[order[0]])
    float_min = float(by_offset[order[0]])
    agree = abs(brute - float_min) <= FLOAT64_TOLERANCE
    confirmed = []
    for q in order[:5]:
        k = int(offsets[q])
        mp = _mp_offset_distance2(k, d, base, dps)
        confirmed.append((k, mp, abs(float(mp) - float(by_offset[q])) <= FLOAT64_TOLERANCE))
    mp_pair = _mp_pair_distance2(0, k_min, d, base, dps)
    with mpmath.workdps(dps):
        min_dist = mpmath.sqrt(confirmed[0][1])
        pair_agrees = abs(mp_pair - confirmed[0][1]) < mpmath.mpf(10) ** (-(dps - 5))
    holds = bool(agree and all(c[2] for c in confirmed) and pair_agrees
                 and confirmed[0][1] > 10 * FLOAT64_TOLERANCE)
    return Certificate(
        id="kazemnejad.unique",
        statement=(f"no two positions 0 <= s < t <= {n_positions - 1} have the same encoding: "
                   "the smallest distance |PE(t) - PE(s)| is positive"),
        range=f"{n_positions} positions 0..{n_positions - 1}, d={d}, base={base:g}",
        holds=holds,
        values={
            "smallest distance": f"{mpmath.nstr(min_dist, 15)} (offset t - s = {k_min})",
            "smallest squared distance (float64, brute force over all pairs)": f"{brute:.15g}",
            "smallest squared distance (float64, over offsets)": f"{float_min:.15g}",
            f"mpmath confirmation at {dps} digits (5 smallest offsets)": ", ".join(
                f"k={k}: {mpmath.nstr(v, 12)}{'' if ok else ' MISMATCH'}" for k, v, ok in confirmed),
            "minimal pair (0, k) from the sin/cos entries at high precision": mpmath.nstr(mp_pair, 15),
        },
        method=("float64 brute force over all pairs and float64 over offsets (the reduction "
                "is the proved theorem kazemnejad.distance_shift_invariant), agreeing within "
                f"{FLOAT64_TOLERANCE:g}; smallest values confirmed with mpmath"),
    )


def dot_decay(d: int = 128, n_positions: int = 256, ref: int = 128, *, base: float = 10000,
              dps: int = 40) -> Certificate:
    r"""Certificate: how :math:`f(k) = PE(\mathrm{ref}) \cdot PE(\mathrm{ref}+k)` falls off.

    Kernes' figure (d = 128, positions 0..255, reference 128) shows the dot product
    "maximal at offset 0 and steadily decreasing". The maximum and the symmetry are proved
    (``kernes.bonus_dot``); this certificate measures the *decrease*: the largest ``K`` such
    that ``f`` is strictly decreasing on offsets ``0..K``, and the largest value beyond it.

    Returns
    -------
    Certificate
        ``values`` holds ``monotone up to``, ``first rise`` and ``max for |k| > 0``;
        ``holds`` is whether f is strictly decreasing over the whole range (it is not).
    """
    _check(n_positions, d, base)
    if not 0 <= ref < n_positions:
        raise ValueError(f"ref={ref!r} must satisfy 0 <= ref < n_positions={n_positions}")
    ks = np.arange(-ref, n_positions - ref)
    f = np.cos(np.multiply.outer(ks.astype(np.float64), _omegas(d, base))).sum(axis=-1)
    right = f[ks >= 0]
    steps = np.diff(right)
    rises = np.nonzero(steps >= 0)[0]
    monotone_to = int(rises[0]) if rises.size else int(right.size - 1)
    away = np.abs(ks) > 0
    k_best = int(ks[away][np.argmax(f[away])])
    with mpmath.workdps(dps):
        b = mpmath.mpf(base)

        def f_mp(k: int) -> mpmath.mpf:
            return mpmath.fsum(mpmath.cos(b ** (-mpmath.mpf(2 * i) / d) * k) for i in range(d // 2))

        f_rise = (f_mp(monotone_to), f_mp(monotone_to + 1)) if rises.size else None
        confirm = (f"f({monotone_to}) = {mpmath.nstr(f_rise[0], 12)} < f({monotone_to + 1}) = "
                   f"{mpmath.nstr(f_rise[1], 12)}" if f_rise else "no rise")
        rise_confirmed = bool(f_rise is None or f_rise[1] >= f_rise[0])
    return Certificate(
        id="kernes.dot_decay",
        statement=(f"f(k) = PE({ref}).PE({ref}+k) is strictly decreasing in k >= 0 over the "
                   "whole range (Kernes: 'steadily decreases as we get further away')"),
        range=f"offsets {-ref}..{n_positions - ref - 1} around position {ref}, d={d}, base={base:g}",
        holds=bool(rises.size == 0),
        values={
            "f(0) (= d/2)": f"{right[0]:.12g}",
            "strictly decreasing on offsets": f"0..{monotone_to}",
            "first rise (confirmed with mpmath)" if rise_confirmed else "first rise (NOT confirmed)": confirm,
            "largest f(k) for k != 0": f"f({k_best}) = {f[ks == k_best][0]:.12g}",
            "smallest f(k) in range": f"{f.min():.12g} at k = {int(ks[np.argmin(f)])}",
        },
        method=f"float64 over every offset; the first rise re-evaluated with mpmath at {dps} digits",
    )
