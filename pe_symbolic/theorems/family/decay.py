"""The RoPE family and the decay of scores: xPos (a score that is a function of :math:`m - n`
times a decay) and RoFormer's long-term decay (Abel summation, and its numeric certificate
:func:`~pe_symbolic.theorems.family.roformer_decay`)."""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from ...encodings import family as F
from ...encodings import symbols as S
from ...proof import Claim, Equation
from ..chapters.certificates import Certificate
from ..registry import theorem
from ._common import SRC_ROFORMER, SRC_XPOS, _dot, _generic_or, _ladder, m, n

# ======================================================================================
# xPos
# ======================================================================================
@theorem("xpos.relative", "xPos: the score is zeta_i^((m-n)/gamma) times the RoPE score of pair i: a function of m - n",
         SRC_XPOS,
         latex=(r"\bigl\langle \zeta^{(m - c)/\gamma} R(m)\,q,\ \zeta^{-(n - c)/\gamma} R(n)\,k \bigr\rangle ="
                r" \zeta^{(m - n)/\gamma}\, \langle q,\ R(n - m)\,k \rangle \qquad (\text{one pair})"))
def _xpos(d: int | None) -> Claim:
    gam = sp.Symbol("gamma", positive=True)
    c = sp.Symbol("c", real=True)
    if d is None:
        size = 2
        zetas: tuple[sp.Expr, ...] = (sp.Symbol("zeta", positive=True),)
        th: tuple[sp.Expr, ...] = (sp.Symbol("theta", positive=True),)
        ass: tuple = ()
    else:
        size = d
        zetas = tuple(F.xpos_zeta(q, d) for q in range(d // 2))
        th = _ladder(d)
        ass = (S.BASE_GT_1,)
    q, kv = S.vector("q", size), S.vector("k", size)

    def Sx(x):
        return F.xpos_scale(x, zetas, gamma=gam)

    def R(x):
        return F.rope_matrix(x, th)

    lhs = _dot(Sx(m - c) * R(m) * q, Sx(-(n - c)) * R(n) * kv)
    return Claim(
        "xpos.relative",
        "xPos scales the rotated query at position m by zeta_i^((m-c)/gamma) and the rotated key "
        "at n by zeta_i^(-(n-c)/gamma) on both slots of pair i (zeta_i = (2i + 0.4d)/(1.4d), "
        "gamma = 512, c a centring offset). The score equals <q, S(m-n) R(n-m) k>: each pair's "
        "RoPE score times zeta_i^((m-n)/gamma), a function of m - n only (c cancels).",
        (Equation(lhs, _dot(q, Sx(m - n) * R(n - m) * kv), f"<S(m-c)R(m)q, S(c-n)R(n)k> = <q, S(m-n)R(n-m)k> (d={size})"),),
        ass, SRC_XPOS,
    )


# ======================================================================================
# RoFormer's long-term decay (section 3.4.3)
# ======================================================================================
@theorem("roformer.abel",
         "RoFormer 3.4.3: sum_j h_j e^(i k theta_j) = sum_j (h_j - h_(j+1)) S_(j+1) (Abel summation), h_(d/2) = 0",
         f"{SRC_ROFORMER}.3",
         latex=(r"\sum_{j=0}^{d/2-1} h_j\, e^{i k \theta_j} = \sum_{j=0}^{d/2-1} (h_j - h_{j+1})\, S_{j+1}, \qquad"
                r" S_j = \sum_{l < j} e^{i k \theta_l}, \quad h_{d/2} = 0 \\"
                r" d = 8, \quad \theta_j = b^{-2j/d}, \quad h_j \in \mathbb{C}"))
def _roformer_abel(d: int | None) -> Claim:
    size = _generic_or(d, 8)
    half = size // 2
    hs = sp.symbols(f"h_0:{half}")  # complex: h_j = q_j conj(k_j) in RoFormer's notation
    kk = S.k
    th = _ladder(size)
    E = [sp.exp(sp.I * kk * t_) for t_ in th]
    Ssum = [sp.Add(*E[:j]) for j in range(half + 1)]  # S_j = sum_{l < j} E_l, S_0 = 0
    hx = list(hs) + [sp.S.Zero]
    lhs = sp.Add(*[hs[j] * E[j] for j in range(half)])
    rhs = sp.Add(*[(hx[j] - hx[j + 1]) * Ssum[j + 1] for j in range(half)])
    return Claim(
        "roformer.abel",
        "RoFormer writes the score as Re sum_j h_j e^(i (m-n) theta_j) with h_j = q_j conj(k_j) "
        "(pairs as complex numbers). With S_j = sum_(l<j) e^(i k theta_l) and h_(d/2) = 0, "
        "Abel summation gives sum_j h_j e^(i k theta_j) = sum_j (h_j - h_(j+1)) S_(j+1), hence "
        "|score| <= max_j |h_(j+1) - h_j| sum_j |S_(j+1)|: the relative upper bound "
        "(2/d) sum_j |S_j| depends on the distance k = m - n only (its decay is a numeric "
        "certificate: roformer_decay).",
        (Equation(lhs, rhs, f"Abel summation (d={size}, theta_j = b^(-2j/d), symbolic complex h_j)"),),
        (S.BASE_GT_1,), f"{SRC_ROFORMER}.3, eq. (35)-(37)",
    )


def roformer_decay(d: int = 128, max_distance: int = 4096, *, base: float = 10000, dps: int = 30) -> Certificate:
    r"""Certificate: RoFormer's relative upper bound :math:`\frac{2}{d}\sum_j |S_j|` decays.

    Computes :math:`B(k) = \frac{2}{d}\sum_{j=1}^{d/2} |S_j(k)|`,
    :math:`S_j(k) = \sum_{l<j} e^{\mathrm{i} k \theta_l}` (the bound of ``roformer.abel``) in
    float64 for every distance :math:`0 \le k \le` ``max_distance``, confirms a few values
    with mpmath, and checks the statement "the mean of :math:`B` over consecutive windows
    :math:`[2^p, 2^{p+1})` decreases". It is a certificate for the stated range, not a
    proof: :math:`B` itself is not monotone (it oscillates).

    Parameters
    ----------
    d : int, default 128
        Even dimension.
    max_distance : int, default 4096
        Largest distance ``k`` (at least 4).
    base : float, default 10000
        :math:`\theta_j = b^{-2j/d}`.
    dps : int, default 30
        mpmath digits of the confirmation.

    Returns
    -------
    Certificate

    Examples
    --------
    >>> c = roformer_decay(64, 256)
    >>> c.holds, c.label
    (True, 'certificate (numeric, distances 0..256, d=64, base=10000) - not a symbolic proof')
    """
    if not isinstance(d, (int, np.integer)) or d < 2 or d % 2:
        raise ValueError(f"d={d!r} must be a positive even integer")
    if not isinstance(max_distance, (int, np.integer)) or max_distance < 4:
        raise ValueError(f"max_distance={max_distance!r} must be an integer >= 4")
    if not base > 1:
        raise ValueError(f"base={base!r} must be > 1")
    ks = np.arange(max_distance + 1, dtype=np.float64)
    th = float(base) ** (-2.0 * np.arange(d // 2) / d)
    partial = np.cumsum(np.exp(1j * np.multiply.outer(ks, th)), axis=1)
    bound = np.abs(partial).sum(axis=1) * 2.0 / d
    windows = []
    p = 0
    while 2 ** (p + 1) <= max_distance + 1:
        lo_k, hi_k = 2**p, 2 ** (p + 1)
        windows.append((lo_k, hi_k, float(bound[lo_k:hi_k].mean())))
        p += 1
    means = [w[2] for w in windows]
    decreasing = all(x > y for x, y in zip(means, means[1:]))
    checks = []
    with mpmath.workdps(dps):
        bb = mpmath.mpf(base)
        ths = [bb ** (-mpmath.mpf(2 * j) / d) for j in range(d // 2)]
        for k in sorted({0, 1, max_distance // 2, max_distance}):
            acc = mpmath.mpc(0)
            tot = mpmath.mpf(0)
            for t_ in ths:
                acc += mpmath.expj(k * t_)
                tot += abs(acc)
            val = tot * 2 / d
            checks.append((k, val, abs(float(val) - bound[k]) <= 1e-9 * max(1.0, abs(bound[k]))))
    holds = bool(decreasing and all(c[2] for c in checks))
    return Certificate(
        id="roformer.decay",
        statement=("the relative upper bound (2/d) sum_j |S_j(k)| of RoFormer section 3.4.3 has "
                   "decreasing means over the windows [2^p, 2^(p+1)) of the distance k"),
        range=f"distances 0..{max_distance}, d={d}, base={base:g}",
        holds=holds,
        values={
            "B(0) (= (d/2 + 1)/2)": f"{bound[0]:.12g}",
            "window means": ", ".join(f"[{a}, {c}): {v:.6g}" for a, c, v in windows),
            f"mpmath confirmation at {dps} digits": ", ".join(
                f"B({k}) = {mpmath.nstr(v, 12)}{'' if ok else ' MISMATCH'}" for k, v, ok in checks),
            "largest B(k) for k >= 16": f"{bound[16:].max():.6g} at k = {int(np.argmax(bound[16:])) + 16}",
        },
        method=f"float64 partial sums for every distance; selected values at {dps} digits with mpmath",
    )
