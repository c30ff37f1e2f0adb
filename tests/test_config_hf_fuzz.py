"""Fuzz :func:`pe_symbolic.numeric.rope_frequencies` against HF transformers' own RoPE init functions.

Skipped unless ``transformers`` and ``torch`` are installed. HF computes in float32
(``dtype=torch.float``); to compare formulas rather than float32 rounding, each HF function
runs with the module's ``torch.float``/``torch.float32`` mapped to ``torch.float64`` (a proxy
module patched into ``transformers.modeling_rope_utils``), float64 as torch's default dtype
and ``Tensor.float()`` (LongRoPE's exponent) casting to float64, all restored afterwards.

HF's float64 pipeline rounds several times (``base ** (arange/dim)``, ``1/x``, the blend),
so it is not correctly rounded: a *mismatch* is a relative difference above ``1e-12``
(thousands of ulps: a different formula or a different band decision, not rounding), and
the largest difference in ulps is reported. Target: 0 mismatches.
"""

from __future__ import annotations

import math
import types
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
mru = pytest.importorskip("transformers.modeling_rope_utils")

from pe_symbolic import numeric  # noqa: E402
from pe_symbolic.numeric._spec import AXIAL_MODEL_TYPES  # noqa: E402

REL = 1e-12
CASES_PER_TYPE = 60


class _Cfg:
    """The attributes HF's init functions read (the rope dict already standardised)."""

    def __init__(self, head_dim, max_pos, rope):
        self.head_dim, self.max_position_embeddings, self.rope_parameters = head_dim, max_pos, rope
        self.hidden_size, self.num_attention_heads = head_dim * 8, 8

    def standardize_rope_params(self):
        pass


def _torch64():
    proxy = types.ModuleType("torch64")
    proxy.__dict__.update({k: getattr(torch, k) for k in dir(torch) if not k.startswith("__")})
    proxy.float = proxy.float32 = torch.float64
    return proxy


def _hf(kind, head_dim, max_pos, rope, seq_len=None):
    fn = mru.ROPE_INIT_FUNCTIONS[kind]
    saved, saved_dtype, saved_float = mru.torch, torch.get_default_dtype(), torch.Tensor.float
    mru.torch = _torch64()
    torch.set_default_dtype(torch.float64)  # dynamic's int seq_len tensor / int divides in the default dtype
    torch.Tensor.float = lambda self, *a, **k: self.to(torch.float64)  # longrope's arange(...).float()
    try:
        inv, af = fn(_Cfg(head_dim, max_pos, dict(rope)), "cpu", seq_len)
    finally:
        mru.torch = saved
        torch.set_default_dtype(saved_dtype)
        torch.Tensor.float = saved_float
    return inv.to(torch.float64).numpy(), float(af)


def _draw(rng, kind):
    head = int(rng.choice([32, 48, 64, 80, 96, 128, 256]))
    base = float(rng.choice([10000.0, 500000.0, 1e6, float(rng.integers(1000, 10 ** 7))]))
    factor = float(rng.choice([2.0, 4.0, 8.0, 16.0, 40.0, round(float(rng.uniform(1.0, 64.0)), 3)]))
    orig = int(rng.choice([2048, 4096, 8192, 32768]))
    rope = {"rope_type": kind, "rope_theta": base}
    if kind in ("linear", "dynamic", "yarn", "llama3"):
        rope["factor"] = factor
    if kind in ("yarn", "llama3", "longrope"):
        rope["original_max_position_embeddings"] = orig
    if kind == "yarn":
        if rng.random() < 0.5:
            rope["beta_fast"], rope["beta_slow"] = float(rng.choice([16, 32, 64])), float(rng.choice([1, 2]))
        if rng.random() < 0.3:
            rope["mscale"], rope["mscale_all_dim"] = float(rng.choice([0.707, 1.0])), float(rng.choice([0.707, 1.0]))
        if rng.random() < 0.2:
            rope["truncate"] = False
    if kind == "llama3":
        lo = float(rng.choice([1.0, 2.0]))
        rope["low_freq_factor"], rope["high_freq_factor"] = lo, lo + float(rng.choice([1.0, 3.0]))
    if kind == "longrope":
        rope["short_factor"] = [round(float(x), 4) for x in rng.uniform(1.0, 3.0, head // 2)]
        rope["long_factor"] = [round(float(x), 4) for x in rng.uniform(1.0, 60.0, head // 2)]
        if rng.random() < 0.5:
            rope["factor"] = factor
    if kind == "proportional":
        rope["partial_rotary_factor"] = float(rng.choice([0.25, 0.5, 1.0]))
        if rng.random() < 0.5:
            rope["factor"] = factor
    max_pos = orig * int(max(2, math.ceil(factor)))
    return head, max_pos, rope


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_fuzz_against_hf_init_functions(capsys):
    rng = np.random.default_rng(20231)
    kinds = sorted(mru.ROPE_INIT_FUNCTIONS)
    mismatches, worst_ulps, cases = [], 0.0, 0
    for kind in kinds:
        for _ in range(CASES_PER_TYPE):
            head, max_pos, rope = _draw(rng, kind)
            seqs = [None]
            if kind == "dynamic":
                seqs = [max_pos // 2, max_pos * 3]
            if kind == "longrope":
                seqs = [rope["original_max_position_embeddings"], rope["original_max_position_embeddings"] + 1]
            for seq in seqs:
                cfg = {"head_dim": head, "max_position_embeddings": max_pos, "rope_parameters": rope}
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    hf_inv, hf_af = _hf(kind, head, max_pos, rope,
                                        None if seq is None else torch.tensor(seq))
                    ours = numeric.rope_frequencies(cfg, seq_len=seq)
                cases += 1
                inv = ours.inv_freq
                if inv.shape != hf_inv.shape:
                    mismatches.append((kind, head, rope, seq, "shape", inv.shape, hf_inv.shape))
                    continue
                nz = hf_inv != 0
                rel = np.abs(inv[nz] - hf_inv[nz]) / np.abs(hf_inv[nz])
                ulps = np.abs(inv[nz] - hf_inv[nz]) / np.spacing(np.abs(inv[nz]))
                worst_ulps = max(worst_ulps, float(ulps.max(initial=0.0)))
                if (inv[~nz] != 0).any() or (rel > REL).any() or abs(ours.attention_factor - hf_af) > REL * abs(hf_af):
                    mismatches.append((kind, head, rope, seq, float(rel.max(initial=0.0)), ours.attention_factor, hf_af))
    with capsys.disabled():
        print(f"\nHF fuzz: {cases} configs over {kinds}; mismatches {len(mismatches)}; "
              f"largest difference from HF's float64 pipeline {worst_ulps:.1f} ulp")
    assert not mismatches, mismatches[:3]


def test_deepseek_interleave_in_split_out_matches_hf():
    """HF's apply_rotary_pos_emb_interleave = interleaved RoPE with the output de-interleaved
    (claim deepseek.interleave_in_split_out), here against HF's own function in float64."""
    ds = pytest.importorskip("transformers.models.deepseek_v3.modeling_deepseek_v3")
    rng = np.random.default_rng(7)
    d, seq = 64, 5
    cfg = numeric.model_config("deepseek-v3")
    q = rng.standard_normal((1, 2, seq, d))
    inv, af = numeric.rope_frequencies(cfg)
    pos = np.arange(seq, dtype=np.float64) * 997
    freqs = pos[:, None] * inv[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = torch.from_numpy(np.cos(emb) * af)[None], torch.from_numpy(np.sin(emb) * af)[None]
    qt = torch.from_numpy(q)
    hf_q, _ = ds.apply_rotary_pos_emb_interleave(qt, qt.clone(), cos, sin)
    ours = numeric.apply_rope(q, pos, config=cfg, layout="interleaved")
    perm = np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])  # slot 2i -> i, 2i+1 -> i + d/2
    assert np.allclose(ours[..., perm], hf_q.numpy(), rtol=1e-12, atol=1e-12)


def test_every_hf_config_class_at_its_defaults():
    """Every configuration class of the installed transformers, at its defaults, whose rope type
    HF computes generically (default or ROPE_INIT_FUNCTIONS): the parser agrees with HF's
    formula on the object HF builds (head_dim as HF resolves it), or refuses / warns by name."""
    from benchmarks.hf_config_scan import _at_defaults, _config_classes

    agree, refused, bad = 0, 0, []
    for cls in _config_classes():
        built = _at_defaults(cls)
        if built is None:
            continue
        c, cfg = built
        rp = getattr(c, "rope_parameters", None)
        if (not isinstance(rp, dict) or not rp or any(isinstance(v, dict) for v in rp.values())
                or "text_config" in cfg):
            continue
        kind = rp.get("rope_type", "default")
        if kind != "default" and kind not in mru.ROPE_INIT_FUNCTIONS:
            continue
        if kind == "default" and cfg.get("model_type") in AXIAL_MODEL_TYPES:
            continue  # a 2-D ladder of the model's own (DINOv3): tools/hf_rope_sweep.py compares HF's rotary itself
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ours = numeric.rope_frequencies(cfg)
            except (ValueError, TypeError):
                refused += 1
                continue
            if kind == "default":
                hd = getattr(c, "head_dim", None) or c.hidden_size // c.num_attention_heads
                dim = int(hd * rp.get("partial_rotary_factor", 1.0))
                inv = 1.0 / (rp["rope_theta"] ** (np.arange(0, dim, 2) / dim))
                af = 1.0
            else:
                inv, af = mru.ROPE_INIT_FUNCTIONS[kind](c, "cpu")
                inv = inv.double().numpy()
        if inv.shape != ours.inv_freq.shape or np.max(np.abs(inv - ours.inv_freq) / ours.inv_freq) > 1e-5 \
                or abs(float(af) - ours.attention_factor) > 1e-6:
            bad.append(cls.__name__)
        else:
            agree += 1
    print(f"\nHF config classes at their defaults: {agree} agree, {refused} refused by name, {len(bad)} differ")
    assert agree > 100 and not bad, bad


def test_scan_of_every_hf_config_class_parses_warns_or_refuses_by_name(capsys):
    """benchmarks/hf_config_scan.py, whose figures docs/family/configs.md quotes: every config
    class with a RoPE-named key parses, warns naming a key, or is refused with a message
    (ValueError / TypeError); nothing else escapes."""
    from benchmarks.hf_config_scan import scan

    res = scan()
    with capsys.disabled():
        print("\n" + res.summary())
    parts = len(res.not_instantiated) + len(res.no_rope) + len(res.clean) + len(res.warned) + len(res.refused)
    assert parts == res.classes > 800
    assert len(res.clean) > 300 and all(res.warned.values()) and all(res.refused.values())
