r"""The "thinking out loud" post (seed 004): the sphere, the printed tables, and ALiBi.

The post defines, for position ``i`` and slot ``k`` of an ``n_embed``-dimensional encoding,

.. math:: p_{i,k} = \sin\bigl(i / 10000^{k/n}\bigr)\ (k \text{ even}), \qquad
          p_{i,k} = \cos\bigl(i / 10000^{(k-1)/n}\bigr)\ (k \text{ odd}),

and its code computes the coefficients as ``10000 ** -(((k >> 1) << 1) / n)``. Checked here:

* each :math:`p_i` lies on the sphere of radius :math:`\sqrt{n/2}` (``sphere.radius``);
* the exponent ``k/n`` with ``k`` even (and ``(k-1)/n`` with ``k`` odd, and the code's
  ``((k >> 1) << 1)/n``) is Vaswani's ``2i/d``: the post's table is Vaswani's
  (``sphere.exponent``);
* the radians and encodings tables printed for context length 4 and dimension 8 are
  reproduced to the printed digits: all but one entry are the exact values correctly
  rounded, and that one (sin(0.03), printed 2.9995e-02) is the float32 value the post's code
  computes (``sphere.tables``);
* ALiBi (Press et al.), mentioned in the post: the bias :math:`m(j - i)` depends only on the
  offset (``alibi.offset_only``) and the head slopes :math:`2^{-8h/n}` form a geometric
  sequence from :math:`2^{-8/n}` to :math:`2^{-8}` (``alibi.slopes``).

>>> from pe_symbolic import theorems
>>> theorems.get("sphere.tables").prove().verdict
'proved'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import sympy as sp

from ...encodings import sinusoidal as P
from ...encodings import symbols as S
from ...proof import Claim, Equation
from .._derive import at, call
_k = sp.Symbol("k", integer=True, nonnegative=True)
"""The post's embedding index k (one per dimension)."""
_sq = sp.Symbol("x", positive=True)
"""A squared length, for "sqrt(x) at x = d/2" (left unevaluated)."""
from ..registry import theorem
from ._common import SRC_ALIBI, SRC_SPHERE, dot, sgn

__all__ = [
    "IDS",
    "PRINTED_ENCODINGS",
    "PRINTED_NORMS",
    "PRINTED_RADIANS",
    "alibi_slopes",
    "exact_tables",
    "float32_tables",
    "parse_printed",
    "post_coefficients",
    "post_encoding",
    "printed_digits_mismatches",
]

IDS = ("sphere.radius", "sphere.exponent", "sphere.tables", "alibi.offset_only", "alibi.slopes")

CONTEXT_LENGTH, EMBEDDING_DIM = 4, 8

#: The post's printed ``radians`` tensor (context length 4, embedding dim 8), as printed.
PRINTED_RADIANS = """
[[0.0000e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00, 0.0000e+00],
 [1.0000e+00, 1.0000e+00, 1.0000e-01, 1.0000e-01, 1.0000e-02, 1.0000e-02, 1.0000e-03, 1.0000e-03],
 [2.0000e+00, 2.0000e+00, 2.0000e-01, 2.0000e-01, 2.0000e-02, 2.0000e-02, 2.0000e-03, 2.0000e-03],
 [3.0000e+00, 3.0000e+00, 3.0000e-01, 3.0000e-01, 3.0000e-02, 3.0000e-02, 3.0000e-03, 3.0000e-03]]
"""

#: The post's printed ``encodings`` tensor, as printed.
PRINTED_ENCODINGS = """
[[ 0.0000e+00,  1.0000e+00,  0.0000e+00,  1.0000e+00,  0.0000e+00,  1.0000e+00,  0.0000e+00,  1.0000e+00],
 [ 8.4147e-01,  5.4030e-01,  9.9833e-02,  9.9500e-01,  9.9998e-03,  9.9995e-01,  1.0000e-03,  1.0000e+00],
 [ 9.0930e-01, -4.1615e-01,  1.9867e-01,  9.8007e-01,  1.9999e-02,  9.9980e-01,  2.0000e-03,  1.0000e+00],
 [ 1.4112e-01, -9.8999e-01,  2.9552e-01,  9.5534e-01,  2.9995e-02,  9.9955e-01,  3.0000e-03,  1.0000e+00]]
"""

#: The post's printed ``encodings.norm(dim=1)``.
PRINTED_NORMS = "[2., 2., 2., 2.]"

_NUMBER = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?")


def parse_printed(text: str, cols: int) -> list[list[str]]:
    """The numbers of a printed tensor, as strings, in rows of ``cols``.

    >>> parse_printed(PRINTED_NORMS, 4)
    [['2.', '2.', '2.', '2.']]
    """
    nums = _NUMBER.findall(text)
    if not nums or len(nums) % cols:
        raise ValueError(f"found {len(nums)} numbers in the printed tensor; expected a multiple of {cols}")
    return [nums[q:q + cols] for q in range(0, len(nums), cols)]


def post_coefficients(n_embed: int, base: int = 10000) -> sp.ImmutableMatrix:
    """The post's ``10000 ** -(((arange(n) >> 1) << 1) / n)``, exactly.

    >>> post_coefficients(4).T
    Matrix([[1, 1, 1/100, 1/100]])
    """
    return sp.ImmutableMatrix([sp.Integer(base) ** (-sp.Rational((q >> 1) << 1, n_embed)) for q in range(n_embed)])


def post_encoding(position: sp.Expr, n_embed: int, base: int = 10000) -> sp.ImmutableMatrix:
    """The post's :math:`p_{i,k}`, slot by slot from its case formula, as an ``n x 1`` column.

    >>> post_encoding(S.t, 4).T
    Matrix([[sin(t), cos(t), sin(t/100), cos(t/100)]])
    """
    B = sp.Integer(base)
    return sp.ImmutableMatrix([
        sp.sin(position / B ** sp.Rational(q, n_embed)) if q % 2 == 0
        else sp.cos(position / B ** sp.Rational(q - 1, n_embed))
        for q in range(n_embed)
    ])


def _unit(txt: str) -> sp.Rational:
    """One unit of the last printed digit of ``txt`` (``"8.4147e-01"`` -> ``10^-5``)."""
    mant, _, exp = txt.partition("e")
    return sp.Integer(10) ** (-(len(mant.split(".")[1]) - (int(exp) if exp else 0)))


def _digit_checks(printed: Sequence[Sequence[str]], values: sp.MatrixBase,
                  units: sp.Rational = sp.Rational(1, 2)) -> list[sp.Expr]:
    """``sign(units * unit of the last printed digit - |value - printed|)`` for every entry."""
    return [sgn(units * _unit(txt) - sp.Abs(values[r_, c_] - sp.Rational(txt)))
            for r_, row in enumerate(printed) for c_, txt in enumerate(row)]


def float32_tables() -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
    """The tables as the post's float32 code forms them, with exact sin/cos of its angles.

    The post's torch code rounds each coefficient ``10000^(-2i/8)`` to float32 and each
    angle ``p * coefficient`` to float32 (a (4,1) @ (1,8) product has one rounding per
    entry). Those float32 angles are exact binary fractions; sin and cos of them are taken
    exactly here. (Assumes torch's ``pow`` rounds ``10000^(-2i/8)`` correctly to float32.)

    >>> rad32, _ = float32_tables()
    >>> rad32[3, 4]
    16106127/536870912
    """
    coeffs = post_coefficients(EMBEDDING_DIM)
    c32 = [np.float32(float(c)) for c in coeffs]
    rad = sp.ImmutableMatrix(CONTEXT_LENGTH, EMBEDDING_DIM,
                             lambda p, q: sp.Rational(float(np.float32(p) * c32[q])))
    enc = sp.ImmutableMatrix(CONTEXT_LENGTH, EMBEDDING_DIM,
                             lambda p, q: sp.sin(rad[p, q]) if q % 2 == 0 else sp.cos(rad[p, q]))
    return rad, enc


def printed_digits_mismatches(angles: str = "exact") -> list[tuple[str, int, int, str, str]]:
    """Entries of the printed tables that are *not* the value rounded to the printed digits.

    ``angles="exact"`` compares with the exact table; ``"float32"`` with sin/cos of the
    float32 angles the post's code forms (:func:`float32_tables`). Returns
    ``(table, row, col, printed, value)`` for each mismatch (empty: all reproduced).

    >>> printed_digits_mismatches()
    [('encodings', 3, 4, '2.9995e-02', '2.9996e-02')]
    >>> printed_digits_mismatches("float32")
    []
    """
    if angles not in ("exact", "float32"):
        raise ValueError(f"angles={angles!r} must be 'exact' or 'float32'")
    exact_rad, exact_enc = exact_tables() if angles == "exact" else float32_tables()
    bad = []
    for name, text, exact in (("radians", PRINTED_RADIANS, exact_rad), ("encodings", PRINTED_ENCODINGS, exact_enc)):
        printed = parse_printed(text, EMBEDDING_DIM)
        for r_, row in enumerate(printed):
            for c_, txt in enumerate(row):
                want = f"{float(sp.N(exact[r_, c_], 30)):.4e}"
                if f"{float(txt):.4e}" != want:
                    bad.append((name, r_, c_, txt, want))
    return bad


def exact_tables() -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
    """The post's radians and encodings tables (4 x 8), exactly, from its code's formulas.

    >>> exact_tables()[0][2, 4]
    1/50
    """
    coeffs = post_coefficients(EMBEDDING_DIM)
    radians = sp.ImmutableMatrix(CONTEXT_LENGTH, EMBEDDING_DIM,
                                 lambda p, q: p * coeffs[q])
    enc = sp.ImmutableMatrix(CONTEXT_LENGTH, EMBEDDING_DIM,
                             lambda p, q: sp.sin(radians[p, q]) if q % 2 == 0 else sp.cos(radians[p, q]))
    return radians, enc


@theorem("sphere.radius", "Every p_i lies on the sphere of radius sqrt(n_embed/2) about the origin",
         f"{SRC_SPHERE}, 'by considering the squares of each even-odd pair'",
         latex=(r"\lVert p_t \rVert^2 = \sum_{j=0}^{d/2-1} \bigl(\sin^2 \omega_j t + \cos^2 \omega_j t\bigr) ="
                r" \frac{d}{2}, \qquad \lVert p_t \rVert = \sqrt{d/2}"))
def _radius(d: int | None) -> Claim:
    t = S.t
    if d is None:
        q = sp.Symbol("q", integer=True, nonnegative=True)
        pair = P.pair(t, S.omega)
        eqs: tuple[Equation, ...] = (
            Equation(dot(pair, pair), 1, "each even-odd pair: sin^2 + cos^2 = 1"),
            Equation(sp.Sum(1, (q, 0, S.d / 2 - 1)), S.d / 2, "d/2 pairs: |p_i|^2 = d/2"),
            Equation(at(sp.sqrt(_sq), {_sq: S.d / 2}), sp.sqrt(S.d) / sp.sqrt(2), "radius sqrt(d/2)"),
        )
    else:
        p = post_encoding(t, d)
        eqs = (
            Equation(dot(p, p), sp.Rational(d, 2), f"|p_i|^2 = {d}/2 for the post's p_i (n_embed = {d})"),
            Equation(sp.sqrt(dot(p, p)), sp.sqrt(sp.Rational(d, 2)),
                     f"radius sqrt({d}/2){' = 2, the printed norms' if d == 8 else ''}"),
        )
    return Claim(
        "sphere.radius",
        "Each even-odd pair (sin, cos) of p_i has squared length 1, so |p_i|^2 = n_embed/2: every "
        "position's encoding lies on the sphere of radius sqrt(n_embed/2) centred at the origin "
        "(n_embed = 8: radius 2, the printed encodings.norm(dim=1)).",
        eqs, (), SRC_SPHERE,
    )


@theorem("sphere.exponent", "The post's exponent k/n (k even), (k-1)/n (k odd), ((k>>1)<<1)/n is Vaswani's 2i/d",
         f"{SRC_SPHERE}; Vaswani et al. 3.5",
         latex=(r"\frac{k}{d}\Big|_{k = 2i} = \frac{k - 1}{d}\Big|_{k = 2i + 1} = \frac{(k \gg 1) \ll 1}{d}\Big|_{k"
                r" = 2i,\, 2i + 1} = \frac{2i}{d}"))
def _exponent(d: int | None) -> Claim:
    i, dd, t = S.i, S.d, S.t
    if d is None:
        eqs: tuple[Equation, ...] = (
            Equation(at(_k / dd, {_k: 2 * i}), 2 * i / dd, "k = 2i even: k/n_embed = 2i/d"),
            Equation(at((_k - 1) / dd, {_k: 2 * i + 1}), 2 * i / dd, "k = 2i+1 odd: (k-1)/n_embed = 2i/d"),
            Equation(2 * sp.floor((2 * i) / sp.Integer(2)) / dd, 2 * i / dd, "the code: ((2i >> 1) << 1)/n = 2i/d"),
            Equation(2 * sp.floor((2 * i + 1) / sp.Integer(2)) / dd, 2 * i / dd,
                     "the code: ((2i+1 >> 1) << 1)/n = 2i/d"),
        )
    else:
        ws = P.frequencies(d, base=10000)
        eqs = (
            Equation(post_coefficients(d), sp.ImmutableMatrix([w for w in ws for _ in (0, 1)]),
                     f"the code's coefficients are Vaswani's omega_i, each twice (d={d})"),
            Equation(post_encoding(t, d), P.encoding(t, d, base=10000),
                     f"the post's p_t is Vaswani's PE(t) (interleaved, sin first; d={d})"),
        )
    return Claim(
        "sphere.exponent",
        "The post writes the exponent as k/n_embed for even k (and (k-1)/n_embed for odd k); with "
        "k = 2i (or 2i+1) that is 2i/d, Vaswani's exponent, and the code's ((k >> 1) << 1)/n "
        "= 2 floor(k/2)/n is the same. The post's encoding is therefore Vaswani's table.",
        eqs, (), SRC_SPHERE,
    )


@theorem("sphere.tables",
         "The printed radians and encodings tables (context 4, dim 8) are the exact values, correctly rounded",
         f"{SRC_SPHERE}, the script's printed output", concrete=False,
         latex=(r"\mathrm{radians}_{pk} = p \cdot 10^{-\lfloor k/2 \rfloor}, \quad \mathrm{encodings}_p ="
                r" \mathrm{PE}(p), \quad \lVert \mathrm{PE}(p) \rVert = 2 \\"
                r" (p = 0, \dots, 3;\ d = 8;\ b = 10^4):\ \text{each printed radian correctly rounded,} \\"
                r" \text{each printed encoding within one unit of its last digit}, \quad \sin 0.03 > 2.9995 \cdot"
                r" 10^{-2} + \tfrac{1}{2} \cdot 10^{-6} \\"
                r" \text{with float32 angles, each printed encoding correctly rounded}"))
def _tables(d: int | None) -> Claim:
    radians, enc = exact_tables()
    pkg = sp.ImmutableMatrix.vstack(*[P.encoding(p, EMBEDDING_DIM, base=10000).T for p in range(CONTEXT_LENGTH)])
    rad_printed = parse_printed(PRINTED_RADIANS, EMBEDDING_DIM)
    enc_printed = parse_printed(PRINTED_ENCODINGS, EMBEDDING_DIM)
    norms = [sp.sqrt(dot(enc.row(p).T, enc.row(p).T)) for p in range(CONTEXT_LENGTH)]
    ones = sp.ImmutableMatrix([1] * (CONTEXT_LENGTH * EMBEDDING_DIM))
    rad32, enc32 = float32_tables()
    r3, c4 = 3, 4  # the one entry whose printed last digit is the float32 one: sin(0.03)
    return Claim(
        "sphere.tables",
        "For CONTEXT_LENGTH = 4 and EMBEDDING_DIM = 8 the post's radians are exactly "
        "p * 10^(-floor(k/2)) and its encodings are Vaswani's PE(p) for b = 10000. Every printed "
        "radian is the exact value correctly rounded; every printed encoding is within one unit "
        "of its last digit of the exact value, and 31 of the 32 are the correctly rounded exact "
        "value. The exception, sin(0.03) printed 2.9995e-02 (exact 0.0299955002... -> "
        "2.9996e-02), is what float32 gives: with the code's float32 angles, modelled as "
        "fl32(p * fl32(10000^(-2i/8))), every printed encoding is sin/cos of that angle "
        "correctly rounded. Every row has norm exactly 2. (Each digit comparison is the sign of "
        "a numeric constant, decided by SymPy's precision-tracking evalf.)",
        (
            Equation(radians, sp.ImmutableMatrix(CONTEXT_LENGTH, EMBEDDING_DIM,
                                                 lambda p, q: p * sp.Integer(10) ** (-(q // 2))),
                     "radians[p, k] = p * 10^(-floor(k/2)) exactly"),
            Equation(enc, pkg, "encodings = the package's PE(p), p = 0..3, d = 8, b = 10000"),
            Equation(sp.ImmutableMatrix(_digit_checks(rad_printed, radians)), ones,
                     "each printed radian is the exact value, correctly rounded"),
            Equation(sp.ImmutableMatrix(_digit_checks(enc_printed, enc, sp.Integer(1))), ones,
                     "each printed encoding is within one unit of its last digit of the exact value"),
            Equation(sgn(sp.Abs(enc[r3, c4] - sp.Rational(enc_printed[r3][c4]))
                         - _unit(enc_printed[r3][c4]) / 2), 1,
                     "sin(3/100) is more than half a unit from the printed 2.9995e-02 (exact rounds to 2.9996e-02)"),
            Equation(sp.ImmutableMatrix(_digit_checks(enc_printed, enc32)), ones,
                     "with the code's float32 angles every printed encoding is correctly rounded"),
            Equation(sp.ImmutableMatrix(norms), sp.ImmutableMatrix([sp.Rational(s) for s in
                                                                    parse_printed(PRINTED_NORMS, 4)[0]]),
                     "encodings.norm(dim=1) = [2, 2, 2, 2]"),
        ),
        (),
        SRC_SPHERE,
    )


# ----------------------------------------------------------------------------- ALiBi
def alibi_slopes(n_heads: int) -> tuple[sp.Expr, ...]:
    """ALiBi head slopes ``2^(-8h/n)``, ``h = 1..n``, for ``n`` a power of two.

    >>> alibi_slopes(8)
    (1/2, 1/4, 1/8, 1/16, 1/32, 1/64, 1/128, 1/256)
    """
    if not isinstance(n_heads, int) or n_heads < 1 or n_heads & (n_heads - 1):
        raise ValueError(f"n_heads={n_heads!r} must be a power of two (ALiBi's closed form)")
    return tuple(sp.Integer(2) ** sp.Rational(-8 * h, n_heads) for h in range(1, n_heads + 1))


@theorem("alibi.offset_only", "ALiBi's bias m (j - i) is unchanged by shifting both positions",
         SRC_ALIBI, concrete=False,
         latex=r"m\,\bigl((j + s) - (i + s)\bigr) = m\,(j - i), \qquad m\,(j - i) - m\,(j - 1 - i) = m > 0")
def _alibi_offset(d: int | None) -> Claim:
    i, j, s = sp.symbols("i j s", integer=True)
    slope = sp.Symbol("m", positive=True)
    qk = sp.Function("score")
    bias = sp.Lambda((i, j), slope * (j - i))
    return Claim(
        "alibi.offset_only",
        "ALiBi adds m (j - i) (= -m (i - j) for the keys j <= i a causal query sees) to the "
        "query-key score: it depends on the positions only through the offset, so shifting "
        "both positions by s leaves every biased score unchanged, and it falls linearly with "
        "distance.",
        (
            Equation(call(bias, i + s, j + s), bias(i, j), "m((j+s) - (i+s)) = m(j - i)"),
            Equation(qk(i, j) + call(bias, i + s, j + s) - (qk(i, j) + bias(i, j)), 0,
                     "the biased score q_i.k_j + m(j-i) does not see the shift"),
            Equation(sgn(bias(i, j) - bias(i, j - 1)), 1,
                     "one step further back (j -> j - 1) lowers the bias by m > 0"),
        ),
        (),
        SRC_ALIBI,
    )


@theorem("alibi.slopes", "ALiBi slopes 2^(-8h/n): geometric, ratio 2^(-8/n), from 2^(-8/n) to 1/256",
         SRC_ALIBI, concrete=False,
         latex=(r"m_h = 2^{-8h/n}:\quad \frac{m_{h+1}}{m_h} = 2^{-8/n}, \quad m_1 = 2^{-8/n}, \quad m_n = 2^{-8} ="
                r" \frac{1}{256} \\"
                r" n = 8:\ (m_h) = \bigl(\tfrac{1}{2}, \tfrac{1}{4}, \dots, \tfrac{1}{256}\bigr); \qquad n ="
                r" 16:\ m_1 = \tfrac{1}{\sqrt{2}}"))
def _alibi_slopes(d: int | None) -> Claim:
    h = sp.Symbol("h", integer=True, positive=True)
    nh = sp.Symbol("n", integer=True, positive=True)
    slope = sp.Lambda(h, sp.Integer(2) ** (-8 * h / nh))
    return Claim(
        "alibi.slopes",
        "For n heads (n a power of two) ALiBi's slopes m_h = 2^(-8h/n), h = 1..n, form a "
        "geometric sequence with ratio 2^(-8/n) that starts at 2^(-8/n) and ends at 2^(-8) = "
        "1/256; for 8 heads: 1/2, 1/4, ..., 1/256; for 16 heads it starts at 1/sqrt(2).",
        (
            Equation(slope(h + 1) / slope(h), sp.Integer(2) ** (-8 / nh), "m_(h+1)/m_h = 2^(-8/n)"),
            Equation(call(slope, 1), sp.Integer(2) ** (-8 / nh), "m_1 = 2^(-8/n)"),
            Equation(call(slope, nh), sp.Rational(1, 256), "m_n = 2^(-8) = 1/256"),
            Equation(sp.ImmutableMatrix(alibi_slopes(8)), sp.ImmutableMatrix([sp.Rational(1, 2**q) for q in range(1, 9)]),
                     "8 heads: 1/2, 1/4, ..., 1/256"),
            Equation(sp.ImmutableMatrix(alibi_slopes(16))[0], 1 / sp.sqrt(2), "16 heads: m_1 = 1/sqrt(2)"),
        ),
        (),
        SRC_ALIBI,
    )
