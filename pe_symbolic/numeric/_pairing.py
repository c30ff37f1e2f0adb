"""Which channels pair up, per model type: HF's layout tables (split, interleaved, trailing).

What :func:`~pe_symbolic.numeric.describe`, :func:`~pe_symbolic.numeric.read_program` and the
array front ends (:class:`ConfigLayoutWarning`) say about a config's pairing comes from here:
each model type's HF attention rotates split halves (``rotate_half``), interleaved pairs, or
reads interleaved pairs and writes them split (``apply_rotary_pos_emb_interleave``), or turns
the trailing channels (DeepSeek-V4). ``tests/test_config_layouts.py`` checks the tables
against the installed transformers' modeling code.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from ._keys import _ROPE_KEYS

__all__ = ["ConfigLayoutWarning", "INTERLEAVED", "INTERLEAVED_BY", "hf_layout", "warn_config_layout"]

#: HF model types whose attention applies ``apply_rotary_pos_emb_interleave`` by default
#: (their config class defaults ``rope_interleave`` to true): channels come in interleaved
#: pairs ``(x0, x1), (x2, x3), ...`` and the output is in the split (``rotate_half``) layout.
INTERLEAVE_IN_SPLIT_OUT: frozenset[str] = frozenset({"deepseek_v3", "axk1", "glm4_moe_lite", "mistral4", "youtu"})
#: HF model types that call ``apply_rotary_pos_emb_interleave`` unconditionally (HF 5.25;
#: ``dots3_note`` is the flat form of ``dots3_note_text``).
ALWAYS_INTERLEAVE_IN_SPLIT_OUT: frozenset[str] = frozenset({
    "axk2", "bailing_hybrid", "deepseek_v32", "dots3_note", "dots3_note_text", "glm_moe_dsa", "hy_v4", "hy_v4_vl",
    "hy_v4_vl_text", "longcat_flash", "mistral_large4", "mistral_large4_text"})

_EVERY_TWO = "rotate_every_two on x[..., ::2] / x[..., 1::2], cos/sin repeat_interleave'd"
_HALF = "{fn} on x[..., 0::2] / x[..., 1::2] (stack((-x2, x1), dim=-1)), {tables}"
_OWN_TABLES = "cos/sin repeat_interleave'd by the rotary embedding"
_GLM_TABLES = "apply_rotary_pos_emb repeat_interleaves the first half of cos/sin"
_MROPE_TABLES = "the M-RoPE tables repeat_interleave'd after the section placement"
#: HF model types whose text attention rotates interleaved pairs in and out (HF 5.24), with
#: the HF function that does it (the ``layout`` :func:`describe` prints names it).
INTERLEAVED_BY: dict[str, str] = {
    "gptj": _EVERY_TWO,
    "codegen": _EVERY_TWO,
    "llama4": "apply_rotary_emb: torch.view_as_complex on (..., -1, 2) pairs",
    "llama4_text": "apply_rotary_emb: torch.view_as_complex on (..., -1, 2) pairs",
    "deepseek_v2": "apply_rotary_emb: torch.view_as_complex on (..., -1, 2) pairs times freqs_cis",
    "openai_privacy_filter": "_apply_rotary_emb on x[..., ::2] / x[..., 1::2], stacked back in pairs",
    "ergo": "rotate_half on x[..., ::2] / x[..., 1::2] (stack([-x2, x1], dim=-1)), cos/sin repeat_interleave'd by "
            "the rotary embedding (transformers 5.25 models/ergo/modeling_ergo.py)",
    "roformer": "apply_rotary_position_embeddings: stack([-x[..., 1::2], x[..., ::2]], -1), sinusoidal "
                "positions repeated per pair",
    **{mt: _HALF.format(fn="rotate_half", tables=_OWN_TABLES)
       for mt in ("cohere", "cohere2", "cohere2_moe", "blt", "blt_local_encoder", "blt_local_decoder",
                  "blt_global_transformer", "blt_patcher")},
    **{mt: _HALF.format(fn="rotate_half", tables=_GLM_TABLES)
       for mt in ("glm", "glm4", "helium", "ernie4_5", "ernie4_5_moe", "moonshine", "moonshine_streaming")},
    **{mt: _HALF.format(fn="rotate_half_llm", tables=_MROPE_TABLES)
       for mt in ("glm4v", "glm4v_text", "glm_ocr", "glm_ocr_text")},
    **{mt: _HALF.format(fn="rotate_half_text", tables=_MROPE_TABLES)
       for mt in ("ernie4_5_vl_moe", "ernie4_5_vl_moe_text")},
}
#: HF model types that rotate interleaved pairs in and out (the keys of :data:`INTERLEAVED_BY`).
INTERLEAVED: frozenset[str] = frozenset(INTERLEAVED_BY)


def _text(config: Mapping[str, Any]) -> Mapping[str, Any]:
    tc = config.get("text_config")
    if isinstance(tc, Mapping) and not any(k in config for k in _ROPE_KEYS):
        return tc
    return config



def hf_layout(cfg: Mapping[str, Any]) -> tuple[str, str]:
    """HF's channel layout for ``cfg`` (the text config): a kind (``"split"``,
    ``"interleaved"``, ``"interleaved-in-split-out"``, ``"trailing-interleaved"``) and the
    sentence :func:`describe` prints."""
    mt = cfg.get("model_type")
    inter = cfg.get("rope_interleave")
    if mt == "deepseek_v4":
        return "trailing-interleaved", (
            "interleaved pairs on the LAST rotary_dim channels of each head (HF's DeepSeek-V4 "
            "apply_rotary_pos_emb; the leading channels are not rotated); the attention output's last "
            "rotary_dim channels are rotated back by the conjugate (-sin) at the query position")
    if mt in ALWAYS_INTERLEAVE_IN_SPLIT_OUT:
        return "interleaved-in-split-out", (
            f"interleaved in, split out (HF apply_rotary_pos_emb_interleave, always for model_type {mt!r})")
    if inter is True or (inter is None and mt in INTERLEAVE_IN_SPLIT_OUT):
        why = "config['rope_interleave']" if inter is not None else f"HF's default for model_type {mt!r}"
        return "interleaved-in-split-out", f"interleaved in, split out (HF apply_rotary_pos_emb_interleave; {why})"
    if mt in INTERLEAVED:
        return "interleaved", f"interleaved pairs (HF {INTERLEAVED_BY[mt]}, for model_type {mt!r})"
    return "split", "split halves (rotate_half)"


class ConfigLayoutWarning(UserWarning):
    """``config=`` names a model type whose HF attention pairs the channels differently from
    the call's ``layout="split"`` (the default): the result would differ from HF's. The
    message names the model type, HF's layout and the argument to pass."""


def warn_config_layout(config: object, layout: str, stacklevel: int = 3) -> None:
    """Warn (:class:`ConfigLayoutWarning`) when ``layout`` is ``"split"`` and ``config`` (a
    mapping with a ``model_type``; a :class:`~pe_symbolic.numeric.RopeSpec` carries none)
    is a model type whose HF attention rotates interleaved pairs. ``stacklevel`` as in
    :func:`warnings.warn`, counted from this function (3: the caller's caller); a fixed
    count, not a frame walk, so that ``torch.compile`` can trace it."""
    if layout != "split" or not isinstance(config, Mapping):
        return
    cfg = _text(config)
    kind, _ = hf_layout(cfg)
    mt = cfg.get("model_type")
    if kind == "interleaved":
        msg = (f"config= has model_type {mt!r}, whose HF attention rotates interleaved pairs (x0, x1), (x2, x3), ... "
               f"(HF {INTERLEAVED_BY[mt]}); layout='split' (the default) pairs "
               "channel i with i + rotary_dim/2 instead, so the result differs from HF's: pass layout='interleaved'")
    elif kind == "interleaved-in-split-out":
        msg = (f"config= has model_type {mt!r}, whose HF attention reads interleaved pairs (x0, x1), (x2, x3), ... "
               "and returns the rotated pairs in the split layout (apply_rotary_pos_emb_interleave); "
               "layout='split' (the default) pairs channel i of x with i + rotary_dim/2 instead, so the result "
               "differs from HF's: pass layout='interleaved' (the same rotation of the same pairs, left in "
               "interleaved order: HF's output is out[..., p] with p = [0, 2, 4, ..., 1, 3, 5, ...] over the rotated "
               "channels), or de-interleave x that way first and keep layout='split'")
    else:
        return
    warnings.warn(msg, ConfigLayoutWarning, stacklevel=stacklevel)

