"""The RoPE family's frequency pictures: theta'_i against the pair index i, one curve per
scaling, for real model configs (pe_symbolic.numeric.rope_frequencies).

Each page of docs/family/ draws one function of this file with the plot directive
(``.. plot:: rope_family.py llama3``).
"""

import matplotlib.pyplot as plt
import mpmath
import numpy as np

from pe_symbolic import numeric
from pe_symbolic.numeric.lower import family_formula
from pe_symbolic.encodings.family import mrope_axes

AXIS_COLOURS = ("tab:blue", "tab:orange", "tab:green")


def _plain(cfg, **over):
    """The config without its scaling (the default ladder), with some fields replaced."""
    out = {k: v for k, v in cfg.items() if k not in ("rope_scaling", "rope_parameters", "rope_local_base_freq")}
    out.update(over)
    return out


def _axes(title):
    fig, ax = plt.subplots(figsize=(8, 3.8))
    ax.set_yscale("log")
    ax.set_xlabel("pair index i")
    ax.set_ylabel(r"$\theta'_i$ (radians per position)")
    ax.set_title(title)
    return fig, ax


def _finish(fig, ax):
    ax.legend(fontsize=8)
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()


def linear():
    cfg = numeric.model_config("gemma-3-27b")
    fig, ax = _axes("linear (position interpolation): Gemma 3 27B global layers, factor 8")
    i = np.arange(64)
    ax.plot(i, numeric.rope_frequencies(_plain(cfg["text_config"]))[0], label="default, b = 1e6")
    ax.plot(i, numeric.rope_frequencies(cfg, layer_type="full_attention")[0], label=r"linear: $\theta_i / 8$")
    _finish(fig, ax)


def ntk():
    cfg = numeric.model_config("qwen2.5-7b")
    fig, ax = _axes("NTK-aware and dynamic NTK, factor 4: Qwen2.5-7B (b = 1e6, d = 128, L' = 32768)")
    i = np.arange(64)
    ax.plot(i, numeric.rope_frequencies(cfg)[0], label="default", lw=2)
    ax.plot(i, numeric.rope_frequencies(cfg | {"rope_scaling": {"rope_type": "linear", "factor": 4.0}})[0],
            label=r"linear $\theta_i/4$", ls=":")
    # the static NTK-aware base is not a config type: its lowered element formula (ntk.derive)
    static = family_formula("ntk")
    with mpmath.workdps(40):
        ax.plot(i, [float(static(int(k), 128, 1e6, 4)) for k in i], label=r"static NTK-aware $b' = b\,4^{d/(d-2)}$")
    ax.plot(i, numeric.rope_frequencies(cfg | {"rope_scaling": {"rope_type": "ntk", "factor": 4.0}})[0], ls="-.",
            label="config \"ntk\" (vLLM's fixed NTK): $(4b)^{-2i/d} / 4^{2/d}$")
    dyn = cfg | {"rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}
    for n in (65536, 131072):
        ax.plot(i, numeric.rope_frequencies(dyn, seq_len=n)[0], ls="--", label=f"dynamic at n = {n}")
    _finish(fig, ax)


def yarn():
    cfg = numeric.model_config("qwen2.5-7b-yarn")
    fig, ax = _axes("YaRN: Qwen2.5-7B with factor 4 over 32768 (as Qwen documents for 128K)")
    i = np.arange(64)
    ax.plot(i, numeric.rope_frequencies(_plain(cfg))[0], label="default", lw=2)
    ax.plot(i, numeric.rope_frequencies(_plain(cfg, rope_scaling={"rope_type": "linear", "factor": 4.0}))[0],
            ls=":", label=r"linear $\theta_i/4$")
    ax.plot(i, numeric.rope_frequencies(cfg)[0], label="yarn (truncate: low = 23, high = 40)")
    no_trunc = cfg | {"rope_scaling": cfg["rope_scaling"] | {"truncate": False}}
    ax.plot(i, numeric.rope_frequencies(no_trunc)[0], ls="--", label="yarn, truncate = false")
    for edge in (23, 40):
        ax.axvline(edge, color="grey", lw=0.8, ls=":")
    _finish(fig, ax)


def longrope():
    cfg = numeric.model_config("phi-3.5-mini")
    fig, ax = _axes("LongRoPE: Phi-3.5-mini (d = 96, 4096 -> 131072)")
    i = np.arange(48)
    ax.plot(i, numeric.rope_frequencies(_plain(cfg))[0], label="default", lw=2)
    ax.plot(i, numeric.rope_frequencies(cfg, seq_len=4096)[0], label="short_factor (seq_len <= 4096)")
    ax.plot(i, numeric.rope_frequencies(cfg, seq_len=4097)[0], label="long_factor (seq_len > 4096)")
    _finish(fig, ax)


def llama3():
    cfg = numeric.model_config("llama-3.1-8b")
    fig, ax = _axes("llama3: Llama-3.1-8B (b = 500000, factor 8, L = 8192, low/high = 1/4)")
    i = np.arange(64)
    ax.plot(i, numeric.rope_frequencies(_plain(cfg))[0], label="default", lw=2)
    ax.plot(i, numeric.rope_frequencies(_plain(cfg, rope_scaling={"rope_type": "linear", "factor": 8.0}))[0],
            ls=":", label=r"linear $\theta_i/8$")
    ax.plot(i, numeric.rope_frequencies(cfg)[0], label="llama3")
    ax.axvspan(28.5, 34.5, color="grey", alpha=0.15, label="smoothed band: pairs 29..34")
    _finish(fig, ax)


def partial():
    fig, ax = _axes("partial rotary and proportional RoPE")
    neox = numeric.model_config("gpt-neox-20b")
    inv = numeric.rope_frequencies(neox)[0]
    ax.plot(np.arange(inv.size), inv, "o-", ms=3, label="GPT-NeoX-20B: 24 of 96 channels, b^(-2i/24)")
    full = numeric.rope_frequencies(_plain(neox, rotary_pct=1.0))[0]
    ax.plot(np.arange(full.size), full, ls=":", label="the same head fully rotary, b^(-2i/96)")
    prop = numeric.rope_frequencies({"head_dim": 96, "rope_parameters": {
        "rope_type": "proportional", "rope_theta": 10000.0, "partial_rotary_factor": 0.25}})[0]
    nz = prop > 0
    ax.plot(np.arange(prop.size)[nz], prop[nz], "s", ms=3,
            label="proportional, factor 0.25: b^(-2i/96), then 36 zero frequencies")
    _finish(fig, ax)


def mrope():
    cfg = numeric.model_config("qwen2-vl-7b")
    inv = numeric.rope_frequencies(cfg)[0]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    for ax, secs, inter, name in ((a1, (16, 24, 24), False, "Qwen2-VL: contiguous [16, 24, 24]"),
                                  (a2, (24, 20, 20), True, "Qwen3-VL: interleaved [24, 20, 20]")):
        axes = np.array(mrope_axes(secs, interleaved=inter))
        for a, label in enumerate("thw"):
            sel = axes == a
            ax.semilogy(np.arange(64)[sel], inv[sel], "o", ms=3.5, color=AXIS_COLOURS[a], label=f"{label} position")
        ax.set_title(name + r"; $\theta_i = 10^{6\,(-2i/128)}$", fontsize=10)
        ax.set_ylabel(r"$\theta_i$")
        ax.legend(fontsize=8, ncol=3)
    a2.set_xlabel("pair index i")
    fig.tight_layout()


def axial():
    from pe_symbolic.encodings.family import axial_thetas

    d = 80  # Qwen2-VL's vision tower: 1280 / 16 heads
    inv = numeric.rope_frequencies({"head_dim": d // 2, "rope_theta": 10000.0})[0]
    th = np.concatenate([inv, inv])
    assert len(axial_thetas(d, base=10000)) == th.size
    fig, ax = _axes("2-D axial RoPE: Qwen2-VL vision tower (head_dim 80, b = 10000)")
    ax.plot(np.arange(20), th[:20], "o", color=AXIS_COLOURS[0], label="pairs 0..19 turn with the row")
    ax.plot(np.arange(20, 40), th[20:], "o", color=AXIS_COLOURS[1], label="pairs 20..39 turn with the column")
    _finish(fig, ax)


def xpos():
    from pe_symbolic.encodings.family import XPOS_GAMMA

    d = 128
    zeta = (2 * np.arange(d // 2) + 0.4 * d) / (1.4 * d)
    fig, ax = plt.subplots(figsize=(8, 3.8))
    for dist in (64, 512, 2048, 8192):
        ax.semilogy(np.arange(d // 2), zeta ** (dist / XPOS_GAMMA), label=f"m - n = {dist}")
    ax.set_xlabel("pair index i")
    ax.set_ylabel(r"$\zeta_i^{(m-n)/\gamma}$")
    ax.set_title(r"xPos: the per-pair factor of the score, $\zeta_i = (2i + 0.4d)/(1.4d)$, d = 128, $\gamma$ = 512")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()


def gemma3():
    cfg = numeric.model_config("gemma-3-27b")
    fig, ax = _axes("Gemma 3 27B: one base per layer type")
    i = np.arange(64)
    ax.plot(i, numeric.rope_frequencies(cfg, layer_type="sliding_attention")[0],
            label="sliding_attention (local): default, b = 10000")
    ax.plot(i, numeric.rope_frequencies(cfg, layer_type="full_attention")[0],
            label="full_attention (global): b = 1e6, linear factor 8")
    _finish(fig, ax)

