"""Sparse ``config.json`` files read as the model's HF config class reads them (issue 34, item 1).

The first tests need nothing but the package: published sparse configs (Gemma-3-4b's), a sparse
Llama, GPT-J's attribute-map names, a ``per_layer_config`` head dim, a rope dict for a layer type
no layer has. The last ones (``transformers`` installed, no torch needed) hand sparse configs to
HF's own config classes and to :func:`pe_symbolic._hfconfig.normalize` and compare what each
holds, for every ``model_type`` of the shipped table.
"""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from pe_symbolic import numeric, reference
from pe_symbolic._hfconfig import _OWN_ROPE, hf_table, normalize, transformers_version
from pe_symbolic.numeric import UnknownConfigKeyWarning

#: google/gemma-3-4b-it's config.json as published (the vision part shortened): the text
#: model gives neither rope_theta nor rope_local_base_freq, nor heads, nor head dim.
GEMMA3_4B = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "boi_token_index": 255999,
    "eoi_token_index": 256000,
    "eos_token_id": [1, 106],
    "image_token_index": 262144,
    "initializer_range": 0.02,
    "mm_tokens_per_image": 256,
    "model_type": "gemma3",
    "text_config": {
        "hidden_size": 2560,
        "intermediate_size": 10240,
        "model_type": "gemma3_text",
        "num_hidden_layers": 34,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "torch_dtype": "bfloat16",
    "transformers_version": "4.50.0.dev0",
    "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                      "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27,
                      "patch_size": 14, "vision_use_head": False},
}


def test_the_table_names_its_transformers_version_and_is_package_data():
    data = json.loads((Path(numeric.__file__).parents[1] / "hf_defaults.json").read_text())
    assert data["transformers_version"] == transformers_version()
    assert data["generated_by"] == "tools/gen_hf_defaults.py"
    assert len(data["models"]) > 300
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert "hf_defaults.json" in pyproject


def test_gemma3_4b_published_config_reads_two_ropes_as_hf():
    """1e6 with the x8 linear factor on the full-attention layers, 10000 unscaled on the sliding
    ones; heads and head dim from Gemma3TextConfig's defaults. Never one base for both."""
    full = numeric.parse_rope_config(GEMMA3_4B, layer_type="full_attention")
    sliding = numeric.parse_rope_config(GEMMA3_4B, layer_type="sliding_attention")
    assert (full.rope_type, full.rope_theta, full.factor, full.head_dim) == ("linear", 1e6, 8.0, 256)
    assert (sliding.rope_type, sliding.rope_theta, sliding.factor, sliding.head_dim) == ("default", 1e4, None, 256)
    inv_full, af = numeric.rope_frequencies(GEMMA3_4B, layer_type="full_attention")
    inv_sliding, _ = numeric.rope_frequencies(GEMMA3_4B, layer_type="sliding_attention")
    ladder = lambda b: b ** -(np.arange(0, 256, 2) / 256)  # noqa: E731
    np.testing.assert_allclose(inv_full, ladder(1e6) / 8, rtol=1e-15)
    np.testing.assert_allclose(inv_sliding, ladder(1e4), rtol=1e-15)
    assert af == 1.0
    # the oracle reads the same config the same way (its own formulas)
    for lt, ours in (("full_attention", inv_full), ("sliding_attention", inv_sliding)):
        ref, _ = reference.rope_frequencies(GEMMA3_4B, layer_type=lt)
        np.testing.assert_array_max_ulp(ours, reference.to_float(ref), maxulp=1)
    with pytest.raises(ValueError, match="pass layer_type= one of them"):
        numeric.rope_frequencies(GEMMA3_4B)


def test_gemma3_4b_describe_shows_both_layer_types_and_the_defaults_it_took():
    d = numeric.describe(GEMMA3_4B)
    out = repr(d)
    rows = {e.layer_type: e for e in d.layers}
    assert set(rows) == {"full_attention", "sliding_attention"}
    assert rows["full_attention"].spec.rope_theta == 1e6 and rows["sliding_attention"].spec.rope_theta == 1e4
    assert rows["full_attention"].layer_indices == tuple(range(5, 34, 6))
    assert "Gemma3TextConfig" in out and transformers_version() in out
    assert "num_attention_heads=8" in out and "head_dim=256" in out


def test_sparse_llama_takes_llamaconfig_defaults():
    cfg = {"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 16,
           "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                            "original_max_position_embeddings": 8192}}
    spec = numeric.parse_rope_config(cfg)
    # LlamaConfig: rope_theta 10000, max_position_embeddings 2048, head_dim = hidden // heads
    assert (spec.rope_theta, spec.head_dim, spec.max_position_embeddings) == (10000.0, 128, 2048)
    # nothing at all but the model type: LlamaConfig() itself
    spec = numeric.parse_rope_config({"model_type": "llama"})
    assert (spec.rope_type, spec.rope_theta, spec.head_dim) == ("default", 10000.0, 128)


def test_attribute_map_names_are_read():
    gptj = {"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_positions": 2048}
    spec = numeric.parse_rope_config(gptj)
    assert (spec.head_dim, spec.rotary_dim, spec.max_position_embeddings) == (256, 64, 2048)  # GPTJConfig rotary_dim
    # without a model_type only the unambiguous names are read
    spec = numeric.parse_rope_config({"n_embd": 1024, "n_head": 8, "rope_theta": 10000.0})
    assert spec.head_dim == 128
    ref, _ = reference.rope_frequencies({"n_embd": 1024, "n_head": 8, "rope_theta": 10000.0})
    assert len(ref) == 64


def test_per_layer_config_head_dim_is_read_per_layer_type():
    cfg = {"model_type": "gemma4_text", "num_hidden_layers": 6, "hidden_size": 1536, "num_attention_heads": 8,
           "head_dim": 256, "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
           "per_layer_config": {"5": {"head_dim": 512}},
           "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                               "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                                  "rope_theta": 1000000.0}}}
    full = numeric.parse_rope_config(cfg, layer_type="full_attention")
    sliding = numeric.parse_rope_config(cfg, layer_type="sliding_attention")
    assert (full.head_dim, sliding.head_dim) == (512, 256)
    ref, _ = reference.rope_frequencies(cfg, layer_type="full_attention")
    assert len(ref) == 256
    # Gemma 4 without per_layer_config nor global_head_dim: Gemma4TextConfig's 512
    del cfg["per_layer_config"]
    assert numeric.parse_rope_config(cfg, layer_type="full_attention").head_dim == 512
    # layers of one type with different overrides: refused, as HF refuses
    cfg["per_layer_config"] = {"4": {"head_dim": 128}}
    with pytest.raises(ValueError, match="'sliding_attention' layers different head_dim"):
        numeric.parse_rope_config(cfg, layer_type="sliding_attention")


def test_a_rope_entry_for_a_layer_type_no_layer_has():
    cfg = {"model_type": "gemma3_text", "num_hidden_layers": 4, "layer_types": ["sliding_attention"] * 4,
           "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                               "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6}}}
    d = numeric.describe(cfg, quiet=True)
    assert d.layer_types_with_rope() == ["sliding_attention"]
    assert any("full_attention" in n and "no layer" in n for n in d.notes)
    # still computable when asked for by name
    assert numeric.parse_rope_config(cfg, layer_type="full_attention").factor == 8.0


def test_legacy_keys_the_class_does_not_read_warn_and_are_not_used():
    # GPTNeoXConfig reads the base from rotary_emb_base; a top-level rope_theta is dropped
    cfg = {"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "rope_theta": 500000.0}
    with pytest.warns(UnknownConfigKeyWarning, match=r"config\['rope_theta'\]=500000.0 is not read by HF's GPTNeoXConfig"):
        spec = numeric.parse_rope_config(cfg)
    assert spec.rope_theta == 10000.0 and spec.rotary_dim == 24  # rotary_pct 0.25 by default
    # LlamaConfig has no local base: Gemma 3's key on a Llama config is not read
    with pytest.warns(UnknownConfigKeyWarning, match=r"rope_local_base_freq'\]=10000.0 is not read by HF's LlamaConfig"):
        numeric.parse_rope_config({"model_type": "llama", "rope_local_base_freq": 10000.0})


def test_unknown_model_type_warns_naming_the_missing_keys():
    with pytest.warns(UnknownConfigKeyWarning, match=r"'no-such-model' is not in the table of transformers .*rope_theta"):
        numeric.parse_rope_config({"model_type": "no-such-model", "hidden_size": 512, "num_attention_heads": 8})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every key that matters given: nothing to say
        numeric.parse_rope_config({"model_type": "no-such-model", "head_dim": 64, "rope_theta": 1e4})
    with pytest.raises(numeric.UnknownConfigKeyError, match="not in the table"):
        numeric.parse_rope_config({"model_type": "no-such-model", "head_dim": 64}, strict=True)


def test_a_flat_rope_dict_for_a_per_layer_class_is_refused():
    with pytest.raises(ValueError, match="keeps one per layer type.*cannot read per layer type"):
        numeric.parse_rope_config({"model_type": "gemma4_text", "rope_scaling": {"rope_type": "linear", "factor": 2.0}})


def test_phi3_renames_a_legacy_yarn_type_to_longrope():
    cfg = numeric.model_config("phi-3.5-mini")
    cfg["model_type"] = "phi3"
    cfg["rope_scaling"] = dict(cfg["rope_scaling"], type="yarn")
    cfg["rope_scaling"].pop("rope_type", None)
    assert normalize(cfg)["rope_scaling"]["type"] == "longrope"
    assert numeric.parse_rope_config(cfg).rope_type == "longrope"


def test_normalize_is_pure_and_idempotent():
    raw = copy.deepcopy(GEMMA3_4B)
    once = normalize(raw)
    assert raw == GEMMA3_4B  # not modified
    assert normalize(once) is once
    assert dict(normalize(dict(once))) == dict(once)


# ---------------------------------------------------------------------------------------------
# against HF's own config classes (transformers installed)


def _hf_classes():
    transformers = pytest.importorskip("transformers")
    from transformers import AutoConfig

    out = {}
    for mt, e in hf_table()["models"].items():
        if "rope" not in e:
            continue
        try:
            out[mt] = AutoConfig.for_model(mt).__class__
        except Exception:  # not registered with AutoConfig (a sub-config)
            import importlib
            import pkgutil

            import transformers.models as tm

            for info in pkgutil.iter_modules(tm.__path__):
                try:
                    mod = importlib.import_module(f"transformers.models.{info.name}.configuration_{info.name}")
                except Exception:
                    continue
                cls = getattr(mod, e["class"], None)
                if cls is not None:
                    out[mt] = cls
                    break
    assert transformers.__version__ == transformers_version(), "hf_defaults.json is for another transformers"
    return out


def _hf_holds(cls, cfg):
    import logging

    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return cls.from_dict(copy.deepcopy(cfg))
    except Exception:
        return None
    finally:
        logging.disable(logging.NOTSET)


def _entries(rp):
    if isinstance(rp, dict) and rp and all(isinstance(v, dict) or v is None for v in rp.values()) \
            and any(isinstance(v, dict) for v in rp.values()):
        return {k: v for k, v in rp.items()}
    return {"": rp}


_COMPARED = ("rope_type", "rope_theta", "factor", "partial_rotary_factor", "low_freq_factor", "high_freq_factor",
             "beta_fast", "beta_slow", "short_factor", "long_factor", "attention_factor", "mrope_section")


def _same_rope(hf_rp, ours_rp) -> str | None:
    a, b = _entries(hf_rp), _entries(ours_rp or {})
    if set(a) != set(b):
        return f"entries {sorted(a)} vs {sorted(b)}"
    for k in a:
        x, y = a[k] or {}, b[k] or {}
        if (a[k] is None) != (b[k] is None):
            return f"{k}: {a[k]} vs {b[k]}"
        for key in _COMPARED:
            vx = x.get(key, x.get("type")) if key == "rope_type" else x.get(key)
            vy = y.get(key, y.get("type")) if key == "rope_type" else y.get(key)
            if key == "rope_type":
                vx, vy = (vx or "default"), (vy or "default")
                vx, vy = ({"mrope": "default"}.get(vx, vx)), ({"mrope": "default"}.get(vy, vy))
                if vx == "axial" or vy == "axial":
                    continue  # HF's default_rope_type; the parser reads it by model_type
            if key == "partial_rotary_factor" and (vx in (None, 1.0)) and (vy in (None, 1.0)):
                continue
            if vx != vy:
                return f"{k or 'rope'}[{key!r}]: HF {vx!r}, normalized {vy!r}"
    return None


def _variants(mt, e, d0):
    base = {"model_type": mt}
    yield "bare", dict(base)
    yield "theta", {**base, "rope_theta": 54321.0}
    yield "scaling", {**base, "rope_scaling": {"rope_type": "linear", "factor": 4.0}}
    yield "scaling+theta", {**base, "rope_scaling": {"rope_type": "linear", "factor": 4.0}, "rope_theta": 7.5e5}
    yield "prf", {**base, "partial_rotary_factor": 0.5}
    yield "local", {**base, "rope_local_base_freq": 777.0, "rope_theta": 9.5e5}
    yield "dynamic", {**base, "rope_scaling": {"type": "dynamic", "factor": 2.0}, "max_position_embeddings": 4096}
    if isinstance(d0.get("hidden_size"), int) and isinstance(d0.get("num_attention_heads"), int):
        yield "heads", {**base, "hidden_size": 2 * d0["hidden_size"], "num_attention_heads": d0["num_attention_heads"]}
    if isinstance(d0.get("num_hidden_layers"), int):
        yield "layers", {**base, "num_hidden_layers": 10}
    if isinstance(d0.get("qk_rope_head_dim"), int) and d0["qk_rope_head_dim"] > 0:
        yield "qk", {**base, "qk_rope_head_dim": 2 * d0["qk_rope_head_dim"]}
        if isinstance(d0.get("head_dim"), int):
            yield "qk+head", {**base, "qk_rope_head_dim": 32, "head_dim": 96}
    rp0 = d0.get("rope_parameters")
    if e["rope"].get("nested") and isinstance(rp0, dict):
        first = next(iter(rp0))
        yield "nested-first", {**base, "rope_parameters": {first: {"rope_type": "linear", "factor": 2.0}}}
        yield "nested-all", {**base, "rope_parameters": {k: {"rope_type": "default"} for k in rp0}}
    # the class's own to_dict() with keys dropped, in the legacy layout
    if isinstance(rp0, dict) and not e["rope"].get("nested"):
        legacy = {k: v for k, v in d0.items() if k not in ("rope_parameters",)}
        legacy["rope_theta"] = rp0.get("rope_theta")
        scaled = {k: v for k, v in rp0.items() if k not in ("rope_theta",)}
        if scaled.get("rope_type", "default") != "default":
            legacy["rope_scaling"] = scaled
        for drop in ("head_dim", "num_attention_heads", "max_position_embeddings", "rope_theta"):
            yield f"to_dict-{drop}", {k: v for k, v in legacy.items() if k != drop}


def test_normalize_holds_what_hf_config_classes_hold():
    """For every model_type of the table, sparse configs (the model type alone, a legacy
    rope_theta / rope_scaling / partial_rotary_factor / rope_local_base_freq, other heads, other
    layer counts, partial per-layer dicts, the class's own dict in the legacy layout with a key
    dropped): HF's class and normalize() hold the same rope dict (type, base, factors, per entry),
    head dim, heads, max positions and layer types -- or normalize refuses by name where HF's
    model could not read what its class holds."""
    classes = _hf_classes()
    checked, refused, bad = 0, 0, []
    for mt, cls in classes.items():
        e = hf_table()["models"][mt]
        d0 = _hf_holds(cls, {}).to_dict() if _hf_holds(cls, {}) is not None else None
        if d0 is None:
            continue
        for name, cfg in _variants(mt, e, d0):
            hf = _hf_holds(cls, cfg)
            if hf is None:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ours = normalize(cfg)
            except ValueError:
                refused += 1
                continue
            checked += 1
            hd = hf.to_dict()
            sub = getattr(hf, "text_config", None)
            if ours.model_type != mt and sub is not None and getattr(sub, "model_type", None) == ours.model_type:
                hd = sub.to_dict()  # normalize read the composite's text part (its language model): compare that
            rp_ours = ours.get("rope_parameters", ours.get("rope_scaling"))
            # DeepSeek-V4, Step3p5 / Step3p7: the parser builds their rope dicts as the class does
            # (test_config_engines.py, test_config_program.py compare those with HF's)
            why = _same_rope(hd.get("rope_parameters"), rp_ours) if mt not in _OWN_ROPE else None
            for key in ("hidden_size", "num_attention_heads", "max_position_embeddings"):
                if why is None and hd.get(key) is not None and hd.get(key) != ours.get(key) and \
                        e.get("attribute_map", {}).get(key) is None:
                    why = f"{key}: HF {hd.get(key)!r}, normalized {ours.get(key)!r}"
            if why is None and hd.get("head_dim") is not None:
                got = ours.get("head_dim")
                if got is None and isinstance(ours.get("hidden_size"), int) and ours.get("num_attention_heads"):
                    got = ours["hidden_size"] // ours["num_attention_heads"]
                if got != hd["head_dim"] and ours.get("qk_rope_head_dim") != hd["head_dim"]:
                    why = f"head_dim: HF {hd['head_dim']!r}, normalized {got!r}"
            held = getattr(hf, "layer_types", None)
            if why is None and isinstance(held, list) and ours.get("layer_types") is not None \
                    and ours["layer_types"] != held:
                why = "layer_types differ"
            if why:
                bad.append(f"{mt} [{name}]: {why}")
    print(f"\nsparse configs: {checked} held alike by HF's class and normalize(), {refused} refused by name, "
          f"{len(bad)} differ")
    assert checked > 1500 and not bad, "\n".join(bad[:40])


@pytest.mark.slow
def test_every_hf_rotary_embedding_at_its_defaults(capsys):
    """tools/hf_rope_sweep.py (the figures docs/family/configs.md quotes): every model type whose
    rotary embedding HF builds from its config at its defaults, or whose config carries a RoPE key
    and whose text model HF runs on the meta device, read sparse ({"model_type": ...} alone, the
    rest from the shipped table), dense (the class's to_dict()) and -- where HF rotates nothing --
    with a rope_theta beside it: HF's inv_freq / attention_scaling per layer type, and the layers
    HF's attention rotates, agree with the RoPE program or the config is refused by name: 0 silent
    differences, 0 NoPE misread, 0 crashes."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import hf_rope_sweep

    res = hf_rope_sweep.sweep()
    with capsys.disabled():
        for reading, c in res["counts"].items():
            print(f"\n{reading}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    for reading, c in res["counts"].items():
        assert c["wrong (silent)"] == 0 and c["crash"] == 0 and c["NoPE misread"] == 0, res["details"]
        if reading != "keyed":
            assert c["right"] > 300


@pytest.mark.slow
def test_the_shipped_table_is_what_the_generator_makes_from_the_installed_transformers():
    transformers = pytest.importorskip("transformers")
    if transformers.__version__ != transformers_version():
        pytest.skip(f"hf_defaults.json is for transformers {transformers_version()}, "
                    f"{transformers.__version__} is installed")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import gen_hf_defaults

    assert gen_hf_defaults.generate() == hf_table()
