"""Reading one RoPE of a config into a :class:`~pe_symbolic.numeric.RopeSpec`: the shared path.

:func:`read_spec` is the parser every public reader goes through (:func:`~pe_symbolic.numeric.
parse_rope_config`, :func:`~pe_symbolic.numeric.read_program`): the keys checked
(:mod:`~pe_symbolic.numeric._keys`), the family's rope dicts (:data:`~pe_symbolic.numeric.
_families.DICT_READERS`), the entry of a per-layer-type dict, the keys every rope type reads
(:mod:`~pe_symbolic.numeric._geometry`), the type's own reader (:data:`~pe_symbolic.numeric.
_rope_readers.READERS`), then the per-layer readers (:data:`~pe_symbolic.numeric._families.
SPEC_READERS`). Whether the layers it describes rotate at all is not decided here
(:mod:`~pe_symbolic.numeric._sites`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ._config_base import _int, _real
from ._families import DICT_READERS, SPEC_READERS, _chatglm_6b
from ._geometry import _geometry, _sections
from ._keys import _REQUIRED, _check_rope_keys, _check_top_keys, _per_layer, _rope_dicts, _rope_type_of
from ._rope_readers import READERS, ReadContext
from ._spec import RopeSpec
from ._variant_readers import chatglm_2d, indexer_layout

__all__ = ["read_spec", "rope_entries"]


def rope_entries(cfg: Mapping[str, Any], strict: bool) -> tuple[str, Mapping[str, Any], Any]:
    """(where, the rope dict or one per entry, the family's reading or ``None``) of ``cfg``."""
    where, params = _rope_dicts(cfg)
    for _name, reader in DICT_READERS:
        got = reader(cfg, where, params, strict)
        if got is not None:
            return got.where, got.params, got
    return where, params, None


def read_spec(cfg: Mapping[str, Any], *, layer_type: str | None = None, layer: int | None = None,
              strict: bool = False, factor: object = None, yarn_engine: str = "hf") -> RopeSpec:
    """One RoPE of a normalized config (see the module docstring); ``layer_type`` the entry of
    a per-layer-type dict (or an HF layer type a family maps to one), ``layer`` the layer index
    for the per-layer readers."""
    if chatglm_2d(cfg, strict):
        return _chatglm_6b(cfg, layer_type, layer, factor)
    _check_top_keys(cfg, strict)
    where, params, family = rope_entries(cfg, strict)
    labels = family.labels if family is not None else {}
    if layer_type in labels:
        layer_type = labels[layer_type]
    ignored: tuple[str, ...] = ()
    if _per_layer(params):
        types = ", ".join(repr(t) for t in params)
        if layer_type is None:
            if family is not None and family.entry_needed:
                raise ValueError(family.entry_needed)
            raise ValueError(f"{where} has one entry per layer type ({types}); pass layer_type= one of them")
        if layer_type not in params:
            raise ValueError(f"layer_type={layer_type!r} is not in {where}; the config's layer types are {types}")
        if family is not None:
            ignored = tuple(family.ignored.get(layer_type, ()))
        where = f"{where}[{layer_type!r}]"
        params = params[layer_type]
        if params is None:
            raise ValueError(
                f"{where} is null: layers of type {layer_type!r} have no RoPE (NoPE), so there are no "
                "frequencies to compute"
            )
    elif layer_type is not None:
        raise ValueError(
            f"layer_type={layer_type!r} was given, but {where} is one dict for every layer "
            "(no per-layer-type entries); omit layer_type"
        )
    spec = _parse_params(cfg, where, params, layer_type, strict, factor=factor, yarn_engine=yarn_engine)
    if ignored:
        spec = dataclasses.replace(spec, ignored=spec.ignored + ignored)
    ix = indexer_layout(cfg, strict)
    if ix is not None:
        spec = dataclasses.replace(spec, indexer_layout=ix)
    if cfg.get("model_type") == "deepseek_v4":
        # HF's DeepSeek-V4 apply_rotary_pos_emb: interleaved pairs on the last rotary_dim channels
        spec = dataclasses.replace(spec, rotary_channels="trailing")
    for _name, reader in SPEC_READERS:
        got = reader(cfg, spec, layer)
        if got is not None:
            return got
    return spec


def _parse_params(cfg: Mapping[str, Any], where: str, p: Mapping[str, Any], layer_type: str | None,
                  strict: bool = False, *, factor: object = None, yarn_engine: str = "hf") -> RopeSpec:
    """The shared part of every rope type (type, unread keys, base, dims, required keys, Llama 4's
    query scale, M-RoPE sections) around the type's own reader (``READERS``)."""
    rope_type, raw_rt = _rope_type_of(cfg, where, p)
    ntk_alpha = rope_type == "dynamic" and bool(p.get("alpha"))
    ignored = _check_rope_keys(cfg, where, p, rope_type, raw_rt, "ntk_alpha" if ntk_alpha else rope_type, strict)
    theta, prf, head_dim, rotary_dim, freq_dim = _geometry(cfg, where, p, rope_type, layer_type, strict)
    from ._checks import MAX_D

    if head_dim > MAX_D:
        raise ValueError(f"head_dim={head_dim} is too large: the numeric core accepts head dims <= {MAX_D} (MAX_D)")
    max_pos = cfg.get("max_position_embeddings")
    if max_pos is not None:
        max_pos = _int("config", "max_position_embeddings", max_pos)

    for key in _REQUIRED.get(rope_type, ()):
        if ntk_alpha and key == "factor":
            continue
        if p.get(key) is None:
            raise ValueError(f"{where} is missing the key {key!r}, which rope_type {rope_type!r} requires")

    kw: dict[str, Any] = {"ignored": ignored}
    if freq_dim is not None:
        kw["freq_dim"] = freq_dim
    if p.get("llama_4_scaling_beta") is not None:
        kw["llama_4_scaling_beta"] = _real(where, "llama_4_scaling_beta", p["llama_4_scaling_beta"], minimum=0.0,
                                           what=" (the query scale 1 + beta*log(1 + floor(pos/L)))")
        if p.get("original_max_position_embeddings") is None:
            raise ValueError(f"{where} has 'llama_4_scaling_beta' but no 'original_max_position_embeddings' "
                             "(the L of the query scale 1 + beta*log(1 + floor(pos/L)), which HF reads from there)")
        kw["original_max_position_embeddings"] = _int(where, "original_max_position_embeddings",
                                                      p["original_max_position_embeddings"])
    # the type's own keys: one small reader per rope type (HF's ROPE_INIT_FUNCTIONS is the model)
    READERS[rope_type](ReadContext(cfg=cfg, where=where, p=p, rope_type=rope_type, raw_type=raw_rt,
                                   head_dim=head_dim, rotary_dim=rotary_dim, freq_dim=freq_dim, max_pos=max_pos,
                                   ntk_alpha=ntk_alpha, kw=kw, factor_choice=factor, yarn_engine=yarn_engine,
                                   strict=strict))
    if factor is not None and "factors" not in kw:
        raise ValueError(f"factor={factor!r} was given, but {where} has no factor list (vLLM's multi-factor linear "
                         "RoPE); omit factor")
    _sections(cfg, where, p, rope_type, raw_rt, rotary_dim, kw, strict)
    return RopeSpec(rope_type=rope_type, rope_theta=theta, head_dim=head_dim, rotary_dim=rotary_dim,
                    partial_rotary_factor=prf, max_position_embeddings=max_pos, layer_type=layer_type, **kw)
