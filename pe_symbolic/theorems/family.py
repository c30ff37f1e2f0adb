r"""The RoPE family that real models ship: theorems about scaled, partial, multimodal and
2-D rotary embeddings, and xPos.

Everything rests on one statement, ``family.relative``: RoPE with an *arbitrary*
frequency vector :math:`\theta` satisfies :math:`R_\theta(m)^T R_\theta(n) = R_\theta(n-m)`,
so every scaling that only changes :math:`\theta` (``linear``, NTK, ``dynamic`` at a fixed
length, ``yarn``, ``longrope`` on one side of its switch, ``llama3``, ``proportional``)
keeps attention scores functions of :math:`n - m`. Each member's own claim restates that
for its frequency vector (an instance of ``family.relative``) together with what is
particular to it. Two **honest negatives** are registered with ``expect="refuted"``: keys
cached under one dynamic-NTK base and queries rotated under another, and LongRoPE's
short/long switch, each break the relative property, and the engine must find the
counterexample.

Sign claims are written ``sign(expr) = 1`` (SymPy decides the sign from the symbols'
assumptions, as in the chapters). Ranges such as
:math:`s \ge 1` or :math:`\mathrm{high} > \mathrm{low}` are parametrised so that the
assumptions carry them (:math:`s = 1 + e`, :math:`e \ge 0`).

>>> from pe_symbolic import theorems
>>> theorems.get("linear.interpolation").prove().verdict
'proved'
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from .._validate import LAYOUTS
from ..encodings import family as F
from ..encodings import pairs as Q
from ..encodings import rope as R
from ..encodings import symbols as S
from ..proof import Claim, Equation
from ..proof.kernel import instantiate
from ._derive import Derivation, at, instance_of
from .chapters.certificates import Certificate
from .registry import Built, get, theorem

__all__ = ["IDS", "roformer_decay"]

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

IDS = (
    "family.relative",
    "linear.interpolation",
    "ntk.derive",
    "dynamic.continuity",
    "dynamic.mixed_bases",
    "yarn.correction_dim",
    "yarn.blend",
    "yarn.attention_factor",
    "yarn.relative",
    "llama3.continuity",
    "llama3.monotone",
    "llama3.bands_llama31",
    "longrope.relative",
    "longrope.switch",
    "partial.relative",
    "proportional.relative",
    "partial.permutation",
    "mrope.homomorphism",
    "mrope.reduces_to_rope",
    "axial.homomorphism",
    "xpos.relative",
    "roformer.abel",
    "ntk_alpha.base",
    "axial.spatial_ladder",
    "deepseek.interleave_in_split_out",
    "ntk_mixed.endpoints",
    "telechat3.attention_factor",
    "deepseek_v4.output_conjugate",
)

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


# ======================================================================================
# RoPE with an arbitrary frequency vector
# ======================================================================================
@theorem("family.relative",
         "For ANY frequency vector theta: <R(m)q, R(n)k> = <q, R(n-m)k>, R(m)^T R(n) = R(n-m)",
         f"{SRC_ROFORMER}; every rope_type of {SRC_HF}", scope="every even d",
         latex=(r"\langle R(m)\,q,\ R(n)\,k \rangle = \langle q,\ R(n - m)\,k \rangle, \qquad R(m)^{\mathsf T} R(n)"
                r" = R(n - m), \qquad \lVert R(m)\,x \rVert^2 = \lVert x \rVert^2 \\"
                r" R(m) = \bigoplus_{j=0}^{d/2-1} \mathop{\mathrm{rot2}}(m\theta_j) \ \text{ for any } \theta \in"
                r" \mathbb{R}^{d/2} \qquad (\text{interleaved or split layout})"))
def _family_relative(d: int | None) -> Built:
    if d is None:
        eqs, chains = _relative_every_d(lambda idx: THETA[idx])
        return Claim(
            "family.relative",
            "RoPE with an arbitrary real frequency sequence theta[0], ..., theta[h-1] (d = 2h, any "
            "h) keeps the relative property: R(m)^T R(n) = R(n-m), so <R(m)q, R(n)k> = "
            "<q, R(n-m)k>, and R(m) preserves norms. Every scaling that only changes theta "
            "inherits it: its relative theorem cites this one with its own sequence.",
            tuple(eqs), (Q.i <= Q.h - 1, Q.l <= Q.h - 1), f"{SRC_ROFORMER}; {SRC_HF}",
        ), chains
    size = d
    ths = _theta_symbols(size // 2)
    eqs, chains = _per_pair_relative(ths, d, "independent theta_i")
    if d <= DENSE_MAX:
        for lay in LAYOUTS:
            eqs += _relative_parts(lambda x, lay=lay: F.rope_matrix(x, ths, layout=lay), size,
                                   f"d={size}, independent theta_i, {lay}")
    return Claim(
        "family.relative",
        "RoPE with an arbitrary vector of frequencies theta_0, ..., theta_{d/2-1} (independent "
        "positive symbols, not the ladder b^(-2i/d)) keeps the relative property: "
        "R(m)^T R(n) = R(n-m), so <R(m)q, R(n)k> = <q, R(n-m)k>, and R(m) preserves norms. "
        "Every scaling that only changes theta inherits it.",
        tuple(eqs), (), f"{SRC_ROFORMER}; {SRC_HF}",
    ), chains


@theorem("linear.interpolation",
         "linear (position interpolation): R_{theta/s}(m) = R_theta(m/s)", SRC_PI, scope="every even d",
         latex=(r"R_{\theta/s}(m) = R_{\theta}(m/s), \qquad \theta_j = b^{-2j/d} / s \\"
                r" \langle R(m)\,q,\ R(n)\,k \rangle = \langle q,\ R(n - m)\,k \rangle, \qquad R(m)^{\mathsf T} R(n)"
                r" = R(n - m), \qquad \lVert R(m)\,x \rVert^2 = \lVert x \rVert^2"))
def _linear(d: int | None) -> Built:
    statement = ("Dividing every frequency by the factor s (HF rope_type 'linear') is the same as "
                 "dividing every position by s: R_{theta/s}(m) = R_theta(m/s) (position interpolation). "
                 "The relative property holds for theta/s (an instance of family.relative).")
    source = f"{SRC_PI}; {SRC_HF} _compute_linear_scaling_rope_parameters"
    if d is None:
        th = sp.Symbol("theta", positive=True)
        pair = Equation(at(R.rope_block(m, _freq), {_freq: F.linear(th, s)}), at(R.rope_block(_x, th), {_x: m / s}),
                        "one pair: R_(theta/s)(m) = R_theta(m/s)")
        eqs, chains = _family_instance(lambda v: F.linear(Q.omega(v), s), "theta_j / s")
        chains = {q + 1: c for q, c in chains.items()}
        return Claim("linear.interpolation", statement + " " + EVERY_D_FAMILY, (pair, *eqs),
                     (S.BASE_GT_1, Q.i <= Q.h - 1, Q.l <= Q.h - 1), source,
                     notation=Q.notation(Q.i, Q.j)), chains
    th_d = _ladder(d)
    scaled = tuple(F.linear(x, s) for x in th_d)
    eqs, chains = _per_pair_relative(scaled, d, "theta_i/s")
    eqs += [Equation(R.rope_block(m, sc), R.rope_block(m / s, th), f"R_(theta/s)(m) = R_theta(m/s) (d={d}, pair {q})")
            for q, (sc, th) in enumerate(zip(scaled, th_d))]
    if d <= DENSE_MAX:
        eqs += [Equation(F.rope_matrix(m, scaled, layout=lay), F.rope_matrix(m / s, th_d, layout=lay),
                         f"R_(theta/s)(m) = R_theta(m/s) (d={d}, {lay}, assembled)") for lay in LAYOUTS]
        eqs += _relative_parts(lambda x: F.rope_matrix(x, scaled), d, f"theta/s, d={d}, split")
    return Claim("linear.interpolation", statement, tuple(eqs), (S.BASE_GT_1,), source), chains


# ======================================================================================
# NTK-aware (static) and dynamic
# ======================================================================================
@theorem("ntk.derive",
         "NTK-aware: 'keep the highest frequency, divide the lowest by s' gives b' = b s^(d/(d-2))",
         SRC_NTK, concrete=False,
         latex=(r"b'^{-2k/d} = \frac{b^{-2k/d}}{s} \iff \log b' = \log b + \frac{d}{d - 2} \log s \iff b' = b\,"
                r" s^{d/(d-2)} \qquad (d = 2k + 2) \\"
                r" \theta'_0 = b'^{\,0} = 1 = \theta_0"))
def _ntk_derive(d: int | None) -> Claim:
    # d = 2k + 2: k >= 1 steps of the ladder from the highest pair (0) to the lowest (k).
    k = sp.Symbol("k", integer=True, positive=True)
    dd = 2 * k + 2
    y = sp.Symbol("y", real=True)  # y = log b'
    lowest = sp.Rational(-2) * k / dd  # exponent of the lowest pair: theta_k = b^(-2k/d)
    requirement = lowest * y - (lowest * sp.log(b) - sp.log(s))
    (sol,) = sp.linsolve([requirement], [y])
    log_b_new = sol[0]
    b_new = F.ntk_base(b, s, dd)
    return Claim(
        "ntk.derive",
        "Write d = 2k + 2 (k >= 1). The new base b' must leave pair 0 alone (theta_0 = b'^0 = 1 "
        "for every base) and divide the lowest frequency theta_k = b^(-2k/d) by s: "
        "b'^(-2k/d) = b^(-2k/d) / s. In logarithms this is linear in y = log b'; its unique "
        "solution is log b' = log b + (d/(d-2)) log s, i.e. b' = b s^(d/(d-2)).",
        (
            Equation(at(F.default_theta(S.i, dd, base=b_new), {S.i: 0}), 1, "the highest frequency is unchanged (pair 0)"),
            Equation(log_b_new, sp.log(b) + dd / (dd - 2) * sp.log(s),
                     "the solution of the (linear) requirement in y = log b'"),
            Equation(sp.exp(log_b_new), b_new, "exponentiated: b' = b s^(d/(d-2))"),
            Equation(F.default_theta(k, dd, base=b_new), F.default_theta(k, dd, base=b) / s,
                     "check: the lowest frequency under b' is theta_k / s"),
        ),
        (S.BASE_GT_1,), SRC_NTK,
    )


@theorem("dynamic.continuity",
         "dynamic NTK: b'(n) = b for n = L' (no jump where scaling starts); b'(n) is the NTK base of s_eff",
         f"{SRC_HF} _compute_dynamic_ntk_parameters", concrete=False,
         latex=(r"b'(n) = b\, s_{\mathrm{eff}}(n)^{d/(d-2)}, \quad s_{\mathrm{eff}}(n) = \frac{s\,n}{L'} - (s -"
                r" 1):\quad b'(L') = b, \quad s_{\mathrm{eff}}(L') = 1, \quad \frac{d s_{\mathrm{eff}}}{dn} ="
                r" \frac{s}{L'}"))
def _dynamic_continuity(d: int | None) -> Claim:
    s_eff = s * n / L - (s - 1)
    return Claim(
        "dynamic.continuity",
        "HF's dynamic NTK base b'(n) = b (s n/L' - (s-1))^(d/(d-2)) (L' = max_position_embeddings, "
        "n >= L' the current length) equals b at n = L', so the frequencies do not jump when "
        "the length first exceeds L'; it is the static NTK base for the effective factor "
        "s_eff = s n/L' - (s-1), which starts at 1 (n = L') and grows linearly with n. (Even "
        "factor = 1 scales: then b'(n) = b (n/L')^(d/(d-2)).)",
        (
            Equation(at(F.dynamic_base(b, s, n, L, S.d), {n: L}), b, "b'(L') = b"),
            Equation(F.dynamic_base(b, s, n, L, S.d), at(F.ntk_base(b, _z, S.d), {_z: s_eff}),
                     "b'(n) = NTK base of s_eff"),
            Equation(at(s_eff, {n: L}), 1, "s_eff(L') = 1"),
            Equation(sp.Derivative(s_eff, n), s / L, "s_eff grows linearly with n, slope s/L'"),
        ),
        (S.BASE_GT_1,), f"{SRC_HF} _compute_dynamic_ntk_parameters; {SRC_NTK}",
    )


@theorem("dynamic.mixed_bases",
         "HONEST NEGATIVE: keys rotated under one base, queries under another: NOT a function of n - m",
         "HF transformers issues on dynamic RoPE with a KV cache", expect="refuted", concrete=False,
         latex=(r"\bigl\langle R_{b_q}(m + a)\,q,\ R_{b_k}(n + a)\,k \bigr\rangle = \bigl\langle"
                r" R_{b_q}(m)\,q,\ R_{b_k}(n)\,k \bigr\rangle \qquad (d = 4;\ b_q, b_k > 1)"))
def _dynamic_mixed(d: int | None) -> Claim:
    # Generic form only: at d = 2 the one pair has frequency 1 under every base (the claim
    # is then true), and a concrete d adds nothing but minutes of failed simplification.
    size = _generic_or(d, 4)
    b_q = sp.Symbol("b_q", positive=True)
    b_k = sp.Symbol("b_k", positive=True)
    th_q, th_k = _ladder(size, b_q), _ladder(size, b_k)
    eq = _shift_invariance(lambda x: F.rope_matrix(x, th_q), lambda x: F.rope_matrix(x, th_k), size,
                           f"d={size}, queries under b_q, keys under b_k")
    return Claim(
        "dynamic.mixed_bases",
        "Dynamic NTK recomputes the base b' as the length grows. If the keys in a KV cache "
        "were rotated under the base of an earlier length (b_k) and the current query under "
        "the current one (b_q), the score <R_{b_q}(m) q, R_{b_k}(n) k> is not a function of "
        "n - m: shifting both positions changes it. (False claim, registered to be refuted: "
        "the engine prints a point where it fails.)",
        (eq,), (sp.Gt(b_q, 1), sp.Gt(b_k, 1)),
        "HF transformers: dynamic RoPE and the KV cache (keys cached under one base, queries under another)",
    )


# ======================================================================================
# YaRN
# ======================================================================================
r_rot = sp.Symbol("r", positive=True)
"""A number of rotations over the original context (beta_fast or beta_slow)."""


@theorem("yarn.correction_dim",
         "YaRN: the pair whose wavelength is L/r is j(r) = d ln(L/(2 pi r)) / (2 ln b)",
         SRC_YARN,
         latex=r"2\pi\, b^{2j/d} = \frac{L}{r} \iff j = j(r) = \frac{d \ln\bigl(L / (2\pi r)\bigr)}{2 \ln b}")
def _yarn_correction(d: int | None) -> Claim:
    dd = S.d if d is None else sp.Integer(d)
    j = sp.Symbol("j", real=True)
    # wavelength of pair j: 2 pi b^(2j/d) = L / r, in logarithms (linear in j)
    requirement = sp.log(2 * sp.pi) + 2 * j / dd * sp.log(b) - (sp.log(L) - sp.log(r_rot))
    (sol,) = sp.linsolve([requirement], [j])
    jr = F.yarn_correction_dim(r_rot, dd, b, L)
    return Claim(
        "yarn.correction_dim",
        "Pair j has wavelength 2 pi / theta_j = 2 pi b^(2j/d). Requiring it to equal L/r (the "
        "pair turns r times over the original context L) is linear in j after taking "
        "logarithms; its solution is HF's find_correction_dim j(r) = d ln(L/(2 pi r)) / (2 ln b). "
        "low = floor(j(beta_fast)), high = ceil(j(beta_slow)) (when truncate), clamped to [0, d-1].",
        (
            Equation(sol[0], jr, "the solution of 'wavelength of pair j = L/r'"),
            Equation(at(F.wavelength(F.default_theta(_z, dd, base=b)), {_z: jr}), L / r_rot,
                     "check: pair j(r) has wavelength L/r"),
        ),
        (S.BASE_GT_1,), f"{SRC_YARN}; {SRC_HF} find_correction_dim",
    )


@theorem("yarn.blend",
         "YaRN: the ramp and the blend are continuous: gamma = 0 keeps theta, gamma = 1 gives theta/s",
         SRC_YARN, concrete=False,
         latex=(r"\gamma(i) = \operatorname{clamp}\Bigl(\frac{i - \mathrm{low}}{\mathrm{high} - \mathrm{low}}, 0,"
                r" 1\Bigr):\quad \frac{i - \mathrm{low}}{\mathrm{high} - \mathrm{low}} = 0 \text{ at } i ="
                r" \mathrm{low}, \ 1 \text{ at } i = \mathrm{high} \\"
                r" \theta' = \frac{\theta}{s}\,\gamma + \theta\,(1 - \gamma):\quad \theta'\big|_{\gamma = 0} ="
                r" \theta, \quad \theta'\big|_{\gamma = 1} = \frac{\theta}{s}, \quad \frac{\partial"
                r" \theta'}{\partial \gamma} = \frac{\theta}{s} - \theta"))
def _yarn_blend(d: int | None) -> Claim:
    x = sp.Symbol("x", real=True)
    lo, hi = sp.symbols("low high", real=True)
    th = sp.Symbol("theta", positive=True)
    g = sp.Symbol("gamma", real=True)
    middle = (x - lo) / (hi - lo)
    blend = F.yarn_theta(th, s, g)
    return Claim(
        "yarn.blend",
        "The ramp gamma(i) = clamp((i - low)/(high - low), 0, 1) is piecewise linear and its "
        "pieces agree at the break points (0 at i = low, 1 at i = high), so it is continuous; "
        "the blend theta' = (theta/s) gamma + theta (1 - gamma) is affine in gamma, equal to "
        "theta at gamma = 0 (extrapolated, high frequencies) and theta/s at gamma = 1 "
        "(interpolated, low frequencies). So theta'_i is a continuous function of i "
        "(with low < high; HF adds 0.001 to high when low == high).",
        (
            Equation(at(middle, {x: lo}), 0, "middle piece at i = low equals the left piece 0"),
            Equation(at(middle, {x: hi}), 1, "middle piece at i = high equals the right piece 1"),
            Equation(at(blend, {g: 0}), th, "gamma = 0: theta' = theta"),
            Equation(at(blend, {g: 1}), th / s, "gamma = 1: theta' = theta/s"),
            Equation(sp.Derivative(blend, g), th / s - th, "theta' is affine in gamma (constant slope)"),
        ),
        (), f"{SRC_YARN}; {SRC_HF} linear_ramp_factor",
    )


@theorem("yarn.attention_factor",
         "YaRN: scaling cos and sin by a multiplies every logit by a^2; the defaults of a",
         SRC_YARN,
         latex=(r"\langle a\,R(m)\,q,\ a\,R(n)\,k \rangle = a^2\, \langle q,\ R(n - m)\,k \rangle \qquad"
                r" \bigl(\text{one pair},\ \theta' = \tfrac{\theta}{s}\gamma + \theta (1 - \gamma)\bigr) \\"
                r" a = 0.1 \ln s + 1, \qquad a = \frac{0.1\,\mu \ln s + 1}{0.1\,\mu_{\mathrm{all}} \ln s + 1} = 1"
                r" \text{ for } \mu = \mu_{\mathrm{all}}"))
def _yarn_attention(d: int | None) -> Claim:
    af = sp.Symbol("a_f", positive=True)  # the attention factor
    size = _generic_or(d, 2)
    gam = _theta_symbols(size // 2, "gamma")
    th = _ladder(size) if d is not None else (sp.Symbol("theta", positive=True),)
    thp = tuple(F.yarn_theta(t_, s, g_) for t_, g_ in zip(th, gam))
    q, kv = S.vector("q", size), S.vector("k", size)

    def R(x):
        return F.rope_matrix(x, thp)

    mu, mu2 = sp.symbols("mu mu_all", positive=True)
    return Claim(
        "yarn.attention_factor",
        "HF multiplies the cos and sin tables by the attention factor a, for queries and keys "
        "alike: <a R(m) q, a R(n) k> = a^2 <q, R(n-m) k>, every logit times a^2 (the paper's "
        "sqrt(1/t) = a). Default a = 0.1 ln s + 1; with mscale and mscale_all_dim it is "
        "get_mscale(s, mscale) / get_mscale(s, mscale_all_dim), which is 1 when the two are "
        "equal (DeepSeek-V3: mscale = mscale_all_dim = 1).",
        (
            Equation(_dot(af * R(m) * q, af * R(n) * kv), af**2 * _dot(q, R(n - m) * kv),
                     f"<a R(m)q, a R(n)k> = a^2 <q, R(n-m)k> (d={size}, YaRN theta')"),
            Equation(F.yarn_attention_factor(1 + s), sp.Rational(1, 10) * sp.log(1 + s) + 1,
                     "default: a = 0.1 ln s + 1 for s > 1 (s written 1 + s')"),
            Equation(at(F.yarn_attention_factor(1 + s, mu, mu2), {mu2: mu}), 1, "mscale = mscale_all_dim: a = 1"),
            Equation(F.yarn_attention_factor(1 + s, mu, mu2),
                     (sp.Rational(1, 10) * mu * sp.log(1 + s) + 1) / (sp.Rational(1, 10) * mu2 * sp.log(1 + s) + 1),
                     "the ratio form"),
        ),
        (S.BASE_GT_1,) if d is not None else (), f"{SRC_YARN}; {SRC_HF} get_mscale",
    )


@theorem("yarn.relative", "YaRN's theta' = (theta/s) gamma + theta (1 - gamma) keeps the relative property",
         SRC_YARN, scope="every even d",
         latex=(r"\langle R(m)\,q,\ R(n)\,k \rangle = \langle q,\ R(n - m)\,k \rangle, \qquad R(m)^{\mathsf T} R(n)"
                r" = R(n - m), \qquad \lVert R(m)\,x \rVert^2 = \lVert x \rVert^2 \\"
                r" \theta'_j = \frac{\theta_j}{s}\,\gamma_j + \theta_j\,(1 - \gamma_j), \quad \theta_j = b^{-2j/d},"
                r" \ \text{ any ramp } \gamma_j"))
def _yarn_relative(d: int | None) -> Built:
    statement = ("With any ramp values gamma_i >= 0, YaRN's frequencies theta'_i = (theta_i/s) gamma_i + "
                 "theta_i (1 - gamma_i) form a frequency vector, so the relative property holds "
                 "(an instance of family.relative).")
    if d is None:
        gam = sp.IndexedBase("gamma", nonnegative=True)
        eqs, chains = _family_instance(lambda v: F.yarn_theta(Q.omega(v), s, gam[v]), "YaRN's theta'_j")
        return Claim("yarn.relative", statement + " " + EVERY_D_FAMILY, tuple(eqs),
                     (S.BASE_GT_1, Q.i <= Q.h - 1, Q.l <= Q.h - 1), SRC_YARN, notation=Q.notation(Q.i, Q.j)), chains
    size = d
    gam = tuple(sp.Symbol(f"gamma_{q}", nonnegative=True) for q in range(size // 2))
    thp = tuple(F.yarn_theta(t_, s, g_) for t_, g_ in zip(_ladder(size), gam))
    eqs, chains = _per_pair_relative(thp, d, "YaRN theta'")
    if d <= DENSE_MAX:
        eqs += _relative_parts(lambda x: F.rope_matrix(x, thp), size, f"d={size}, YaRN theta', assembled")
    return Claim("yarn.relative", statement, tuple(eqs), (S.BASE_GT_1,), SRC_YARN), chains


# ======================================================================================
# Llama 3
# ======================================================================================
lo_f = sp.Symbol("l", positive=True)  # low_freq_factor
w_gap = sp.Symbol("w", positive=True)  # high_freq_factor - low_freq_factor > 0
e_s = sp.Symbol("e", nonnegative=True)  # factor - 1 >= 0


@theorem("llama3.continuity", "llama3: the smoothed band meets theta at lambda = L/high and theta/s at lambda = L/low",
         SRC_LLAMA3, concrete=False,
         latex=(r"\theta' = (1 - \sigma)\,\frac{\theta}{s} + \sigma\,\theta, \quad \sigma = \frac{L/\lambda -"
                r" \mathrm{low}}{\mathrm{high} - \mathrm{low}}, \quad \lambda = \frac{2\pi}{\theta} \\"
                r" \lambda = \frac{L}{\mathrm{high}}:\ \sigma = 1,\ \theta' = \theta; \qquad \lambda ="
                r" \frac{L}{\mathrm{low}}:\ \sigma = 0,\ \theta' = \frac{\theta}{s}"))
def _llama3_continuity(d: int | None) -> Claim:
    th = sp.Symbol("theta", positive=True)
    hi = lo_f + w_gap
    sigma = F.llama3_smooth(th, L, lo_f, hi)
    middle = (1 - sigma) * th / s + sigma * th
    at_high = 2 * sp.pi * hi / L  # lambda = L/high
    at_low = 2 * sp.pi * lo_f / L  # lambda = L/low
    return Claim(
        "llama3.continuity",
        "Llama 3 keeps theta where the wavelength lambda = 2 pi/theta is below L/high, uses "
        "theta/s above L/low and (1 - sigma) theta/s + sigma theta in between, "
        "sigma = (L/lambda - low)/(high - low). At both band edges the middle formula meets the "
        "outer one (high = low + w, w > 0), so theta' is continuous in theta.",
        (
            Equation(at(F.wavelength(th), {th: at_high}), L / hi, "theta = 2 pi high/L is the edge lambda = L/high"),
            Equation(at(sigma, {th: at_high}), 1, "sigma = 1 at lambda = L/high"),
            Equation(at(middle, {th: at_high}), at_high, "the middle formula gives theta there"),
            Equation(at(F.wavelength(th), {th: at_low}), L / lo_f, "theta = 2 pi low/L is the edge lambda = L/low"),
            Equation(at(sigma, {th: at_low}), 0, "sigma = 0 at lambda = L/low"),
            Equation(at(middle, {th: at_low}), at_low / s, "the middle formula gives theta/s there"),
        ),
        (), f"{SRC_LLAMA3}; {SRC_HF} _compute_llama3_parameters",
    )


@theorem("llama3.monotone", "llama3: theta'_i is non-increasing in i (for high > low, s >= 1, b > 1)",
         SRC_LLAMA3, concrete=False,
         latex=(r"\frac{d\theta'}{d\theta} = \frac{1}{s} + \Bigl(1 - \frac{1}{s}\Bigr)\Bigl(2\sigma +"
                r" \frac{\mathrm{low}}{\mathrm{high} - \mathrm{low}}\Bigr) > 0 \text{ on the band}, \quad"
                r" \frac{1}{s} \text{ below it}, \quad 1 \text{ above it} \\"
                r" \frac{\theta_{i+1}}{\theta_i} = b^{-2/d} < 1, \ \text{ so } \theta'_{i+1} \le \theta'_i \qquad (s"
                r" \ge 1,\ \mathrm{high} > \mathrm{low},\ b > 1)"))
def _llama3_monotone(d: int | None) -> Claim:
    th = sp.Symbol("theta", positive=True)
    sig = sp.Symbol("sigma", nonnegative=True)  # sigma(theta) on the middle band, in [0, 1]
    beta = sp.Symbol("beta", positive=True)  # b = 1 + beta > 1
    i = S.i
    s1 = 1 + e_s
    hi = lo_f + w_gap
    sigma = F.llama3_smooth(th, L, lo_f, hi)
    middle = (1 - sigma) * th / s1 + sigma * th
    slope = 1 / s1 + e_s / s1 * (2 * sig + lo_f / w_gap)
    ratio = F.default_theta(i + 1, S.d, base=1 + beta) / F.default_theta(i, S.d, base=1 + beta)
    return Claim(
        "llama3.monotone",
        "As a function of theta, Llama 3's theta' = g(theta) is increasing: slope 1 above the "
        "band, 1/s below it, and on the band (where 0 <= sigma <= 1) the derivative "
        "1/s + (1 - 1/s)(2 sigma + low/(high - low)) > 0; g is continuous (llama3.continuity). "
        "The ladder theta_i = b^(-2i/d) decreases in i (b > 1), so theta'_i = g(theta_i) does "
        "not increase with i. Written with s = 1 + e (e >= 0), high = low + w (w > 0), b = 1 + beta.",
        (
            Equation(sp.Derivative(middle, th), slope.subs(sig, sigma),
                     "d theta'/d theta on the band, in terms of sigma(theta)"),
            Equation(sp.sign(slope, evaluate=False), 1, "that slope is positive for 0 <= sigma"),
            Equation(sp.sign(sp.Derivative(th / s1, th)), 1, "below the band: slope 1/s > 0"),
            Equation(sp.sign(sp.Derivative(th, th)), 1, "above the band: slope 1 > 0"),
            Equation(sp.sign(sp.log(ratio)), -1, "theta_(i+1)/theta_i = b^(-2/d) < 1"),
        ),
        (), f"{SRC_LLAMA3}; {SRC_HF} _compute_llama3_parameters",
    )


#: Llama-3.1-8B's rope parameters (meta-llama/Llama-3.1-8B config.json).
LLAMA31 = {"rope_theta": 500000, "head_dim": 128, "factor": 8, "low_freq_factor": 1,
           "high_freq_factor": 4, "original_max_position_embeddings": 8192}


@theorem("llama3.bands_llama31",
         "llama3 for Llama-3.1-8B: pairs 0..28 kept, 29..34 smoothed, 35..63 divided by 8 (exact)",
         SRC_LLAMA3, concrete=False,
         latex=(r"\lambda_i = 2\pi \cdot 500000^{i/64}:\quad \frac{\lambda_{i+1}}{\lambda_i} > 1, \quad \lambda_{28}"
                r" < 2048 < \lambda_{29}, \quad \lambda_{34} < 8192 < \lambda_{35}"))
def _llama3_bands(d: int | None) -> Claim:
    p = LLAMA31
    base, dim = sp.Integer(p["rope_theta"]), p["head_dim"]
    length = sp.Integer(p["original_max_position_embeddings"])
    edge_high = length / p["high_freq_factor"]  # 2048: below, keep theta
    edge_low = length / p["low_freq_factor"]  # 8192: above, theta / s

    def lam(q: int) -> sp.Expr:
        return F.wavelength(F.default_theta(q, dim, base=base))

    return Claim(
        "llama3.bands_llama31",
        "Llama-3.1-8B (rope_theta = 500000, head_dim = 128, factor = 8, low_freq_factor = 1, "
        "high_freq_factor = 4, original context 8192): the wavelengths lambda_i = "
        "2 pi 500000^(i/64) increase with i, lambda_28 < 2048 < lambda_29 and "
        "lambda_34 < 8192 < lambda_35. So pairs 0..28 keep theta_i, pairs 29..34 are smoothed, "
        "pairs 35..63 are divided by 8. Signs of exact constants, decided by SymPy with "
        "certified precision.",
        (
            Equation(sp.sign(sp.log(lam(1) / lam(0)), evaluate=False), 1, "lambda_(i+1)/lambda_i = 500000^(1/64) > 1"),
            Equation(sp.sign(lam(28) - edge_high, evaluate=False), -1, "lambda_28 < L/high = 2048: pair 28 is kept"),
            Equation(sp.sign(lam(29) - edge_high, evaluate=False), 1, "lambda_29 > 2048: pair 29 is in the band"),
            Equation(sp.sign(lam(34) - edge_low, evaluate=False), -1, "lambda_34 < L/low = 8192: pair 34 is in the band"),
            Equation(sp.sign(lam(35) - edge_low, evaluate=False), 1, "lambda_35 > 8192: pair 35 is divided by s"),
        ),
        (), f"{SRC_LLAMA3}; meta-llama/Llama-3.1-8B config.json",
    )


# ======================================================================================
# LongRoPE
# ======================================================================================
def _lambdas(count: int, name: str) -> tuple[sp.Symbol, ...]:
    return tuple(sp.Symbol(f"{name}_{q}", positive=True) for q in range(count))


@theorem("longrope.relative", "longrope: theta_i / lambda_i (per-pair factors) keeps the relative property",
         SRC_LONGROPE, scope="every even d",
         latex=(r"\langle R(m)\,q,\ R(n)\,k \rangle = \langle q,\ R(n - m)\,k \rangle, \qquad R(m)^{\mathsf T} R(n)"
                r" = R(n - m), \qquad \lVert R(m)\,x \rVert^2 = \lVert x \rVert^2 \\"
                r" \theta_j = b^{-2j/d} / \lambda_j \ \text{ for any factors } \lambda_j, \qquad \sqrt{1 + \frac{\ln"
                r" s}{\ln L}}\,\bigg|_{s = 1} = 1"))
def _longrope_relative(d: int | None) -> Built:
    statement = ("LongRoPE divides each frequency by its own factor lambda_i (long_factor beyond the "
                 "original context L, short_factor up to it). For ONE choice of factors this is a "
                 "frequency vector, so the relative property holds (an instance of family.relative); "
                 "the attention factor sqrt(1 + ln s/ln L) is 1 at s = 1.")
    factor_one = Equation(at(F.longrope_attention_factor(s, L), {s: 1}), 1, "attention factor 1 without scaling")
    if d is None:
        lam = sp.IndexedBase("lambda", positive=True)
        eqs, chains = _family_instance(lambda v: F.longrope_theta(Q.omega(v), lam[v]), "theta_j / lambda_j")
        return Claim("longrope.relative", statement + " " + EVERY_D_FAMILY, (*eqs, factor_one),
                     (S.BASE_GT_1, Q.i <= Q.h - 1, Q.l <= Q.h - 1),
                     f"{SRC_LONGROPE}; {SRC_HF} _compute_longrope_parameters", notation=Q.notation(Q.i, Q.j)), chains
    size = d
    lam_s = _lambdas(size // 2, "lambda")
    thp = tuple(F.longrope_theta(t_, l_) for t_, l_ in zip(_ladder(size), lam_s))
    eqs, chains = _per_pair_relative(thp, d, "theta_i/lambda_i")
    if d <= DENSE_MAX:
        eqs += _relative_parts(lambda x: F.rope_matrix(x, thp), size, f"d={size}, theta_i/lambda_i, assembled")
    return Claim("longrope.relative", statement, (*eqs, factor_one), (S.BASE_GT_1,),
                 f"{SRC_LONGROPE}; {SRC_HF} _compute_longrope_parameters"), chains


@theorem("longrope.switch",
         "HONEST NEGATIVE: keys cached with short_factor, queries with long_factor: NOT a function of n - m",
         SRC_LONGROPE, expect="refuted", concrete=False,
         latex=(r"\bigl\langle R_{\mathrm{long}}(m + a)\,q,\ R_{\mathrm{short}}(n + a)\,k \bigr\rangle ="
                r" \bigl\langle R_{\mathrm{long}}(m)\,q,\ R_{\mathrm{short}}(n)\,k \bigr\rangle \\"
                r" R_{\mathrm{long}}:\ \theta_j / \lambda^{\mathrm{long}}_j, \quad R_{\mathrm{short}}:\ \theta_j /"
                r" \lambda^{\mathrm{short}}_j \qquad (d = 4)"))
def _longrope_switch(d: int | None) -> Claim:
    size = _generic_or(d, 4)
    th = _ladder(size) if d is not None else _theta_symbols(size // 2)
    short, long_ = _lambdas(size // 2, "lambda_s"), _lambdas(size // 2, "lambda_l")
    th_short = tuple(F.longrope_theta(t_, l_) for t_, l_ in zip(th, short))
    th_long = tuple(F.longrope_theta(t_, l_) for t_, l_ in zip(th, long_))
    eq = _shift_invariance(lambda x: F.rope_matrix(x, th_long), lambda x: F.rope_matrix(x, th_short), size,
                           f"d={size}, queries with long factors, keys with short factors")
    return Claim(
        "longrope.switch",
        "At the original context length L LongRoPE switches from short_factor to long_factor: "
        "theta jumps from theta_i/lambda^short_i to theta_i/lambda^long_i. Keys cached before "
        "the switch and a query rotated after it give <R_long(m) q, R_short(n) k>, which is "
        "not a function of n - m: shifting both positions changes it. (False claim, "
        "registered to be refuted.)",
        (eq,), (S.BASE_GT_1,) if d is not None else (),
        f"{SRC_LONGROPE}; HF longrope_frequency_update (switch at original_max_position_embeddings)",
    )


# ======================================================================================
# partial rotary, proportional, and the pairing permutation
# ======================================================================================
@theorem("partial.relative",
         "partial rotary (both pairings): relative on the rotated channels; pass-through channels ignore m",
         "GPT-NeoX (rotary_pct), GPT-J (rotary_dim), Phi-2, GLM; HF partial_rotary_factor",
         latex=(r"\langle R(m)\,q,\ R(n)\,k \rangle = \langle q,\ R(n - m)\,k \rangle, \qquad R(m)^{\mathsf T} R(n)"
                r" = R(n - m), \qquad \lVert R(m)\,x \rVert^2 = \lVert x \rVert^2 \\"
                r" R(m) = \mathop{\mathrm{rot2}}(m\theta) \oplus I_2, \qquad \frac{\partial}{\partial m}\,"
                r" \bigl(\text{pass-through rows of } R(m)\bigr) = 0 \qquad (d = 4,\ \text{rotary dim } 2)"))
def _partial_relative(d: int | None) -> Claim:
    if d is None:
        head, r = 4, 2
        th: tuple[sp.Expr, ...] = (sp.Symbol("theta", positive=True),)
        ass: tuple = ()
    else:
        head, r = d, _rotary_of(d)
        th = _ladder(r)
        ass = (S.BASE_GT_1,)
    eqs: list[Equation] = []
    for lay in LAYOUTS:
        def R(x, lay=lay):
            return F.partial_rope_matrix(x, head, th, layout=lay)
        label = f"head_dim={head}, rotary_dim={r}, {lay}"
        eqs += _relative_parts(R, head, label)
        if r < head:
            block = R(m)[r:, :]
            eqs.append(Equation(sp.ImmutableMatrix(block.applyfunc(lambda e: sp.Derivative(e, m))),
                                sp.zeros(*block.shape), f"pass-through rows do not depend on m ({label})"))
    return Claim(
        "partial.relative",
        "Partial rotary (rotary_dim = int(head_dim * partial_rotary_factor) < head_dim) rotates "
        "the first rotary_dim channels with theta_i = b^(-2i/rotary_dim), paired half-split "
        "(GPT-NeoX, HF rotate_half on x[..., :rotary_dim]) or interleaved (GPT-J, GLM), and "
        "passes the rest through: the relative property holds, and the pass-through channels "
        "are position-invariant.",
        tuple(eqs), ass, "GPT-NeoX rotary_pct; GPT-J rotary_dim; HF partial_rotary_factor",
    )


@theorem("proportional.relative",
         "proportional: theta_i = b^(-2i/head_dim)/s, zeros after: relative; zero frequencies = identity",
         f"{SRC_HF} _compute_proportional_rope_parameters",
         latex=(r"\langle R(m)\,q,\ R(n)\,k \rangle = \langle q,\ R(n - m)\,k \rangle, \qquad R(m)^{\mathsf T} R(n)"
                r" = R(n - m), \qquad \lVert R(m)\,x \rVert^2 = \lVert x \rVert^2 \\"
                r" \theta = \bigl(b^{-2i/d} / s\bigr)_{i < \mathrm{rope\_angles}} \text{ then } 0, \qquad"
                r" \mathop{\mathrm{rot2}}(m \cdot 0) = I \qquad (d = 4,\ \mathrm{rope\_angles} = 1)"))
def _proportional(d: int | None) -> Claim:
    head = _generic_or(d, 4)
    angles = max(1, head // 4)  # rope_angles = int(0.5 * head_dim // 2)
    th = F.proportional_thetas(head, angles, base=b, factor=s)
    eqs = _relative_parts(lambda x: F.rope_matrix(x, th), head, f"head_dim={head}, rope_angles={angles}")
    if 2 * angles < head:
        eqs.append(Equation(F.rope_matrix(m, th, layout="interleaved")[2 * angles:, 2 * angles:],
                            sp.eye(head - 2 * angles), "zero frequencies rotate by nothing (identity)"))
    return Claim(
        "proportional.relative",
        "HF's proportional RoPE uses theta_i = b^(-2i/head_dim)/s for i < rope_angles = "
        "int(partial_rotary_factor * head_dim // 2) and theta_i = 0 for the remaining pairs: a "
        "frequency vector over the whole head, so the relative property holds; the zero "
        "frequencies are identity rotations (position-invariant channels).",
        tuple(eqs), (S.BASE_GT_1,), f"{SRC_HF} _compute_proportional_rope_parameters",
    )


@theorem("partial.permutation",
         "partial rotary: P^T R_split P = R_interleaved, scores unchanged when q, k rows are permuted by P",
         "HF transformers convert_llama_weights_to_hf.py (permute)",
         latex=(r"P^{\mathsf T} P = I, \qquad P^{\mathsf T} R_{\mathrm{split}}(m)\,P = R_{\mathrm{int}}(m) \\"
                r" \langle R_{\mathrm{split}}(m)\,Pq,\ R_{\mathrm{split}}(n)\,Pk \rangle = \langle"
                r" R_{\mathrm{int}}(m)\,q,\ R_{\mathrm{int}}(n)\,k \rangle \qquad (d = 6,\ r = 4) \\"
                r" P:\ \text{slot } 2i \mapsto i,\ \ 2i + 1 \mapsto i + r/2 \text{ for } i < r/2, \text{ the other"
                r" slots fixed}"))
def _partial_permutation(d: int | None) -> Claim:
    if d is None:
        head, r = 6, 4
        th: tuple[sp.Expr, ...] = _theta_symbols(2)
        ass: tuple = ()
    else:
        head, r = d, _rotary_of(d)
        th = _ladder(r)
        ass = (S.BASE_GT_1,)
    Pm = F.partial_layout_permutation(head, r)
    q, kv = S.vector("q", head), S.vector("k", head)

    def Rs(x):
        return F.partial_rope_matrix(x, head, th, layout="split")

    def Ri(x):
        return F.partial_rope_matrix(x, head, th, layout="interleaved")

    return Claim(
        "partial.permutation",
        "The permutation P sending slot 2i to i and 2i+1 to i + r/2 within the first r = "
        "rotary_dim channels (the rest fixed) is orthogonal and conjugates the half-split "
        "partial rotation into the interleaved one: P^T R_split(m) P = R_interleaved(m). So "
        "permuting the rows of the q and k projections by P (per head) turns a GPT-J / Meta "
        "checkpoint into a GPT-NeoX / HF one with identical attention scores.",
        (
            Equation(Pm.T * Pm, sp.eye(head), "P^T P = I"),
            Equation(Pm.T * Rs(m) * Pm, Ri(m), f"P^T R_split(m) P = R_interleaved(m) (head_dim={head}, r={r})"),
            Equation(_dot(Rs(m) * Pm * q, Rs(n) * Pm * kv), _dot(Ri(m) * q, Ri(n) * kv),
                     "scores of permuted q, k under split = scores under interleaved"),
        ),
        ass, "HF transformers convert_llama_weights_to_hf.py; GPT-J vs GPT-NeoX rotary",
    )


# ======================================================================================
# M-RoPE and 2-D axial RoPE
# ======================================================================================
P_POS = sp.symbols("p_t p_h p_w", real=True)
U_POS = sp.symbols("u_t u_h u_w", real=True)


def _mrope_sections(d: int | None) -> tuple[tuple[int, int, int], tuple[int, int, int], int]:
    """(contiguous sections, interleaved sections, d): Qwen's defaults at d = 128."""
    if d is None:
        return (2, 1, 1), (2, 1, 1), 8
    h = d // 2
    if d == 128:
        return (16, 24, 24), (24, 20, 20), d
    third = h // 3
    return (h - 2 * third, third, third), (h - 2 * third, third, third), d


def _homomorphism_parts(R, zero, size: int, label: str) -> list[Equation]:
    q, kv = S.vector("q", size), S.vector("k", size)
    p, u = P_POS[: len(zero)], U_POS[: len(zero)]
    pu = tuple(x + y for x, y in zip(p, u))
    up = tuple(y - x for x, y in zip(p, u))
    return [
        Equation(at(R(p), dict(zip(p, zero))), sp.eye(size), f"R(0) = I ({label})"),
        Equation(R(p) * R(u), R(pu), f"R(p) R(p') = R(p + p') ({label})"),
        Equation(R(p).T * R(u), R(up), f"R(p)^T R(p') = R(p' - p) ({label})"),
        Equation(_dot(R(p) * q, R(u) * kv), _dot(q, R(up) * kv), f"<R(p)q, R(p')k> = <q, R(p'-p)k> ({label})"),
    ]


@theorem("mrope.homomorphism",
         "M-RoPE (Qwen2-VL contiguous, Qwen3-VL interleaved): R(p)R(p') = R(p+p'); scores depend on p' - p",
         SRC_MROPE,
         latex=(r"R(0) = I, \qquad R(p)\,R(p') = R(p + p'), \qquad R(p)^{\mathsf T} R(p') = R(p' - p) \\"
                r" \langle R(p)\,q,\ R(p')\,k \rangle = \langle q,\ R(p' - p)\,k \rangle \\"
                r" R(p) = \bigoplus_j \mathop{\mathrm{rot2}}\bigl(p_{a(j)}\,\theta_j\bigr), \quad p = (t, h, w),"
                r" \quad d = 8 \\"
                r" a(j) \text{ the axis of pair } j\text{: sections } [2, 1, 1]\text{, contiguous or interleaved}"))
def _mrope_hom(d: int | None) -> Claim:
    contiguous, inter, size = _mrope_sections(d)
    th = _ladder(size) if d is not None else _theta_symbols(size // 2)
    eqs: list[Equation] = []
    for secs, interleaved in ((contiguous, False), (inter, True)):
        def R(p, secs=secs, interleaved=interleaved):
            return F.mrope_matrix(p, th, secs, layout="split", interleaved=interleaved)
        kind = "interleaved" if interleaved else "contiguous"
        eqs += _homomorphism_parts(R, (0, 0, 0), size, f"d={size}, {kind} sections {list(secs)}")
    return Claim(
        "mrope.homomorphism",
        "M-RoPE gives pair j the angle p_a(j) theta_j, where p = (t, h, w) and a(j) is the "
        "axis of pair j: contiguous sections (Qwen2-VL, default [16, 24, 24]) or the "
        "interleaved t, h, w, t, h, w, ... assignment (Qwen3-VL, default [24, 20, 20]). The "
        "map p -> R(p) is a homomorphism from R^3 (so Z^3) into SO(d): R(0) = I, "
        "R(p)R(p') = R(p + p'), hence <R(p)q, R(p')k> = <q, R(p' - p)k> depends on p' - p only.",
        tuple(eqs), (S.BASE_GT_1,) if d is not None else (), SRC_MROPE,
    )


@theorem("mrope.reduces_to_rope", "M-RoPE with t = h = w = m is 1-D RoPE R(m), for both section layouts",
         SRC_MROPE,
         latex=(r"R_{\text{M-RoPE}}(m, m, m) = R(m) = \bigoplus_j \mathop{\mathrm{rot2}}(m\theta_j) \qquad (d ="
                r" 8,\ \text{both section orders, both layouts})"))
def _mrope_reduces(d: int | None) -> Claim:
    contiguous, inter, size = _mrope_sections(d)
    th = _ladder(size) if d is not None else _theta_symbols(size // 2)
    eqs = []
    for secs, interleaved in ((contiguous, False), (inter, True)):
        kind = "interleaved" if interleaved else "contiguous"
        for lay in LAYOUTS:
            eqs.append(Equation(F.mrope_matrix((m, m, m), th, secs, layout=lay, interleaved=interleaved),
                                F.rope_matrix(m, th, layout=lay), f"d={size}, {kind} {list(secs)}, {lay}"))
    return Claim(
        "mrope.reduces_to_rope",
        "For text tokens Qwen2-VL / Qwen3-VL set t = h = w = m; then every pair turns by "
        "m theta_j whatever its axis, and M-RoPE is exactly 1-D RoPE R(m) with the same "
        "frequencies.",
        tuple(eqs), (S.BASE_GT_1,) if d is not None else (), SRC_MROPE,
    )


@theorem("axial.homomorphism",
         "2-D axial RoPE: R(p)R(p') = R(p+p'), scores depend on (row' - row, col' - col) only",
         SRC_AXIAL, concrete=False,
         latex=(r"R(0) = I, \qquad R(p)\,R(p') = R(p + p'), \qquad R(p)^{\mathsf T} R(p') = R(p' - p) \\"
                r" \langle R(p)\,q,\ R(p')\,k \rangle = \langle q,\ R(p' - p)\,k \rangle \\"
                r" R(p) = \bigoplus_{j < d/4} \mathop{\mathrm{rot2}}(p_{\mathrm{row}}\,\theta_j) \oplus \bigoplus_{j"
                r" < d/4} \mathop{\mathrm{rot2}}(p_{\mathrm{col}}\,\theta_j), \quad \theta_j = b^{-4j/d} \qquad (d ="
                r" 8)"))
def _axial(d: int | None) -> Claim:
    size = 8
    eqs: list[Equation] = []
    for lay in LAYOUTS:
        def R(p, lay=lay):
            return F.axial_matrix(p, size, base=b, layout=lay)
        eqs += _homomorphism_parts(R, (0, 0), size, f"d={size}, {lay}")
    return Claim(
        "axial.homomorphism",
        "2-D axial RoPE for an image patch at p = (row, col): the first d/4 pairs turn by "
        "row * theta_j, the last d/4 by col * theta_j, theta_j = b^(-4j/d) (EVA-02, Qwen2-VL's "
        "vision tower). p -> R(p) is a homomorphism from R^2 (so Z^2) into SO(d), and "
        "<R(p)q, R(p')k> = <q, R(p' - p)k>. Shown for d = 8 with a symbolic base: R(p) is "
        "block diagonal, and each block is a one-parameter rotation group in one coordinate "
        "of p, so every d (a multiple of 4) follows block by block.",
        tuple(eqs), (S.BASE_GT_1,), SRC_AXIAL,
    )


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



# ----------------------------------------------------------------------------------------
# variants real configs ship (issue 23): Hunyuan's fixed alpha, HF's axial vision ladders

SRC_HUNYUAN = ("HF transformers hunyuan_v1_dense / hunyuan_v1_moe / hunyuan_vl modeling: "
               "compute_ntk_alpha_rope_parameters (DynamicNTKAlphaRotary)")
SRC_HF_AXIAL = ("HF transformers 5.23 compute_axial_rope_parameters: Qwen2-VL / GLM-4V / Gemma 4 vision "
                "(ladder over head_dim // 2) and Pixtral (head_dim ladder, cat(inv_freq[0::2], inv_freq[1::2]))")


@theorem("ntk_alpha.base",
         "Hunyuan's fixed alpha: b' = b alpha^(d/(d-2)) is the NTK base of factor alpha (pair 0 kept, lowest / alpha)",
         SRC_HUNYUAN, concrete=False,
         latex=(r"b' = b\, \alpha^{d/(d-2)}:\quad \theta'_0 = 1, \quad b'^{-2k/d} = \frac{b^{-2k/d}}{\alpha} \qquad"
                r" (d = 2k + 2)"))
def _ntk_alpha(d: int | None) -> Claim:
    k = sp.Symbol("k", integer=True, positive=True)
    dd = 2 * k + 2
    alpha = sp.Symbol("alpha", positive=True)
    b_new = b * alpha ** (dd / (dd - 2))  # HF: rope_theta * alpha ** (dim / (dim - 2))
    return Claim(
        "ntk_alpha.base",
        "Hunyuan's checkpoints label a fixed-alpha RoPE 'dynamic'; HF computes the base "
        "b' = b alpha^(d/(d-2)), static in the sequence length. With d = 2k + 2 it is the NTK-aware base "
        "of factor alpha (ntk.derive): pair 0 keeps frequency 1 and the lowest pair's frequency is divided "
        "by alpha exactly, so the parser reads it as the ntk ladder with s = alpha.",
        (
            Equation(b_new, at(F.ntk_base(b, _factor, dd), {_factor: alpha}), "b alpha^(d/(d-2)) is the NTK base with s = alpha"),
            Equation(at(F.default_theta(S.i, dd, base=b_new), {S.i: 0}), 1, "the highest frequency is unchanged (pair 0)"),
            Equation(F.default_theta(k, dd, base=b_new), F.default_theta(k, dd, base=b) / alpha,
                     "the lowest frequency is divided by alpha"),
        ),
        (S.BASE_GT_1,), SRC_HUNYUAN,
    )


@theorem("axial.spatial_ladder",
         "HF's axial ladder over D/2 is the even pairs of the D ladder: b^(-2j/(D/2)) = b^(-2(2j)/D)",
         SRC_HF_AXIAL, concrete=False,
         latex=r"b^{-2j/(d/2)} = b^{-2(2j)/d}")
def _axial_spatial(d: int | None) -> Claim:
    j = sp.Symbol("j", integer=True, nonnegative=True)
    return Claim(
        "axial.spatial_ladder",
        "HF's axial vision RoPE (Qwen2-VL, GLM-4V, Gemma 4 ...) takes the ladder over the spatial dim D/2, "
        "b^(-2j/(D/2)), for both the height and the width pairs. Its j-th frequency is the (2j)-th of the "
        "head_dim ladder, so it equals the height half of Pixtral's axial frequencies, "
        "cat(ladder[0::2], ladder[1::2]); Pixtral's width half (the odd pairs) differs, which is why the "
        "parser keys the convention on model_type.",
        (Equation(at(F.default_theta(j, _dim), {_dim: S.d / 2}), at(F.default_theta(_x, S.d), {_x: 2 * j}),
                  "theta_j over D/2 = theta_(2j) over D"),),
        (S.BASE_GT_1,), SRC_HF_AXIAL,
    )


@theorem("deepseek.interleave_in_split_out",
         "DeepSeek-V3 (apply_rotary_pos_emb_interleave): R_split(m) P = P R_interleaved(m); scores as interleaved RoPE",
         "HF transformers deepseek_v3 modeling apply_rotary_pos_emb_interleave (rope_interleave=True; "
         "12 HF families)",
         latex=(r"R_{\mathrm{split}}(m)\,P = P\,R_{\mathrm{int}}(m), \qquad \langle"
                r" R_{\mathrm{split}}(m)\,Pq,\ R_{\mathrm{split}}(n)\,Pk \rangle = \langle"
                r" R_{\mathrm{int}}(m)\,q,\ R_{\mathrm{int}}(n)\,k \rangle \\"
                r" P:\ \text{slot } 2i \mapsto i,\ \ 2i + 1 \mapsto i + d/2 \qquad (d = 4)"))
def _interleave_in_split_out(d: int | None) -> Claim:
    if d is None:
        head = 4
        th: tuple[sp.Expr, ...] = _theta_symbols(2)
        ass: tuple = ()
    else:
        head = d
        th = _ladder(d)
        ass = (S.BASE_GT_1,)
    Pm = F.partial_layout_permutation(head, head)
    q, kv = S.vector("q", head), S.vector("k", head)

    def Rs(x):
        return F.rope_matrix(x, th, layout="split")

    def Ri(x):
        return F.rope_matrix(x, th, layout="interleaved")

    return Claim(
        "deepseek.interleave_in_split_out",
        "HF's apply_rotary_pos_emb_interleave (DeepSeek-V3 and the families whose config sets "
        "rope_interleave) reads q and k as interleaved pairs (x0, x1), (x2, x3), ..., de-interleaves them "
        "(P: slot 2i -> i, 2i+1 -> i + d/2) and rotates with rotate_half: the output is R_split(m) P q. "
        "That equals P R_interleaved(m) q: interleaved RoPE whose output is left in the split layout. "
        "Scores are those of interleaved RoPE, so relative.",
        (
            Equation(Rs(m) * Pm, Pm * Ri(m), f"R_split(m) P = P R_interleaved(m) (d={head})"),
            Equation(_dot(Rs(m) * Pm * q, Rs(n) * Pm * kv), _dot(Ri(m) * q, Ri(n) * kv),
                     "scores: <R_split(m) P q, R_split(n) P k> = <R_int(m) q, R_int(n) k>"),
        ),
        ass, "HF transformers deepseek_v3 apply_rotary_pos_emb_interleave",
    )


# ----------------------------------------------------------------------------------------
# engine and model variants read since (issue 23): vLLM's mixed NTK, TeleChat3, DeepSeek-V4

SRC_VLLM_NTK = ("vLLM model_executor/layers/rotary_embedding/ntk_scaling_rope.py NTKScalingRotaryEmbedding "
                "(mixed_b); Su (2023), 'NTK-RoPE-mixed', kexue.fm/archives/9706")
SRC_TELECHAT3 = ("vLLM model_executor/layers/rotary_embedding/telechat3_scaling_rope.py "
                 "TeleChat3RoPEScaledRotaryEmbedding (get_mscale: 0.07 * mscale * log(scale) + 1)")
SRC_DEEPSEEK_V4 = ("HF transformers 5.24 deepseek_v4 modeling: apply_rotary_pos_emb on x[..., -rope_dim:], and on "
                   "the attention output with -sin (DeepseekV4Attention.forward)")


@theorem("ntk_mixed.endpoints",
         "vLLM's mixed NTK: the last pair is divided by exactly s; mixed_b = 1 is vLLM's fixed NTK (b s)^(-2i/d) / s^(2/d)",
         SRC_VLLM_NTK, concrete=False,
         latex=(r"\lambda_i = \exp\!\Big(\frac{\ln s}{(d/2)^{\beta}}\,(i + 1)^{\beta}\Big): \quad"
                r" \lambda_k = s \ \ (d = 2k + 2), \qquad \lambda_i\big|_{\beta = 1} = s^{2(i+1)/d} \\"
                r" \frac{b^{-2i/d}}{s^{2(i+1)/d}} = \frac{(b\,s)^{-2i/d}}{s^{2/d}}"))
def _ntk_mixed(d: int | None) -> Claim:
    k = sp.Symbol("k", integer=True, positive=True)
    beta = sp.Symbol("beta", positive=True)
    dd = 2 * k + 2
    i, dsym = S.i, S.d
    return Claim(
        "ntk_mixed.endpoints",
        "vLLM's NTKScalingRotaryEmbedding with mixed_b = beta divides pair i of the ladder by "
        "lambda_i = exp(a (i+1)^beta), a = ln s / (d/2)^beta (a per-pair rescaling, so relative by "
        "longrope.relative). With d = 2k + 2 the last pair (i = k) is divided by exactly s, whatever beta; "
        "beta = 1 gives lambda_i = s^(2(i+1)/d), and that ladder is vLLM's fixed NTK (no mixed_b): base "
        "b s, then every frequency divided by s^(2/d). It is not the static NTK-aware base b s^(d/(d-2)) "
        "(which keeps pair 0): the config parser reads 'ntk' without mixed_b as vLLM does, through this "
        "formula at beta = 1 (HF has no 'ntk' type).",
        (
            Equation(at(F.ntk_mixed_factor(S.i, dd, F.s, beta), {S.i: k}), F.s, "lambda of the last pair is s"),
            Equation(F.ntk_mixed_factor(i, dsym, F.s, 1), F.s ** (2 * (i + 1) / dsym), "beta = 1: s^(2(i+1)/d)"),
            Equation(F.default_theta(i, dsym) / F.s ** (2 * (i + 1) / dsym),
                     F.default_theta(i, dsym, base=S.b * F.s) / F.s ** (2 / dsym),
                     "beta = 1 is vLLM's fixed NTK: (b s)^(-2i/d) / s^(2/d)"),
        ),
        (S.BASE_GT_1,), SRC_VLLM_NTK,
    )


@theorem("telechat3.attention_factor",
         "telechat3-yarn: the attention factor 0.07 ln s + 1 is YaRN's get_mscale with mu = 0.7 (1 at s = 1)",
         SRC_TELECHAT3, concrete=False,
         latex=(r"m(s, \tfrac{7}{10}) = \tfrac{7}{100}\ln s + 1, \quad m(s, \tfrac{7}{10}) - 1"
                r" = \tfrac{7}{10}\,\big(m(s, 1) - 1\big) \quad (s = 1 + v > 1), \qquad m(1, \tfrac{7}{10}) = 1"))
def _telechat3(d: int | None) -> Claim:
    v = sp.Symbol("v", positive=True)
    s1 = 1 + v  # a factor above 1
    seven = sp.Rational(7, 10)
    return Claim(
        "telechat3.attention_factor",
        "vLLM's TeleChat3 YaRN keeps YaRN's frequencies and replaces get_mscale by 0.07 mscale ln s + 1 "
        "(times attn_factor). For every factor s = 1 + v > 1 that is YaRN's get_mscale with mu = 0.7, i.e. "
        "its growth above 1 is 0.7 of YaRN's; at s = 1 both are 1. The numeric core evaluates it as "
        "yarn_mscale(s, 7/10) (the formula lowered under yarn.attention_factor).",
        (
            Equation(at(F.yarn_mscale(_factor, seven), {_factor: s1}), sp.Rational(7, 100) * sp.log(s1) + 1, "0.07 ln s + 1 for s > 1"),
            Equation(at(F.yarn_mscale(_factor, seven), {_factor: s1}) - 1, seven * (at(F.yarn_mscale(_factor), {_factor: s1}) - 1),
                     "0.7 of YaRN's growth"),
            Equation(at(F.yarn_mscale(_factor, seven), {_factor: 1}), 1, "no scaling: factor 1"),
        ),
        (), SRC_TELECHAT3,
    )


@theorem("deepseek_v4.output_conjugate",
         "DeepSeek-V4: RoPE on the trailing pair of a head, and the output rotated back at the query "
         "position, give value contributions and scores that depend on n - m only",
         SRC_DEEPSEEK_V4, concrete=False,
         latex=(r"P(x) = \mathrm{diag}\big(I_2,\ R(x\theta)\big): \quad P(-m)\,P(n) = P(n - m), \\"
                r" \langle P(m)\,q,\ P(n)\,k \rangle = \langle q,\ P(n - m)\,k \rangle"))
def _deepseek_v4(d: int | None) -> Claim:
    th = sp.Symbol("theta", positive=True)
    m, n = S.m, S.n

    def P(x: sp.Expr) -> sp.ImmutableMatrix:  # two leading channels kept, the trailing pair rotated
        return sp.ImmutableMatrix(sp.diag(sp.eye(2), F.rope_matrix(x, (th,))))

    q, kv = S.vector("q", 4), S.vector("k", 4)
    return Claim(
        "deepseek_v4.output_conjugate",
        "DeepSeek-V4 rotates only the last channels of each head (P(x) = diag(I, R(x theta)), leading "
        "channels kept) and, since its keys are its values, applies the conjugate rotation P(-m) to the "
        "attention output at the query position m. A value rotated at key position n then contributes "
        "P(-m) P(n) v = P(n - m) v: a function of the distance, as the scores <P(m) q, P(n) k> = "
        "<q, P(n - m) k> are. Shown for one rotated pair after two kept channels; the blocks are "
        "independent (family.relative lifts it to every pair).",
        (
            Equation(P(-m) * P(n), P(n - m), "P(-m) P(n) = P(n - m): the output's conjugate rotation"),
            Equation(_dot(P(m) * q, P(n) * kv), _dot(q, P(n - m) * kv), "scores depend on n - m"),
        ),
        (), SRC_DEEPSEEK_V4,
    )
