r"""What the literature claims about RoPE's base, its critical dimension and its generators.

Each paper's claim is a registered theorem, proved or refuted by the engine with the point:

* Men et al. (2024), "Base of RoPE Bounds Context Length": the long-term-decay index
  :math:`B_b(m) = \sum_{i<d/2} \cos(m\,b^{-2i/d})` must stay :math:`\ge 0` for
  :math:`m \le L`, and the paper reads this as a *lower bound* on the base. A lower bound
  presumes the admissible bases are upward-closed; they are not:
  ``literature.men_upward_closed`` (an honest negative) is refuted at :math:`d = 128`,
  :math:`L = 32768`, :math:`b = 10^6`, :math:`m = 28259`, where :math:`B = -0.775`, while
  the smaller base :math:`967375` keeps :math:`B \ge 0.407` on all of :math:`0..32768`
  (a numeric certificate: :func:`men_admissible`).
* Liu et al. (2023), "Scaling Laws of RoPE-based Extrapolation": the critical dimension
  :math:`d_{extra} = 2\lceil \tfrac d2 \log_b \tfrac{T}{2\pi} \rceil` is twice the ceiling
  of YaRN's correction dimension at one rotation, :math:`j(1)`, i.e. of YaRN's ``high``
  bound with ``beta_slow = 1`` before its clamp (``literature.liu_critical_dim``, proved).
* Barbero et al. (2024), "Round and Round We Go!": a pair turned by :math:`\phi` differs
  from NoPE by :math:`q^{\mathsf T}(R(\phi) - I)k`, and
  :math:`(R(\phi) - I)^{\mathsf T}(R(\phi) - I) = 4\sin^2(\phi/2)\,I`, so the difference is
  at most :math:`|q||k|\cdot 2|\sin(\phi/2)| \le |q||k|\,|r|\,\theta_i` for
  :math:`\phi = r\theta_i` (``literature.barbero_low_frequency``: the identity is proved;
  :math:`2|\sin(x/2)| \le |x|` is the textbook step it cites).
* ComRoPE vs LieRE: :math:`R(x) = \exp(x_1 A_1 + x_2 A_2)` is relative,
  :math:`R(x)^{\mathsf T} R(y) = R(y - x)`, when the skew generators commute
  (``literature.comrope_commuting``, proved for block-diagonal generators) and not in
  general (``literature.liere_noncommuting``, refuted with :math:`A_1, A_2` the generators
  of rotations about the x and y axes of :math:`\mathbb R^3`, at :math:`x = (1, 0)`,
  :math:`y = (0, 1)`).

>>> from pe_symbolic import theorems
>>> theorems.get("literature.liu_critical_dim").prove().verdict
'proved'
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ...encodings import family as F
from ...encodings import symbols as S
from ...proof import Claim, Equation
from ..registry import theorem
from ._common import sgn

__all__ = ["IDS", "MEN_ADMISSIBLE_BASE", "MEN_POINT", "men_admissible", "men_index"]

IDS = ("literature.men_upward_closed", "literature.liu_critical_dim", "literature.barbero_low_frequency",
       "literature.comrope_commuting", "literature.liere_noncommuting")
EXPECT = {"literature.men_upward_closed": "refuted", "literature.liere_noncommuting": "refuted"}

SRC_MEN = ("Men, Xu, Wang, Zhang, Lin, Han, Chen (2024), 'Base of RoPE Bounds Context Length' (arXiv:2405.14591), "
           "abstract: 'we derive that the base of RoPE bounds context length: there is an absolute lower bound "
           "for the base value to obtain certain context length capability'")
SRC_LIU = ("Liu, Yan, An, Qiu, Lin (2023), 'Scaling Laws of RoPE-based Extrapolation' (arXiv:2310.05209), "
           "the critical dimension d_extra = 2*ceil((d/2) * log_base(T_train / (2*pi)))")
SRC_BARBERO = ("Barbero, Vitvitskyi, Perivolaropoulos, Pascanu, Velickovic (2024), 'Round and Round We Go! What "
               "makes Rotary Positional Encodings useful?' (arXiv:2410.06205): the lowest frequencies act "
               "as semantic channels, close to NoPE")
SRC_COMROPE = ("Yu et al. (2025), 'ComRoPE: Scalable and Robust Rotary Position Embedding Parameterized by "
               "Trainable Commuting Angle Matrices' (arXiv:2506.03737): RoPE's relative property needs commuting "
               "angle matrices; LieRE (Ostmeier et al. 2024, arXiv:2406.10322) learns general skew generators")

#: ``(d, L, b, m)`` where Men et al.'s index goes negative although a smaller base is admissible.
MEN_POINT = (128, 32768, 10 ** 6, 28259)
#: A base below ``10**6`` whose index stays >= 0 on ``0..32768`` (``d = 128``): see :func:`men_admissible`.
MEN_ADMISSIBLE_BASE = 967375


def men_index(m: int | sp.Expr, d: int, base: int | sp.Expr) -> sp.Expr:
    r"""Men et al.'s :math:`B_b(m) = \sum_{i=0}^{d/2-1} \cos(m\, b^{-2i/d})`, exact (SymPy).

    >>> round(float(men_index(28259, 128, 10**6)), 3)
    -0.775
    """
    return sp.Add(*[sp.cos(m * F.default_theta(sp.Integer(q), sp.Integer(d), base=sp.Integer(base)))
                    for q in range(d // 2)])


def men_admissible(d: int, length: int, base: int) -> tuple[bool, int, float]:
    """Whether :math:`B_b(m) \\ge 0` for every integer ``0 <= m <= length`` (a numeric certificate).

    Evaluated in float64: each angle :math:`m\\theta_i` carries a relative error below
    :math:`2^{-52}`, so each cosine is off by less than :math:`m\\,2^{-51} + 2^{-52}` and the
    sum by less than :math:`(d/2)(L\\,2^{-51} + 2^{-51})` (about :math:`10^{-9}` at
    :math:`d = 128`, :math:`L = 32768`); the verdict stands when the minimum returned
    clears that. Returns ``(admissible, argmin m, min B)``. Not a symbolic proof: it covers
    the stated integer range only.

    >>> men_admissible(16, 64, 10000)[0]
    True
    """
    i = np.arange(d // 2)
    th = float(base) ** (-2.0 * i / d)
    vals = np.cos(np.outer(np.arange(length + 1, dtype=np.float64), th)).sum(axis=1)
    k = int(vals.argmin())
    margin = (d / 2) * (length * 2.0 ** -51 + 2.0 ** -51)
    if abs(float(vals[k])) <= margin:
        raise ValueError(f"min B = {vals[k]!r} at m = {k} is within the float64 error bound {margin:.2e}: undecided")
    return bool(vals[k] >= 0), k, float(vals[k])


@theorem("literature.men_upward_closed",
         "Men et al.: every base above an admissible one is admissible (B_b(m) >= 0 for all m <= L); refuted",
         SRC_MEN, concrete=False, expect="refuted",
         latex=(r"B_b \ge 0 \text{ on } 0, \dots, L \ \Rightarrow\ B_{b'} \ge 0 \text{ on } 0, \dots, L \text{ for"
                r" every } b' > b; \text{ here } b = 967375,\ b' = 10^6: \\"
                r" \operatorname{sign} B_{10^6}(28259) = +1, \qquad B_b(m) = \sum_{i=0}^{d/2-1}"
                r" \cos\bigl(m\,b^{-2i/d}\bigr), \quad d = 128,\ L = 32768"))
def _men(d: int | None) -> Claim:
    dd, length, big, m = MEN_POINT
    return Claim(
        "literature.men_upward_closed",
        f"A lower bound on the base presumes that raising the base keeps the index admissible. With "
        f"d = {dd}, L = {length}: the base {MEN_ADMISSIBLE_BASE} keeps B(m) >= 0 on 0..{length} (numeric "
        f"certificate, min 0.407), so the larger base {big} should too; but B_{{{big}}}({m}) < 0.",
        (Equation(sgn(men_index(m, dd, big)), 1,
                  f"sign B_b(m) = +1 at d = {dd}, b = {big}, m = {m} <= L = {length}"),),
        (), SRC_MEN,
    )


@theorem("literature.liu_critical_dim",
         "Liu et al.'s critical dimension (d/2) log_b(T/2pi) is YaRN's correction dimension j(1) (high at beta_slow=1)",
         SRC_LIU, concrete=False,
         latex=(r"\frac{d}{2} \log_b \frac{T}{2\pi} = j(1)\big|_{L = T}, \qquad j(r) = \frac{d \ln\bigl(L / (2\pi"
                r" r)\bigr)}{2 \ln b}"))
def _liu(d: int | None) -> Claim:
    T = sp.Symbol("T", positive=True)
    liu = (S.d / 2) * sp.log(T / (2 * sp.pi)) / sp.log(S.b)
    return Claim(
        "literature.liu_critical_dim",
        "Liu et al.'s critical dimension d_extra = 2 ceil((d/2) log_b(T/(2 pi))) counts the channels whose "
        "period fits in the training length T; the inner quantity is exactly YaRN's correction dimension "
        "j(r) = d ln(L/(2 pi r))/(2 ln b) at one rotation, r = 1, L = T: the pair YaRN's `high` bound (at "
        "beta_slow = 1, before its ceil and clamp) starts interpolating from. So d_extra = 2 ceil(j(1)).",
        (Equation(liu, F.yarn_correction_dim(sp.Integer(1), S.d, S.b, T),
                  "(d/2) log_b(T/(2 pi)) = j(1) with L = T"),),
        (), SRC_LIU,
    )


@theorem("literature.barbero_low_frequency",
         "Barbero et al.: (R(phi) - I)^T (R(phi) - I) = 4 sin^2(phi/2) I, so a pair differs from NoPE by <= |q||k| 2|sin(phi/2)|",
         SRC_BARBERO, concrete=False,
         latex=(r"\bigl(R(\varphi) - I\bigr)^{\mathsf T} \bigl(R(\varphi) - I\bigr) = 4 \sin^2 \frac{\varphi}{2}\,"
                r" I, \qquad R(\varphi) = \mathop{\mathrm{rot2}}(\varphi)"))
def _barbero(d: int | None) -> Claim:
    phi = sp.Symbol("phi", real=True)
    rot = sp.Matrix([[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]])
    diff = rot - sp.eye(2)
    return Claim(
        "literature.barbero_low_frequency",
        "For one pair turned by phi = r theta_i, q^T R(phi) k - q^T k = q^T (R(phi) - I) k, and "
        "(R(phi) - I)^T (R(phi) - I) = 4 sin^2(phi/2) I: R(phi) - I scales every vector by 2|sin(phi/2)|. "
        "By Cauchy-Schwarz the difference from NoPE is at most |q||k| 2|sin(phi/2)| <= |q||k| |r| theta_i "
        "(the last step is |sin x| <= |x|, cited, not proved here).",
        (Equation(diff.T * diff, 4 * sp.sin(phi / 2) ** 2 * sp.eye(2),
                  "(R(phi) - I)^T (R(phi) - I) = 4 sin^2(phi/2) I"),),
        (), SRC_BARBERO,
    )


def _block_rotation(a: sp.Expr, c: sp.Expr) -> sp.Matrix:
    """exp(a A1 + c A2) for the commuting generators A1 = J (+) 0, A2 = 0 (+) J (J the 2x2 quarter turn)."""
    out = sp.zeros(4, 4)
    for off, ang in ((0, a), (2, c)):
        out[off, off], out[off, off + 1] = sp.cos(ang), -sp.sin(ang)
        out[off + 1, off], out[off + 1, off + 1] = sp.sin(ang), sp.cos(ang)
    return out


@theorem("literature.comrope_commuting",
         "ComRoPE: with commuting skew generators, R(x)^T R(y) = R(y - x) (block-diagonal generators)",
         SRC_COMROPE, concrete=False,
         latex=(r"A_1 A_2 = A_2 A_1, \qquad R(x)^{\mathsf T} R(y) = R(y - x) \\"
                r" A_1 = J \oplus 0, \quad A_2 = 0 \oplus J, \quad R(x) = \mathop{\mathrm{rot2}}(x_1) \oplus"
                r" \mathop{\mathrm{rot2}}(x_2), \quad x, y \in \mathbb{R}^2"))
def _comrope(d: int | None) -> Claim:
    x1, x2, y1, y2 = sp.symbols("x1 x2 y1 y2", real=True)
    j = sp.Matrix([[0, -1], [1, 0]])
    a1 = sp.diag(j, sp.zeros(2, 2))
    a2 = sp.diag(sp.zeros(2, 2), j)
    return Claim(
        "literature.comrope_commuting",
        "ComRoPE's generators commute (A1 A2 = A2 A1); for the block-diagonal pair A1 = J (+) 0, A2 = 0 (+) J, "
        "exp(x1 A1 + x2 A2) is the block rotation R(x1) (+) R(x2), and R(x)^T R(y) = R(y - x) for every x, y.",
        (Equation(a1 * a2 - a2 * a1, sp.zeros(4, 4), "the generators commute"),
         Equation(_block_rotation(x1, x2).T * _block_rotation(y1, y2), _block_rotation(y1 - x1, y2 - x2),
                  "R(x)^T R(y) = R(y - x)")),
        (), SRC_COMROPE,
    )


@theorem("literature.liere_noncommuting",
         "LieRE: R(x)^T R(y) = R(y - x) for general skew generators; refuted (rotations about x and y in R^3)",
         SRC_COMROPE, concrete=False, expect="refuted",
         latex=(r"R(x)^{\mathsf T} R(y) = R(y - x) \text{ at } x = (1, 0),\ y = (0, 1):\quad e^{-A_1} e^{A_2} ="
                r" e^{A_2 - A_1} \\"
                r" R(x) = e^{x_1 A_1 + x_2 A_2}, \quad A_1, A_2 \in \mathfrak{so}(3) \text{ the generators of the"
                r" rotations about the } x \text{ and } y \text{ axes}"))
def _liere(d: int | None) -> Claim:
    a1 = sp.Matrix([[0, 0, 0], [0, 0, -1], [0, 1, 0]])  # rotation about the x axis
    a2 = sp.Matrix([[0, 0, 1], [0, 0, 0], [-1, 0, 0]])  # rotation about the y axis
    lhs = (-a1).exp() * a2.exp()  # R(x)^T R(y) at x = (1, 0), y = (0, 1)
    rhs = (a2 - a1).exp()  # R(y - x)
    return Claim(
        "literature.liere_noncommuting",
        "For skew generators that do not commute (A1, A2 the generators of rotations about the x and y axes "
        "of R^3, A1 A2 != A2 A1), R(x) = exp(x1 A1 + x2 A2) is not relative: at x = (1, 0), y = (0, 1), "
        "R(x)^T R(y) = exp(-A1) exp(A2) differs from R(y - x) = exp(A2 - A1).",
        (Equation(sp.ImmutableMatrix(lhs.applyfunc(sp.simplify)), sp.ImmutableMatrix(rhs.applyfunc(sp.simplify)),
                  "exp(-A1) exp(A2) = exp(A2 - A1)"),),
        (), SRC_COMROPE,
    )
