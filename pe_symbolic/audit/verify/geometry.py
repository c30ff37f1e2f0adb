"""What the config asks for: the pairs, each pair's position axis and exact frequency, the
attention factor, the direction -- at the sequence length the implementation sees.

:class:`Oracle` wraps the independent oracle (:func:`pe_symbolic.reference.rope_frequencies`,
40 digits) for one config, layer type, layout and direction, and gives a
:class:`Geometry` per sequence length: for the length-dependent rules (HF's ``dynamic``,
``longrope`` and PhiMoE's ``short_mscale`` / ``long_mscale``) the frequencies or the
factor change at a *switch* length (:func:`switch_length`), and each call of the user's
function is held to the oracle at the length it sees (``max(position_ids) + 1``, or the
length the user states).

>>> from pe_symbolic.numeric.config import parse_rope_config
>>> cfg = {"head_dim": 8, "rope_theta": 10000.0, "max_position_embeddings": 64,
...        "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
>>> spec = parse_rope_config(cfg)
>>> switch_length(spec)
64
>>> o = Oracle(cfg, spec, "split", None)
>>> bool(o.at(64).want[1] == o.at(10).want[1]), bool(o.at(128).want[1] < o.at(64).want[1])
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from ... import reference
from ...numeric.config import mrope_rule_axes

__all__ = ["Geometry", "Oracle", "expected_pairs", "switch_length"]


def expected_pairs(rotary_dim: int, layout: str) -> list[tuple[int, int]]:
    """The slots of each rotated pair: ``(i, i + r/2)`` (split) or ``(2i, 2i + 1)``."""
    h = rotary_dim // 2
    if layout == "split":
        return [(i, i + h) for i in range(h)]
    return [(2 * i, 2 * i + 1) for i in range(h)]


def switch_length(spec: Any) -> int | None:
    """The sequence length past which a length-dependent rule changes its tables (HF's
    ``dynamic``: ``max_position_embeddings``; ``longrope`` and PhiMoE's mscales:
    ``original_max_position_embeddings``), or None for a rule that does not depend on it."""
    if spec.rope_type == "dynamic" and not spec.alpha:
        return int(spec.max_position_embeddings) if spec.max_position_embeddings else None
    if spec.rope_type == "longrope":
        orig = spec.original_max_position_embeddings or spec.max_position_embeddings
        return int(orig) if orig else None
    return None


@dataclass
class Geometry:
    """What the config asks for at one sequence length."""

    d: int
    r: int
    layout: str
    pairs: list[tuple[int, int]]
    axes: list[int]
    axis_names: tuple[str, ...]
    inv_exact: list[Any]
    want: np.ndarray
    hi: np.ndarray
    lo: np.ndarray
    factor_exact: Any
    factor: float
    kind: str
    direction: int
    length: int | None

    @property
    def n_axes(self) -> int:
        """Position axes (1; 2 for axial; 3 for M-RoPE)."""
        return len(self.axis_names)


class Oracle:
    """The config's geometry per sequence length (see the module notes)."""

    def __init__(self, config: Mapping[str, Any], spec: Any, layout: str, layer_type: str | None,
                 direction: int = 1) -> None:
        self.config, self.spec, self.layout, self.layer_type = config, spec, layout, layer_type
        self.direction = direction
        self.switch = switch_length(spec)
        self._cache: dict[int | None, Geometry] = {}

    @property
    def length_dependent(self) -> bool:
        """Whether the tables change with the sequence length."""
        return self.switch is not None

    def at(self, length: int | None = None) -> Geometry:
        """The geometry at ``length`` (ignored for a length-independent rule)."""
        key = length if self.length_dependent else None
        if key not in self._cache:
            self._cache[key] = _geometry(self.config, self.spec, self.layout, self.layer_type, key, self.direction)
        return self._cache[key]


def _geometry(config: Mapping[str, Any], spec: Any, layout: str, layer_type: str | None, length: int | None,
              direction: int) -> Geometry:
    inv, factor = reference.rope_frequencies(config, layer_type=layer_type, seq_len=length, dps=40)
    inv = list(inv)
    r = spec.rotary_dim
    npairs = r // 2
    pairs = expected_pairs(r, layout)
    if getattr(spec, "rotary_channels", "leading") == "trailing":  # DeepSeek-V4: the LAST r channels rotate
        pairs = [(a + spec.head_dim - r, b + spec.head_dim - r) for a, b in pairs]
    if spec.xdrope_section is not None:
        raise ValueError(f"config's xdrope_section={list(spec.xdrope_section)!r} ({len(spec.xdrope_section)}-axis "
                         "M-RoPE) is not verified yet; verify_rope checks 1-axis RoPE, M-RoPE (3 axes) and axial (2)")
    if spec.rope_type == "axial":
        k = npairs // 2
        if npairs % 2:
            raise ValueError(f"axial RoPE with head_dim={spec.head_dim}: {npairs} pairs cannot be split evenly into "
                             "height and width pairs")
        if len(inv) == npairs:  # Pixtral: its own ladder order, height pairs first
            per = inv
        elif len(inv) == k:  # HF's compute_axial_rope_parameters: one ladder for h and for w
            per = inv + inv
        else:
            raise ValueError(_disagree(config, spec, len(inv), npairs))
        axes, names, kind = [0] * k + [1] * (npairs - k), ("h", "w"), "axial"
    elif spec.mrope_section is not None:
        if spec.mrope_rule is not None:  # a model's own placement (Ernie 4.5 VL), from the parser's rule
            axes = list(mrope_rule_axes(spec.mrope_rule, spec.mrope_section))
        else:
            axes = list(reference.mrope_axes(spec.mrope_section, interleaved=spec.mrope_interleaved))
        per, names, kind = inv, ("t", "h", "w"), "mrope"
    else:
        per, axes, names, kind = inv, [0] * npairs, ("m",), "rope"
    if len(per) != npairs:
        raise ValueError(_disagree(config, spec, len(per), npairs))
    with mpmath.workdps(40):
        hi = np.array([float(v) for v in per])
        lo = np.array([float(v - mpmath.mpf(float(v))) for v in per])
    return Geometry(spec.head_dim, r, layout, pairs, axes, names, per, hi.copy(), hi, lo, factor, float(factor), kind,
                    direction, length)


def _disagree(config: Mapping[str, Any], spec: Any, n_oracle: int, n_pairs: int) -> str:
    """A refusal (not an internal error): the parser and the oracle read the head differently."""
    keys = [k for k in ("head_dim", "qk_rope_head_dim", "global_head_dim", "hidden_size", "num_attention_heads",
                        "partial_rotary_factor", "rotary_dim", "rotary_pct") if k in config]
    return (f"config not supported yet: pe_symbolic's config parser reads head_dim={spec.head_dim}, rotary dim "
            f"{spec.rotary_dim} ({n_pairs} pairs) while its frequency oracle gives {n_oracle} frequencies, from "
            f"the keys {', '.join(keys) or '(none)'} (model_type {config.get('model_type')!r}); verify_rope "
            "refuses rather than guess which reading is right -- pass a config with head_dim and "
            "partial_rotary_factor spelled out")
