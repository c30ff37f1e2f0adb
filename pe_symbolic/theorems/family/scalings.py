r"""The RoPE family, the scalings that change only the frequencies: ``family.relative`` (RoPE with
an arbitrary frequency vector keeps attention scores functions of :math:`n - m`), linear
interpolation, NTK-aware and dynamic NTK (with the honest negative of mixed bases), YaRN,
Llama 3 and LongRoPE (with the honest negative of its short/long switch)."""

from __future__ import annotations

import sympy as sp

from ..._validate import LAYOUTS
from ...encodings import family as F
from ...encodings import pairs as Q
from ...encodings import rope as R
from ...encodings import symbols as S
from ...proof import Claim, Equation
from .._derive import at
from ..registry import Built, theorem
from ._common import (DENSE_MAX, EVERY_D_FAMILY, L, SRC_HF, SRC_LLAMA3, SRC_LONGROPE, SRC_NTK, SRC_PI,
                      SRC_ROFORMER, SRC_YARN, THETA, _dot, _family_instance, _freq, _generic_or, _ladder,
                      _per_pair_relative, _relative_every_d, _relative_parts, _shift_invariance,
                      _theta_symbols, _x, _z, b, m, n, s)

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
