r"""The video explainer "Positional embeddings in transformers EXPLAINED" (seed 001).

The video asks two things of a positional embedding and then argues for sin/cos pairs of
falling frequency:

* a position's identifier does not depend on the sequence length or the content
  (``video.length_free``);
* the values stay small however long the sequence (``kazemnejad.bounded``, shared with
  Kazemnejad's criteria);
* resolution: the distance a pair moves between neighbouring positions is
  :math:`2|\sin(\omega/2)|`, which shrinks as the frequency falls
  (``video.resolution``), while a low-frequency pair is monotone over a long stated
  range, so it says roughly *where* a token sits (``video.monotone_range``).

>>> from pe_symbolic import theorems
>>> theorems.get("video.resolution").prove().verdict
'proved'
"""

from __future__ import annotations

import sympy as sp

from ...encodings import sinusoidal as P
from ...encodings import symbols as S
from ...proof import Claim, Equation
from .._derive import at
from ..registry import theorem
from ._common import SRC_VIDEO, dot, half_angle, quarter_angle, sgn

_sq = sp.Symbol("x", nonnegative=True)
"""A squared length, for "sqrt(x) at x = ..." (left unevaluated)."""

__all__ = ["IDS", "monotone_range_length"]

IDS = ("video.length_free", "video.resolution", "video.monotone_range")

L = sp.Symbol("L", positive=True)
"""Sequence length, as a real variable: a derivative in it needs one (an integer-declared
symbol would let a rewrite use integrality under the derivative)."""
token = sp.Symbol("a", real=True)
"""Any entry of the token's content embedding."""


def monotone_range_length(d: int, base: float = 10000) -> sp.Expr:
    r"""The stated range of the slowest pair: :math:`\pi/(2\omega_{d/2-1}) = \tfrac{\pi}{2} b^{(d-2)/d}`.

    Over positions :math:`0 \le t \le` this value, :math:`\sin(\omega t)` of the last pair is
    strictly increasing (``video.monotone_range``).

    >>> round(float(monotone_range_length(512)))
    15153
    """
    w = P.frequencies(d, base=sp.Integer(base) if float(base).is_integer() else base)[-1]
    return sp.pi / (2 * w)


@theorem("video.length_free", "PE(t) contains no sequence length and no content: dPE/dL = dPE/da = 0",
         f"{SRC_VIDEO}, first requirement",
         latex=(r"\frac{\partial\,\mathrm{PE}(t)}{\partial L} = 0, \qquad \frac{\partial\,\mathrm{PE}(t)}{\partial"
                r" a} = 0 \qquad (L \text{ the sequence length, } a \text{ the token's content})"))
def _length_free(d: int | None) -> Claim:
    pe = P.pair(S.t, S.omega) if d is None else P.encoding(S.t, d)
    zero = sp.zeros(*pe.shape)
    what = "generic pair" if d is None else f"d={d}"
    return Claim(
        "video.length_free",
        "The encoding of position t is a function of t alone (and of d and the base): it has "
        "no symbol for the sequence length L or for the token's content a, so every sequence "
        "gives position t the same identifier. (The same fact is Kazemnejad's determinism.)",
        (
            Equation(pe.applyfunc(lambda e: sp.Derivative(e, L)), zero, f"dPE(t)/dL = 0 ({what})"),
            Equation(pe.applyfunc(lambda e: sp.Derivative(e, token)), zero, f"dPE(t)/da = 0 ({what})"),
        ),
        () if d is None else (S.BASE_GT_1,),
        SRC_VIDEO,
    )


@theorem("video.resolution",
         "|p(t+1) - p(t)| = 2|sin(omega/2)|, independent of t, and increasing in omega on (0, pi)",
         f"{SRC_VIDEO}, 'if we increase the frequency ... the values differ more'",
         latex=(r"\lVert p(t + 1) - p(t) \rVert = 2\,\Bigl\lvert \sin \frac{\omega}{2} \Bigr\rvert, \qquad"
                r" \frac{d}{d\omega}\, 4 \sin^2 \frac{\omega}{2} = 2 \sin \omega > 0 \ \ (0 < \omega < \pi) \\"
                r" 0 < \omega_i = b^{-2i/d} \le 1 < \pi"))
def _resolution(d: int | None) -> Claim:
    t, w = S.t, S.omega
    step2 = sp.Lambda(w, 4 * sp.sin(w / 2) ** 2)
    diff = P.pair(t + 1, w) - P.pair(t, w)
    ang, _ = half_angle()
    eqs = [
        Equation(dot(diff, diff), step2(w), "|p(t+1) - p(t)|^2 = 4 sin^2(omega/2): no t in it"),
        Equation(at(sp.sqrt(_sq), {_sq: step2(w)}), 2 * sp.Abs(sp.sin(w / 2)), "so |p(t+1) - p(t)| = 2|sin(omega/2)|"),
        Equation(sgn(sp.Subs(sp.Derivative(step2(w), w), w, ang)), 1,
                 "d/domega 4 sin^2(omega/2) = 2 sin(omega) > 0 for 0 < omega = 2 atan(u) < pi"),
    ]
    if d is None:
        ip = sp.Symbol("i", integer=True, positive=True)
        beta = sp.Symbol("beta", positive=True)
        eqs += [
            Equation(sgn(sp.log(P.frequency(ip, S.d, base=1 + beta))), -1,
                     "log omega_i = -2i log(b)/d < 0 for i >= 1 (b = 1 + beta): omega_i < 1 ..."),
            Equation(sgn(sp.pi - P.frequency(0, S.d)), 1, "... and omega_0 = 1 < pi: all in (0, pi)"),
        ]
    else:
        ws = P.frequencies(d, base=10000)
        eqs.append(Equation(
            sp.ImmutableMatrix([sgn(step2(ws[q]) - step2(ws[q + 1])) for q in range(len(ws) - 1)]),
            sp.ImmutableMatrix([1] * (len(ws) - 1)),
            f"d={d}, b=10000: the step distance falls strictly from pair 0 to pair {d // 2 - 1}"))
    return Claim(
        "video.resolution",
        "Between neighbouring positions a pair moves by |p(t+1) - p(t)| = 2|sin(omega/2)|, the "
        "same at every t; for 0 < omega < pi (every frequency b^(-2i/d) <= 1 is in that range) "
        "this grows with omega. High-frequency pairs separate neighbours; low-frequency pairs "
        "barely move between them.",
        tuple(eqs), (), SRC_VIDEO,
    )


@theorem("video.monotone_range",
         "sin(omega t) rises and cos(omega t) falls strictly for 0 <= t <= pi/(2 omega); p(t) != p(s) if 0 < omega|t-s| < 2 pi",
         f"{SRC_VIDEO}, 'the last dimension tells us broadly where the token is'",
         latex=(r"\frac{d}{dt} \sin \omega t > 0, \quad \frac{d}{dt} \cos \omega t < 0 \qquad \Bigl(0 < t <"
                r" \frac{\pi}{2\omega}\Bigr) \\"
                r" \lVert p(t) - p(s) \rVert^2 = 4 \sin^2 \frac{\omega (t - s)}{2} > 0 \qquad (0 < \omega (t - s) <"
                r" 2\pi)"))
def _monotone(d: int | None) -> Claim:
    t, s = S.t, sp.Symbol("s", real=True)
    w = S.omega if d is None else P.frequencies(d, base=10000)[-1]
    q_ang, r = quarter_angle()
    h_ang, u = half_angle()
    what = "generic omega" if d is None else f"last pair of d={d}, b=10000"
    diff = P.pair(t, w) - P.pair(s, w)
    eqs = (
        Equation(sp.ImmutableMatrix([sp.Limit(q_ang, r, 0, "+"), sp.Limit(q_ang, r, sp.oo)]),
                 sp.ImmutableMatrix([0, sp.pi / 2]),
                 "2 atan(r/(1+r)) runs from 0 (r -> 0) to pi/2 (r -> oo) ..."),
        Equation(sgn(sp.Derivative(q_ang, r)), 1, "... strictly increasing in r: it covers (0, pi/2) once"),
        Equation(sp.ImmutableMatrix([sp.Limit(h_ang, u, 0, "+"), sp.Limit(h_ang, u, sp.oo)]),
                 sp.ImmutableMatrix([0, sp.pi]), "likewise 2 atan(u) runs from 0 to pi ..."),
        Equation(sgn(sp.Derivative(h_ang, u)), 1, "... strictly increasing: it covers (0, pi) once"),
        Equation(sgn(sp.Subs(sp.Derivative(sp.sin(w * t), t), t, q_ang / w)), 1,
                 f"d/dt sin(omega t) > 0 at every t = 2 atan(r/(1+r))/omega in (0, pi/(2 omega)) ({what})"),
        Equation(sgn(sp.Subs(sp.Derivative(sp.cos(w * t), t), t, q_ang / w)), -1,
                 f"d/dt cos(omega t) < 0 there ({what})"),
        Equation(dot(diff, diff), 4 * sp.sin(w * (t - s) / 2) ** 2,
                 "|p(t) - p(s)|^2 = 4 sin^2(omega (t - s)/2)"),
        Equation(sgn(4 * sp.sin(h_ang) ** 2), 1,
                 "which is > 0 when omega (t - s)/2 = 2 atan(u), u > 0: any 0 < omega (t - s) < 2 pi"),
    )
    return Claim(
        "video.monotone_range",
        "A pair of frequency omega is monotone over a quarter period: sin(omega t) strictly "
        "increases and cos(omega t) strictly decreases for 0 <= t <= pi/(2 omega) (derivative "
        "signs on the open range, parametrised as omega t = 2 atan(r/(1+r)), r > 0); and two "
        "positions less than a period 2 pi/omega apart always get different pairs. For the "
        "slowest pair of d = 512 (b = 10000) the monotone range is about 15,153 positions.",
        eqs, (), SRC_VIDEO,
    )
