r"""
The RoPE family that real models ship: scalings, partial, multimodal, 2-D rotary, xPos
======================================================================================

Every member is a frequency vector (and an attention factor) built from the default ladder
:math:`\theta_i = b^{-2i/d}`; the relative property holds for any frequency vector
(:claim:`family.relative`), two honest negatives show where real deployments break it, and
the frequencies of real model configs are computed within 1 ulp of the mpmath oracle.

Run it yourself: ``python derivations/rope_family.py [--d N] [--plot]``. The exit status is 0 when
every claim gets its registered verdict, 1 otherwise, 2 for a bad option or a missing
package. The honest negatives are shown in their generic form only (refuting them for a
concrete d takes the engine minutes: it tries every simplification strategy before it
samples).
"""

# %%
# The tutorial helpers come from the package (:mod:`pe_symbolic.tutorial`). From a checkout,
# ``derivations/_common.py`` first puts that checkout's package on the path (or says in one
# line what to install); a downloaded copy of this script uses the installed package.
try:
    import _common  # noqa: F401
except ModuleNotFoundError:
    pass
from pe_symbolic.tutorial import Report, figure, heading, parse_args, say, show

import mpmath
import numpy as np
import sympy as sp

from pe_symbolic import numeric, reference, theorems
from pe_symbolic.encodings import family as F
from pe_symbolic.encodings.symbols import d as d_sym
from pe_symbolic.encodings.symbols import i
from pe_symbolic.theorems.family import roformer_decay

d = parse_args(default_d=8).d
rep = Report()


def _ulps(num, ref) -> float:
    """The largest error of ``num`` against ``ref``, in units in the last place of float64."""
    worst = 0.0
    with mpmath.workdps(60):
        for a, r in zip(num, ref):
            if r == 0:
                worst = max(worst, 0.0 if a == 0 else float("inf"))
                continue
            _, e = mpmath.frexp(r)
            worst = max(worst, float(abs(mpmath.mpf(float(a)) - r) / mpmath.ldexp(1, int(e) - 53)))
    return worst


def both(id_: str) -> None:
    """Prove a claim in its generic form and, if it has one, for the chosen d."""
    rep.prove(id_)
    if theorems.get(id_).concrete:
        rep.prove(id_, d)


# %%
# One shape: RoPE with any frequency vector
# -----------------------------------------
heading("1. One shape: RoPE with any frequency vector")
show("the default ladder theta_i", F.default_theta(i, d_sym))
say("""A scaling is a function from this ladder to a new vector theta' (and an attention
    factor). The relative property needs nothing of theta but that queries and keys share
    it:""")
both("family.relative")
both("linear.interpolation")

# %%
# The figure shows four of those functions on one model (Llama 3's ladder, :math:`b = 500000`,
# :math:`d = 128`, 8192 training positions, factor 8), as computed from a ``config.json`` by
# :func:`pe_symbolic.numeric.rope_frequencies`: each pair's new frequency over the default
# one. Linear interpolation slows every pair by 8; NTK (HF's ``dynamic`` at 15360 positions,
# where its base has grown by :math:`8^{d/(d-2)}`) keeps pair 0 and slows the last by about 8;
# YaRN and Llama 3 keep the fast pairs, slow the slow ones by 8 and blend in between.
fig = figure(figsize=(6.4, 3.4))
if fig is not None:
    ax = fig.subplots()
    llama = {"rope_theta": 500000.0, "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
             "max_position_embeddings": 8192}
    default, _ = numeric.rope_frequencies(llama)
    scalings = [("linear", {"rope_type": "linear", "factor": 8.0}, {}),
                ("NTK (dynamic)", {"rope_type": "dynamic", "factor": 8.0}, {"seq_len": 15360}),
                ("YaRN", {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192}, {}),
                ("Llama 3", {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                             "original_max_position_embeddings": 8192}, {})]
    for label, scaling, kw in scalings:
        cfg = dict(llama, rope_scaling=scaling)
        if "original_max_position_embeddings" in scaling:
            cfg["max_position_embeddings"] = 65536
        scaled, _ = numeric.rope_frequencies(cfg, **kw)
        ax.plot(np.arange(default.size), scaled / default, lw=1.5, label=label)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("pair i")
    ax.set_ylabel("θ'_i / θ_i")
    ax.legend(fontsize=8)
    fig.tight_layout()


# %%
# NTK-aware and dynamic NTK
# -------------------------
heading("2. NTK-aware and dynamic NTK")
show("static NTK base b'", F.ntk_base())
show("HF dynamic base b'(n)", F.dynamic_base())
rep.prove("ntk.derive")
rep.prove("dynamic.continuity")
say("""The dynamic base depends on the current length. A KV cache keeps keys rotated under
    an earlier base: the claim that the score is still a function of n - m is false, and
    the engine prints a counterexample.""")
rep.prove("dynamic.mixed_bases")


# %%
# YaRN
# ----
heading("3. YaRN")
show("correction dimension j(r)", F.yarn_correction_dim(sp.Symbol("r", positive=True)))
both("yarn.correction_dim")
spec = numeric.parse_rope_config(numeric.model_config("qwen2.5-7b-yarn"))
for r in (spec.beta_fast, spec.beta_slow):
    jr = F.yarn_correction_dim(sp.Float(r), spec.rotary_dim, sp.Float(spec.rope_theta),
                               spec.original_max_position_embeddings)
    print(f"Qwen2.5-7B with YaRN (b = 1e6, d = 128, L = 32768): j({r:g}) = {sp.N(jr, 8)}")
print()
rep.prove("yarn.blend")
both("yarn.attention_factor")
both("yarn.relative")


# %%
# Llama 3
# -------
heading("4. Llama 3")
rep.prove("llama3.continuity")
rep.prove("llama3.monotone")
rep.prove("llama3.bands_llama31")


# %%
# LongRoPE
# --------
heading("5. LongRoPE")
both("longrope.relative")
rep.prove("longrope.switch")


# %%
# Partial rotary, proportional, and the pairing permutation
# ---------------------------------------------------------
heading("6. Partial rotary, proportional, and the pairing permutation")
both("partial.relative")
both("proportional.relative")
both("partial.permutation")


# %%
# Multimodal and 2-D RoPE, xPos
# -----------------------------
heading("7. Multimodal and 2-D RoPE, xPos")
both("mrope.homomorphism")
both("mrope.reduces_to_rope")
rep.prove("axial.homomorphism")
both("xpos.relative")


# %%
# RoFormer's long-term decay
# --------------------------
heading("8. RoFormer's long-term decay")
both("roformer.abel")
rep.certificate(roformer_decay(128, 4096))


# %%
# Real configs: frequencies against the mpmath oracle
# ---------------------------------------------------
heading("9. Real configs: frequencies against the mpmath oracle")
print(f"{'model':38s} {'rope_type':13s} {'pairs':>5s} {'attention':>10s} {'max ulp':>8s}")
for name in sorted(numeric.model_configs()):
    cfg = numeric.model_config(name)
    kws = [{"layer_type": "full_attention"}, {"layer_type": "sliding_attention"}] if name.startswith("gemma") \
        else [{"seq_len": 4096}, {"seq_len": 4097}] if name.startswith("phi") else [{}]
    for kw in kws:
        spec = numeric.parse_rope_config(cfg, layer_type=kw.get("layer_type"))
        inv, af = numeric.rope_frequencies(cfg, **kw)
        rinv, _ = reference.rope_frequencies(cfg, **kw)
        tag = name + ("" if not kw else f" ({list(kw.values())[0]})")
        print(f"{tag:38s} {spec.rope_type:13s} {inv.size:5d} {af:10.6f} {_ulps(inv, rinv):8.3f}")
print()

# %%
# The summary: every claim with its registered verdict.
rep.finish()
