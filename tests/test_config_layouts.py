"""Issue 23: the channel layout :func:`~pe_symbolic.numeric.describe` reports is HF's.

The installed transformers' ``models/*/modeling_*.py`` are read with :mod:`ast` (no model is
imported): every function whose name says it rotates (``rotate_half``, ``rotate_half_llm``,
``rotate_every_two``, ``apply_rotary_emb``, ``_apply_rotary_emb``, ...) and that reads its
channels in adjacent pairs (a ``::2`` slice, a complex view, a ``(..., -1, 2)`` reshape, or
``stack((-x2, x1), dim=-1)``) marks its module; every ``model_type`` of the module's config
classes must then get a layout other than "split halves" from :func:`describe`, unless it is
in :data:`EXCLUDED` with the reason.
"""

from __future__ import annotations

import ast
import importlib
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")

from pe_symbolic import numeric  # noqa: E402
from pe_symbolic.numeric._spec import HF_MROPE_DEFAULT_SECTIONS, HF_MROPE_PLACEMENT  # noqa: E402

MODELS = Path(transformers.__file__).parent / "models"
describe_module = importlib.import_module("pe_symbolic.numeric._pairing")

#: Model types of the modules the scan marks whose text attention is not what the mark is
#: about, each with the reason (checked in the installed HF 5.24 source).
EXCLUDED: dict[str, str] = {
    # vision towers of VL models whose *text* rotation is interleaved: they rotate in split
    # halves (rotate_half in apply_rotary_pos_emb_vision) and have no text RoPE
    "glm4v_vision": "vision tower (rotate_half, split); the text model is glm4v_text",
    "glm_ocr_vision": "vision tower (rotate_half, split); the text model is glm_ocr_text",
    "ernie4_5_vl_moe_vision": "vision tower (rotate_half, split); the text model is ernie4_5_vl_moe_text",
    "hy_v4_vl_vision": "vision tower; the text model is hy_v4_vl_text",
    "llama4_vision_model": "vision tower (vision_apply_rotary_emb, 2-D positions); not a text config",
    "inkling2_vision": "vision tower (rotate_pairwise in apply_rotary_pos_emb_vision, axial)",
    "inkling2": "only the vision tower rotates (rotate_pairwise); the text layers have no RoPE",
    "inkling2_text": "the text layers have no RoPE (only the vision tower has a rotary embedding)",
    "dots3_note_vision_encoder": "vision tower (rotate_half, split, in apply_rotary_pos_emb_vision); the text model "
                                 "is dots3_note_text",
    "dots3_note_audio_encoder": "audio encoder (Dots3NoteAudioRotaryEmbedding, rotate_half: split); the text model "
                                "is dots3_note_text",
    "moonshine_streaming_encoder": "the streaming encoder's attention takes no rotary embedding; the decoder "
                                   "(model_type moonshine_streaming) does",
    # vision / video / audio models: no text LM rotation
    "efficientloftr": "keypoint matching (vision): 2-D rotary on image features",
    "lightglue": "keypoint matching (vision): rotary on keypoint positions",
    "vjepa2": "video encoder: 3-D rotary over frames and patches",
    "musicflamingo": "rotate_half turns the audio encoder's time embedding (apply_rotary_time_emb); the language "
                     "model is its text_config's",
    **{mt: "SAM-family image / video segmentation: 2-D axial rotary (rotate_pairwise) in the vision parts"
       for mt in ("sam2_video", "sam2_video_prompt_encoder", "sam2_video_mask_decoder", "sam3", "sam3_vit_model",
                  "sam3_vision_model", "sam3_geometry_encoder", "sam3_detr_encoder", "sam3_detr_decoder",
                  "sam3_mask_decoder", "sam3_tracker_video", "sam3_tracker_video_prompt_encoder",
                  "sam3_tracker_video_mask_decoder", "edgetam_video", "edgetam_video_prompt_encoder",
                  "edgetam_video_mask_decoder")},
}


def _pair_mark(fn: ast.AST) -> str | None:
    """How ``fn`` reads adjacent pairs, or ``None``."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Slice) and isinstance(n.step, ast.Constant) and n.step.value == 2:
            return "a ::2 slice"
        if isinstance(n, ast.Attribute) and n.attr in ("view_as_complex", "polar"):
            return "a complex view"
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            if n.func.attr == "stack" and n.args and isinstance(n.args[0], (ast.Tuple, ast.List)):
                elts = n.args[0].elts
                dim = [ast.unparse(k.value) for k in n.keywords if k.arg == "dim"]
                if elts and isinstance(elts[0], ast.UnaryOp) and dim == ["-1"]:
                    return "stack((-x2, x1), dim=-1)"
            if n.func.attr in ("view", "reshape", "unflatten") and re.search(r"-1, 2\)+$", ast.unparse(n)):
                return "a (..., -1, 2) view"
    return None


def _scan() -> dict[str, list[str]]:
    """Module name -> the pair-reading rotation functions found in its modeling files."""
    found: dict[str, list[str]] = {}
    for path in sorted(MODELS.glob("*/modeling_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and re.search("rotat|rotary", fn.name.lower()):
                mark = _pair_mark(fn)
                if mark:
                    found.setdefault(path.parent.name, []).append(f"{path.name}:{fn.name} ({mark})")
    return found


def _model_types(module: str) -> list[str]:
    """The ``model_type`` strings of the config classes in ``models/<module>/configuration_*.py``."""
    out = []
    for path in sorted((MODELS / module).glob("configuration_*.py")):
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(cls, ast.ClassDef):
                continue
            for st in cls.body:
                target = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else \
                    st.target if isinstance(st, ast.AnnAssign) else None
                if (isinstance(target, ast.Name) and target.id == "model_type" and isinstance(st.value, ast.Constant)
                        and isinstance(st.value.value, str)):
                    out.append(st.value.value)
    return out


def _minimal(mt: str) -> dict:
    sec = HF_MROPE_DEFAULT_SECTIONS.get(mt)
    head = 2 * sum(sec) if sec else 64
    # qk_rope_head_dim too: HF's DeepSeek-style classes set head_dim from it (the shipped table
    # fills their default, 64, where a config leaves it out)
    return {"model_type": mt, "head_dim": head, "qk_rope_head_dim": head, "rope_theta": 10000.0}


SCAN = _scan()


def test_scan_finds_the_known_pair_rotations():
    # the scan must see the families it exists for, or it checks nothing
    for module in ("gptj", "codegen", "cohere", "glm", "glm4v", "deepseek_v2", "llama4", "openai_privacy_filter",
                   "ernie4_5_vl_moe", "deepseek_v3"):
        assert module in SCAN, module
    assert len(SCAN) >= 30


@pytest.mark.parametrize("module", sorted(SCAN))
def test_pair_rotating_modules_are_not_described_as_split(module):
    types = _model_types(module)
    assert types, f"no model_type found in models/{module}/configuration_*.py"
    wrong = []
    for mt in types:
        if mt in EXCLUDED:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            layout = numeric.describe(_minimal(mt), quiet=True).layout
        if layout.startswith("split"):
            wrong.append(mt)
    assert not wrong, (f"HF's {module} rotates adjacent pairs ({'; '.join(SCAN[module])}), but describe says "
                       f"'split halves' for model_type(s) {wrong}")


def test_excluded_model_types_exist():
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    scanned = {mt for module in SCAN for mt in _model_types(module)}
    for mt in EXCLUDED:
        assert mt in scanned or mt in CONFIG_MAPPING_NAMES, mt


def test_layout_sets_name_real_model_types():
    """A typo in the hand-written sets would hide a family: every name must be an HF model type."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    every = {mt for module in (p.name for p in MODELS.iterdir() if p.is_dir()) for mt in _model_types(module)}
    names = (describe_module.INTERLEAVE_IN_SPLIT_OUT | describe_module.ALWAYS_INTERLEAVE_IN_SPLIT_OUT
             | describe_module.INTERLEAVED | frozenset(describe_module.INTERLEAVED_BY) | frozenset(HF_MROPE_DEFAULT_SECTIONS))
    missing = sorted(mt for mt in names if mt not in CONFIG_MAPPING_NAMES and mt not in every)
    assert not missing, f"not model types of the installed transformers {transformers.__version__}: {missing}"


# ----------------------------------------------------------------------------------------
# the VL text models' M-RoPE: HF's default section and placement, read from the modeling code

#: Modules whose rotary embedding has a ``recomposition_frequencies`` that is not a 3-axis
#: M-RoPE section placement, with the reason.
MROPE_EXCLUDED = {
    "hunyuan_vl": "HunyuanVL's 4-axis xdrope_section (no default; apply_rope(config=...) refuses it)",
    "neomme": "NeoMME's 2-axis (row, col) text rotary, no mrope_section default",
}


def _placement(fn: ast.FunctionDef) -> str | None:
    body = ast.unparse(fn)
    if "mrope_section[dim] * 3" in body:
        return "interleaved"  # freqs_t[..., slice(offset, 3 * section[dim], 3)] = freqs[dim, ...]
    if "(i + 1) % 3" in body:
        return "ernie4_5_vl"
    if "i % 3" in body:
        return "contiguous"  # cat(m[i % 3] for m in freq.split(mrope_section))
    return None


def _mrope_scan() -> dict[str, tuple[tuple[int, ...], str, list[str]]]:
    """Module -> (HF's default mrope_section, placement, the text model types of its rotary
    embedding: the config class of ``__init__(self, config: ...)``, the module's own model
    type and ``<module>_text``)."""
    out = {}
    for path in sorted(MODELS.glob("*/modeling_*.py")):
        module = path.parent.name
        src = path.read_text(encoding="utf-8")
        if "mrope_section" not in src or module in MROPE_EXCLUDED:
            continue
        classes = {}
        for cfg_path in (MODELS / module).glob("configuration_*.py"):
            for cls in ast.walk(ast.parse(cfg_path.read_text(encoding="utf-8"))):
                if isinstance(cls, ast.ClassDef):
                    for st in cls.body:
                        if (isinstance(st, ast.Assign) and ast.unparse(st.targets[0]) == "model_type"
                                and isinstance(st.value, ast.Constant)):
                            classes[cls.name] = st.value.value
        for cls in ast.walk(ast.parse(src)):
            if not isinstance(cls, ast.ClassDef):
                continue
            recompose = [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "recomposition_frequencies"]
            default = None
            for n in ast.walk(cls):
                if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get"
                        and len(n.args) == 2 and isinstance(n.args[0], ast.Constant)
                        and n.args[0].value == "mrope_section"):
                    default = tuple(ast.literal_eval(n.args[1]))
            if not recompose or default is None:
                continue
            init = next(f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
            ann = next(ast.unparse(a.annotation) for a in init.args.args if a.arg == "config")
            types = {classes[ann], module, f"{module}_text"} & set(classes.values())
            out[module] = (default, _placement(recompose[0]), sorted(types))
    return out


def test_mrope_defaults_and_placement_are_hf_s():
    """Every HF text rotary embedding with an mrope_section default: the parser knows the same
    default and placement for its model types (a new family, or a changed default, fails)."""
    scan = _mrope_scan()
    assert {"qwen2_vl", "qwen3_vl", "glm4v", "ernie4_5_vl_moe", "hy_v4_vl"} <= set(scan)
    wrong = []
    for module, (default, placement, types) in scan.items():
        if module == "hy_v4_vl":
            default = (12, 10, 10)  # HYV4VLTextConfig.convert_rope_params_to_dict sets it before the modeling default
        for mt in types:
            got = (HF_MROPE_DEFAULT_SECTIONS.get(mt), HF_MROPE_PLACEMENT.get(mt))
            if got != (default, placement):
                wrong.append(f"{module}: model_type {mt!r}: HF {default} {placement}, parser {got}")
    assert not wrong, "\n".join(wrong)


# ----------------------------------------------------------------------------------------
# the VL text models' M-RoPE placement, against HF's own rotary embedding classes


def _interleaved_out(apply):
    """HF's ``apply_rotary_pos_emb_interleave`` with its split output put back in interleaved order."""
    import torch

    def back(t):
        h = t.shape[-1] // 2
        return torch.stack([t[..., :h], t[..., h:]], dim=-1).flatten(-2)

    return lambda q, k, cos, sin: tuple(back(t) for t in apply(q, k, cos, sin))


def _hf_vl_cases():
    from transformers.models.ernie4_5_vl_moe import configuration_ernie4_5_vl_moe as EC
    from transformers.models.ernie4_5_vl_moe import modeling_ernie4_5_vl_moe as E
    from transformers.models.glm4v import configuration_glm4v as GC
    from transformers.models.glm4v import modeling_glm4v as G
    from transformers.models.glm4v_moe import configuration_glm4v_moe as GMC
    from transformers.models.glm4v_moe import modeling_glm4v_moe as GM
    from transformers.models.glm_ocr import configuration_glm_ocr as OC
    from transformers.models.glm_ocr import modeling_glm_ocr as O
    from transformers.models.hy_v4_vl import configuration_hy_v4_vl as HC
    from transformers.models.hy_v4_vl import modeling_hy_v4_vl as H
    from transformers.models.qwen2_vl import configuration_qwen2_vl as Q2C
    from transformers.models.qwen2_vl import modeling_qwen2_vl as Q2
    from transformers.models.qwen3_5 import configuration_qwen3_5 as Q35C
    from transformers.models.qwen3_5 import modeling_qwen3_5 as Q35
    from transformers.models.qwen3_vl import configuration_qwen3_vl as Q3C
    from transformers.models.qwen3_vl import modeling_qwen3_vl as Q3

    small = dict(hidden_size=256, num_attention_heads=2, num_key_value_heads=1)
    half = {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}
    full = {"rope_type": "default", "rope_theta": 10000.0}
    # (HF config, rotary embedding class, apply_rotary_pos_emb, rotated width, HF's layout)
    return {
        "glm4v_text": (GC.Glm4vTextConfig(**small, rope_parameters=half), G.Glm4vTextRotaryEmbedding,
                       G.apply_rotary_pos_emb, 128, "interleaved"),
        "glm4v_text, mrope_section": (GC.Glm4vTextConfig(**small, rope_parameters={**half, "mrope_section": [4, 14, 14]}),
                                      G.Glm4vTextRotaryEmbedding, G.apply_rotary_pos_emb, 128, "interleaved"),
        "glm_ocr_text": (OC.GlmOcrTextConfig(**small, rope_parameters=half), O.GlmOcrTextRotaryEmbedding,
                         O.apply_rotary_pos_emb, 128, "interleaved"),
        "glm4v_moe_text": (GMC.Glm4vMoeTextConfig(**small, rope_parameters=half), GM.Glm4vMoeTextRotaryEmbedding,
                           GM.apply_rotary_pos_emb, 128, "split"),
        "ernie4_5_vl_moe_text": (EC.Ernie4_5_VLMoeTextConfig(**small, rope_parameters=full),
                                 E.Ernie4_5_VLMoeTextRotaryEmbedding, E.apply_rotary_pos_emb, 128, "interleaved"),
        "ernie4_5_vl_moe_text, mrope_section": (
            EC.Ernie4_5_VLMoeTextConfig(**small, rope_parameters={**full, "mrope_section": [20, 20, 24]}),
            E.Ernie4_5_VLMoeTextRotaryEmbedding, E.apply_rotary_pos_emb, 128, "interleaved"),
        # transformers 5.25: apply_rotary_pos_emb_interleave (interleaved in, split out); its output put
        # back in interleaved order, so that apply_rope(layout="interleaved") is the same rotation
        "hy_v4_vl_text": (HC.HYV4VLTextConfig(), H.HYV4VLRotaryEmbedding, _interleaved_out(H.apply_rotary_pos_emb_interleave),
                          64, "interleaved"),
        # no mrope_section, no mrope_interleaved: the modeling defaults and placements
        "qwen2_vl_text": (Q2C.Qwen2VLTextConfig(hidden_size=256, num_attention_heads=2, num_key_value_heads=1,
                                                rope_parameters=full), Q2.Qwen2VLRotaryEmbedding,
                          Q2.apply_rotary_pos_emb, 128, "split"),
        "qwen3_vl_text": (Q3C.Qwen3VLTextConfig(**small, head_dim=128, rope_parameters=full),
                          Q3.Qwen3VLTextRotaryEmbedding, Q3.apply_rotary_pos_emb, 128, "split"),
        "qwen3_5_text": (Q35C.Qwen3_5TextConfig(**small, head_dim=256, rope_parameters={**full, "partial_rotary_factor": 0.25}),
                         Q35.Qwen3_5TextRotaryEmbedding, Q35.apply_rotary_pos_emb, 256, "split"),
    }


@pytest.mark.parametrize("case", ["glm4v_text", "glm4v_text, mrope_section", "glm_ocr_text", "glm4v_moe_text",
                                  "ernie4_5_vl_moe_text", "ernie4_5_vl_moe_text, mrope_section", "hy_v4_vl_text",
                                  "qwen2_vl_text", "qwen3_vl_text", "qwen3_5_text"])
def test_vl_mrope_placement_matches_hf(case):
    """3-axis positions, HF's own rotary embedding and apply_rotary_pos_emb (cos/sin from
    float32 angles) against apply_rope(config=config.to_dict(), layout=HF's): the same
    rotation to float32 angle accuracy; the other layout is far off (the check can fail)."""
    torch = pytest.importorskip("torch")
    cfg, emb_cls, apply, width, layout = _hf_vl_cases()[case]
    d = cfg.to_dict()
    rng = np.random.default_rng(0)
    pos = np.stack([rng.integers(0, 50, (2, 7)) for _ in range(3)])  # (3, batch, seq): t, h, w differ
    q, k = rng.standard_normal((2, 2, 7, width)), rng.standard_normal((2, 1, 7, width))
    qt, kt = torch.tensor(q), torch.tensor(k)
    cos, sin = emb_cls(cfg)(qt, torch.tensor(pos))
    hq, hk = (v.numpy() for v in apply(qt, kt, cos, sin))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pq, pk = numeric.apply_rope((q, k), position_ids=pos, config=d, layout=layout)
    assert np.abs(pq - hq).max() < 2e-5 and np.abs(pk - hk).max() < 2e-5
    other = "split" if layout == "interleaved" else "interleaved"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numeric.ConfigLayoutWarning)
        wq = numeric.apply_rope(q, position_ids=pos, config=d, layout=other)
    assert np.abs(wq - hq).max() > 0.1


def test_vl_mrope_hf_defaults_and_fixed_placement():
    # no mrope_section: HF's modeling default
    spec = numeric.parse_rope_config({"model_type": "glm4v_text", "head_dim": 128, "partial_rotary_factor": 0.5})
    assert spec.mrope_section == (8, 12, 12) and not spec.mrope_interleaved
    spec = numeric.parse_rope_config({"model_type": "hy_v4_vl_text", "head_dim": 64})
    assert spec.mrope_section == (12, 10, 10) and spec.mrope_interleaved
    # HF's GLM-4.xV code never reads mrope_interleaved: accepted as ignored, placement kept
    spec = numeric.parse_rope_config({"model_type": "glm4v_text", "head_dim": 64, "rope_parameters": {
        "rope_type": "default", "mrope_section": [8, 12, 12], "mrope_interleaved": True}})
    assert not spec.mrope_interleaved and spec.ignored == ("mrope_interleaved",)
    spec = numeric.parse_rope_config({"model_type": "ernie4_5_vl_moe_text", "head_dim": 128})
    assert spec.mrope_rule == "ernie4_5_vl"
    # a default that does not fit the rotary dim: warned (raised under strict), not placed
    with pytest.warns(numeric.UnknownConfigKeyWarning, match="model_type 'glm4v_text', \\[8, 12, 12\\]"):
        spec = numeric.parse_rope_config({"model_type": "glm4v_text", "head_dim": 32})
    assert spec.mrope_section is None
    with pytest.raises(numeric.UnknownConfigKeyError, match="no M-RoPE sections"):
        numeric.parse_rope_config({"model_type": "qwen4_exp_text", "head_dim": 256}, strict=True)
    with pytest.raises(ValueError, match="mrope_section\\[0\\] == mrope_section\\[1\\]"):
        numeric.parse_rope_config({"model_type": "ernie4_5_vl_moe_text", "head_dim": 128,
                                   "rope_parameters": {"rope_type": "default", "mrope_section": [20, 24, 20]}})
    with pytest.raises(ValueError, match="only the 'default' rope type"):
        numeric.parse_rope_config({"model_type": "ernie4_5_vl_moe_text", "head_dim": 128,
                                   "rope_parameters": {"rope_type": "linear", "factor": 2.0}})


# ----------------------------------------------------------------------------------------
# config= with layout="split" for a model HF rotates in interleaved pairs: ConfigLayoutWarning

_COHERE = {"model_type": "cohere", "head_dim": 8, "rope_theta": 100.0}


@pytest.mark.parametrize("cfg, text", [
    (_COHERE, "model_type 'cohere', whose HF attention rotates interleaved pairs"),
    ({"model_type": "gptj", "head_dim": 8, "rotary_dim": 8}, "rotate_every_two"),
    ({"model_type": "deepseek_v3", "head_dim": 8, "qk_rope_head_dim": 8}, "apply_rotary_pos_emb_interleave"),
    ({"text_config": {"model_type": "glm4v_text", "head_dim": 48, "rope_parameters": {"mrope_section": [8, 8, 8]}}},
     "rotate_half_llm"),
])
def test_split_layout_with_an_interleaved_config_warns(cfg, text):
    x = np.ones((3, 8))
    pos = np.arange(3) if "text_config" not in cfg else np.zeros((3, 3))
    if "text_config" in cfg:
        x = np.ones((3, 48))
    for fn in (numeric.apply_rope, numeric.rope_cos_sin):
        arg = x if fn is numeric.apply_rope else pos
        with pytest.warns(numeric.ConfigLayoutWarning, match=text) as rec:
            fn(arg, pos, config=cfg) if fn is numeric.apply_rope else fn(pos, config=cfg)
        assert "layout='interleaved'" in str(rec[0].message)
        assert rec[0].filename == __file__  # points at the caller
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fn(arg, pos, config=cfg, layout="interleaved") if fn is numeric.apply_rope else \
                fn(pos, config=cfg, layout="interleaved")


def test_no_layout_warning_for_split_models_or_a_rope_spec():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numeric.apply_rope(np.ones((3, 8)), np.arange(3), config={"model_type": "llama", "head_dim": 8})
        numeric.apply_rope(np.ones((3, 8)), np.arange(3), config={"model_type": "deepseek_v3", "head_dim": 8,
                                                                  "qk_rope_head_dim": 8, "rope_interleave": False})
        numeric.apply_rope(np.ones((3, 8)), np.arange(3), config=numeric.parse_rope_config(_COHERE))


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_backends_warn_too(backend):
    mod = pytest.importorskip(f"pe_symbolic.{backend}")
    lib = pytest.importorskip(backend)
    arr = lib.ones((3, 8)) if backend == "torch" else lib.numpy.ones((3, 8))
    pos = lib.arange(3) if backend == "torch" else lib.numpy.arange(3)
    with pytest.warns(numeric.ConfigLayoutWarning, match="model_type 'cohere'") as rec:
        mod.apply_rope(arr, positions=pos, config=_COHERE)
    assert len(rec) == 1 and rec[0].filename == __file__
    with pytest.warns(numeric.ConfigLayoutWarning, match="model_type 'cohere'"):
        mod.rope_cos_sin(pos, config=_COHERE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = mod.apply_rope(arr, positions=pos, config=_COHERE, layout="interleaved")
        ref = numeric.apply_rope(np.ones((3, 8), np.float32), np.arange(3), config=_COHERE, layout="interleaved")
    assert np.allclose(np.asarray(out), ref, atol=1e-6)


def test_torch_compile_fullgraph_with_an_interleaved_config():
    """Dynamo cannot trace warnings.warn: under torch.compile the call does not warn (the eager
    call does) and still compiles in one graph."""
    torch = pytest.importorskip("torch")
    PT = pytest.importorskip("pe_symbolic.torch")
    f = torch.compile(lambda x, i: PT.apply_rope(x, positions=i, config=_COHERE, layout="interleaved"), fullgraph=True)
    g = torch.compile(lambda x, i: PT.apply_rope(x, positions=i, config=_COHERE), fullgraph=True)
    x, i = torch.ones(3, 8, dtype=torch.float64), torch.arange(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch's own, inside inductor
        warnings.simplefilter("error", numeric.ConfigLayoutWarning)
        assert torch.allclose(f(x, i), PT.apply_rope(x, positions=i, config=_COHERE, layout="interleaved"))
        g(x, i)
