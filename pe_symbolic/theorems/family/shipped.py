"""The RoPE family as real configs and engines ship it (issue 23): Hunyuan's fixed NTK alpha, the
axial vision ladders of Hugging Face, DeepSeek's interleaved-in / split-out pairing, vLLM's
mixed NTK, TeleChat3's attention factor and DeepSeek-V4's conjugate rotation of the output."""

from __future__ import annotations

import sympy as sp

from ...encodings import family as F
from ...encodings import symbols as S
from ...proof import Claim, Equation
from .._derive import at
from ..registry import theorem
from ._common import _dim, _dot, _factor, _ladder, _theta_symbols, _x, b, m, n

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
