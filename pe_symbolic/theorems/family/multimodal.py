"""The RoPE family, more than one position: M-RoPE (Qwen2-VL's time, height and width sections,
and Qwen3-VL's interleaved layout) and 2-D axial RoPE (EVA-02, RoPE-Mixed)."""

from __future__ import annotations

import sympy as sp

from ..._validate import LAYOUTS
from ...encodings import family as F
from ...encodings import symbols as S
from ...proof import Claim, Equation
from .._derive import at
from ..registry import theorem
from ._common import SRC_AXIAL, SRC_MROPE, _dot, _ladder, _theta_symbols, b, m

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
