r"""Denk's derivation, Kazemnejad's criteria and tensor2tensor's timing signal (seed 002).

* Denk: writing the translation block with an unknown rate ``r``,
  :math:`\Phi(k) = \begin{psmallmatrix}\cos rk & \sin rk\\ -\sin rk & \cos rk\end{psmallmatrix}`,
  the addition theorems give :math:`\lVert\Phi(k)p(t) - p(t+k)\rVert^2 = 4\sin^2((r-\lambda)k/2)`,
  which vanishes for every offset exactly when ``r = lambda``; then ``T(k)`` depends only on
  ``m``, ``d`` and ``k`` (``denk.r_equals_lambda``).
* The wavelengths :math:`2\pi b^{2i/d}` form a geometric progression that starts at
  :math:`2\pi` and, for even ``d``, ends at :math:`2\pi b^{(d-2)/d} < 2\pi b`: the upper end
  :math:`10000\cdot2\pi` is approached as ``d`` grows but never reached; tensor2tensor's
  schedule reaches it exactly (``denk.wavelengths``).
* Kazemnejad's criteria: distinct encodings (a numeric *certificate*, see
  :func:`pe_symbolic.theorems.chapters.certificates.unique_encoding`), a distance that depends on the
  offset only (``kazemnejad.distance_shift_invariant``), bounded values
  (``kazemnejad.bounded``), determinism (``video.length_free``).
* tensor2tensor's ``get_timing_signal_1d`` written out symbolically (:func:`timing_signal_1d`)
  and related to Vaswani's table by a frequency map and the layout permutation
  (``t2t.relation``).

>>> from pe_symbolic import theorems
>>> theorems.get("denk.wavelengths").prove().verdict
'proved'
"""

from __future__ import annotations

import sympy as sp

from ...encodings import sinusoidal as P
from ...encodings import symbols as S
from ...encodings.symbols import as_expr
from ...proof import Claim, Equation
from .._derive import at, call

_base = sp.Symbol("b_x", positive=True)
"""A base, for "b_x^(-2i/d) at b_x = b^(d/(d-2))" (left unevaluated)."""
from ..registry import theorem
from ._common import SRC_DENK, SRC_KAZEMNEJAD, SRC_T2T, dot, sgn

__all__ = ["IDS", "denk_block", "timing_signal_1d", "wavelength"]

IDS = (
    "denk.r_equals_lambda",
    "denk.wavelengths",
    "kazemnejad.distance_shift_invariant",
    "kazemnejad.bounded",
    "t2t.relation",
)

lam = sp.Symbol("lambda", positive=True)
"""Denk's frequency :math:`\\lambda_m` of one pair (he calls it a wave length)."""
rate = sp.Symbol("r", real=True)
"""The unknown rate of Denk's block."""
beta = sp.Symbol("beta", positive=True)
"""``b = 1 + beta``: the base written so that ``b > 1`` is a symbol assumption."""
start = sp.Symbol("s", real=True)
"""tensor2tensor's ``start_index``."""


def denk_block(kk: sp.Expr, r: sp.Expr) -> sp.ImmutableMatrix:
    r"""Denk's :math:`\Phi(k)` (his eq. 9) with rate ``r``: ``[[cos rk, sin rk], [-sin rk, cos rk]]``.

    >>> from pe_symbolic.encodings.symbols import k
    >>> denk_block(k, lam)[0, 1]
    sin(k*lambda)
    """
    c, s = sp.cos(r * kk), sp.sin(r * kk)
    return sp.ImmutableMatrix([[c, s], [-s, c]])


def wavelength(i: sp.Expr, d: sp.Expr, *, base: sp.Expr = S.b, schedule: str = "vaswani") -> sp.Expr:
    r"""Wavelength :math:`2\pi/\omega_i` of pair ``i``.

    >>> wavelength(0, 8, base=10000)
    2*pi
    """
    return 2 * sp.pi / P.frequency(i, d, base=base, schedule=schedule)


@theorem("denk.r_equals_lambda",
         "Denk: |Phi_r(k) p(t) - p(t+k)|^2 = 4 sin^2((r - lambda) k/2): translation for all k iff r = lambda",
         f"{SRC_DENK}, eqs. (6)-(9)", concrete=False,
         latex=(r"\lVert \Phi(k)\,p(t) - p(t + k) \rVert^2 = 4 \sin^2 \frac{(r - \lambda)\,k}{2}, \qquad \Phi(k) ="
                r" \mathop{\mathrm{rot2}}(-rk), \quad p(t) = (\sin \lambda t,\ \cos \lambda t) \\"
                r" \Phi(k)\,p(t) = p(t + k) \text{ for every } k \iff r = \lambda, \qquad \frac{\partial"
                r" \Phi_m(k)}{\partial t} = 0 \ \ (\lambda_m = b^{-2m/d})"))
def _r_equals_lambda(d: int | None) -> Claim:
    t, k = S.t, S.k
    p = sp.Lambda(t, P.pair(t, lam))
    res = denk_block(k, rate) * p(t) - p(t + k)
    m_ = sp.Symbol("m", integer=True, nonnegative=True)
    lam_m = S.b ** (-2 * m_ / S.d)
    return Claim(
        "denk.r_equals_lambda",
        "With Denk's block Phi(k) = [[cos rk, sin rk], [-sin rk, cos rk]] and p(t) = "
        "(sin lambda t, cos lambda t), the addition theorems give Phi(k) p(t) = "
        "(sin(lambda t + r k), cos(lambda t + r k)), so the residual has squared length "
        "4 sin^2((r - lambda) k/2), free of t: it vanishes for every offset k exactly when "
        "r = lambda. With lambda_m = b^(-2m/d), Phi_m(k) contains m, d, k (and b) but not t.",
        (
            Equation(denk_block(k, rate) * p(t),
                     sp.ImmutableMatrix([sp.sin(lam * t + rate * k), sp.cos(lam * t + rate * k)]),
                     "addition theorems (7a), (7b): Phi(k) p(t) = (sin(lambda t + rk), cos(lambda t + rk))"),
            Equation(dot(res, res), 4 * sp.sin((rate - lam) * k / 2) ** 2,
                     "|Phi(k) p(t) - p(t+k)|^2 = 4 sin^2((r - lambda) k/2): no t in it"),
            Equation(denk_block(k, lam) * p(t), p(t + k), "with r = lambda the block translates (eq. 8: r = lambda)"),
            Equation((4 * sp.sin((rate - lam) * k / 2) ** 2).subs(k, sp.pi / (rate - lam)), 4,
                     "with r != lambda the offset k = pi/(r - lambda) leaves a residual of length 2: "
                     "r = lambda is the only rate that works for every k"),
            Equation(denk_block(k, lam_m).applyfunc(lambda e: sp.Derivative(e, t)), sp.zeros(2, 2),
                     "Phi_m(k) with lambda_m = b^(-2m/d) does not depend on t"),
        ),
        (sp.Ne(rate, lam),),
        SRC_DENK,
    )


@theorem("denk.wavelengths",
         "Wavelengths 2 pi b^(2i/d): geometric, from 2 pi up to 2 pi b^((d-2)/d) < 2 pi b (not reached)",
         f"{SRC_KAZEMNEJAD}; Vaswani et al. 3.5 ('from 2 pi to 10000 * 2 pi')",
         latex=(r"\lambda_i = \frac{2\pi}{\omega_i} = 2\pi\, b^{2i/d}:\quad \frac{\lambda_{i+1}}{\lambda_i} ="
                r" b^{2/d} > 1, \quad \lambda_0 = 2\pi \\"
                r" \lambda_{d/2-1} = 2\pi\, b^{(d-2)/d} < 2\pi b, \qquad \lim_{d \to \infty} \lambda_{d/2-1} = 2\pi"
                r" b"))
def _wavelengths(d: int | None) -> Claim:
    if d is None:
        i, dd = S.i, S.d
        base = 1 + beta
        lam_i = sp.Lambda(i, wavelength(i, dd, base=base))
        last = lam_i(dd / 2 - 1)
        eqs: tuple[Equation, ...] = (
            Equation(lam_i(i + 1) / lam_i(i), base ** (2 / dd), "lambda_(i+1)/lambda_i = b^(2/d): geometric"),
            Equation(sgn(sp.log(base ** (2 / dd))), 1,
                     "log b^(2/d) = 2 log(b)/d > 0: the ratio exceeds 1, so the wavelengths grow with i"),
            Equation(call(lam_i, 0), 2 * sp.pi, "the first pair (i = 0) has wavelength 2 pi"),
            Equation(last, 2 * sp.pi * base ** ((dd - 2) / dd), "the last pair (i = d/2 - 1): 2 pi b^((d-2)/d)"),
            Equation(sgn(sp.log(last / (2 * sp.pi * base))), -1,
                     "log(lambda_last / (2 pi b)) = -2 log(b)/d < 0: the last wavelength is below 2 pi b"),
            Equation(sp.Limit(last, dd, sp.oo), 2 * sp.pi * base, "2 pi b is only the limit as d -> oo"),
        )
    else:
        ws = [wavelength(q, d, base=10000) for q in range(d // 2)]
        eq_list = [
            Equation(ws[0], 2 * sp.pi, "lambda_0 = 2 pi"),
            Equation(ws[-1], 2 * sp.pi * sp.Integer(10000) ** sp.Rational(d - 2, d),
                     f"lambda_{d // 2 - 1} = 2 pi 10000^({d - 2}/{d})"),
            Equation(sgn(2 * sp.pi * 10000 - ws[-1]), 1, "which is less than 10000 * 2 pi"),
        ]
        if d >= 4:
            eq_list.insert(1, Equation(
                sp.ImmutableMatrix([ws[q + 1] / ws[q] for q in range(d // 2 - 1)]),
                sp.ImmutableMatrix([sp.Integer(10000) ** sp.Rational(2, d)] * (d // 2 - 1)),
                f"every ratio is 10000^(2/{d}): geometric"))
        eqs = tuple(eq_list)
    return Claim(
        "denk.wavelengths",
        "The wavelengths 2 pi/omega_i = 2 pi b^(2i/d), i = 0 .. d/2 - 1, form a geometric "
        "progression with ratio b^(2/d). It starts at 2 pi (i = 0) and, for even d, ends at "
        "2 pi b^((d-2)/d) = 2 pi b * b^(-2/d), strictly below 2 pi b: the '10000 * 2 pi' end is "
        "approached as d grows but not reached (i = d/2 would reach it). tensor2tensor's "
        "schedule b^(-i/(d/2-1)) does reach 2 pi b (t2t.relation).",
        eqs, (), f"{SRC_KAZEMNEJAD}; {SRC_DENK}",
    )


@theorem("kazemnejad.distance_shift_invariant",
         "|PE(t+k) - PE(t)|^2 = sum_i 4 sin^2(omega_i k/2): the distance depends on k only",
         f"{SRC_KAZEMNEJAD}, criterion 2",
         latex=(r"\lVert p(t + k) - p(t) \rVert^2 = 2 - 2 \cos \omega k = 4 \sin^2 \frac{\omega k}{2}, \qquad"
                r" \frac{\partial}{\partial t}\, \lVert p(t + k) - p(t) \rVert^2 = 0 \\"
                r" \text{so } \lVert \mathrm{PE}(t + k) - \mathrm{PE}(t) \rVert^2 = \sum_i 4 \sin^2 \frac{\omega_i"
                r" k}{2}"))
def _distance(d: int | None) -> Claim:
    t, k = S.t, S.k
    if d is None:
        diff = P.pair(t + k, S.omega) - P.pair(t, S.omega)
        dist2 = dot(diff, diff)
        eqs: tuple[Equation, ...] = (
            Equation(dist2, 2 - 2 * sp.cos(S.omega * k), "|p(t+k) - p(t)|^2 = 2 - 2 cos(omega k) (generic pair)"),
            Equation(2 - 2 * sp.cos(S.omega * k), 4 * sp.sin(S.omega * k / 2) ** 2, "= 4 sin^2(omega k/2)"),
            Equation(sp.Derivative(dist2, t), 0, "d/dt |p(t+k) - p(t)|^2 = 0"),
        )
        assumptions: tuple[sp.Basic, ...] = ()
    else:
        ws = P.frequencies(d)
        diff = P.encoding(t + k, d) - P.encoding(t, d)
        per_pair = sp.ImmutableMatrix([diff[2 * q] ** 2 + diff[2 * q + 1] ** 2 for q in range(d // 2)])
        eqs = (
            Equation(dot(diff, diff), sp.Add(*per_pair), f"|PE(t+k) - PE(t)|^2 = sum over the {d // 2} pairs"),
            Equation(per_pair, sp.ImmutableMatrix([2 - 2 * sp.cos(w * k) for w in ws]),
                     f"pair i contributes 2 - 2 cos(omega_i k): no t (d={d}; = 4 sin^2(omega_i k/2), generic form)"),
        )
        assumptions = (S.BASE_GT_1,)
    return Claim(
        "kazemnejad.distance_shift_invariant",
        "The squared distance between the encodings of t and t + k is sum_i (2 - 2 cos(omega_i k)) "
        "= sum_i 4 sin^2(omega_i k/2) (the half-angle form is proved for the generic pair): it "
        "does not depend on t, so the distance between two time-steps is the same in every "
        "sentence, whatever its length.",
        eqs, assumptions, SRC_KAZEMNEJAD,
    )


@theorem("kazemnejad.bounded", "Every entry of PE(t) lies in [-1, 1], for every real t",
         f"{SRC_KAZEMNEJAD}, criterion 3; video (seed 001), second requirement",
         latex=(r"1 - \sin^2 \omega t = \cos^2 \omega t \ge 0, \quad 1 - \cos^2 \omega t = \sin^2 \omega t \ge 0,"
                r" \quad \text{so } -1 \le \mathrm{PE}_j(t) \le 1 \ \ (t \in \mathbb{R})"))
def _bounded(d: int | None) -> Claim:
    t = S.t
    pe = P.pair(t, S.omega) if d is None else P.encoding(t, d)
    sq = pe.applyfunc(lambda e: e**2)
    # each entry's square is 1 minus the square of its partner in the pair
    partner = sp.ImmutableMatrix([pe[q + 1] ** 2 if q % 2 == 0 else pe[q - 1] ** 2 for q in range(pe.rows)])
    what = "generic pair" if d is None else f"d={d}"
    return Claim(
        "kazemnejad.bounded",
        "For every real t and every slot, 1 - PE_j(t)^2 equals the square of the other entry of "
        "its pair (sin^2 + cos^2 = 1), a nonnegative number; so PE_j(t)^2 <= 1, i.e. "
        "-1 <= PE_j(t) <= 1, for positions of any size.",
        (
            Equation(sp.ones(pe.rows, 1) - sq, partner, f"1 - PE_j(t)^2 = (partner entry)^2 ({what})"),
            Equation(partner.applyfunc(lambda e: sp.Abs(e, evaluate=False)), partner,
                     "a square of a real number is nonnegative"),
        ),
        () if d is None else (S.BASE_GT_1,),
        f"{SRC_KAZEMNEJAD}; seed 001",
    )


# ----------------------------------------------------------------------------- tensor2tensor
def timing_signal_1d(
    position: sp.Expr,
    channels: int,
    *,
    min_timescale: sp.Expr = 1,
    max_timescale: sp.Expr = S.b,
    start_index: sp.Expr = 0,
) -> sp.ImmutableMatrix:
    """One row of tensor2tensor's ``get_timing_signal_1d``, transcribed symbolically.

    Written from tensor2tensor's code (seed 002), not from this package's builders:
    ``position + start_index``; ``num_timescales = channels // 2``;
    ``log_timescale_increment = log(max/min) / max(num_timescales - 1, 1)``;
    ``inv_timescales = min_timescale * exp(-q * increment)`` (sic: tensor2tensor multiplies
    by ``min_timescale``); ``concat(sin, cos)``; one zero column when ``channels`` is odd.

    >>> from pe_symbolic.encodings.symbols import t
    >>> timing_signal_1d(t, 5, max_timescale=100).T
    Matrix([[sin(t), sin(t/100), cos(t), cos(t/100), 0]])
    """
    if not isinstance(channels, int) or channels < 2:
        raise ValueError(f"channels={channels!r} must be an integer >= 2")
    n_ts = channels // 2
    min_ts, max_ts = as_expr(min_timescale, "min_timescale"), as_expr(max_timescale, "max_timescale")
    increment = sp.log(max_ts / min_ts) / max(n_ts - 1, 1)
    inv = [min_ts * sp.exp(-q * increment) for q in range(n_ts)]
    scaled = [(as_expr(position, "position") + start_index) * w for w in inv]
    row = [sp.sin(x) for x in scaled] + [sp.cos(x) for x in scaled] + [sp.S.Zero] * (channels % 2)
    return sp.ImmutableMatrix(row)


@theorem("t2t.relation",
         "get_timing_signal_1d = P PE_Vaswani(t; base b^(d/(d-2))); start_index is T(s); odd channels pad 0",
         SRC_T2T,
         latex=(r"\frac{i}{d/2 - 1} = \frac{d}{d - 2} \cdot \frac{2i}{d}, \quad \text{so} \quad b^{-i/(d/2-1)} ="
                r" \bigl(b^{d/(d-2)}\bigr)^{-2i/d} \qquad (d \ge 4) \\"
                r" \frac{2\pi}{\omega_{d/2-1}} = 2\pi b \ \ \bigl(\text{Vaswani: } 2\pi b^{(d-2)/d}\bigr), \qquad"
                r" \text{timescales } \frac{1}{m},\ \frac{M}{m^2} \text{ for min } m,\ \max M"))
def _t2t(d: int | None) -> Claim:
    t, i = S.t, S.i
    if d is None:
        dd = S.d
        e_v, e_t = 2 * i / dd, i / (dd / 2 - 1)
        # (b^x)^y = b^(xy) needs b > 0 and x = d/(d-2) real, i.e. d != 2; SymPy's assumptions
        # cannot say d >= 4, so write d = 2h + 2 with h = d/2 - 1 a positive integer.
        h = sp.Symbol("h", integer=True, positive=True)
        d_h = 2 * h + 2
        mapped = Equation(S.b ** (-e_t.subs(dd, d_h)), at(_base ** (-e_v.subs(dd, d_h)), {_base: S.b ** (d_h / (d_h - 2))}),
                          "so b^(-i/(d/2-1)) is Vaswani's frequency with base b^(d/(d-2)) "
                          "(written with d = 2h + 2, h = d/2 - 1 >= 1, so that d/(d-2) is real)")
        mts, Mts = sp.Symbol("m_ts", positive=True), sp.Symbol("M_ts", positive=True)
        eqs = (
            Equation(e_t / e_v, dd / (dd - 2),
                     "exponents: tensor2tensor's i/(d/2 - 1) is d/(d-2) times Vaswani's 2i/d (d >= 4)"),
            mapped,
            Equation(at(e_t, {i: dd / 2 - 1}), 1, "the last pair's exponent is 1 (wavelength 2 pi b) ..."),
            Equation(at(e_v, {i: dd / 2 - 1}), (dd - 2) / dd, "... Vaswani's is (d-2)/d"),
            Equation(wavelength(dd / 2 - 1, dd, schedule="tensor2tensor"), 2 * sp.pi * S.b,
                     "so tensor2tensor's last wavelength is exactly 2 pi b"),
            Equation(timing_signal_1d(t, 4, min_timescale=mts, max_timescale=Mts),
                     sp.ImmutableMatrix([sp.sin(mts * t), sp.sin(mts**2 * t / Mts),
                                         sp.cos(mts * t), sp.cos(mts**2 * t / Mts)]),
                     "as written, min_timescale m and max_timescale M give timescales 1/m and M/m^2: "
                     "'from min_timescale to max_timescale' holds only for m = 1"),
        )
        return Claim("t2t.relation", _T2T_STATEMENT, eqs, (sp.Ge(dd, 4),), SRC_T2T)
    sig = timing_signal_1d(t, d)
    eq_list = [Equation(
        sp.ImmutableMatrix([sig[q] for q in range(d // 2)]),
        P.encoding(t, d, layout="split", schedule="tensor2tensor")[: d // 2, :],
        f"the code's sin half is the package's tensor2tensor schedule (d={d})")]
    eq_list.append(Equation(sig, P.encoding(t, d, layout="split", schedule="tensor2tensor"),
                        "the whole row is the split-layout encoding with that schedule"))
    if d >= 4:
        b2 = S.b ** sp.Rational(d, d - 2)
        eq_list.append(Equation(
            sig, P.layout_permutation(d) * P.encoding(t, d, base=b2),
            f"= P PE_Vaswani(t) with base b^({d}/{d - 2}), P the interleaved-to-split permutation"))
    else:
        eq_list.append(Equation(sig, P.encoding(t, d), "d = 2: one pair, frequency 1 (the max(n-1, 1) clamp)"))
    eq_list.append(Equation(
        timing_signal_1d(t, d, start_index=start),
        P.translation_matrix(start, d, layout="split", schedule="tensor2tensor") * sig,
        "start_index = s shifts every row by T(s): the translation theorem"))
    eq_list.append(Equation(timing_signal_1d(t, d + 1), sp.ImmutableMatrix([*sig, 0]),
                        f"channels = {d + 1} (odd): the same row with one zero column"))
    return Claim("t2t.relation", _T2T_STATEMENT, tuple(eq_list), (S.BASE_GT_1,), SRC_T2T)


_T2T_STATEMENT = (
    "tensor2tensor's get_timing_signal_1d(length, channels=d, min_timescale=1, max_timescale=b, "
    "start_index=s) is the concatenated (split) layout, sin half first, with frequencies "
    "b^(-i/(d/2-1)); these are Vaswani's frequencies for the base b^(d/(d-2)) (the exponents "
    "differ by the factor d/(d-2): i/(d/2-1) vs 2i/d), so the row equals P PE_Vaswani(t) with "
    "that base, P the interleaved-to-split permutation. start_index = s multiplies every row by "
    "T(s), and an odd channel count appends one zero column."
)
