"""What the chapters of the RoPE family share: the sources they cite, the symbols of their
statements, and the helpers that build the relative property's equations and their chains
(``family.relative`` and its instances, pair by pair for a concrete ``d``)."""

from __future__ import annotations

import sympy as sp

from ..._validate import LAYOUTS
from ...encodings import family as F
from ...encodings import pairs as Q
from ...encodings import rope as R
from ...encodings import symbols as S
from ...proof import Equation
from ...proof.kernel import instantiate
from .._derive import Derivation, instance_of
from ..registry import get

SRC_HF = "Hugging Face transformers, modeling_rope_utils.py (ROPE_INIT_FUNCTIONS)"
SRC_ROFORMER = "Su et al. (2021), RoFormer, section 3.4"
SRC_PI = "Chen et al. (2023), 'Extending Context Window of LLMs via Positional Interpolation'"
SRC_NTK = "bloc97 (2023), 'NTK-Aware Scaled RoPE' (reddit r/LocalLLaMA); rotary-embedding-torch theta_rescale_factor"
SRC_YARN = "Peng, Quesnelle, Fan, Shippole (2023), 'YaRN: Efficient Context Window Extension', section 3"
SRC_LONGROPE = "Ding et al. (2024), 'LongRoPE'; Phi-3 technical report"
SRC_LLAMA3 = "Meta Llama 3.1 reference code (apply_scaling); HF _compute_llama3_parameters"
SRC_MROPE = "Wang et al. (2024), Qwen2-VL, section 2.1 (M-RoPE); Qwen3-VL interleaved MRoPE (HF apply_interleaved_mrope)"
SRC_AXIAL = "Fang et al. (2023), EVA-02 (2-D RoPE); Heo et al. (2024), 'Rotary Position Embedding for Vision Transformer'"
SRC_XPOS = "Sun et al. (2022), 'A Length-Extrapolatable Transformer' (xPos), section 3; torchscale XPOS"

m, n = S.m, S.n
# Placeholders for statements written "f(x) at x = ..." (left unevaluated, see _derive.at)
_x = sp.Symbol("x", real=True)
_freq = sp.Symbol("theta_x", positive=True)
_factor = sp.Symbol("s_x", positive=True)
_dim = sp.Symbol("D", positive=True)
_z = sp.Symbol("z")  # no properties: any point may be put in for it
b = S.b
s = F.s
L = F.L
a_shift = sp.Symbol("a", real=True)
"""A common shift of both positions (a score depends on n - m only iff it ignores a)."""


# ======================================================================================
# helpers
# ======================================================================================
def _dot(u: sp.MatrixBase, v: sp.MatrixBase) -> sp.Expr:
    return (u.T * v)[0, 0]


THETA = sp.IndexedBase("theta", real=True)
"""An arbitrary real frequency sequence: ``theta[j]`` is the frequency of pair ``j``."""


def _relative_every_d(theta_of) -> tuple[list[Equation], dict]:
    """The relative property for every d = 2h and both layouts, for the frequencies
    ``theta_of(j)``, with chains that cite ``rope.pair_relative`` pair by pair (as the
    foundation's ``rope.relative`` does for the ladder)."""
    j, i, l = Q.j, Q.i, Q.l
    blk = lambda mm: (lambda idx: R.rope_block(mm, theta_of(idx)))  # noqa: E731
    eqs: list[Equation] = []
    chains: dict = {}
    for lay in LAYOUTS:
        qv, kv, xv = (Q.vector_pair(name, j, lay) for name in ("q", "k", "x"))
        score = sp.Sum(_dot(blk(m)(j) * qv, blk(n)(j) * kv), (j, 0, Q.h - 1))
        rel = sp.Sum(_dot(qv, blk(n - m)(j) * kv), (j, 0, Q.h - 1))
        norm = sp.Sum(_dot(blk(m)(j) * xv, blk(m)(j) * xv), (j, 0, Q.h - 1))
        norm0 = sp.Sum(_dot(xv, xv), (j, 0, Q.h - 1))
        chains[len(eqs)] = Derivation(score, why="the score, pair by pair").lemma(
            "rope.pair_relative", "each pair's score depends on n - m only (termwise)",
            theta=theta_of(j), q_0=qv[0], q_1=qv[1], k_0=kv[0], k_1=kv[1]).steps
        eqs.append(Equation(score, rel, f"{lay}: <R(m)q, R(n)k> = sum_j <R_j(m) q_j, R_j(n) k_j> = <q, R(n-m)k>"))
        block = Q.multiply_blocks(lambda idx: blk(m)(idx).T, blk(n), i, l)
        chains[len(eqs)] = (Derivation(block, why="block (i, l) of R(m)^T R(n)")
                            .rule("evaluate", "both are block-diagonal: only j = i = l survives")
                            .assume(sp.Le(i, Q.h - 1), why="i <= h - 1")
                            .lemma("rope.pair_relative", "the pair lemma with theta = theta_i",
                                   theta=theta_of(i)).steps)
        eqs.append(Equation(block, Q.block(blk(n - m), i, l), f"{lay}: block (i, l) of R(m)^T R(n) = R(n-m)"))
        chains[len(eqs)] = Derivation(norm, why="|R(m) x|^2, pair by pair").lemma(
            "rope.pair_relative", "each pair keeps its norm (termwise)",
            theta=theta_of(j), x_0=xv[0], x_1=xv[1]).steps
        eqs.append(Equation(norm, norm0, f"{lay}: |R(m)x|^2 = sum_j |R_j(m) x_j|^2 = |x|^2"))
    return eqs, chains


def _family_instance(theta_of, what: str) -> tuple[list[Equation], dict]:
    """The equations of ``family.relative`` with ``theta[j] := theta_of(j)``, each proved by
    citing ``family.relative`` once (the sequence instance ``theta -> Lambda(j, theta_of(j))``)."""
    lam = sp.Lambda(Q.j, theta_of(Q.j))
    generic = get("family.relative").claim()
    seq = {THETA.label: lam}
    eqs, chains = [], {}
    for eq in generic.equations:
        inst = Equation(instantiate(eq.lhs, {}, seq), instantiate(eq.rhs, {}, seq), f"{eq.label} ({what})")
        chains[len(eqs)] = Derivation(inst.lhs, why=f"the relative property for {what}").lemma(
            "family.relative", "an instance: any frequency sequence keeps it", result=inst.rhs, theta=lam).steps
        eqs.append(inst)
    return eqs, chains


def _per_pair_relative(thetas, d: int, what: str) -> tuple[list[Equation], dict]:
    """Concrete d, block by block: for each pair q, R_q(m)^T R_q(n) = R_q(n - m) with the
    pair's frequency, citing ``rope.pair_relative`` (O(d) small checks, no d x d matrix)."""
    eqs, chains = [], {}
    for q, th_q in enumerate(thetas):
        e = Equation(*instance_of("rope.pair_relative", 0, theta=th_q),  # the constructors' blocks
                     f"R_q(m)^T R_q(n) = R_q(n - m) (d={d}, {what}, pair {q})")
        chains[len(eqs)] = Derivation(e.lhs).lemma("rope.pair_relative", f"pair {q}", result=e.rhs,
                                                   theta=th_q).steps
        eqs.append(e)
    return eqs, chains


#: Up to this d a concrete instantiation also checks the assembled d x d identities directly.
DENSE_MAX = 16


EVERY_D_FAMILY = (
    "Proved for every even d = 2h, both layouts, by citing family.relative with this "
    "member's frequency sequence."
)


def _theta_symbols(count: int, name: str = "theta") -> tuple[sp.Symbol, ...]:
    """Independent positive frequencies ``theta_0 .. theta_{count-1}``."""
    return tuple(sp.Symbol(f"{name}_{q}", positive=True) for q in range(count))


def _ladder(d: int, base: sp.Expr = b) -> tuple[sp.Expr, ...]:
    return tuple(F.default_theta(q, d, base=base) for q in range(d // 2))


def _relative_parts(R, size: int, label: str) -> list[Equation]:
    """The three equations of the relative property for a position -> matrix map ``R``."""
    q, kv, x = S.vector("q", size), S.vector("k", size), S.vector("x", size)
    return [
        Equation(_dot(R(m) * q, R(n) * kv), _dot(q, R(n - m) * kv), f"<R(m)q, R(n)k> = <q, R(n-m)k> ({label})"),
        Equation(R(m).T * R(n), R(n - m), f"R(m)^T R(n) = R(n-m) ({label})"),
        Equation(_dot(R(m) * x, R(m) * x), _dot(x, x), f"|R(m)x|^2 = |x|^2 ({label})"),
    ]


def _generic_or(d: int | None, generic: int) -> int:
    return generic if d is None else d


def _rotary_of(d: int) -> int:
    """The rotary dimension used for concrete partial-rotary claims: about half of ``d``, even."""
    r = (d // 2) - (d // 2) % 2
    return max(r, 2)


def _shift_invariance(Rq, Rk, size: int, label: str) -> Equation:
    """``<Rq(m) q, Rk(n) k> = <Rq(m+a) q, Rk(n+a) k>``: true iff the score depends on n - m only."""
    q, kv = S.vector("q", size), S.vector("k", size)
    return Equation(
        _dot(Rq(m) * q, Rk(n) * kv),
        _dot(Rq(m + a_shift) * q, Rk(n + a_shift) * kv),
        f"shifting both positions by a leaves the score unchanged ({label})",
    )
