r"""Kernes, "Master Positional Encoding: Part I" (seed 000): the five guesses, checked.

Kernes "derives" the sinusoidal encoding by improving four guesses. Each guess's defect is
a claim, and each claim is checked here:

1. counting, ``PE(n) = n``: the values are unbounded as the sequence grows;
2. normalised counting, ``PE(n) = n/L``: one value means different positions for different
   lengths (0.8 is position 4 of 5 and position 16 of 20);
3. binary vectors: ``dim`` bits represent ``2^dim`` positions, rescaled to ``[-1, 1]``;
4. sine dials :math:`M_{ij} = \sin(2\pi i/2^j)`: the curve closes, so distinct positions
   collide; frequencies :math:`\omega_{\min}^{j/d}` decrease monotonically, and the slowest
   dial is strictly increasing over a stated range of positions (``video.monotone_range``),
   so no two positions in that range collide;
5. sin/cos pairs and :math:`T(\Delta x)` (the foundation theorems ``translation.*``), and
   the bonus property: the dot product with a fixed position is largest at offset 0 and
   symmetric.

>>> from pe_symbolic import theorems
>>> theorems.get("kernes.normalized_ambiguous").prove().verdict
'proved'
"""

from __future__ import annotations

import sympy as sp

from ...encodings import sinusoidal as P
from ...encodings import symbols as S
from ...encodings.symbols import as_expr
from ...proof import Claim, Equation
from .._derive import at, call

_dial = sp.Symbol("j", integer=True, positive=True)
"""A dial index, for "the dial at j = 1" (left unevaluated)."""
from ..registry import theorem
from ._common import SRC_KERNES, sgn

__all__ = ["IDS", "binary_vector", "dial", "slowed_frequency"]

IDS = (
    "kernes.counting_unbounded",
    "kernes.normalized_ambiguous",
    "kernes.binary",
    "kernes.dials_collide",
    "kernes.slowed_dials",
    "kernes.bonus_dot",
)

L = sp.Symbol("L", integer=True, positive=True)
"""Sequence length."""
pos = sp.Symbol("n", integer=True, nonnegative=True)
"""An integer position."""
c = sp.Symbol("c", integer=True, positive=True)
"""A positive integer scale factor."""
x_len = sp.Symbol("x", positive=True)
"""The length as a real variable, for a derivative in it (``L`` itself is an integer)."""
beta = sp.Symbol("beta", positive=True)
"""``b = 1 + beta``: the base written so that ``b > 1`` is a symbol assumption."""


# ----------------------------------------------------------------------------- guesses 1, 2
@theorem("kernes.counting_unbounded",
         "Guess 1 (PE(n) = n): values grow by 1 a step; the largest in a length-L sequence, L-1, is unbounded",
         f"{SRC_KERNES}, 'Guess #1: just count'", concrete=False,
         latex=(r"\mathrm{PE}(n) = n:\quad \mathrm{PE}(n + 1) - \mathrm{PE}(n) = 1, \quad \max_{0 \le n < L}"
                r" \mathrm{PE}(n) = L - 1, \quad \lim_{L \to \infty} \frac{1}{\mathrm{PE}(L + 1)} = 0"))
def _counting(d: int | None) -> Claim:
    pe = sp.Lambda(pos, pos)
    return Claim(
        "kernes.counting_unbounded",
        "With PE(n) = n the values increase by 1 at every position, so the largest value of a "
        "length-L sequence is PE(L-1) = L-1, and 1/PE(L+1) -> 0 as L -> oo: no bound holds "
        "for all lengths.",
        (
            Equation(pe(pos + 1) - pe(pos), 1, "PE(n+1) - PE(n) = 1: strictly increasing"),
            Equation(pe(L - 1), L - 1, "the largest value of a length-L sequence is L - 1"),
            Equation(sp.Limit(1 / pe(L + 1), L, sp.oo), 0,
                     "1/PE(L+1) -> 0 as L -> oo: the values exceed every bound"),
        ),
        (),
        SRC_KERNES,
    )


@theorem("kernes.normalized_ambiguous",
         "Guess 2 (PE(n) = n/L): 0.8 is position 4 of 5 and 16 of 20; the value depends on L",
         f"{SRC_KERNES}, 'Guess #2: normalize'", concrete=False,
         latex=(r"\mathrm{PE}(n; L) = \frac{n}{L}:\quad \mathrm{PE}(4; 5) = \mathrm{PE}(16; 20) = \frac{4}{5} \\"
                r" \mathrm{PE}(cn; cL) = \mathrm{PE}(n; L), \quad \frac{\partial}{\partial L}\,\mathrm{PE}(n + 1; L)"
                r" < 0"))
def _normalized(d: int | None) -> Claim:
    pe = sp.Lambda((pos, L), pos / L)
    return Claim(
        "kernes.normalized_ambiguous",
        "With PE(n; L) = n/L the value 4/5 = 0.8 is position 4 of a length-5 sequence and "
        "position 16 of a length-20 one; in general position c n of a length-c L sequence has "
        "the value of position n of a length-L one, and the value of a fixed position n > 0 "
        "changes with L (dPE/dL = -n/L^2 < 0).",
        (
            Equation(call(pe, 4, 5), sp.Rational(4, 5), "PE(4; 5) = 4/5 = 0.8"),
            Equation(call(pe, 16, 20), sp.Rational(4, 5), "PE(16; 20) = 4/5 = 0.8 as well"),
            Equation(call(pe, c * pos, c * L), pe(pos, L), "PE(c n; c L) = PE(n; L) for every scale c"),
            Equation(sgn(-sp.Subs(sp.Derivative(pe(pos + 1, x_len), x_len), x_len, L)), 1,
                     "dPE(n+1; x)/dx < 0 at x = L: a fixed position's value depends on the length"),
        ),
        (),
        SRC_KERNES,
    )


# ----------------------------------------------------------------------------- guess 3
def binary_vector(n: int, dim: int) -> sp.ImmutableMatrix:
    """The ``dim`` bits of position ``n``, most significant first (Kernes' convention).

    >>> binary_vector(35, 8).T
    Matrix([[0, 0, 1, 0, 0, 0, 1, 1]])
    """
    if dim < 1:
        raise ValueError(f"dim={dim!r} must be a positive integer")
    return sp.ImmutableMatrix([sp.floor(sp.Integer(n) / 2**q) % 2 for q in reversed(range(dim))])


@theorem("kernes.binary",
         "Guess 3: bit vectors; dim bits give 2^dim positions (35 <-> 00100011), 2x-1 rescales to [-1, 1]",
         f"{SRC_KERNES}, 'Guess #3: binary'", concrete=False,
         latex=(r"\beta_j(n) = \lfloor n / 2^j \rfloor \bmod 2:\quad (\beta_7, \dots, \beta_0)(35) = (0, 0, 1, 0, 0,"
                r" 0, 1, 1) \\"
                r" \sum_{j=0}^{7} 2^j \beta_j(n) = n \ \ (0 \le n < 256), \qquad \beta_j(256) = \beta_j(0) \ \ (j <"
                r" 8), \qquad \sum_{j=0}^{D-1} 2^j = 2^D - 1 \\"
                r" f(x) = 2x - 1:\ f(0) = -1,\ f(1) = 1,\ f'(x) = 2 > 0"))
def _binary(d: int | None) -> Claim:
    dim = 8
    D, q = sp.Symbol("D", integer=True, positive=True), sp.Symbol("q", integer=True, nonnegative=True)
    weights = sp.ImmutableMatrix([[2**p for p in reversed(range(dim))]])
    decoded = sp.ImmutableMatrix([(weights * binary_vector(n, dim))[0, 0] for n in range(2**dim)])
    x = sp.Symbol("x", real=True)
    f = sp.Lambda(x, 2 * x - 1)
    return Claim(
        "kernes.binary",
        f"The binary vector of position n has entries floor(n/2^j) mod 2. With dim = {dim} bits "
        "every position 0..255 is decoded back exactly (sum_j 2^j bit_j(n) = n); in general the "
        "largest representable position is sum_{j<D} 2^j = 2^D - 1, so D bits hold 2^D "
        "positions and position 2^D wraps to 0. f(x) = 2x - 1 maps 0 -> -1, 1 -> 1 increasingly.",
        (
            Equation(binary_vector(35, dim), sp.ImmutableMatrix([0, 0, 1, 0, 0, 0, 1, 1]),
                     "35 <-> [0, 0, 1, 0, 0, 0, 1, 1]"),
            Equation(decoded, sp.ImmutableMatrix(list(range(2**dim))),
                     f"decoding the bits gives n back for all {2**dim} positions (dim = {dim})"),
            Equation(sp.Sum(2**q, (q, 0, D - 1)), 2**D - 1, "sum_{j<D} 2^j = 2^D - 1: 2^D positions"),
            Equation(binary_vector(2**dim, dim), binary_vector(0, dim),
                     f"position 2^{dim} has the bits of position 0: longer sequences wrap"),
            Equation(sp.ImmutableMatrix([f(0), f(1)]), sp.ImmutableMatrix([-1, 1]), "f(0) = -1, f(1) = 1"),
            Equation(sgn(sp.Derivative(f(x), x)), 1, "f'(x) = 2 > 0: [0, 1] maps onto [-1, 1] in order"),
        ),
        (),
        SRC_KERNES,
    )


# ----------------------------------------------------------------------------- guess 4
def dial(position: sp.Expr, j: int | sp.Expr) -> sp.Expr:
    r"""Kernes' sine dial :math:`M_{ij} = \sin(2\pi i / 2^j)` (position ``i``, dial ``j``).

    >>> dial(3, 2)
    -1
    """
    return sp.sin(2 * sp.pi * as_expr(position, "position") / sp.Integer(2) ** j)


def slowed_frequency(j: sp.Expr, d: sp.Expr, base: sp.Expr = S.b) -> sp.Expr:
    r"""Kernes' slowed dial frequency :math:`\omega_{\min}^{j/d}` with :math:`\omega_{\min} = 1/b`.

    >>> slowed_frequency(4, 8, 10000)
    1/100
    """
    return (1 / as_expr(base, "base")) ** (as_expr(j, "j") / as_expr(d, "d"))


@theorem("kernes.dials_collide",
         "Guess 4: the dials sin(2 pi i/2^j) repeat with period 2^J: distinct positions collide",
         f"{SRC_KERNES}, 'Guess #4: use a continuous binary vector'", concrete=False,
         latex=(r"M_j(i) = \sin \frac{2\pi i}{2^j}\ \ (j = 1, 2, 3):\quad M(i + 2^3) = M(i), \quad M_1(i) = \sin \pi"
                r" i = 0 \ \ (i \in \mathbb{Z}) \\"
                r" \sin \frac{\pi (x + 16)}{2^j} = \sin \frac{\pi x}{2^j} \qquad (j = 1, 2, 3)"))
def _dials_collide(d: int | None) -> Claim:
    J = 3
    x = sp.Symbol("x", real=True)
    ii = sp.Symbol("i", integer=True)
    figure = [sp.pi / 2, sp.pi / 4, sp.pi / 8]
    return Claim(
        "kernes.dials_collide",
        f"With the dials M_ij = sin(2 pi i / 2^j), j = 1..{J}, position i + 2^{J} has exactly the "
        f"encoding of position i (the curve is closed); with the figure's frequencies pi/2, pi/4, "
        "pi/8 the period is 16. The printed formula's first dial, sin(pi i), is 0 at every "
        "integer position.",
        (
            Equation(sp.ImmutableMatrix([dial(ii + 2**J, q) for q in range(1, J + 1)]),
                     sp.ImmutableMatrix([dial(ii, q) for q in range(1, J + 1)]),
                     f"M(i + 2^{J}) = M(i): positions i and i + {2**J} collide"),
            Equation(sp.ImmutableMatrix([sp.sin(w * (x + 16)) for w in figure]),
                     sp.ImmutableMatrix([sp.sin(w * x) for w in figure]),
                     "frequencies pi/2, pi/4, pi/8: position x + 16 collides with x"),
            Equation(at(dial(ii, _dial), {_dial: 1}), 0, "the dial j = 1 is sin(pi i) = 0 at every integer position"),
        ),
        (),
        SRC_KERNES,
    )


@theorem("kernes.slowed_dials",
         "Frequencies omega_min^(j/d), omega_min = 1/b, fall monotonically from 1 (j=0) to 1/b (j=d)",
         f"{SRC_KERNES}, 'the slowed down dial version'",
         latex=(r"\omega_j = \omega_{\min}^{\,j/d} = b^{-j/d}:\quad \frac{d\omega_j}{dj} < 0, \quad \omega_0 = 1,"
                r" \quad \omega_d = \frac{1}{b} \qquad (b > 1)"))
def _slowed(d: int | None) -> Claim:
    s = sp.Symbol("s", real=True)
    if d is None:
        base = 1 + beta
        w = sp.Lambda(s, slowed_frequency(s, S.d, base))
        eqs = (
            Equation(sgn(sp.Derivative(w(s), s)), -1,
                     "d omega_s/ds = -log(b)/d omega_s < 0 (b = 1 + beta > 1): strictly decreasing"),
            Equation(call(w, 0), 1, "j = 0 gives the largest frequency, 1"),
            Equation(call(w, S.d), 1 / base, "j = d gives the smallest, omega_min = 1/b"),
        )
        assumptions: tuple[sp.Basic, ...] = ()
    else:
        ws = [slowed_frequency(q, d, 10000) for q in range(d)]
        eqs = (
            Equation(sp.ImmutableMatrix([sgn(ws[q + 1] - ws[q]) for q in range(d - 1)]),
                     sp.ImmutableMatrix([-1] * (d - 1)),
                     f"omega_(j+1) < omega_j for j = 0..{d - 2} (b = 10000)"),
            Equation(ws[0], 1, "omega_0 = 1"),
            Equation(ws[-1], sp.Integer(10000) ** sp.Rational(-(d - 1), d),
                     f"the slowest dial, j = {d - 1}: omega = 10000^(-{d - 1}/{d})"),
        )
        assumptions = ()
    return Claim(
        "kernes.slowed_dials",
        "Kernes' slowed dials sin(x omega_min^(j/d)) with omega_min = 1/b: the frequency falls "
        "strictly with j, from 1 at j = 0 to 1/b at j = d (the article's 'monotonically "
        "increasing' is the period, 2 pi b^(j/d)). Together with video.monotone_range (the "
        "slowest dial is strictly increasing for 0 <= x <= pi/(2 omega)), no two positions in "
        "that range collide.",
        eqs, assumptions, SRC_KERNES,
    )


# ----------------------------------------------------------------------------- bonus
@theorem("kernes.bonus_dot",
         "f(k) = PE(t).PE(t+k) is largest at k = 0 (strictly, for integer k != 0) and symmetric",
         f"{SRC_KERNES}, 'Bonus property'",
         latex=(r"f(k) = \sum_i \cos \omega_i k:\quad f(0) - f(k) = \sum_i \frac{\lVert p_i(k) - p_i(0) \rVert^2}{2}"
                r" \ge 0, \qquad f(-k) = f(k) \\"
                r" 1 - \cos k = 2 \sin^2 \frac{k}{2} > 0 \ \ (k \in \mathbb{Z} \setminus \{0\}), \text{ so with }"
                r" \omega_0 = 1:\ f(k) < f(0)"))
def _bonus(d: int | None) -> Claim:
    k = S.k
    kk = sp.Symbol("k_int", integer=True, nonzero=True)  # an integer offset: its own name
    if d is None:
        ws, half = [S.omega], sp.S.One
    else:
        ws, half = list(P.frequencies(d)), sp.Rational(d, 2)
    f = sp.Lambda(k, sp.Add(*[sp.cos(w * k) for w in ws]))
    # |p_i(k) - p_i(0)|^2 / 2 with p_i = (sin, cos): a sum of two squares, free of any position
    half_sq = sp.ImmutableMatrix([(sp.sin(w * k) ** 2 + (sp.cos(w * k) - 1) ** 2) / 2 for w in ws])
    what = "generic pair" if d is None else f"d={d}"
    eqs = (
        Equation(call(f, 0), half, f"f(0) = sum_i cos 0 = d/2 ({what})"),
        Equation(sp.ImmutableMatrix([1 - sp.cos(w * k) for w in ws]), half_sq,
                 "f(0) - f(k) = sum_i (1 - cos(omega_i k)); each term is (sin^2 + (cos - 1)^2)/2 = |p_i(k) - p_i(0)|^2 / 2"),
        Equation(half_sq.applyfunc(lambda e: sp.Abs(e, evaluate=False)), half_sq,
                 "a sum of squares is >= 0: f(k) <= f(0)"),
        Equation(1 - sp.cos(kk), 2 * sp.sin(kk / 2) ** 2, "the pair with omega_0 = 1 at an integer offset k_int: 1 - cos k_int = 2 sin^2(k_int/2)"),
        Equation(sgn(2 * sp.sin(kk / 2) ** 2), 1, "> 0 for integer k_int != 0 (pi is irrational): f(k_int) < f(0)"),
        Equation(call(f, -k), f(k), "f(-k) = f(k): symmetric"),
    )
    return Claim(
        "kernes.bonus_dot",
        "The similarity f(k) = PE(t).PE(t+k) = sum_i cos(omega_i k) (sinusoidal.dot) satisfies "
        "f(0) - f(k) = sum_i (1 - cos(omega_i k)) = |PE(k) - PE(0)|^2 / 2 >= 0; for integer "
        "k != 0 the pair with omega_0 = 1 alone contributes 2 sin^2(k/2) > 0; and f(-k) = f(k). "
        "So the dot product is largest at offset 0, strictly, and symmetric. (That it then "
        "decreases steadily is not true: see the certificate kernes.dot_decay.)",
        eqs, () if d is None else (S.BASE_GT_1,), SRC_KERNES,
    )
