r"""The foundation theorems: translation, dot products, RoPE, layouts and schedules.

Each theorem builds its :class:`~pe_symbolic.proof.Claim` either **for every even d**
(``d=None``: ``d = 2h`` with a symbolic number of pairs ``h``, written pair by pair with
:mod:`pe_symbolic.encodings.pairs`, and proved by citing the pair lemmas of
:mod:`pe_symbolic.theorems.lemmas` term by term or block by block), or **instantiated** for a
concrete even ``d`` with the papers' frequencies :math:`b^{-2i/d}` and a symbolic base ``b``:
then each of the ``d/2`` blocks is checked against the pair lemma (``O(d)`` small checks),
and for ``d <= DENSE_MAX`` the assembled ``d x d`` identities are checked directly too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from .._validate import LAYOUTS, ORDERS
from ..encodings import pairs as Q
from ..encodings import rope as R
from ..encodings import sinusoidal as P
from ..encodings import symbols as S
from ..proof import DIFFERENCE, Claim, Equation, Step
from ..proof.kernel.rules import PYTHAGORAS, is_zero
from ._derive import Derivation, at, instance_of
from .registry import Built, theorem

#: Up to this d, a concrete instantiation also checks the assembled d x d identities directly
#: (which checks how the constructors place the blocks); beyond it, block by block only.
DENSE_MAX = 16
#: Up to this d, translation.group also checks det T(k) = 1 for the whole block-diagonal
#: matrix (SymPy's block determinant, O(d)); beyond it the numeric spot check of that one
#: part costs seconds a point, and the blocks' determinants are checked one by one.
BLOCK_DET_MAX = 64

# ======================================================================================
# Helpers
# ======================================================================================
SRC_VASWANI = "Vaswani et al. (2017), 'Attention Is All You Need', section 3.5"
SRC_DENK = "Denk (2019), 'Linear Relationships in the Transformer's Positional Encoding' (seed 002)"
SRC_ROFORMER = "Su et al. (2021), RoFormer, section 3.4 (seed 003)"

w = S.omega
t, k, m, n = S.t, S.k, S.m, S.n
_x = sp.Symbol("x", real=True)
"""A real argument, for statements written "f(x) at x = ..." (left unevaluated, see :func:`at`)."""


def _dot(u: sp.MatrixBase, v: sp.MatrixBase) -> sp.Expr:
    return (u.T * v)[0, 0]


def _d_dt(M: sp.MatrixBase) -> sp.ImmutableMatrix:
    """The entrywise derivative d/dt, left unevaluated (the proof's ``doit`` step evaluates it)."""
    return sp.ImmutableMatrix(M.applyfunc(lambda e: sp.Derivative(e, t)))


def _combos() -> list[tuple[str, str]]:
    return [(lay, order) for lay in LAYOUTS for order in ORDERS]


def _assumptions(d: int | None) -> tuple[sp.Basic, ...]:
    return () if d is None else (S.BASE_GT_1,)


# ======================================================================================
# Translation: T(k) PE(t) = PE(t + k)
# ======================================================================================
def _solve_block(kk: sp.Expr, omega: sp.Expr, tag: str) -> tuple[sp.ImmutableMatrix, sp.Expr]:
    """Denk's derivation for one pair: solve M p(t) = p(t + k) for an unknown 2x2 ``M``.

    Evaluating the requirement at two positions, omega*t = 0 and omega*t = pi/2, gives four
    linear equations in the four unknowns (Denk matches the coefficients of sin and cos,
    which is the same system). Returns the unique solution and the determinant of the
    system's coefficient matrix.
    """
    u = sp.symbols(f"u_{tag}1 u_{tag}2 v_{tag}1 v_{tag}2", real=True)
    M = sp.Matrix([[u[0], u[1]], [u[2], u[3]]])
    eqs = []
    for t_val in (sp.S.Zero, sp.pi / (2 * omega)):
        lhs = M * P.pair(t_val, omega)
        rhs = P.pair(t_val + kk, omega)
        eqs += [sp.expand(lhs[r] - rhs[r], trig=True) for r in range(2)]
    A, _ = sp.linear_eq_to_matrix(eqs, u)
    (sol,) = sp.linsolve(eqs, u)
    # left unevaluated: the proof's `doit` step computes it
    return sp.ImmutableMatrix(2, 2, list(sol)), sp.Determinant(sp.ImmutableMatrix(A))


@theorem(
    "translation.derive",
    "Solving M p(t) = p(t+k) gives exactly one M: a rotation block free of t",
    SRC_DENK,
    latex=(r"M\,p(t) = p(t + k) \text{ for all } t \iff M = \begin{pmatrix} \cos \omega k & \sin \omega k \\ -\sin"
           r" \omega k & \cos \omega k \end{pmatrix} = \mathop{\mathrm{rot2}}(-\omega k) \\"
           r" \frac{\partial M}{\partial t} = 0, \qquad p(t) = (\sin \omega t,\ \cos \omega t)"),
)
def _translation_derive(d: int | None) -> Built:
    sol, det = _solve_block(k, w, "")
    generic = [
        Equation(det**2, 1, "the linear system's determinant is +-1, not 0: exactly one M"),
        Equation(sol, P.translation_block(k, w), "the solution is Denk's block"),
        Equation(sol, at(R.rope_block(_x, w), {_x: -k}), "it is the rotation rot2(-omega k)"),
        Equation(_d_dt(sol), sp.zeros(2, 2), "it contains no t"),
        Equation(sol * P.pair(t, w), P.pair(t + k, w), "and it does translate"),
    ]
    if d is None:
        return Claim("translation.derive", _DERIVE_STATEMENT, tuple(generic), (), SRC_DENK)
    return _per_pair("translation.derive", generic, d, _DERIVE_STATEMENT, SRC_DENK)


_DERIVE_STATEMENT = (
    "For p(t) = (sin wt, cos wt), the requirement M p(t) = p(t+k) for all t determines M "
    "uniquely: M = [[cos wk, sin wk], [-sin wk, cos wk]], a rotation that contains no t. "
    "Each pair of every d is solved the same way: a concrete d cites the pair's derivation "
    "once per pair, with w = w_i."
)


def _per_pair(id_: str, generic: list[Equation], d: int, statement: str, source: str) -> Built:
    """The concrete-d form of a claim about one pair with frequency ``w``: its equations at
    ``w = w_i`` for every pair ``i`` of ``d``, each proved by citing the generic claim."""
    eqs, chains = [], {}
    for q, om in enumerate(P.frequencies(d)):
        for e in generic:
            inst = Equation(e.lhs.xreplace({w: om}), e.rhs.xreplace({w: om}), f"{e.label} (d={d}, pair {q})")
            if inst.lhs != inst.rhs:  # (else the two sides are one expression: nothing to cite)
                chains[len(eqs)] = Derivation(inst.lhs).lemma(id_, f"pair {q}: omega = omega_{q}",
                                                             result=inst.rhs, omega=om).steps
            eqs.append(inst)
    return Claim(id_, statement, tuple(eqs), (S.BASE_GT_1,), source), chains


def _every_d_assumptions(*indices: sp.Symbol) -> tuple[sp.Basic, ...]:
    return (S.BASE_GT_1, *(sp.Le(x, Q.h - 1) for x in indices))


EVERY_D = (
    "Stated for every even d = 2h at once: pair i (0 <= i < h) of a block-diagonal matrix times a "
    "vector is sum_j delta_ij B_j v_j, which the proof evaluates to B_i v_i and rewrites by the "
    "pair lemma; a concrete d checks each of its d/2 blocks against the lemma (and, for d <= "
    f"{DENSE_MAX}, the assembled d x d identity directly)."
)


def _t_block(kk: sp.Expr, order: str, schedule: str = "vaswani"):
    return lambda idx: P.translation_block(kk, Q.omega(idx, schedule=schedule), order)


@theorem("translation.identity", "T(k) PE(t) = PE(t+k) in every layout and order", SRC_VASWANI,
         scope="every even d",
         latex=(r"T(k)\,\mathrm{PE}(t) = \mathrm{PE}(t + k) \qquad (t, k \in \mathbb{R}) \\"
                r" \mathrm{PE}(t) = \bigl(\sin \omega_i t,\ \cos \omega_i t\bigr)_{i=0}^{d/2-1}, \quad T(k) ="
                r" \bigoplus_{i=0}^{d/2-1} \mathop{\mathrm{rot2}}(-\omega_i k), \quad \omega_i = b^{-2i/d} \\"
                r" \text{in every layout; with cosine first, } T(k) = \bigoplus_{i} \mathop{\mathrm{rot2}}(\omega_i"
                r" k)"))
def _translation_identity(d: int | None) -> Built:
    if d is None:
        eqs, chains = [], {}
        for q, order in enumerate(ORDERS):
            lhs = Q.apply_blocks(_t_block(k, order), lambda idx: Q.pe_pair(idx, t, order), Q.i)
            eq = Equation(lhs, Q.pe_pair(Q.i, t + k, order),
                          f"order {order}: pair i of T(k) PE(t) = sum_j delta_ij T_j(k) p_j(t) equals p_i(t + k)")
            dv = (Derivation(lhs, why="pair i of T(k) PE(t), block by block")
                  .rule("evaluate", "T(k) is block-diagonal: of the sum over j only j = i survives")
                  .assume(sp.Le(Q.i, Q.h - 1), why="pair i exists: i <= h - 1")
                  .lemma("pair.translation", "the pair lemma with omega = omega_i", omega=Q.omega(Q.i)))
            eqs.append(eq)
            chains[q] = dv.steps
        return Claim("translation.identity", _TRANSLATION_STATEMENT + " " + EVERY_D, tuple(eqs),
                     _every_d_assumptions(Q.i), f"{SRC_VASWANI}; {SRC_DENK}",
                     notation=Q.notation(Q.i, Q.j)), chains
    eqs, chains = [], {}
    for o, order in enumerate(ORDERS):
        for q, om in enumerate(P.frequencies(d)):
            # block q is the pair lemma (its equation for this order) at omega = omega_q: the
            # constructors' T_q(k) p_q(t) = p_q(t + k), built once for the claim and the check
            eq = Equation(*instance_of("pair.translation", o, omega=om),
                          f"d={d}, order {order}, block {q}: T_{q}(k) p_{q}(t) = p_{q}(t + k)")
            chains[len(eqs)] = Derivation(eq.lhs).lemma("pair.translation", f"omega = omega_{q}", result=eq.rhs,
                                                        omega=om).steps
            eqs.append(eq)
    if d <= DENSE_MAX:
        for layout, order in _combos():
            kw: dict[str, Any] = {"layout": layout, "order": order}
            eqs.append(Equation(P.translation_matrix(k, d, **kw) * P.encoding(t, d, **kw), P.encoding(t + k, d, **kw),
                                f"d={d}, layout {layout}, order {order}: the assembled d x d identity"))
        if d >= 4:
            kw = {"layout": "split", "order": "sin_cos", "schedule": "tensor2tensor"}
            eqs.append(Equation(P.translation_matrix(k, d, **kw) * P.encoding(t, d, **kw), P.encoding(t + k, d, **kw),
                                f"d={d}, tensor2tensor schedule, split layout"))
    return Claim("translation.identity", _TRANSLATION_STATEMENT + " " + EVERY_D, tuple(eqs), (S.BASE_GT_1,),
                 f"{SRC_VASWANI}; {SRC_DENK}"), chains


_TRANSLATION_STATEMENT = (
    "The block-diagonal matrix T(k) of rotations by -w_i k moves the encoding of position t to that "
    "of t + k: T(k) PE(t) = PE(t+k), for real t and k, in every layout (a layout only places the "
    "pairs) and either order."
)


@theorem("translation.independent", "t is not among T(k)'s free symbols", SRC_DENK, scope="every even d",
         latex=(r"\frac{\partial}{\partial t}\, T(k) = 0, \qquad T(k) = \bigoplus_{i=0}^{d/2-1}"
                r" \mathop{\mathrm{rot2}}(\mp\omega_i k), \quad \omega_i = b^{-2i/d}"))
def _translation_independent(d: int | None) -> Claim:
    if d is None:
        mats = [(Q.block(_t_block(k, order), Q.i, Q.l), f"block (i, l) of T(k), order {order}") for order in ORDERS]
        assumptions = _every_d_assumptions(Q.i, Q.l)
    else:
        mats = [(P.translation_block(k, om, order), f"d={d}, order {order}, block {q}")
                for order in ORDERS for q, om in enumerate(P.frequencies(d))]
        if d <= DENSE_MAX:
            mats += [(P.translation_matrix(k, d, layout=lay, order=order), f"d={d}, {lay}, {order}")
                     for lay, order in _combos()]
        assumptions = (S.BASE_GT_1,)
    eqs = [Equation(_d_dt(T), sp.zeros(*T.shape), f"dT/dt = 0 ({label})") for T, label in mats]
    return Claim(
        "translation.independent",
        "T(k) does not depend on t: dT(k)/dt = 0, block by block (each block delta_il rot2(-w_i k) "
        "holds no t).",
        tuple(eqs), assumptions, SRC_DENK, notation=Q.notation(Q.i) if d is None else (),
    )


@theorem("translation.group", "T(0)=I, T(a)T(b)=T(a+b), T^T T=I, det T=1, T(-k)=T(k)^T", SRC_DENK,
         scope="every even d",
         latex=(r"T(0) = I, \qquad T(a)\,T(c) = T(a + c), \qquad T(-k) = T(k)^{\mathsf T} \\"
                r" T(k)^{\mathsf T}\,T(k) = I, \qquad \det T(k) = \prod_{i=0}^{d/2-1} \det"
                r" \mathop{\mathrm{rot2}}(-\omega_i k) = 1"))
def _translation_group(d: int | None) -> Built:
    a, c = sp.symbols("a c", real=True)
    if d is None:
        B = lambda x: _t_block(x, "sin_cos")  # noqa: E731
        i, l, j = Q.i, Q.l, Q.j
        w_i = Q.omega(i)
        prod = Q.multiply_blocks(B(a), B(c), i, l)
        orth = Q.multiply_blocks(lambda idx: B(k)(idx).T, B(k), i, l)
        det = sp.Product(sp.Determinant(B(k)(j)), (j, 0, Q.h - 1))
        eqs = (
            Equation(at(Q.block(B(_x), i, l), {_x: 0}), sp.KroneckerDelta(i, l) * sp.eye(2),
                     "block (i, l) of T(0) is delta_il I"),
            Equation(prod, Q.block(B(a + c), i, l),
                     "block (i, l) of T(a) T(c) = sum_j delta_ij delta_jl T_j(a) T_j(c) is that of T(a + c)"),
            Equation(orth, sp.KroneckerDelta(i, l) * sp.eye(2),
                     "block (i, l) of T(k)^T T(k) = sum_j delta_ji delta_jl T_j(k)^T T_j(k) is delta_il I"),
            Equation(det, 1, "prod_j det T_j(k) = 1, which is det T(k) for the block-diagonal T(k) (a "
                             "determinant of a block-diagonal matrix is the product of its blocks': taken "
                             "as known for a symbolic number of blocks, checked for each concrete d <= 64)"),
            Equation(at(Q.block(B(_x), i, l), {_x: -k}), Q.block(lambda idx: B(k)(idx).T, i, l),
                     "block (i, l) of T(-k) is that of T(k)^T, delta_il T_i(k)^T"),
        )
        chains = {
            1: (Derivation(prod, why="block (i, l) of the product, block by block")
                .rule("evaluate", "both factors are block-diagonal: only j = i = l survives")
                .assume(sp.Le(i, Q.h - 1), why="i <= h - 1")
                .lemma("rot2.compose", "rotations compose by adding angles", a=-w_i * a, c=-w_i * c)
                .to(eqs[1].rhs, "-w_i a - w_i c = -w_i (a + c)").steps),
            2: (Derivation(orth, why="block (i, l) of T(k)^T T(k)")
                .rule("evaluate", "only j = i = l survives")
                .assume(sp.Le(i, Q.h - 1), why="i <= h - 1")
                .lemma("rot2.orthogonal", "each block is orthogonal", x=-w_i * k).steps),
            3: (Derivation(det, why="the determinant of a block-diagonal matrix is the product of the blocks'")
                .lemma("rot2.det", "each block has determinant 1 (termwise)", a=-Q.omega(j) * k)
                .rule("evaluate", "a product of ones").steps),
        }
        return Claim("translation.group", _GROUP_STATEMENT + " " + EVERY_D, eqs, _every_d_assumptions(i, l),
                     SRC_DENK, notation=Q.notation(i, j)), chains
    eqs, chains = [], {}
    for q, om in enumerate(P.frequencies(d)):
        Tq = lambda x, om=om: P.translation_block(x, om)  # noqa: E731
        sfx = f" (d={d}, block {q})"
        eqs += [
            Equation(at(Tq(_x), {_x: 0}), sp.eye(2), "T_q(0) = I" + sfx),
            Equation(Tq(a) * Tq(c), Tq(a + c), "T_q(a) T_q(c) = T_q(a + c)" + sfx),
            Equation(Tq(k).T * Tq(k), sp.eye(2), "T_q(k)^T T_q(k) = I" + sfx),
            Equation(sp.Determinant(Tq(k)), 1, "det T_q(k) = 1" + sfx),
            Equation(at(Tq(_x), {_x: -k}), Tq(k).T, "T_q(-k) = T_q(k)^T" + sfx),
        ]
        chains[len(eqs) - 4] = (Derivation(eqs[-4].lhs).lemma("rot2.compose", sfx.strip(" ()"), a=-om * a, c=-om * c)
                                .to(eqs[-4].rhs, "-w a - w c = -w (a + c)").steps)
        # one cited lemma each: no search, no numeric look before it (d = 512 in a few seconds)
        chains[len(eqs) - 3] = Derivation(eqs[-3].lhs).lemma("rot2.orthogonal", sfx.strip(" ()"), x=-om * k).steps
        chains[len(eqs) - 2] = (Derivation(eqs[-2].lhs).lemma("rot2.det", sfx.strip(" ()"), a=-om * k).steps)
        for q_eq in (len(eqs) - 5, len(eqs) - 1):  # T(0) = I and T(-k) = T(k)^T hold entry by entry
            if is_zero(eqs[q_eq].difference):
                chains[q_eq] = [Step(eqs[q_eq].difference, DIFFERENCE)]
    if d <= BLOCK_DET_MAX:
        _block_det(eqs, chains, d)
    if d <= DENSE_MAX:
        T = lambda x: P.translation_matrix(x, d)  # noqa: E731
        eqs += [
            Equation(T(a) * T(c), T(a + c), f"d={d}: T(a) T(c) = T(a + c), assembled"),
            Equation(T(k).T * T(k), sp.eye(d), f"d={d}: T(k)^T T(k) = I, assembled"),
            Equation(sp.Determinant(T(k)), 1, f"d={d}: det T(k) = 1, assembled"),
        ]
    return Claim("translation.group", _GROUP_STATEMENT + " " + EVERY_D, tuple(eqs), (S.BASE_GT_1,), SRC_DENK), chains


def _block_det(eqs: list[Equation], chains: dict[int, list[Step]], d: int) -> None:
    """Append det diag(T_0(k), ..., T_(h-1)(k)) = 1 and its chain (SymPy's determinant of a
    BlockDiagMatrix is the product of its blocks' determinants)."""
    det = sp.Determinant(sp.BlockDiagMatrix(*(P.translation_block(k, om) for om in P.frequencies(d))))
    chains[len(eqs)] = (Derivation(det, why="T(k) = diag(T_0(k), ..., T_(h-1)(k))")
                        .rule("evaluate", "the determinant of a block-diagonal matrix is the product of the blocks' "
                              "determinants, each sin^2 + cos^2")
                        .rule(PYTHAGORAS, "sin^2 = 1 - cos^2 in every factor: a product of ones").steps)
    eqs.append(Equation(det, 1, f"d={d}: det diag(T_0(k), ..., T_{d // 2 - 1}(k)) = prod_q det T_q(k) = 1"))


_GROUP_STATEMENT = (
    "The translations form a one-parameter group of rotations: T(0) = I, T(a)T(c) = T(a+c), T(k) is "
    "orthogonal with determinant 1, and T(-k) = T(k)^T."
)


# ======================================================================================
# Dot products and norms
# ======================================================================================
@theorem("sinusoidal.dot", "PE(t).PE(t+k) = sum_i cos(w_i k): depends on k only, even; |PE|^2 = d/2",
         "Kernes (seed 000), 'bonus property'; seed 004 (sphere of radius sqrt(d/2))", scope="every even d",
         latex=(r"\mathrm{PE}(t) \cdot \mathrm{PE}(t + k) = \sum_{i=0}^{d/2-1} \cos \omega_i k, \qquad \lVert"
                r" \mathrm{PE}(t) \rVert^2 = \frac{d}{2}, \qquad \omega_i = b^{-2i/d} \\"
                r" \frac{\partial}{\partial t}\, \mathrm{PE}(t) \cdot \mathrm{PE}(t + k) = 0, \qquad \mathrm{PE}(t)"
                r" \cdot \mathrm{PE}(t - k) = \mathrm{PE}(t) \cdot \mathrm{PE}(t + k)"))
def _sinusoidal_dot(d: int | None) -> Built:
    if d is None:
        j = Q.j
        term = lambda x: _dot(Q.pe_pair(j, t), Q.pe_pair(j, x))  # noqa: E731
        f = sp.Sum(term(t + k), (j, 0, Q.h - 1))
        f_neg = sp.Sum(term(t - k), (j, 0, Q.h - 1))
        cosines = sp.Sum(sp.cos(Q.omega(j) * k), (j, 0, Q.h - 1))
        norm = sp.Sum(term(t), (j, 0, Q.h - 1))
        eqs = (
            Equation(f, cosines, "PE(t).PE(t+k) = sum_j p_j(t).p_j(t+k) = sum_j cos(w_j k)"),
            Equation(sp.Derivative(f, t), 0, "it does not depend on t"),
            Equation(f_neg, f, "it is even in k: the sum at -k equals the sum at k"),
            Equation(norm, Q.h, "|PE(t)|^2 = sum_j |p_j(t)|^2 = h = d/2"),
        )
        w_j = Q.omega(j)
        chains = {
            0: Derivation(f, why="the dot product, pair by pair").lemma(
                "pair.dot", "each pair contributes cos(w_j k) (termwise)", omega=w_j).steps,
            1: (Derivation(eqs[1].lhs).lemma("pair.dot", "termwise", omega=w_j)
                .rule("evaluate", "the derivative of a sum of cos(w_j k) in t is 0").steps),
            2: (Derivation(f_neg).lemma("pair.dot", "termwise, at offset -k", omega=w_j, k=-k)
                .lemma("pair.dot", "cos is even: back to the pairs at +k", backwards=True, omega=w_j).steps),
            3: (Derivation(norm).lemma("pair.dot", "each pair has norm 1 (termwise)", omega=w_j)
                .rule("evaluate", "h ones").steps),
        }
        return Claim("sinusoidal.dot", _DOT_STATEMENT, eqs, (S.BASE_GT_1,), "Kernes (seed 000); seed 004",
                     notation=Q.notation(j)), chains
    eqs, chains = [], {}
    for q, om in enumerate(P.frequencies(d)):
        e = Equation(_dot(P.pair(t, om), P.pair(t + k, om)), sp.cos(om * k), f"d={d}, pair {q}: p.p(t + k) = cos(w k)")
        chains[len(eqs)] = Derivation(e.lhs).lemma("pair.dot", f"omega = omega_{q}", result=e.rhs, omega=om).steps
        eqs.append(e)
    if d <= DENSE_MAX:
        f = _dot(P.encoding(t, d), P.encoding(t + k, d))
        eqs += [
            Equation(f, sp.Add(*[sp.cos(om * k) for om in P.frequencies(d)]), f"d={d}: the assembled sum"),
            Equation(_dot(P.encoding(t, d), P.encoding(t, d)), sp.Rational(d, 2), f"d={d}: |PE(t)|^2 = d/2"),
        ]
    return Claim("sinusoidal.dot", _DOT_STATEMENT, tuple(eqs), (S.BASE_GT_1,), "Kernes (seed 000); seed 004"), chains


_DOT_STATEMENT = (
    "The dot product of two encodings depends only on their offset k and is even in k: "
    "PE(t).PE(t+k) = sum_i cos(w_i k); every PE(t) has squared norm d/2. Proved for every even "
    "d = 2h, summing the pair lemma term by term."
)


@theorem("sine_only.no_translation",
         "A sine-only encoding has a per-dimension linear translation only when w k is in pi Z",
         "Denk (seed 002): the open question why both sin and cos are needed",
         latex=(r"\bigl(\exists \lambda\ \forall t:\ \lambda \sin \omega t = \sin \omega (t + k)\bigr) \iff \omega k"
                r" = \pi j \text{ with } j \in \mathbb{Z}, \text{ and then } \lambda = (-1)^j"))
def _sine_only(d: int | None) -> Built:
    lam = sp.Symbol("lambda", real=True)
    j = S.j
    need = lam * sp.sin(w * t) - sp.sin(w * (t + k))  # must vanish for all t
    generic = [
        Equation(at(need, {t: 0}), -sp.sin(w * k),
                 "at t = 0 the requirement reads 0 = sin(w k): so w k must be in pi Z"),
        Equation(at(need, {t: sp.pi / (2 * w)}), lam - sp.cos(w * k), "at w t = pi/2 it forces lambda = cos(w k)"),
        Equation(sp.sin(w * (t + k)) - sp.cos(w * k) * sp.sin(w * t), sp.cos(w * t) * sp.sin(w * k),
                 "with that lambda the residual is cos(w t) sin(w k), zero for all t iff sin(w k) = 0"),
        Equation((-1) ** j * sp.sin(w * t), sp.sin(w * t + sp.pi * j, evaluate=False),
                 "conversely, if w k = pi j (j integer), lambda = (-1)^j translates"),
    ]
    if d is None:
        return Claim("sine_only.no_translation", _SINE_ONLY_STATEMENT, tuple(generic), (), "Denk (seed 002)")
    return _per_pair("sine_only.no_translation", generic, d, _SINE_ONLY_STATEMENT, "Denk (seed 002)")


_SINE_ONLY_STATEMENT = (
    "For a sine-only encoding PE_i(t) = sin(w_i t), a scalar lambda with lambda sin(w t) = "
    "sin(w (t+k)) for all t exists if and only if w k is an integer multiple of pi (then "
    "lambda = (-1)^j): no linear map translates in general. Each dimension independently: a "
    "concrete d cites the claim once per dimension, with w = w_i."
)


# ======================================================================================
# RoPE
# ======================================================================================
def _r_block(mm: sp.Expr):
    return lambda idx: R.rope_block(mm, Q.omega(idx))


@theorem("rope.relative", "<R(m)q, R(n)k> = <q, R(n-m)k>; R(m)^T R(n) = R(n-m); |R(m)x| = |x|",
         SRC_ROFORMER, scope="every even d",
         latex=(r"\langle R(m)\,q,\ R(n)\,k \rangle = \langle q,\ R(n - m)\,k \rangle, \qquad R(m)^{\mathsf T} R(n)"
                r" = R(n - m), \qquad \lVert R(m)\,x \rVert^2 = \lVert x \rVert^2 \\"
                r" R(m) = \bigoplus_{i=0}^{d/2-1} \mathop{\mathrm{rot2}}(m\theta_i), \quad \theta_i = b^{-2i/d}"
                r" \qquad (\text{interleaved or split layout})"))
def _rope_relative(d: int | None) -> Built:
    if d is None:
        j, i, l = Q.j, Q.i, Q.l
        eqs, chains = [], {}
        for lay in LAYOUTS:
            qv = lambda idx, lay=lay: Q.vector_pair("q", idx, lay)  # noqa: E731
            kv = lambda idx, lay=lay: Q.vector_pair("k", idx, lay)  # noqa: E731
            xv = lambda idx, lay=lay: Q.vector_pair("x", idx, lay)  # noqa: E731
            score = sp.Sum(_dot(_r_block(m)(j) * qv(j), _r_block(n)(j) * kv(j)), (j, 0, Q.h - 1))
            rel = sp.Sum(_dot(qv(j), _r_block(n - m)(j) * kv(j)), (j, 0, Q.h - 1))
            norm = sp.Sum(_dot(_r_block(m)(j) * xv(j), _r_block(m)(j) * xv(j)), (j, 0, Q.h - 1))
            norm0 = sp.Sum(_dot(xv(j), xv(j)), (j, 0, Q.h - 1))
            qj, kj, xj = qv(j), kv(j), xv(j)
            inst = {"theta": Q.omega(j), "q_0": qj[0], "q_1": qj[1], "k_0": kj[0], "k_1": kj[1]}
            chains[len(eqs)] = Derivation(score, why="the score, pair by pair (R(m) is block-diagonal)").lemma(
                "rope.pair_relative", "each pair's score depends on n - m only (termwise)", **inst).steps
            eqs.append(Equation(score, rel, f"{lay}: <R(m)q, R(n)k> = sum_j <R_j(m) q_j, R_j(n) k_j> = <q, R(n-m)k>"))
            blk = Q.multiply_blocks(lambda idx: _r_block(m)(idx).T, _r_block(n), i, l)
            chains[len(eqs)] = (Derivation(blk, why="block (i, l) of R(m)^T R(n)")
                                .rule("evaluate", "both are block-diagonal: only j = i = l survives")
                                .assume(sp.Le(i, Q.h - 1), why="i <= h - 1")
                                .lemma("rope.pair_relative", "the pair lemma with theta = theta_i",
                                       theta=Q.omega(i)).steps)
            eqs.append(Equation(blk, Q.block(_r_block(n - m), i, l), f"{lay}: block (i, l) of R(m)^T R(n) = R(n-m)"))
            chains[len(eqs)] = Derivation(norm, why="|R(m) x|^2, pair by pair").lemma(
                "rope.pair_relative", "each pair keeps its norm (termwise)",
                theta=Q.omega(j), x_0=xj[0], x_1=xj[1]).steps
            eqs.append(Equation(norm, norm0, f"{lay}: |R(m)x|^2 = sum_j |R_j(m) x_j|^2 = |x|^2"))
        return Claim("rope.relative", _ROPE_STATEMENT, tuple(eqs), _every_d_assumptions(Q.i, Q.l),
                     SRC_ROFORMER, notation=Q.notation(Q.i, Q.j, name="theta")), chains
    q2, k2 = S.vector("q", 2), S.vector("k", 2)
    eqs, chains = [], {}
    for p_, th_q in enumerate(R.thetas(d)):
        Rq = lambda x, th_q=th_q: R.rope_block(x, th_q)  # noqa: E731
        sfx = f" (d={d}, pair {p_})"
        # R_q(m)^T R_q(n) = R_q(n - m): the lemma's first equation at theta = theta_q
        e = Equation(*instance_of("rope.pair_relative", 0, theta=th_q), "R_q(m)^T R_q(n) = R_q(n - m)" + sfx)
        chains[len(eqs)] = Derivation(e.lhs).lemma("rope.pair_relative", sfx.strip(" ()"), result=e.rhs,
                                                   theta=th_q).steps
        eqs.append(e)
        if d <= DENSE_MAX:  # beyond, the block identity is the pair's score identity (q^T R_q(m)^T R_q(n) k)
            e = Equation(_dot(Rq(m) * q2, Rq(n) * k2), _dot(q2, Rq(n - m) * k2),
                         "<R_q(m) q, R_q(n) k> = <q, R_q(n-m) k>" + sfx)
            chains[len(eqs)] = Derivation(e.lhs).lemma("rope.pair_relative", sfx.strip(" ()"), result=e.rhs,
                                                       theta=th_q).steps
            eqs.append(e)
    if d <= DENSE_MAX:
        q, kv, x = S.vector("q", d), S.vector("k", d), S.vector("x", d)
        for lay in LAYOUTS:
            Rm = lambda x_, lay=lay: R.rope_matrix(x_, d, layout=lay)  # noqa: E731
            eqs += [
                Equation(_dot(Rm(m) * q, Rm(n) * kv), _dot(q, Rm(n - m) * kv), f"d={d}, {lay}: assembled score"),
                Equation(Rm(m).T * Rm(n), Rm(n - m), f"d={d}, {lay}: assembled R(m)^T R(n) = R(n-m)"),
                Equation(_dot(Rm(m) * x, Rm(m) * x), _dot(x, x), f"d={d}, {lay}: assembled |R(m)x|^2 = |x|^2"),
            ]
    return Claim("rope.relative", _ROPE_STATEMENT, tuple(eqs), (S.BASE_GT_1,), SRC_ROFORMER), chains


_ROPE_STATEMENT = (
    "RoPE scores depend on positions only through n - m: <R(m)q, R(n)k> = <q, R(n-m)k>, because "
    "R(m)^T R(n) = R(n-m); and R(m) preserves norms. Proved for every even d = 2h and both "
    "layouts, pair by pair from the lemma rope.pair_relative."
)


@theorem("rope.efficient_form", "x*cos + rotate(x)*sin equals R(m)x, in both layouts",
         f"{SRC_ROFORMER}, eq. (34); HF transformers rotate_half", scope="every even d",
         latex=(r"x \odot \cos m\Theta + \operatorname{rotate}(x) \odot \sin m\Theta = R(m)\,x, \qquad \theta_i ="
                r" b^{-2i/d},\ h = d/2 \\"
                r" \text{split: } \operatorname{rotate}(x) = (-x_{h:d},\ x_{0:h}), \quad \Theta = (\theta_0, \dots,"
                r" \theta_{h-1}, \theta_0, \dots, \theta_{h-1}) \\"
                r" \text{interleaved: } \operatorname{rotate}(x) = (-x_1, x_0, -x_3, x_2, \dots), \quad \Theta ="
                r" (\theta_0, \theta_0, \theta_1, \theta_1, \dots)"))
def _rope_efficient(d: int | None) -> Built:
    if d is None:
        i, h = Q.i, Q.h
        eqs, chains = [], {}
        for lay in LAYOUTS:
            xv = lambda idx, lay=lay: Q.vector_pair("x", idx, lay)  # noqa: E731
            matrix_form = Q.apply_blocks(_r_block(m), xv, i)
            slots = (i, i + h) if lay == "split" else (2 * i, 2 * i + 1)
            elementwise = sp.ImmutableMatrix([Q.efficient_slot("x", s_, m, lay) for s_ in slots])
            eq = Equation(matrix_form, elementwise,
                          f"{lay}: pair i of R(m) x = pair i (slots {sp.sstr(slots[0])}, {sp.sstr(slots[1])}) of "
                          f"x * cos + {_ROTATE[lay]}(x) * sin over the whole vector")
            dv = (Derivation(eq.difference, DIFFERENCE, why="pair i of R(m) x minus pair i of the elementwise form")
                  .rule("evaluate", "R(m) is block-diagonal: of the sum over j only j = i survives, R_i(m) x_i"))
            if lay == "split":
                why = ("slot i is in the first half (i <= h - 1): rotate_half gives -x_(i+h) there and "
                       "cat(freqs, freqs) gives theta_i; slot i + h is in the second half, where they give x_i "
                       "and theta_i")
            else:
                why = ("pair i exists (i <= h - 1); rotate_every_two gives -x_(2i+1) at the even slot and "
                       "x_(2i) at the odd one, repeat_interleave gives theta_i at both")
            why += "; what is left is R_i(m) x_i entry by entry (rope.pair_efficient): the difference is 0"
            chains[len(eqs)] = dv.assume(sp.Le(i, h - 1), why=why).steps
            eqs.append(eq)
        return Claim("rope.efficient_form", _EFFICIENT_STATEMENT, tuple(eqs), _every_d_assumptions(Q.i),
                     SRC_ROFORMER, notation=Q.notation(Q.i, Q.j, name="theta")), chains
    x2 = S.vector("x", 2)
    eqs, chains = [], {}
    for p_, th_q in enumerate(R.thetas(d)):
        eqs.append(Equation(R.efficient_form(x2, m, layout="interleaved", theta=(th_q,)), R.rope_block(m, th_q) * x2,
                            f"d={d}, pair {p_}: elementwise form = R_q(m) x_q"))
    if d <= DENSE_MAX:
        x = S.vector("x", d)
        for lay in LAYOUTS:
            eqs.append(Equation(R.efficient_form(x, m, layout=lay), R.rope_matrix(m, d, layout=lay) * x,
                                f"d={d}, {lay}: assembled"))
    return Claim("rope.efficient_form", _EFFICIENT_STATEMENT, tuple(eqs), (S.BASE_GT_1,), SRC_ROFORMER), chains


_ROTATE = {"split": "rotate_half", "interleaved": "rotate_every_two"}

_EFFICIENT_STATEMENT = (
    "The elementwise form x * cos(m theta) + rotate(x) * sin(m theta) equals the matrix form R(m) x, "
    "for every even d = 2h, with rotate and the cos/sin tables taken over the whole vector as the "
    "frameworks compute them: split layout, rotate_half(x) = cat(-x[h:], x[:h]) and tables "
    "cat(freqs, freqs) (HF Llama, GPT-NeoX); interleaved, rotate_every_two and "
    "repeat_interleave(freqs, 2) (GPT-J, RoFormer)."
)


# ======================================================================================
# Layouts
# ======================================================================================
def _sigma(jj: sp.Expr, dd: sp.Expr) -> sp.Expr:
    """Where slot ``jj`` of the interleaved layout goes in the split layout."""
    return sp.floor(jj / 2) + sp.Mod(jj, 2) * dd / 2


@theorem("layout.permutation",
         "P PE_interleaved = PE_split, P^T R_split P = R_interleaved",
         "HF transformers convert_llama_weights_to_hf.py (permute of q/k projections)", scope="every even d",
         latex=(r"P\,\mathrm{PE}_{\mathrm{int}}(t) = \mathrm{PE}_{\mathrm{split}}(t), \qquad P\,R_{\mathrm{int}}(m)"
                r" = R_{\mathrm{split}}(m)\,P, \qquad P\,T_{\mathrm{int}}(k) = T_{\mathrm{split}}(k)\,P \\"
                r" P:\ \text{slot } 2i \mapsto i,\ \ 2i + 1 \mapsto i + d/2 \qquad (0 \le i < d/2)"))
def _layout_permutation(d: int | None) -> Built:
    if d is None:
        return _layout_permutation_every_d()
    eqs: list[Equation]
    if d > DENSE_MAX:
        eqs = [Equation(sp.ImmutableMatrix([_sigma(2 * q, d), _sigma(2 * q + 1, d)]), sp.ImmutableMatrix([q, q + d // 2]),
                        f"d={d}, pair {q}: slots (2q, 2q+1) go to (q, q + d/2)") for q in range(d // 2)]
    else:
        Pm = P.layout_permutation(d)
        eqs = [
            Equation(Pm.T * Pm, sp.eye(d), "P is orthogonal: P^T P = I"),
            Equation(Pm.T * R.rope_matrix(m, d, layout="split") * Pm,
                     R.rope_matrix(m, d, layout="interleaved"), "P^T R_split(m) P = R_interleaved(m)"),
            Equation(Pm.T * P.translation_matrix(k, d, layout="split") * Pm,
                     P.translation_matrix(k, d, layout="interleaved"), "P^T T_split(k) P = T_interleaved(k)"),
        ]
        for order in ORDERS:
            eqs.append(Equation(Pm * P.encoding(t, d, layout="interleaved", order=order),
                                P.encoding(t, d, layout="split", order=order),
                                f"P PE_interleaved(t) = PE_split(t), order {order}"))
    return Claim("layout.permutation", _PERMUTATION_STATEMENT, tuple(eqs), _assumptions(d), _PERMUTATION_SOURCE)


_PERMUTATION_SOURCE = "tensor2tensor/fairseq vs Vaswani tables; GPT-NeoX vs GPT-J RoPE"
_PERMUTATION_STATEMENT = (
    "The permutation P that sends slot 2i to i and slot 2i+1 to i + d/2 maps the "
    "interleaved layout to the split one: P PE_interleaved(t) = PE_split(t) and "
    "P^T R_split(m) P = R_interleaved(m), likewise for T(k) (the permutation HF's Llama "
    "conversion applies to the q and k projections). For every d the proof goes slot by slot: P "
    "moves pair i of any vector from slots (2i, 2i+1) to (i, i + d/2), and both layouts apply the "
    "same block to pair i."
)


def _interleaved_slot(pair_of: Callable[[sp.Expr], sp.MatrixBase], r: sp.Expr) -> sp.Expr:
    """Slot ``r`` of the interleaved vector whose pair ``j`` is ``pair_of(j)``: the first
    entry of pair floor(r/2) at an even slot, the second at an odd one."""
    return sp.Piecewise((pair_of(sp.floor(r / 2))[0], sp.Eq(sp.Mod(r, 2), 0)), (pair_of(sp.floor(r / 2))[1], True))


def _layout_permutation_every_d() -> Built:
    """P on every even d = 2h, slot by slot (:func:`~pe_symbolic.encodings.pairs.permuted_slot`):
    pair i of P w (split slots i, i + h) is pair i of w (interleaved slots 2i, 2i + 1)."""
    i, h, dd = Q.i, Q.h, S.d
    eqs: list[Equation] = [
        Equation(_sigma(2 * i, dd), i, "sigma(2i) = i: the first slot of pair i moves to slot i"),
        Equation(_sigma(2 * i + 1, dd), i + dd / 2, "sigma(2i+1) = i + d/2: the second to slot i + d/2"),
    ]
    chains: dict[int, list[Step]] = {}

    def split_pair(entry: Callable[[sp.Expr], sp.Expr]) -> sp.ImmutableMatrix:  # slots (i, i + h) of P w
        return sp.ImmutableMatrix([Q.permuted_slot(entry, i), Q.permuted_slot(entry, i + h)])

    settle = "slot i is in the first half (i <= h - 1), slot i + h in the second"
    for order in ORDERS:
        pe_int = lambda r, order=order: _interleaved_slot(lambda j_: Q.pe_pair(j_, t, order), r)  # noqa: E731
        eq = Equation(split_pair(pe_int), Q.pe_pair(i, t, order),
                      f"order {order}: slots (i, i + h) of P PE_interleaved(t) are pair i of PE_split(t)")
        chains[len(eqs)] = (Derivation(eq.lhs, why="slots i and i + h of P PE_interleaved(t)")
                            .assume(sp.Le(i, h - 1), why=settle + ": they take interleaved slots 2i and "
                                    "2i + 1, the sine and cosine of pair i").steps)
        eqs.append(eq)
    v = sp.IndexedBase("v", real=True)
    eq = Equation(split_pair(lambda r: v[r]), Q.vector_pair("v", i),
                  "for every real vector v: slots (i, i + h) of P v are (v_2i, v_2i+1), pair i of v interleaved")
    chains[len(eqs)] = (Derivation(eq.lhs, why="slots i and i + h of P v")
                        .assume(sp.Le(i, h - 1), why=settle).steps)
    eqs.append(eq)
    for name, blocks, other in (("R", _r_block(m), "m"), ("T", _t_block(k, "sin_cos"), "k")):
        x_int = lambda s_, blocks=blocks: Q.apply_blocks(blocks, lambda idx: Q.vector_pair("v", idx), s_)  # noqa: E731
        eq = Equation(split_pair(lambda r, x_int=x_int: _interleaved_slot(x_int, r)),
                      blocks(i) * Q.vector_pair("v", i),
                      f"slots (i, i + h) of P {name}_interleaved({other}) v are {name}_i (v_2i, v_2i+1), "
                      f"which is pair i of {name}_split({other}) P v (P v has (v_2i, v_2i+1) there): "
                      f"P {name}_interleaved = {name}_split P")
        chains[len(eqs)] = (Derivation(eq.lhs, why=f"slots i and i + h of P {name}_interleaved({other}) v")
                            .rule("evaluate", f"{name}_interleaved is block-diagonal: of each sum over j only j = i "
                                  "survives")
                            .assume(sp.Le(i, h - 1), why=settle + f": both are block i of {name} applied to "
                                    "(v_2i, v_2i+1)").steps)
        eqs.append(eq)
    return Claim(
        "layout.permutation", _PERMUTATION_STATEMENT + " Stated for every even d = 2h, slot by slot.",
        tuple(eqs), _every_d_assumptions(i), _PERMUTATION_SOURCE, notation=Q.notation(i, Q.j)), chains


# ======================================================================================
# Frequency schedules
# ======================================================================================
@theorem("schedule.geometric",
         "Both schedules start at w_0 = 1 and fall by a constant ratio: b^(-2/d) or b^(-1/(d/2-1))",
         f"{SRC_VASWANI}; tensor2tensor get_timing_signal_1d", scope="every even d",
         latex=(r"\text{Vaswani: } \omega_i = b^{-2i/d}:\quad \omega_0 = 1, \quad \frac{\omega_{i+1}}{\omega_i} ="
                r" b^{-2/d} \\"
                r" \text{tensor2tensor: } \omega_i = b^{-i/(d/2-1)}:\quad \omega_0 = 1, \quad"
                r" \frac{\omega_{i+1}}{\omega_i} = b^{-1/(d/2-1)}"))
def _schedule_geometric(d: int | None) -> Claim:
    i = S.i
    if d is None:
        dd = S.d
        eqs = []
        for schedule, ratio in (("vaswani", S.b ** (-2 / dd)), ("tensor2tensor", S.b ** (-1 / (dd / 2 - 1)))):
            w_i = P.frequency(i, dd, schedule=schedule)
            eqs += [
                Equation(at(w_i, {i: 0}), 1, f"{schedule}: w_0 = 1"),
                Equation(P.frequency(i + 1, dd, schedule=schedule) / w_i, ratio,
                         f"{schedule}: w_(i+1) / w_i = {sp.sstr(ratio)}, the same for every i (d > 2 for tensor2tensor)"),
            ]
    else:
        eqs = []
        for schedule in ("vaswani", "tensor2tensor"):
            ws = P.frequencies(d, schedule=schedule)
            half = d // 2
            ratio = S.b ** sp.Rational(-2, d) if schedule == "vaswani" else S.b ** sp.Rational(-1, max(half - 1, 1))
            eqs.append(Equation(at(P.frequency(i, d, schedule=schedule), {i: 0}), 1, f"{schedule}: w_0 = 1 (d={d})"))
            eqs += [Equation(ws[q + 1] / ws[q], ratio, f"{schedule}: w_{q + 1} / w_{q} (d={d})")
                    for q in range(half - 1)]
    return Claim(
        "schedule.geometric",
        "The frequencies form a geometric progression starting at 1: Vaswani's "
        "w_i = b^(-2i/d) with ratio b^(-2/d); tensor2tensor's timescales from 1 to b, "
        "w_i = b^(-i/(d/2-1)), with ratio b^(-1/(d/2-1)). The numeric core's frequency "
        "constants are lowered from these expressions.",
        tuple(eqs), _assumptions(d) or (S.BASE_GT_1,),
        f"{SRC_VASWANI}; tensor2tensor common_attention.get_timing_signal_1d",
    )
