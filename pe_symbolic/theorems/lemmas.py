r"""The lemmas: angle addition, the 2x2 rotation, and one sin/cos pair.

Everything the foundation proves for every ``d`` rests on these statements about a single
2x2 block; the every-``d`` proofs cite them by id (``lemma pair.translation``), term by term
or block by block, and the kernel checks each citation is an instance. Their own proofs are
two to four steps.

>>> from pe_symbolic import theorems
>>> theorems.get("pair.translation").prove().verdict
'proved'
"""

from __future__ import annotations

import sympy as sp

from .._validate import ORDERS
from ..encodings import rope as R
from ..encodings import sinusoidal as P
from ..encodings import symbols as S
from ..encodings.rot2 import rot2
from ..proof import DIFFERENCE, Claim, Equation
from ._derive import Derivation
from .registry import theorem

__all__ = ["IDS"]

SRC_TRIG = "angle addition (Ptolemy); the rotation group SO(2)"
SRC_DENK = "Denk (2019), 'Linear Relationships in the Transformer's Positional Encoding' (seed 002)"
SRC_ROFORMER = "Su et al. (2021), RoFormer, section 3.4 (seed 003)"

IDS = (
    "trig.angle_addition", "rot2.compose", "rot2.transpose", "rot2.orthogonal", "rot2.det",
    "pair.translation", "pair.dot", "rope.pair_relative", "rope.pair_efficient",
)

a, c = sp.symbols("a c", finite=True)  # any finite complex angles (a lemma holds for finite values)
w, t, k, m, n = S.omega, S.t, S.k, S.m, S.n
th = sp.Symbol("theta", real=True)
LEMMA = "lemma"


def _dot(u: sp.MatrixBase, v: sp.MatrixBase) -> sp.Expr:
    return (u.T * v)[0, 0]


@theorem("trig.angle_addition", "sin(a + c) = sin a cos c + cos a sin c, cos(a + c) = cos a cos c - sin a sin c",
         SRC_TRIG, concrete=False, scope=LEMMA,
         latex=r"\sin(a + c) = \sin a\,\cos c + \cos a\,\sin c, \qquad \cos(a + c) = \cos a\,\cos c - \sin a\,\sin c")
def _angle_addition(d: int | None) -> Claim:
    eqs = (
        Equation(sp.sin(a + c), sp.sin(a) * sp.cos(c) + sp.cos(a) * sp.sin(c), "sin(a + c)"),
        Equation(sp.cos(a + c), sp.cos(a) * sp.cos(c) - sp.sin(a) * sp.sin(c), "cos(a + c)"),
    )
    chains = {q: Derivation(eq.difference, DIFFERENCE)
              .rule("expand(trig=True)", "SymPy's angle-addition expansion").steps for q, eq in enumerate(eqs)}
    return Claim("trig.angle_addition", "The angle-addition formulas, for all complex a and c.", eqs, (),
                 SRC_TRIG), chains


@theorem("rot2.compose", "rot2(a) rot2(c) = rot2(a + c): rotations compose by adding angles", SRC_TRIG,
         concrete=False, scope=LEMMA,
         latex=(r"\mathop{\mathrm{rot2}}(a)\,\mathop{\mathrm{rot2}}(c) = \mathop{\mathrm{rot2}}(a + c), \qquad"
                r" \mathop{\mathrm{rot2}}(a) = \begin{pmatrix} \cos a & -\sin a \\ \sin a & \cos a \end{pmatrix}"))
def _compose(d: int | None) -> Claim:
    eq = Equation(rot2(a) * rot2(c), rot2(a + c), "rot2(a) rot2(c) = rot2(a + c)")
    dv = (Derivation(eq.lhs, why="multiply the two 2x2 rotations")
          .lemma("trig.angle_addition", "fold each entry by angle addition", backwards=True, a=a, c=c)
          .to(eq.rhs, "the off-diagonal entry is minus the other one: -(sin a cos c + cos a sin c) = -sin(a + c)"))
    return Claim("rot2.compose", "Two rotations compose into the rotation by the sum of the angles.", (eq,), (),
                 SRC_TRIG), {0: dv.steps}


@theorem("rot2.transpose", "rot2(a)^T = rot2(-a)", SRC_TRIG, concrete=False, scope=LEMMA,
         latex=r"\mathop{\mathrm{rot2}}(a)^{\mathsf T} = \mathop{\mathrm{rot2}}(-a)")
def _transpose(d: int | None) -> Claim:
    eq = Equation(rot2(a).T, rot2(-a), "rot2(a)^T = rot2(-a) (cos is even, sin is odd)")
    return Claim("rot2.transpose", "The transpose of a rotation is the rotation by minus the angle.", (eq,), (),
                 SRC_TRIG)


@theorem("rot2.orthogonal", "rot2(a)^T rot2(a) = I", SRC_TRIG, concrete=False, scope=LEMMA,
         latex=r"\mathop{\mathrm{rot2}}(x)^{\mathsf T}\mathop{\mathrm{rot2}}(x) = I \qquad (x \in \mathbb{R})")
def _orthogonal(d: int | None) -> Claim:
    x = sp.Symbol("x", real=True)
    eq = Equation(rot2(x).T * rot2(x), sp.eye(2), "rot2(x)^T rot2(x) = I for real x")
    return Claim("rot2.orthogonal", "A rotation by a real angle is orthogonal.", (eq,), (), SRC_TRIG)


@theorem("rot2.det", "det rot2(a) = 1", SRC_TRIG, concrete=False, scope=LEMMA,
         latex=r"\det \mathop{\mathrm{rot2}}(a) = \cos^2 a + \sin^2 a = 1")
def _det(d: int | None) -> Claim:
    eq = Equation(sp.Determinant(rot2(a)), 1, "det rot2(a) = cos^2 a + sin^2 a = 1")
    return Claim("rot2.det", "Every rotation has determinant 1.", (eq,), (), SRC_TRIG)


@theorem("pair.translation", "rot2(-w k) p(w t) = p(w (t + k)) for one sin/cos pair (either order)", SRC_DENK,
         concrete=False, scope=LEMMA,
         latex=(r"\mathop{\mathrm{rot2}}(-\omega k) \begin{pmatrix} \sin \omega t \\ \cos \omega t \end{pmatrix} ="
                r" \begin{pmatrix} \sin \omega (t + k) \\ \cos \omega (t + k) \end{pmatrix}, \qquad"
                r" \mathop{\mathrm{rot2}}(\omega k) \begin{pmatrix} \cos \omega t \\ \sin \omega t \end{pmatrix} ="
                r" \begin{pmatrix} \cos \omega (t + k) \\ \sin \omega (t + k) \end{pmatrix}"))
def _pair_translation(d: int | None) -> Claim:
    eqs, chains = [], {}
    for q, order in enumerate(ORDERS):
        eq = Equation(P.translation_block(k, w, order) * P.pair(t, w, order), P.pair(t + k, w, order),
                      f"order {order}: T_w(k) p_w(t) = p_w(t + k)")
        dv = (Derivation(eq.lhs, why="multiply the block into the pair")
              .lemma("trig.angle_addition", "fold each entry by angle addition", backwards=True, a=w * t, c=w * k)
              .to(eq.rhs, "factor out omega: omega t + omega k = omega (t + k)"))
        eqs.append(eq)
        chains[q] = dv.steps
    return Claim(
        "pair.translation",
        "For one pair p(t) = (sin wt, cos wt) (or (cos wt, sin wt)) the rotation by -wk (by +wk) "
        "moves position t to t + k.",
        tuple(eqs), (), SRC_DENK,
    ), chains


@theorem("pair.dot", "p(w t) . p(w (t + k)) = cos(w k), p(w t) . p(w t) = 1", "Kernes (seed 000)",
         concrete=False, scope=LEMMA,
         latex=(r"p(t) \cdot p(t + k) = \cos \omega k, \qquad p(t) \cdot p(t) = 1, \qquad p(t) = (\sin \omega"
                r" t,\ \cos \omega t)"))
def _pair_dot(d: int | None) -> Claim:
    p0, p1 = P.pair(t, w), P.pair(t + k, w)
    e1 = Equation(_dot(p0, p1), sp.cos(w * k), "p(t) . p(t + k) = cos(w k)")
    e2 = Equation(_dot(p0, p0), 1, "p(t) . p(t) = 1")
    dv = (Derivation(e1.difference, DIFFERENCE)
          .rule("expand(trig=True)", "expand sin and cos of w t + w k by angle addition")
          .rule("sin(u)**2 -> 1 - cos(u)**2").rule("expand", "sin^2 + cos^2 = 1 cancels the rest"))
    return Claim("pair.dot", "The dot product of one pair at t and at t + k is cos(wk); each pair has norm 1.",
                 (e1, e2), (), "Kernes (seed 000)"), {0: dv.steps}


@theorem("rope.pair_relative", "<R(m) q, R(n) k> = <q, R(n - m) k> and R(m)^T R(n) = R(n - m) for one pair",
         SRC_ROFORMER, concrete=False, scope=LEMMA,
         latex=(r"R(m)^{\mathsf T} R(n) = R(n - m), \qquad \langle R(m)\,q,\ R(n)\,k \rangle = \langle q,\ R(n -"
                r" m)\,k \rangle, \qquad \lVert R(m)\,x \rVert^2 = \lVert x \rVert^2 \\"
                r" R(m) = \mathop{\mathrm{rot2}}(m\theta), \quad q, k, x \in \mathbb{R}^2"))
def _rope_pair(d: int | None) -> Claim:
    q, kv, x = S.vector("q", 2), S.vector("k", 2), S.vector("x", 2)
    Rm, Rn, Rd = R.rope_block(m, th), R.rope_block(n, th), R.rope_block(n - m, th)
    e1 = Equation(Rm.T * Rn, Rd, "R(m)^T R(n) = R(n - m)")
    e2 = Equation(_dot(Rm * q, Rn * kv), _dot(q, Rd * kv), "<R(m) q, R(n) k> = <q, R(n - m) k>")
    e3 = Equation(_dot(Rm * x, Rm * x), _dot(x, x), "|R(m) x|^2 = |x|^2")
    d1 = (Derivation(e1.lhs, why="multiply R(m)^T = rot2(-m theta) into R(n) = rot2(n theta)")
          .lemma("trig.angle_addition", "fold each entry by angle addition", backwards=True, a=n * th, c=-m * th)
          .to(Rd, "n theta - m theta = (n - m) theta; the off-diagonal entries are opposite"))
    return Claim(
        "rope.pair_relative",
        "For one pair, the RoPE score depends on the positions only through n - m, because "
        "R(m)^T R(n) = R(n - m); and the rotation keeps norms.",
        (e1, e2, e3), (), SRC_ROFORMER,
    ), {0: d1.steps}


@theorem("rope.pair_efficient", "x * cos + rotate(x) * sin = R(m) x for one pair", SRC_ROFORMER, concrete=False,
         scope=LEMMA,
         latex=(r"\begin{pmatrix} x_0 \\ x_1 \end{pmatrix} \cos m\theta + \begin{pmatrix} -x_1 \\ x_0 \end{pmatrix}"
                r" \sin m\theta = \mathop{\mathrm{rot2}}(m\theta) \begin{pmatrix} x_0 \\ x_1 \end{pmatrix}"))
def _rope_pair_efficient(d: int | None) -> Claim:
    x = S.vector("x", 2)
    eq = Equation(R.efficient_form(x, m, layout="interleaved", theta=(th,)), R.rope_block(m, th) * x,
                  "(x_0 cos - x_1 sin, x_1 cos + x_0 sin) = R(m) (x_0, x_1)")
    return Claim("rope.pair_efficient",
                 "On one pair the elementwise form (x cos(m theta) with the rotated companion (-x_1, x_0) "
                 "times sin(m theta)) is the rotation R(m) x.", (eq,), (), SRC_ROFORMER)
