r"""RoPE variants inference engines ship, as SymPy constructions (issue 34).

Each is written from the engine's (or paper's) published code, cited beside it; the mpmath
oracle :mod:`pe_symbolic.reference` has its own copy of each, written again from the same
sources, and the theorems in :mod:`pe_symbolic.theorems.variants` state what each keeps.

* :func:`fope_cos_sin` -- FoPE (Intern-S1-Pro in vLLM and SGLang): each output channel's cos
  and sin are mixtures of the cos and sin of the kept frequencies, padded with 1 past them;
* :func:`openpangu_axes` -- openPangu's greedy interleave of M-RoPE sections;
* :func:`bailing_axes` -- Bailing's M-RoPE layout: height and width alternate, time last;
* :func:`submodule_layouts` -- per-sub-module pairings (DeepSeek-V3.2 / GLM-5: attention
  interleaved, the sparse indexer GPT-NeoX unless ``indexer_rope_interleave``);
* :func:`chatglm_matrix` -- ChatGLM-6B's 2-D positions: half the head turns with the token
  position, half with the block position;
* :func:`linear_multi_offsets` -- vLLM's multi-factor linear RoPE: one table block per factor;
* :func:`llamacpp_yarn` -- llama.cpp's ``rope_yarn`` with its ``ext_factor``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import sympy as sp

from .symbols import as_expr as _e

__all__ = [
    "bailing_axes",
    "chatglm_matrix",
    "fope_cos_sin",
    "fope_keep",
    "linear_multi_offsets",
    "llamacpp_yarn",
    "openpangu_axes",
    "submodule_layouts",
]


def _rot2(a: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])


# ----------------------------------------------------------------------------------------
# FoPE


def fope_keep(inv_freq: Sequence[sp.Expr], max_position: int, num_inv_freq: int | None = None) -> list[int]:
    r"""Which frequencies FoPE keeps: the first ``num_inv_freq``, else those with
    :math:`\theta_i > 2\pi / L` (a full turn within the trained context).

    SGLang ``rope_variant.py`` ``FourierRotaryEmbedding._compute_inv_freq``
    (``inv_freq > 2.0 * torch.pi / self.max_position_embeddings``).

    >>> fope_keep([1, sp.Rational(1, 10), sp.Rational(1, 100)], 64)
    [0, 1]
    """
    if num_inv_freq is not None:
        return list(range(min(int(num_inv_freq), len(inv_freq))))
    bound = 2 * sp.pi / max_position
    return [i for i, w in enumerate(inv_freq) if bool(sp.sympify(w) > bound)]


def fope_cos_sin(p: sp.Expr, inv_freq: Sequence[sp.Expr], cos_coef: Sequence[Sequence[sp.Expr]],
                 sin_coef: Sequence[Sequence[sp.Expr]], head_dim: int) -> tuple[list[sp.Expr], list[sp.Expr]]:
    r"""FoPE's cos and sin of each of the ``head_dim / 2`` channels at position ``p``.

    Channel ``d < D`` (``D`` the kept frequencies) has :math:`c_d(p) = \sum_j C_{jd} \cos(p\theta_j)`,
    :math:`s_d(p) = \sum_j S_{jd} \sin(p\theta_j)` (``einsum("tD, Dd -> td")``, one head's
    coefficient matrices); channels ``D .. head_dim/2 - 1`` are padded with **1** for both
    (``F.pad(..., value=1)``). The rotation of a pair is then
    :math:`\begin{pmatrix} c & -s \\ s & c \end{pmatrix}`, which is a rotation only when
    :math:`c^2 + s^2 = 1`.

    >>> p = sp.Symbol("p")
    >>> fope_cos_sin(p, [1], [[1]], [[1]], 4)
    ([cos(p), 1], [sin(p), 1])
    """
    k = len(inv_freq)
    if len(cos_coef) != k or len(sin_coef) != k or any(len(r) != k for r in (*cos_coef, *sin_coef)):
        raise ValueError(f"cos_coef and sin_coef must be {k} x {k} (the kept frequencies); got "
                         f"{len(cos_coef)} and {len(sin_coef)} rows")
    if head_dim % 2 or head_dim // 2 < k:
        raise ValueError(f"head_dim={head_dim} must be even with head_dim/2 >= {k} kept frequencies")
    cos = [sum((_e(cos_coef[j][d]) * sp.cos(_e(p) * _e(inv_freq[j])) for j in range(k)), sp.Integer(0))
           for d in range(k)]
    sin = [sum((_e(sin_coef[j][d]) * sp.sin(_e(p) * _e(inv_freq[j])) for j in range(k)), sp.Integer(0))
           for d in range(k)]
    pad = head_dim // 2 - k
    return cos + [sp.Integer(1)] * pad, sin + [sp.Integer(1)] * pad


# ----------------------------------------------------------------------------------------
# M-RoPE layouts


def openpangu_axes(sections: Sequence[int]) -> tuple[int, ...]:
    """The axis (0 = t, 1 = h, 2 = w) of each pair in openPangu's interleaved M-RoPE.

    vLLM ``openpangu_rope.py`` ``MRotaryEmbeddingInterleaved.get_mrope_interleaved_id_list``:
    with three sections, one t is kept for the last pair (``force_last``); then, pair by pair,
    among the axes with pairs left and unlike the previous pair's axis (any axis with pairs
    left when only the previous one has), the one placed least so far relative to its section
    (ties: the smaller axis). Two sections ``(h, w)`` interleave h and w the same way.

    >>> openpangu_axes((2, 3, 3))
    (0, 1, 2, 1, 2, 1, 2, 0)
    >>> openpangu_axes((2, 2))
    (0, 1, 0, 1)
    """
    secs = [int(v) for v in sections]
    if len(secs) not in (2, 3) or any(v < 0 for v in secs):
        raise ValueError(f"sections={list(sections)!r} must be two or three non-negative integers")
    force_last = len(secs) == 3
    if force_last:
        if secs[0] < 1:
            raise ValueError(f"sections={secs!r}: three sections keep one t pair for the end (t >= 1)")
        counts = [secs[0] - 1, secs[1], secs[2]]
    else:
        counts = [secs[0], secs[1], 0]
    placed = [0, 0, 0]
    left = list(counts)
    out: list[int] = []
    last = None
    for _ in range(sum(counts)):
        cands = [a for a in range(3) if left[a] > 0 and a != last] or [a for a in range(3) if left[a] > 0]
        best = min(cands, key=lambda a: (sp.Rational(placed[a], counts[a]), a))
        out.append(best)
        placed[best] += 1
        left[best] -= 1
        last = best
    if force_last:
        out.append(0)
    return tuple(out)


def bailing_axes(sections: Sequence[int]) -> tuple[int, ...]:
    """The axis of each pair in Bailing's M-RoPE: pairs ``< h + w`` alternate h (even) and w
    (odd), the rest take t. ``sections = (t, h, w)`` with ``h == w``.

    vLLM ``bailing_mrope.py`` ``BailingMRotaryEmbedding.select_cos_sin``
    (``spatial_mask = arange(spatial_size) % 2 == 0``; the temporal slice after it).

    >>> bailing_axes((2, 2, 2))
    (1, 2, 1, 2, 0, 0)
    """
    secs = [int(v) for v in sections]
    if len(secs) != 3 or any(v < 0 for v in secs):
        raise ValueError(f"sections={list(sections)!r} must be three non-negative integers (t, h, w)")
    if secs[1] != secs[2]:
        raise ValueError(f"sections={secs!r}: Bailing M-RoPE needs equal h and w sections")
    spatial = secs[1] + secs[2]
    return tuple((1 if j % 2 == 0 else 2) if j < spatial else 0 for j in range(spatial + secs[0]))


def submodule_layouts(config: dict) -> dict[str, str]:
    """The pairing of each sub-module's RoPE (``"split"`` GPT-NeoX, ``"interleaved"`` GPT-J).

    Attention: interleaved when ``rope_interleave`` is true (HF's DeepSeek-V3 family reads the
    checkpoint's interleaved pairs, ``apply_rotary_pos_emb_interleave``), else split. The
    sparse indexer of DeepSeek-V3.2 / GLM-5: vLLM ``deepseek_v2.py``
    ``get_rope(..., is_neox_style=not getattr(config, "indexer_rope_interleave", False))``.

    >>> submodule_layouts({"rope_interleave": True, "index_topk": 2048})
    {'attention': 'interleaved', 'indexer': 'split'}
    >>> submodule_layouts({"rope_interleave": True, "index_topk": 2048, "indexer_rope_interleave": True})
    {'attention': 'interleaved', 'indexer': 'interleaved'}
    """
    out = {"attention": "interleaved" if config.get("rope_interleave") else "split"}
    if any(k in config for k in ("index_topk", "index_n_heads", "indexer_rope_interleave")):
        out["indexer"] = "interleaved" if config.get("indexer_rope_interleave", False) else "split"
    return out


# ----------------------------------------------------------------------------------------
# ChatGLM's 2-D positions, multi-factor linear, llama.cpp's YaRN


def chatglm_matrix(position: sp.Expr, block_position: sp.Expr, head_dim: int, *,
                   base: sp.Expr = 10000) -> sp.ImmutableMatrix:
    r"""ChatGLM-6B's rotation of one head: the first half of the channels turns with the token
    position, the second half with the block position, each half RoPE of dimension
    ``head_dim / 2`` in the rotate-half pairing (THUDM ``modeling_chatglm.py``
    ``RotaryEmbedding(hidden_size_per_head // 2)`` applied to ``q1`` with ``position_ids`` and
    ``q2`` with ``block_position_ids``).

    >>> m = chatglm_matrix(sp.Symbol("p"), sp.Symbol("b"), 4, base=100)
    >>> m[0, 0], m[2, 2]
    (cos(p), cos(b))
    """
    if head_dim % 4:
        raise ValueError(f"head_dim={head_dim} must be a multiple of 4 (two halves of rotated pairs)")
    half = head_dim // 2
    ladder = [_e(base) ** sp.Rational(-2 * i, half) for i in range(half // 2)]

    def block(p):
        out = sp.zeros(half)
        for i, w in enumerate(ladder):
            r = _rot2(_e(p) * w)
            a, b = i, i + half // 2
            out[a, a], out[a, b], out[b, a], out[b, b] = r[0, 0], r[0, 1], r[1, 0], r[1, 1]
        return out

    return sp.ImmutableMatrix(sp.diag(block(position), block(block_position)))


def linear_multi_offsets(max_position: int, factors: Sequence[float]) -> dict[float, int]:
    """Row offsets of each factor's block in vLLM's multi-factor linear cache.

    ``LinearScalingRotaryEmbedding._compute_cos_sin_cache``: one block of
    ``len(arange(L * s))`` = ``ceil(L * s)`` rows per factor, in the order given; block
    ``k`` starts after the previous ones. Row ``offset(s) + t`` holds the angles
    :math:`(t/s)\\,\\theta_i`.

    >>> linear_multi_offsets(4096, [1.0, 2.0, 4.0])
    {1.0: 0, 2.0: 4096, 4.0: 12288}
    """
    out: dict[float, int] = {}
    offset = 0
    for s in factors:
        if not (isinstance(s, (int, float)) and s > 0):
            raise ValueError(f"factors must be positive numbers; got {s!r}")
        out[float(s)] = offset
        offset += math.ceil(max_position * s)
    return out


def llamacpp_yarn(theta: sp.Expr, i: int | sp.Expr, factor: sp.Expr, low: sp.Expr, high: sp.Expr,
                  ext_factor: sp.Expr, attn_factor: sp.Expr = 1) -> tuple[sp.Expr, sp.Expr]:
    r"""llama.cpp's ``rope_yarn`` for pair ``i``: ``(theta', mscale)``.

    ggml ``ops.cpp``: ``theta_interp = freq_scale * theta_extrap`` (``freq_scale = 1/factor``);
    when ``ext_factor != 0``: ``ramp_mix = rope_yarn_ramp(low, high, i) * ext_factor``,
    ``theta = theta_interp (1 - ramp_mix) + theta_extrap ramp_mix`` and
    ``mscale *= 1 + 0.1 ln(1 / freq_scale)``; ``rope_yarn_ramp = 1 - clamp((i - low) /
    max(0.001, high - low), 0, 1)``. With ``ext_factor == 0`` the pair is interpolated
    (:math:`\theta/s`) and ``mscale`` stays ``attn_factor``.

    >>> s = sp.Symbol("s", positive=True)
    >>> llamacpp_yarn(sp.Symbol("theta"), 0, s, 2, 5, 0)
    (theta/s, 1)
    """
    theta, s = _e(theta), _e(factor)
    interp = theta / s
    ext = _e(ext_factor)
    if ext == 0:
        return interp, _e(attn_factor)
    y = (_e(i) - _e(low)) / sp.Max(sp.Rational(1, 1000), _e(high) - _e(low))
    ramp_mix = (1 - sp.Min(1, sp.Max(0, y))) * ext
    return interp * (1 - ramp_mix) + theta * ramp_mix, _e(attn_factor) * (1 + sp.log(s) / 10)
