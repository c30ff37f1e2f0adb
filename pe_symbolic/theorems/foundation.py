r"""The foundation theorems: translation, dot products, RoPE, layouts and schedules.

Each theorem builds its :class:`~pe_symbolic.proof.Claim` either for a **generic pair**
(``d=None``) or **instantiated** for a concrete even ``d`` with the papers' frequencies
:math:`b^{-2i/d}` and a symbolic base ``b``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .._validate import LAYOUTS, ORDERS
from ..encodings import rope as R
from ..encodings import sinusoidal as P
from ..encodings import symbols as S
from ..proof import Claim, Equation
from .registry import theorem

# ======================================================================================
# Helpers
# ======================================================================================
SRC_VASWANI = "Vaswani et al. (2017), 'Attention Is All You Need', section 3.5"
SRC_DENK = "Denk (2019), 'Linear Relationships in the Transformer's Positional Encoding' (seed 002)"
SRC_ROFORMER = "Su et al. (2021), RoFormer, section 3.4 (seed 003)"

w = S.omega
t, k, m, n = S.t, S.k, S.m, S.n


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
)
def _translation_derive(d: int | None) -> Claim:
    if d is None:
        blocks = [(w, "")]
    else:
        blocks = [(om, str(q)) for q, om in enumerate(P.frequencies(d))]
    eqs = []
    for omega, tag in blocks:
        sol, det = _solve_block(k, omega, tag)
        sfx = f" (pair {tag})" if tag else ""
        eqs += [
            Equation(det**2, 1, f"the linear system's determinant is +-1, not 0: exactly one M{sfx}"),
            Equation(sol, P.translation_block(k, omega), f"the solution is Denk's block{sfx}"),
            Equation(sol, sp.ImmutableMatrix(R.rope_block(-k, omega)), f"it is the rotation rot2(-omega k){sfx}"),
            Equation(_d_dt(sol), sp.zeros(2, 2), f"it contains no t{sfx}"),
            Equation(sol * P.pair(t, omega), P.pair(t + k, omega), f"and it does translate{sfx}"),
        ]
    return Claim(
        "translation.derive",
        "For p(t) = (sin wt, cos wt), the requirement M p(t) = p(t+k) for all t determines M "
        "uniquely: M = [[cos wk, sin wk], [-sin wk, cos wk]], a rotation that contains no t.",
        tuple(eqs),
        _assumptions(d),
        SRC_DENK,
    )


@theorem("translation.identity", "T(k) PE(t) = PE(t+k) in every layout and order", SRC_VASWANI)
def _translation_identity(d: int | None) -> Claim:
    eqs = []
    if d is None:
        for order in ORDERS:
            eqs.append(Equation(
                P.translation_block(k, w, order) * P.pair(t, w, order),
                P.pair(t + k, w, order),
                f"generic pair, order {order}",
            ))
    else:
        for layout, order in _combos():
            kw: dict[str, Any] = {"layout": layout, "order": order}
            eqs.append(Equation(
                P.translation_matrix(k, d, **kw) * P.encoding(t, d, **kw),
                P.encoding(t + k, d, **kw),
                f"d={d}, layout {layout}, order {order}",
            ))
        if d >= 4:
            kw = {"layout": "split", "order": "sin_cos", "schedule": "tensor2tensor"}
            eqs.append(Equation(
                P.translation_matrix(k, d, **kw) * P.encoding(t, d, **kw),
                P.encoding(t + k, d, **kw),
                f"d={d}, tensor2tensor schedule, split layout",
            ))
    return Claim(
        "translation.identity",
        "The block-diagonal matrix T(k) of rotations by -w_i k moves the encoding of position "
        "t to that of t + k: T(k) PE(t) = PE(t+k), for real t and k.",
        tuple(eqs), _assumptions(d), f"{SRC_VASWANI}; {SRC_DENK}",
    )


@theorem("translation.independent", "t is not among T(k)'s free symbols", SRC_DENK)
def _translation_independent(d: int | None) -> Claim:
    if d is None:
        mats = [(P.translation_block(k, w, order), f"generic pair, order {order}") for order in ORDERS]
    else:
        mats = [(P.translation_matrix(k, d, layout=lay, order=order), f"d={d}, {lay}, {order}")
                for lay, order in _combos()]
    eqs = [Equation(_d_dt(T), sp.zeros(*T.shape), f"dT/dt = 0 ({label})") for T, label in mats]
    return Claim(
        "translation.independent",
        "T(k) does not depend on t: dT(k)/dt = 0 (t is not among its free symbols).",
        tuple(eqs), _assumptions(d), SRC_DENK,
    )


@theorem("translation.group", "T(0)=I, T(a)T(b)=T(a+b), T^T T=I, det T=1, T(-k)=T(k)^T", SRC_DENK)
def _translation_group(d: int | None) -> Claim:
    a, c = sp.symbols("a c", real=True)
    if d is None:
        def T(x):
            return P.translation_block(x, w)
        size = 2
    else:
        def T(x):
            return P.translation_matrix(x, d)
        size = d
    eye = sp.eye(size)
    Tk = T(k)
    eqs = (
        Equation(T(sp.S.Zero), eye, "T(0) = I"),
        Equation(T(a) * T(c), T(a + c), "T(a) T(c) = T(a + c)"),
        Equation(Tk.T * Tk, eye, "T(k)^T T(k) = I"),
        Equation(sp.Determinant(Tk), 1, "det T(k) = 1"),
        Equation(T(-k), Tk.T, "T(-k) = T(k)^T"),
    )
    return Claim(
        "translation.group",
        "The translations form a one-parameter group of rotations: T(0) = I, T(a)T(c) = T(a+c), "
        "T(k) is orthogonal with determinant 1, and T(-k) = T(k)^T.",
        eqs, _assumptions(d), SRC_DENK,
    )


# ======================================================================================
# Dot products and norms
# ======================================================================================
@theorem("sinusoidal.dot", "PE(t).PE(t+k) = sum_i cos(w_i k): depends on k only, even; |PE|^2 = d/2",
         "Kernes (seed 000), 'bonus property'; seed 004 (sphere of radius sqrt(d/2))")
def _sinusoidal_dot(d: int | None) -> Claim:
    if d is None:
        def pe(x):
            return P.pair(x, w)
        expected = sp.cos(w * k)
        norm2 = sp.S.One
        what = "generic pair"
    else:
        def pe(x):
            return P.encoding(x, d)
        expected = sp.Add(*[sp.cos(om * k) for om in P.frequencies(d)])
        norm2 = sp.Rational(d, 2)
        what = f"d={d}"
    f = _dot(pe(t), pe(t + k))
    eqs = (
        Equation(f, expected, f"PE(t).PE(t+k) = sum cos(w_i k) ({what})"),
        Equation(sp.Derivative(f, t), 0, "it does not depend on t"),
        Equation(f, f.subs(k, -k), "it is even in k"),
        Equation(_dot(pe(t), pe(t)), norm2, "|PE(t)|^2 = d/2"),
    )
    return Claim(
        "sinusoidal.dot",
        "The dot product of two encodings depends only on their offset k and is even in k: "
        "PE(t).PE(t+k) = sum_i cos(w_i k); every PE(t) has squared norm d/2.",
        eqs, _assumptions(d), "Kernes (seed 000); seed 004",
    )


@theorem("sine_only.no_translation",
         "A sine-only encoding has a per-dimension linear translation only when w k is in pi Z",
         "Denk (seed 002): the open question why both sin and cos are needed")
def _sine_only(d: int | None) -> Claim:
    lam = sp.Symbol("lambda", real=True)
    j = S.j
    omegas = [w] if d is None else list(P.frequencies(d))
    eqs = []
    for q, om in enumerate(omegas):
        sfx = "" if d is None else f" (dimension {q})"
        need = lam * sp.sin(om * t) - sp.sin(om * (t + k))  # must vanish for all t
        eqs += [
            Equation(need.subs(t, 0), -sp.sin(om * k),
                     f"at t = 0 the requirement reads 0 = sin(w k): so w k must be in pi Z{sfx}"),
            Equation(need.subs(t, sp.pi / (2 * om)), lam - sp.cos(om * k),
                     f"at w t = pi/2 it forces lambda = cos(w k){sfx}"),
            Equation(sp.sin(om * (t + k)) - sp.cos(om * k) * sp.sin(om * t), sp.cos(om * t) * sp.sin(om * k),
                     f"with that lambda the residual is cos(w t) sin(w k), zero for all t iff sin(w k) = 0{sfx}"),
            Equation((-1) ** j * sp.sin(om * t), sp.sin(om * t + sp.pi * j),
                     f"conversely, if w k = pi j (j integer), lambda = (-1)^j translates{sfx}"),
        ]
    return Claim(
        "sine_only.no_translation",
        "For a sine-only encoding PE_i(t) = sin(w_i t), a scalar lambda with "
        "lambda sin(w t) = sin(w (t+k)) for all t exists if and only if w k is an integer "
        "multiple of pi (then lambda = (-1)^j): no linear map translates in general.",
        tuple(eqs), _assumptions(d), "Denk (seed 002)",
    )


# ======================================================================================
# RoPE
# ======================================================================================
@theorem("rope.relative", "<R(m)q, R(n)k> = <q, R(n-m)k>; R(m)^T R(n) = R(n-m); |R(m)x| = |x|",
         SRC_ROFORMER)
def _rope_relative(d: int | None) -> Claim:
    th = sp.Symbol("theta", positive=True)
    if d is None:
        size, cases = 2, [("generic pair", lambda x: R.rope_block(x, th))]
    else:
        size = d
        cases = [(f"d={d}, {lay}", (lambda lay: lambda x: R.rope_matrix(x, d, layout=lay))(lay))
                 for lay in LAYOUTS]
    q, kv, x = S.vector("q", size), S.vector("k", size), S.vector("x", size)
    eqs = []
    for label, Rm in cases:
        eqs += [
            Equation(_dot(Rm(m) * q, Rm(n) * kv), _dot(q, Rm(n - m) * kv), f"<R(m)q, R(n)k> = <q, R(n-m)k> ({label})"),
            Equation(Rm(m).T * Rm(n), Rm(n - m), f"R(m)^T R(n) = R(n-m) ({label})"),
            Equation(_dot(Rm(m) * x, Rm(m) * x), _dot(x, x), f"|R(m)x|^2 = |x|^2 ({label})"),
        ]
    return Claim(
        "rope.relative",
        "RoPE scores depend on positions only through n - m: <R(m)q, R(n)k> = <q, R(n-m)k>, "
        "because R(m)^T R(n) = R(n-m); and R(m) preserves norms.",
        tuple(eqs), _assumptions(d), SRC_ROFORMER,
    )


@theorem("rope.efficient_form", "x*cos + rotate(x)*sin equals R(m)x, in both layouts",
         f"{SRC_ROFORMER}, eq. (34); HF transformers rotate_half")
def _rope_efficient(d: int | None) -> Claim:
    eqs = []
    if d is None:
        th = sp.Symbol("theta", positive=True)
        x = S.vector("x", 2)
        for lay in LAYOUTS:
            eqs.append(Equation(R.efficient_form(x, m, layout=lay, theta=(th,)),
                                R.rope_block(m, th) * x, f"generic pair, {lay}"))
    else:
        x = S.vector("x", d)
        for lay in LAYOUTS:
            eqs.append(Equation(R.efficient_form(x, m, layout=lay),
                                R.rope_matrix(m, d, layout=lay) * x, f"d={d}, {lay}"))
    return Claim(
        "rope.efficient_form",
        "The elementwise form x * cos(m theta) + rotate(x) * sin(m theta) equals the matrix "
        "form R(m) x, with rotate(x) = (-x_b, x_a) on each pair's slots (rotate_half for split).",
        tuple(eqs), _assumptions(d), SRC_ROFORMER,
    )


# ======================================================================================
# Layouts
# ======================================================================================
def _sigma(jj: sp.Expr, dd: sp.Expr) -> sp.Expr:
    """Where slot ``jj`` of the interleaved layout goes in the split layout."""
    return sp.floor(jj / 2) + sp.Mod(jj, 2) * dd / 2


@theorem("layout.permutation",
         "P PE_interleaved = PE_split, P^T R_split P = R_interleaved",
         "HF transformers convert_llama_weights_to_hf.py (permute of q/k projections)")
def _layout_permutation(d: int | None) -> Claim:
    i, dd = S.i, S.d
    eqs: list[Equation]
    if d is None:
        eqs = [
            Equation(_sigma(2 * i, dd), i, "sigma(2i) = i: the first slot of pair i moves to slot i"),
            Equation(_sigma(2 * i + 1, dd), i + dd / 2, "sigma(2i+1) = i + d/2: the second to slot i + d/2"),
        ]
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
    return Claim(
        "layout.permutation",
        "The permutation P that sends slot 2i to i and slot 2i+1 to i + d/2 maps the "
        "interleaved layout to the split one: P PE_interleaved(t) = PE_split(t) and "
        "P^T R_split(m) P = R_interleaved(m) (the permutation HF's Llama conversion applies to "
        "the q and k projections).",
        tuple(eqs), _assumptions(d), "tensor2tensor/fairseq vs Vaswani tables; GPT-NeoX vs GPT-J RoPE",
    )


# ======================================================================================
# Frequency schedules
# ======================================================================================
@theorem("schedule.geometric",
         "Both schedules start at w_0 = 1 and fall by a constant ratio: b^(-2/d) or b^(-1/(d/2-1))",
         f"{SRC_VASWANI}; tensor2tensor get_timing_signal_1d")
def _schedule_geometric(d: int | None) -> Claim:
    i = S.i
    if d is None:
        dd = S.d
        eqs = []
        for schedule, ratio in (("vaswani", S.b ** (-2 / dd)), ("tensor2tensor", S.b ** (-1 / (dd / 2 - 1)))):
            w_i = P.frequency(i, dd, schedule=schedule)
            eqs += [
                Equation(w_i.subs(i, 0), 1, f"{schedule}: w_0 = 1"),
                Equation(P.frequency(i + 1, dd, schedule=schedule) / w_i, ratio,
                         f"{schedule}: w_(i+1) / w_i = {sp.sstr(ratio)}, the same for every i (d > 2 for tensor2tensor)"),
            ]
    else:
        eqs = []
        for schedule in ("vaswani", "tensor2tensor"):
            ws = P.frequencies(d, schedule=schedule)
            half = d // 2
            ratio = S.b ** sp.Rational(-2, d) if schedule == "vaswani" else S.b ** sp.Rational(-1, max(half - 1, 1))
            eqs.append(Equation(ws[0], 1, f"{schedule}: w_0 = 1 (d={d})"))
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
