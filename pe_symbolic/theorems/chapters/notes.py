r"""Positional-embedding notes (seed 003): Shaw's clipped relative positions, RoPE, learned tables.

* Shaw et al. (2018): the relation embedding :math:`a_{ij} = w_{\mathrm{clip}(j-i,-K,K)}`
  depends on the positions only through the clipped offset, so shifting both positions
  changes nothing; clipping leaves :math:`2K+1` embeddings (``shaw.clipped_shift_invariant``).
* RoPE's worked 2-D example :math:`f(x_m, m) = R(m\theta) W x_m`: the query-key score depends
  on :math:`n - m` only, and the rotation is multiplication by :math:`e^{im\theta}`
  (``rope.two_d_example``); the notes' general :math:`R^d_{\Theta,m}` with the 1-based
  :math:`\Theta = \{10000^{-2(i-1)/d}\}` and their elementwise form are this package's
  interleaved RoPE (``rope.theta_set``; the foundation theorems ``rope.relative`` and
  ``rope.efficient_form`` then apply).
* Learned tables: what can be checked is the shape, and that no translation property holds
  in general: a 4 x 2 table for which no matrix T maps every row to the next
  (``learned.no_translation``). What the trained values are cannot be checked here.

>>> from pe_symbolic import theorems
>>> theorems.get("shaw.clipped_shift_invariant").prove().verdict
'proved'
"""

from __future__ import annotations

import itertools

import sympy as sp

from ...encodings import rope as R
from ...encodings import sinusoidal as P
from ...encodings import symbols as S
from ...encodings.symbols import as_expr
from ...proof import Claim, Equation
from .._derive import at
from ..registry import theorem

_offset = sp.Symbol("o", integer=True)
"""An offset j - i, for statements written clip(o) at o = ... (left unevaluated)."""
from ._common import SRC_NOTES, SRC_ROFORMER, SRC_SHAW, dot

__all__ = ["IDS", "LEARNED_TABLE", "clip", "notes_rope_matrix", "shaw_bias"]

IDS = ("shaw.clipped_shift_invariant", "rope.two_d_example", "rope.theta_set", "learned.no_translation")

qi, kj, sh = sp.symbols("i j s", integer=True)
sh_real = sp.Symbol("sigma", real=True)
"""A real shift, for the derivative (a derivative needs a variable that ranges over an interval)."""
K = sp.Symbol("K", integer=True, positive=True)
w_rel = sp.Function("w")
"""Shaw's learned relation embeddings, indexed by the clipped offset."""


def clip(x: sp.Expr, k_max: sp.Expr) -> sp.Expr:
    """``clip(x, -K, K) = max(-K, min(K, x))``.

    >>> clip(-7, 2), clip(1, 2), clip(9, 2)
    (-2, 1, 2)
    """
    return sp.Max(-k_max, sp.Min(k_max, x))


def shaw_bias(i: sp.Expr, j: sp.Expr, k_max: sp.Expr = K) -> sp.Expr:
    """Shaw's relation embedding ``a_ij = w(clip(j - i, -K, K))`` (one entry, symbolic table ``w``)."""
    return w_rel(clip(j - i, k_max))


@theorem("shaw.clipped_shift_invariant",
         "Shaw: a_ij = w(clip(j - i, -K, K)) is unchanged by shifting both positions; 2K+1 embeddings",
         f"{SRC_SHAW}; {SRC_NOTES}, section 05", concrete=False,
         latex=(r"a_{ij} = w_{\operatorname{clip}(j - i,\, -K,\, K)}:\quad a_{i+s,\, j+s} = a_{ij}, \qquad"
                r" \frac{\partial a_{i+\sigma,\, j+\sigma}}{\partial \sigma} = 0 \\"
                r" K = 3:\ \operatorname{clip}(\{-8, \dots, 8\}, -3, 3) = \{-3, \dots, 3\}, \ \ 2K + 1 = 7 \text{"
                r" embeddings}"))
def _shaw(d: int | None) -> Claim:
    k_max = 3
    offsets = list(range(-8, 9))
    clipped = [clip(x, k_max) for x in offsets]
    return Claim(
        "shaw.clipped_shift_invariant",
        "Shaw et al.'s relation embedding a_ij = w_clip(j-i, -K, K) depends on i and j only "
        "through j - i, so a_(i+s)(j+s) = a_ij for every shift s: the same embeddings serve every "
        "position and every sequence length. Offsets beyond +-K share w_(+-K), so only 2K + 1 "
        "embeddings exist (K = 3: offsets -8..8 use the 7 embeddings w_-3 .. w_3).",
        (
            Equation(at(shaw_bias(qi, kj), {qi: qi + sh, kj: kj + sh}), shaw_bias(qi, kj), "a_(i+s)(j+s) = a_ij"),
            Equation(sp.Derivative(shaw_bias(qi + sh_real, kj + sh_real), sh_real), 0,
                     "d a_(i+sigma)(j+sigma)/d sigma = 0 for a real shift sigma"),
            Equation(sp.ImmutableMatrix([at(clip(_offset, k_max), {_offset: v}) for v in offsets]),
                     sp.ImmutableMatrix([-3] * 5 + list(range(-3, 4)) + [3] * 5),
                     "K = 3: offsets -8..8 clip to -3 .. 3"),
            Equation(sp.Integer(len(set(clipped))), 2 * k_max + 1, "2K + 1 = 7 distinct embeddings"),
        ),
        (),
        SRC_SHAW,
    )


@theorem("rope.two_d_example",
         "2-D RoPE f(x_m, m) = R(m theta) W x_m: <f_q(x_m,m), f_k(x_n,n)> depends on n - m only",
         f"{SRC_ROFORMER}; {SRC_NOTES}, section 06 (the example case)", concrete=False,
         latex=(r"\bigl\langle R(m\theta)\,W_q x_m,\ R(n\theta)\,W_k x_n \bigr\rangle = (W_q x_m)^{\mathsf T}\,"
                r" R\bigl((n - m)\theta\bigr)\,W_k x_n, \qquad \lVert R(m\theta)\,x \rVert^2 = \lVert x \rVert^2 \\"
                r" R(m\theta)\,x = \bigl(\operatorname{Re}, \operatorname{Im}\bigr)\bigl((x_0 + i x_1)\,e^{i"
                r" m\theta}\bigr), \qquad \text{score}(3, 1) = \text{score}(5, 3)"))
def _rope_2d(d: int | None) -> Claim:
    m, n = S.m, S.n
    th = sp.Symbol("theta", positive=True)
    Wq = sp.ImmutableMatrix(2, 2, sp.symbols("Wq_11 Wq_12 Wq_21 Wq_22", real=True))
    Wk = sp.ImmutableMatrix(2, 2, sp.symbols("Wk_11 Wk_12 Wk_21 Wk_22", real=True))
    xm, xn = S.vector("x", 2), S.vector("y", 2)

    def f(W: sp.MatrixBase, x: sp.MatrixBase, pos: sp.Expr) -> sp.ImmutableMatrix:
        return R.rope_block(pos, th) * W * x

    z = (xm[0] + sp.I * xm[1]) * sp.exp(sp.I * m * th)
    return Claim(
        "rope.two_d_example",
        "In the notes' 2-D example f_{q,k}(x_m, m) = R(m theta) W_{q,k} x_m, the score "
        "<f_q(x_m, m), f_k(x_n, n)> equals (W_q x_m)^T R((n - m) theta) (W_k x_n): the positions "
        "enter only through n - m. The rotation is multiplication of x1 + i x2 by e^(i m theta), "
        "and it keeps lengths.",
        (
            Equation(dot(f(Wq, xm, m), f(Wk, xn, n)), dot(Wq * xm, R.rope_block(n - m, th) * (Wk * xn)),
                     "<f_q(x_m, m), f_k(x_n, n)> = (W_q x_m)^T R((n-m) theta) W_k x_n"),
            Equation(sp.ImmutableMatrix([sp.re(z), sp.im(z)]), R.rope_block(m, th) * xm,
                     "R(m theta) x = (Re, Im) of (x1 + i x2) e^(i m theta)"),
            Equation(dot(R.rope_block(m, th) * xm, R.rope_block(m, th) * xm), dot(xm, xm),
                     "|R(m theta) x| = |x|"),
            Equation(dot(f(Wq, xm, 3), f(Wk, xn, 1)), dot(f(Wq, xm, 5), f(Wk, xn, 3)),
                     "'He is Adhil' vs 'They know that he is Adhil': positions (3, 1) and (5, 3), "
                     "relative angle 2 theta in both, give the same score"),
        ),
        (),
        SRC_ROFORMER,
    )


def notes_rope_matrix(m: sp.Expr, d: int, base: sp.Expr = 10000) -> sp.ImmutableMatrix:
    r"""The notes' :math:`R^d_{\Theta,m}`, built from its printed pattern (1-based ``i``).

    Block ``i = 1 .. d/2`` sits at rows/columns ``2i-1, 2i`` (1-based) with
    :math:`\theta_i = \mathrm{base}^{-2(i-1)/d}`.

    >>> notes_rope_matrix(S.m, 2)
    Matrix([
    [cos(m), -sin(m)],
    [sin(m),  cos(m)]])
    """
    if d < 2 or d % 2:
        raise ValueError(f"d={d!r} must be a positive even integer")
    out = sp.zeros(d, d)
    for i1 in range(1, d // 2 + 1):
        th = as_expr(base, "base") ** sp.Rational(-2 * (i1 - 1), d)
        r0 = 2 * i1 - 2  # 0-based row of the block's first slot
        c, s = sp.cos(m * th), sp.sin(m * th)
        out[r0, r0], out[r0, r0 + 1], out[r0 + 1, r0], out[r0 + 1, r0 + 1] = c, -s, s, c
    return sp.ImmutableMatrix(out)


@theorem("rope.theta_set",
         "The notes' R^d_{Theta,m}, Theta = {10000^(-2(i-1)/d)}, and its elementwise form are interleaved RoPE",
         f"{SRC_ROFORMER}, eqs. (15), (34); {SRC_NOTES}, section 06",
         latex=(r"\theta_i = 10000^{-2(i-1)/d} = \omega_{i-1} \ \ (i = 1, \dots, d/2), \qquad \omega_j ="
                r" 10000^{-2j/d}"))
def _theta_set(d: int | None) -> Claim:
    m = S.m
    if d is None:
        i1 = sp.Symbol("i", integer=True, positive=True)
        eqs: tuple[Equation, ...] = (Equation(sp.Integer(10000) ** (-2 * (i1 - 1) / S.d),
                        P.frequency(i1 - 1, S.d, base=10000),
                        "theta_i (1-based, i = 1..d/2) = the package's frequency of pair i - 1 (0-based)"),)
    else:
        x = S.vector("x", d)
        ths = [sp.Integer(10000) ** sp.Rational(-2 * (i1 - 1), d) for i1 in range(1, d // 2 + 1)]
        cos_col = sp.ImmutableMatrix([sp.cos(m * th) for th in ths for _ in (0, 1)])
        sin_col = sp.ImmutableMatrix([sp.sin(m * th) for th in ths for _ in (0, 1)])
        swapped = sp.ImmutableMatrix([(-x[q + 1] if q % 2 == 0 else x[q - 1]) for q in range(d)])
        eqs = (
            Equation(sp.ImmutableMatrix(ths), sp.ImmutableMatrix(R.thetas(d, base=10000)),
                     f"Theta (1-based) = the package's thetas (0-based), d={d}"),
            Equation(notes_rope_matrix(m, d), R.rope_matrix(m, d, base=10000, layout="interleaved"),
                     f"R^d_(Theta,m) = rope_matrix(m, {d}, layout='interleaved')"),
            Equation(x.multiply_elementwise(cos_col) + swapped.multiply_elementwise(sin_col),
                     notes_rope_matrix(m, d) * x,
                     "x * (cos m theta_1, cos m theta_1, ...) + (-x2, x1, -x4, x3, ...) * (sin ...) = R x"),
        )
    return Claim(
        "rope.theta_set",
        "The notes' general rotary matrix R^d_{Theta,m} (2x2 rotations by m theta_i on slots "
        "(2i-1, 2i), theta_i = 10000^(-2(i-1)/d), i = 1..d/2) is this package's interleaved "
        "rope_matrix, and the notes' 'computationally efficient' elementwise form equals R x.",
        eqs, (), SRC_ROFORMER,
    )


#: A 4 x 2 "learned" table (rows are positions) with no translation matrix.
LEARNED_TABLE = sp.ImmutableMatrix([[1, 0], [0, 1], [1, 1], [1, 0]])


def _nonsingular_rows(M: sp.MatrixBase) -> tuple[tuple[int, ...], sp.ImmutableMatrix]:
    """The first rows of ``M`` (as many as its columns) whose square submatrix is nonsingular."""
    for rows in itertools.combinations(range(M.rows), M.cols):
        minor = sp.ImmutableMatrix(M.extract(list(rows), list(range(M.cols))))
        if minor.det() != 0:
            return rows, minor
    raise ValueError("no nonsingular square submatrix")  # pragma: no cover - the table has one


@theorem("learned.no_translation",
         "A learned table need not have any T with T E_t = E_(t+1): a 4 x 2 counterexample",
         f"{SRC_NOTES}, section 07; seed 004 (learned embedding)", concrete=False,
         latex=(r"E = \bigl((1, 0), (0, 1), (1, 1), (1, 0)\bigr):\quad \nexists\, T \in \mathbb{R}^{2 \times 2}:\ T"
                r" E_t = E_{t+1} \ \ (t = 0, 1, 2) \\"
                r" (\text{coefficient rank } 4,\ \text{augmented rank } 5), \qquad E_t \cdot E_{t+1} = 0, 1, 1"
                r" \ \ (t = 0, 1, 2) \\"
                r" T = \begin{pmatrix} 0 & 1 \\ 1 & 1 \end{pmatrix}:\quad T E_0 = E_1, \quad T E_1 = E_2, \quad T"
                r" E_2 - E_3 = (0, 2)"))
def _learned(d: int | None) -> Claim:
    E = LEARNED_TABLE
    u = sp.symbols("T_11 T_12 T_21 T_22", real=True)
    T = sp.Matrix(2, 2, u)
    eqs_lin = []
    for row in range(E.rows - 1):
        eqs_lin += list(T * E.row(row).T - E.row(row + 1).T)
    A, rhs = sp.linear_eq_to_matrix(eqs_lin, u)
    aug = A.row_join(rhs)
    # the ranks, each shown by a square submatrix whose determinant the kernel evaluates (the
    # rows are found here; that the determinant is the nonzero number stated is what is proved)
    rows_a, minor_a = _nonsingular_rows(A)
    rows_aug, minor_aug = _nonsingular_rows(aug)
    T01 = sp.ImmutableMatrix([[0, 1], [1, 1]])
    return Claim(
        "learned.no_translation",
        "For the 4 x 2 table E = [(1,0), (0,1), (1,1), (1,0)] (any values a training run could "
        "produce) the six equations T E_t = E_(t+1), t = 0, 1, 2, in the four entries of T have "
        "no solution: the coefficient matrix has rank 4, the augmented matrix rank 5. The only T "
        "that moves E_0 -> E_1 -> E_2 sends E_2 to (1, 2), not E_3. So, unlike the sinusoidal "
        "table (translation.identity), a learned table has no translation matrix in general, and "
        "its offset-1 similarity E_t . E_(t+1) depends on t. What can be checked beyond this: the "
        "shape (L rows, d columns, L*d parameters; no row for positions >= L). What a trained "
        "table contains cannot be proved.",
        (
            Equation(sp.Determinant(minor_a), sp.Integer(minor_a.det()),
                     f"rows {rows_a} of the 6 x 4 coefficient matrix: determinant != 0, so its rank is 4"),
            Equation(sp.Determinant(minor_aug), sp.Integer(minor_aug.det()),
                     f"rows {rows_aug} of the augmented 6 x 5 matrix: determinant != 0, so its rank is 5 > 4 "
                     "-> no T exists"),
            Equation(sp.ImmutableMatrix([T01 * E.row(0).T, T01 * E.row(1).T]),
                     sp.ImmutableMatrix([E.row(1).T, E.row(2).T]), "T = [[0,1],[1,1]] moves E_0 -> E_1 -> E_2"),
            Equation(T01 * E.row(2).T - E.row(3).T, sp.ImmutableMatrix([0, 2]),
                     "but T E_2 - E_3 = (0, 2) != 0"),
            Equation(sp.ImmutableMatrix([(E.row(q) * E.row(q + 1).T)[0, 0] for q in range(3)]),
                     sp.ImmutableMatrix([0, 1, 1]), "E_t . E_(t+1) = 0, 1, 1: depends on t"),
        ),
        (),
        SRC_NOTES,
    )
