"""The RoPE family, partial rotary: RoPE on the first channels only, Gemma's proportional
frequencies, and the pairing permutation between the interleaved and split layouts."""

from __future__ import annotations

import sympy as sp

from ..._validate import LAYOUTS
from ...encodings import family as F
from ...encodings import symbols as S
from ...proof import Claim, Equation
from ..registry import theorem
from ._common import (SRC_HF, _dot, _generic_or, _ladder, _relative_parts, _rotary_of, _theta_symbols, b, m,
                      n, s)

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
