r"""RoPE variants inference engines ship (issue 34): what each keeps, proved, and what breaks.

The constructions are :mod:`pe_symbolic.encodings.variants` (each cites the engine code it is
written from); the oracle :mod:`pe_symbolic.reference` has its own copy of each.

==============================  ==========  ==================================================
theorem                         expected    statement
==============================  ==========  ==================================================
``fope.reduces_to_rope``        proved      FoPE with identity coefficients is RoPE
``openpangu.layout``            proved      openPangu's greedy interleave: each axis gets its
                                            section; relative in (t, h, w); RoPE when t = h = w
``bailing.layout``              proved      Bailing's layout: the same three facts
``indexer.permutation``         proved      the indexer's split pairs are the attention's
                                            interleaved pairs permuted: P R_int P^T = R_split
``indexer.mixed_pairing``       refuted     a query in one pairing against a key in the other
                                            is relative
``chatglm.relative_2d``         proved      ChatGLM-6B's two halves: relative in (position,
                                            block position)
``chatglm.token_offset``        refuted     ChatGLM-6B's scores depend on the token offset only
                                            (generated tokens freeze the position)
``linear.multi_factor``         proved      vLLM's multi-factor cache: row offset(s) + t holds
                                            linear RoPE of factor s at position t
``llamacpp.ext_factor_one``     proved      ext_factor = 1 is HF's YaRN blend and magnitude
``llamacpp.ext_factor_zero``    refuted     ext_factor = 0 keeps YaRN's attention factor
``llamacpp.degenerate_range``   refuted     llama.cpp's ramp is HF's for every correction range
                                            (not when high < low)
==============================  ==========  ==================================================

>>> from pe_symbolic import theorems
>>> theorems.get("llamacpp.ext_factor_one").prove().verdict
'proved'
"""

from __future__ import annotations

import sympy as sp

from ...encodings import variants as V
from ...proof import Claim, Equation
from ..registry import theorem
from ..relative import FrequencyMap, _sides, positions

__all__ = ["EXPECT", "IDS"]

IDS = ("fope.reduces_to_rope", "openpangu.layout", "bailing.layout", "indexer.permutation", "indexer.mixed_pairing",
       "chatglm.relative_2d", "chatglm.token_offset", "linear.multi_factor", "llamacpp.ext_factor_one",
       "llamacpp.ext_factor_zero", "llamacpp.degenerate_range")
EXPECT = {"indexer.mixed_pairing": "refuted", "chatglm.token_offset": "refuted", "llamacpp.ext_factor_zero": "refuted",
          "llamacpp.degenerate_range": "refuted"}

SRC_FOPE = "SGLang python/sglang/srt/layers/rotary_embedding/rope_variant.py FourierRotaryEmbedding @ 0b1fd02d56f0"
SRC_PANGU = "vLLM vllm/model_executor/layers/rotary_embedding/openpangu_rope.py @ 098d12c28e93"
SRC_BAILING = "vLLM vllm/model_executor/layers/rotary_embedding/bailing_mrope.py @ 9c5b71639542"
SRC_INDEXER = ("vLLM vllm/model_executor/models/deepseek_v2.py: indexer get_rope(is_neox_style=not "
               "getattr(config, 'indexer_rope_interleave', False)); HF DeepSeek-V3 apply_rotary_pos_emb_interleave")
SRC_CHATGLM = "THUDM chatglm-6b modeling_chatglm.py: RotaryEmbedding(hidden_size_per_head // 2), position_ids / block_position_ids"
SRC_MULTI = "vLLM vllm/model_executor/layers/rotary_embedding/linear_scaling_rope.py @ 0f17ee061e41"
SRC_LCPP = "llama.cpp ggml/src/ggml-cpu/ops.cpp rope_yarn / rope_yarn_ramp @ 1f08e2d66271; HF modeling_rope_utils.py (yarn)"

_TH = sp.symbols("theta_0:8", positive=True)


def _rot2(a: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])


@theorem("fope.reduces_to_rope", "FoPE with identity cos/sin coefficients is RoPE on the kept frequencies",
         SRC_FOPE, concrete=False, latex=r"C = S = I:\quad \begin{pmatrix} c_d & -s_d \\ s_d & c_d \end{pmatrix}(p) = "
         r"\mathrm{rot2}(p\,\theta_d)")
def _fope(d: int | None) -> Claim:
    p = sp.Symbol("p", integer=True)
    eye = [[1, 0], [0, 1]]
    cos, sin = V.fope_cos_sin(p, _TH[:2], eye, eye, 4)
    eqs = tuple(Equation(sp.ImmutableMatrix([[cos[k], -sin[k]], [sin[k], cos[k]]]), sp.ImmutableMatrix(_rot2(p * _TH[k])),
                         f"channel {k}: identity coefficients give rot2(p theta_{k})") for k in range(2))
    return Claim("fope.reduces_to_rope",
                 "FoPE replaces cos(p theta_d) and sin(p theta_d) by mixtures sum_j C_jd cos(p theta_j) and "
                 "sum_j S_jd sin(p theta_j). With C = S = I (its initialisation before training adds the off-diagonal "
                 "terms) each channel is RoPE's rotation again; with other coefficients it is not a rotation "
                 "(relative.fope refutes the relative property).", eqs, (), SRC_FOPE)


def _layout_claim(id: str, axes: tuple[int, ...], sections: tuple[int, ...], source: str, title: str) -> Claim:
    h = len(axes)
    enc = FrequencyMap(_TH[:h], axes=axes)
    m, n = positions("m", 3), positions("n", 3)
    lhs, rhs = _sides(enc, m, n)
    x = sp.Symbol("x", integer=True)
    counts = sp.ImmutableMatrix([sum(1 for a in axes if a == k) for k in range(3)])
    return Claim(id, f"{title}: every axis gets exactly its section ({list(sections)} pairs of t, h, w), the "
                 "rotation is relative in the position vector (R(m)^T R(n) = R(n - m)), and with t = h = w = x it is "
                 "1-D RoPE R(x).",
                 (Equation(counts, sp.ImmutableMatrix(list(sections)), "pairs per axis = sections"),
                  Equation(sp.ImmutableMatrix(lhs), sp.ImmutableMatrix(rhs), "R(m)^T R(n) = R(n - m)"),
                  Equation(sp.ImmutableMatrix(enc.matrix((x, x, x))),
                           sp.ImmutableMatrix(FrequencyMap(_TH[:h]).matrix((x,))), "t = h = w = x: 1-D RoPE")),
                 (), source)


@theorem("openpangu.layout", "openPangu's greedy M-RoPE interleave: sections kept, relative, RoPE when t = h = w",
         SRC_PANGU, concrete=False, latex=r"R(m)^{\mathsf T} R(n) = R(n - m), \quad R(x, x, x) = R_{1D}(x)")
def _pangu(d: int | None) -> Claim:
    secs = (2, 3, 3)
    return _layout_claim("openpangu.layout", V.openpangu_axes(secs), secs, SRC_PANGU,
                         f"openPangu's interleave of sections {secs} is {V.openpangu_axes(secs)}")


@theorem("bailing.layout", "Bailing's M-RoPE (h/w alternating, t last): sections kept, relative, RoPE when t = h = w",
         SRC_BAILING, concrete=False, latex=r"R(m)^{\mathsf T} R(n) = R(n - m), \quad R(x, x, x) = R_{1D}(x)")
def _bailing(d: int | None) -> Claim:
    secs = (2, 2, 2)
    return _layout_claim("bailing.layout", V.bailing_axes(secs), secs, SRC_BAILING,
                         f"Bailing's layout of sections {secs} is {V.bailing_axes(secs)}")


def _split_int(x: sp.Expr) -> tuple[sp.Matrix, sp.Matrix]:
    from ...encodings import family as F

    return (sp.Matrix(F.rope_matrix(x, _TH[:2], layout="split")), sp.Matrix(F.rope_matrix(x, _TH[:2], layout="interleaved")))


@theorem("indexer.permutation", "The indexer's split pairs are the attention's interleaved pairs, permuted",
         SRC_INDEXER, concrete=False, latex=r"P\,R_{\mathrm{int}}(m)\,P^{\mathsf T} = R_{\mathrm{split}}(m)")
def _indexer_perm(d: int | None) -> Claim:
    from ...encodings import family as F

    m = sp.Symbol("m", integer=True)
    rs, ri = _split_int(m)
    P = sp.Matrix(F.partial_layout_permutation(4, 4))
    return Claim("indexer.permutation",
                 "DeepSeek-V3.2 / GLM-5 rotate the attention's q/k in interleaved pairs and the sparse indexer's in "
                 "split (GPT-NeoX) pairs unless indexer_rope_interleave. Both use the same frequencies: the split "
                 "rotation is the interleaved one conjugated by the pairing permutation P (slot 2i -> i, 2i+1 -> "
                 "i + d/2), so each sub-module is relative on its own and a checkpoint's indexer rows in one pairing "
                 "serve the other after permuting.",
                 (Equation(sp.ImmutableMatrix(P * ri * P.T), sp.ImmutableMatrix(rs), "P R_int(m) P^T = R_split(m)"),),
                 (), SRC_INDEXER)


@theorem("indexer.mixed_pairing", "A query rotated in split pairs against a key in interleaved pairs is relative; "
         "refuted", SRC_INDEXER, concrete=False, expect="refuted",
         latex=r"R_{\mathrm{split}}(m)^{\mathsf T} R_{\mathrm{int}}(n) = R_{\mathrm{split}}(0)^{\mathsf T} R_{\mathrm{int}}(n - m)")
def _indexer_mixed(d: int | None) -> Claim:
    m, n = sp.symbols("m n", integer=True)
    a, _ = _split_int(m)
    _, b = _split_int(n)
    a0, _ = _split_int(sp.Integer(0))
    _, b1 = _split_int(n - m)
    return Claim("indexer.mixed_pairing",
                 "Reading an indexer's keys with the attention's pairing (or the reverse), the score uses "
                 "R_split(m)^T R_int(n), which is not a function of n - m (false claim, registered to be refuted: "
                 "the per-sub-module pairing matters).",
                 (Equation(sp.ImmutableMatrix(a.T * b), sp.ImmutableMatrix(a0.T * b1), "mixed pairings"),), (), SRC_INDEXER)


@theorem("chatglm.relative_2d", "ChatGLM-6B's 2-D rotation is relative in (position, block position)",
         SRC_CHATGLM, concrete=False, latex=r"R(p, b)^{\mathsf T} R(p', b') = R(p' - p,\ b' - b)")
def _chatglm(d: int | None) -> Claim:
    p, b, p2, b2 = sp.symbols("p b p2 b2", integer=True)
    R = lambda x, y: sp.Matrix(V.chatglm_matrix(x, y, 8))  # noqa: E731
    return Claim("chatglm.relative_2d",
                 "ChatGLM-6B turns the first half of each head with the token position and the second half with the "
                 "block position (RoPE of dimension head_dim/2 each, base 10000): an axial RoPE in two coordinates, "
                 "relative in the 2-D position (head_dim 8).",
                 (Equation(sp.ImmutableMatrix(R(p, b).T * R(p2, b2)), sp.ImmutableMatrix(R(p2 - p, b2 - b)),
                           "R(p, b)^T R(p', b') = R(p' - p, b' - b)"),), (), SRC_CHATGLM)


@theorem("chatglm.token_offset", "ChatGLM-6B's scores depend on the token offset only; refuted (generated tokens "
         "keep the mask position and count the block position)", SRC_CHATGLM, concrete=False, expect="refuted",
         latex=r"R(g(c-2))^{\mathsf T} R(g(c-1)) = R(g(c))^{\mathsf T} R(g(c+1)), \\ "
         r"g(j) = (j, 0)\ (j < c),\quad (c - 1,\ j - c + 1)\ (j \ge c)")
def _chatglm_tokens(d: int | None) -> Claim:
    c = 5

    def g(j: int) -> tuple[int, int]:  # ChatGLM-6B: context (j, 0); generated (mask position, 1, 2, ...)
        return (j, 0) if j < c else (c - 1, j - c + 1)

    R = lambda pos: sp.Matrix(V.chatglm_matrix(pos[0], pos[1], 8))  # noqa: E731
    return Claim("chatglm.token_offset",
                 f"With a context of {c} tokens, tokens ({c - 2}, {c - 1}) and ({c}, {c + 1}) are one token apart, "
                 "but their 2-D positions differ by (1, 0) and (0, 1): the scores differ (false claim, registered "
                 "to be refuted: ChatGLM-6B is relative in its 2-D positions, not in token indices).",
                 (Equation(sp.ImmutableMatrix(R(g(c - 2)).T * R(g(c - 1))), sp.ImmutableMatrix(R(g(c)).T * R(g(c + 1))),
                           "equal token offsets, equal scores"),), (), SRC_CHATGLM)


@theorem("linear.multi_factor", "vLLM's multi-factor linear cache: row offset(s) + t is linear RoPE of factor s at t",
         SRC_MULTI, concrete=False, latex=r"\mathrm{row}(o_k + t) = t\,\theta_i / s_k, \quad 0 \le t < \lceil L s_k \rceil")
def _multi(d: int | None) -> Claim:
    L, factors = 8, (1.0, 2.0, 4.0)
    offs = V.linear_multi_offsets(L, factors)
    r, t = sp.symbols("r t", integer=True, nonnegative=True)
    th = _TH[0]
    pieces = []
    for s in factors:
        o, size = offs[s], int(sp.ceiling(L * sp.Rational(s)))
        pieces.append(((r - o) / sp.Rational(s) * th, sp.And(r >= o, r < o + size)))
    row = sp.Piecewise(*pieces, (sp.Integer(0), True))
    eqs = []
    for s in factors:
        o, size = offs[s], int(sp.ceiling(L * sp.Rational(s)))
        # every row of the block, t = 0 .. size - 1 (a concrete table: each row checked)
        eqs.append(Equation(sp.ImmutableMatrix([row.subs(r, o + k) for k in range(size)]),
                            sp.ImmutableMatrix([k * th / sp.Rational(s) for k in range(size)]),
                            f"factor {s}: rows {o} .. {o + size - 1} hold t theta / {s}"))
    return Claim("linear.multi_factor",
                 f"vLLM keeps one cos/sin block per LoRA factor ({list(factors)}, L = {L}), concatenated: offsets "
                 f"{dict(offs)}. Each row o_k + t of the concatenated angle table is t theta / s_k, linear RoPE of "
                 "factor s_k at position t, for every row of every block.", tuple(eqs), (), SRC_MULTI)


_s, _w = sp.Symbol("s", positive=True), sp.Symbol("w", integer=True, positive=True)
_lo, _i = sp.Symbol("low", integer=True, nonnegative=True), sp.Symbol("i", integer=True, nonnegative=True)
_theta = sp.Symbol("theta", positive=True)


@theorem("llamacpp.ext_factor_one", "llama.cpp's rope_yarn with ext_factor = 1 is HF's YaRN: the blend and "
         "the magnitude 0.1 ln s + 1", SRC_LCPP, concrete=False,
         latex=r"\theta_{\mathrm{ggml}} = \frac{\theta}{s}\gamma + \theta(1 - \gamma), \quad \gamma = "
         r"\operatorname{clamp}\Big(\frac{i - \mathrm{low}}{\mathrm{high} - \mathrm{low}}, 0, 1\Big), \quad "
         r"\mathrm{mscale} = 1 + 0.1 \ln s")
def _ext1(d: int | None) -> Claim:
    high = _lo + _w  # floor / ceil make the range integers; high > low
    th, ms = V.llamacpp_yarn(_theta, _i, 1 + _s, _lo, high, 1)
    gamma = sp.Min(sp.Max((_i - _lo) / (high - _lo), 0), 1)
    hf = _theta / (1 + _s) * gamma + _theta * (1 - gamma)
    return Claim("llamacpp.ext_factor_one",
                 "For a correction range low < high (integers, as floor / ceil leave them) and a factor s' = 1 + s > 1, "
                 "llama.cpp's rope_yarn with ext_factor = 1 gives HF's YaRN frequency (theta/s') gamma + theta (1 - "
                 "gamma) and multiplies cos and sin by 1 + 0.1 ln s', HF's get_mscale(s').",
                 (Equation(th, hf, "the blend"), Equation(ms, sp.log(1 + _s) / 10 + 1, "the magnitude")), (), SRC_LCPP)


@theorem("llamacpp.ext_factor_zero", "llama.cpp with ext_factor = 0 keeps YaRN's attention factor; refuted",
         SRC_LCPP, concrete=False, expect="refuted",
         latex=r"\mathrm{mscale}_{\mathrm{ext}=0} = 1 + 0.1 \ln s \quad (s > 1)")
def _ext0(d: int | None) -> Claim:
    th, ms = V.llamacpp_yarn(_theta, _i, 1 + _s, _lo, _lo + _w, 0)
    return Claim("llamacpp.ext_factor_zero",
                 "With ext_factor = 0 rope_yarn returns theta / s for every pair (theorem part, true) and leaves mscale "
                 "at attn_factor = 1: YaRN's magnitude factor 1 + 0.1 ln s is dropped (false claim, registered to be "
                 "refuted).",
                 (Equation(th, _theta / (1 + _s), "every pair interpolated"), Equation(ms, sp.log(1 + _s) / 10 + 1,
                                                                                      "the magnitude kept")),
                 (), SRC_LCPP)


@theorem("llamacpp.degenerate_range", "llama.cpp's ramp is HF's for every correction range; refuted (high < low)",
         SRC_LCPP, concrete=False, expect="refuted",
         latex=r"1 - \operatorname{clamp}\Big(\frac{i - \mathrm{low}}{\max(0.001,\ \mathrm{high} - \mathrm{low})}\Big) = "
         r"1 - \operatorname{clamp}\Big(\frac{i - \mathrm{low}}{\mathrm{high} - \mathrm{low}}\Big) \quad (\mathrm{low} = 5, "
         r"\mathrm{high} = 3, i = 4)")
def _degenerate(d: int | None) -> Claim:
    low, high, i = 5, 3, 4  # the clamps to [0, d - 1] can leave high < low (tiny bases, long contexts)
    th, _ = V.llamacpp_yarn(_theta, i, 1 + _s, low, high, 1)
    gamma = sp.Min(sp.Max(sp.Rational(i - low, high - low), 0), 1)
    hf = _theta / (1 + _s) * gamma + _theta * (1 - gamma)
    return Claim("llamacpp.degenerate_range",
                 "When the clamped correction range has high < low, HF divides by the negative high - low while "
                 "llama.cpp divides by max(0.001, high - low) = 0.001: at low = 5, high = 3, pair 4 HF blends half "
                 "and half, llama.cpp keeps theta (false claim, registered to be refuted).",
                 (Equation(th, hf, "the ramps agree"),), (), SRC_LCPP)
