"""Conventions as data: what each model type's attention does, and what an implementation does.

:data:`MODEL_CONVENTIONS` is the one table of per-model-type conventions the config does not
spell out -- the direction of the rotation (NanoChat's trained ``R(-theta)``), the pairing
of ports whose pairs differ from the model type HF's ``describe`` infers (the Perception
Encoder encoders' interleaved pairs); HF's interleave-in-split-out and the interleaved
model types come from :func:`pe_symbolic.numeric.describe` and are named here with their
source. :func:`model_convention` gives ``(layout, direction, why)`` for a config.

:func:`infer` reads what an implementation does from its float output -- ``fn`` applied to
the basis vectors at a few positions is its matrix there: which slots each slot is paired
with (split, interleaved, or another permutation), the direction of the rotation, which
channels rotate (leading, trailing, partial), each pair's inverse frequency (angles
unwrapped along positions ``0, 1, 2, 4, ...``) and the attention factor -- and names the
layout, direction or weight permutation that reproduces it. It explains; it proves nothing.

>>> model_convention({"model_type": "nanochat"})[1]
-1
>>> model_convention({"model_type": "pe_audio_encoder"})[0]
'interleaved'
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .geometry import Geometry, expected_pairs

__all__ = ["IN_SPLIT_OUT", "LAYOUTS", "MODEL_CONVENTIONS", "SUBMODULE_CONVENTIONS", "Convention", "infer",
           "model_dtype", "model_heads",
           "model_convention", "read_matrices", "submodule_layout"]

LAYOUTS = ("split", "interleaved")
#: HF's ``apply_rotary_pos_emb_interleave`` (DeepSeek V3 & co.): interleaved pairs in, split out.
IN_SPLIT_OUT = "interleaved-in-split-out"


@dataclass(frozen=True)
class Convention:
    """What a model type's attention does that its config does not say."""

    layout: str | None = None
    direction: int = 1
    source: str = ""


_PE = ("transformers 5.24 models/{m}/modeling_{m}.py apply_rotary_pos_emb: stack_freqs builds [[cos, -sin], "
       "[sin, cos]] per pair from the first half of cos/sin and multiplies q.reshape(..., -1, 1, 2): interleaved "
       "pairs (2i, 2i + 1), R(theta), the Perception Encoder's own layout")
#: Per-model-type conventions (the model types' HF code, named in ``source``).
MODEL_CONVENTIONS: dict[str, Convention] = {
    "nanochat": Convention(direction=-1, source=(
        "transformers 5.24 models/nanochat/modeling_nanochat.py rotate_half: cat((x2, -x1)) -- q*cos + "
        "rotate_half(q)*sin is R(-theta), the direction NanoChat's weights were trained with")),
    **{mt: Convention(layout="interleaved", source=_PE.format(m=m)) for mt, m in (
        ("pe_audio_encoder", "pe_audio"), ("pe_audio", "pe_audio"), ("pe_video_encoder", "pe_video"),
        ("pe_video", "pe_video"), ("pe_audio_video_encoder", "pe_audio_video"),
        ("pe_audio_video", "pe_audio_video"))},
}


#: Conventions of sub-modules that differ from their model's attention: (model_type, entry
#: name) -> convention (``verify_rope({"mla": f, "indexer": g}, config)`` takes the entry's).
SUBMODULE_CONVENTIONS: dict[tuple[str, str], Convention] = {
    ("deepseek_v32", "indexer"): Convention(layout="split", source=(
        "transformers 5.24 models/deepseek_v32/modeling_deepseek_v32.py DeepseekV32Indexer: apply_rotary_pos_emb "
        "(rotate_half, split halves) on its first qk_rope_head_dim channels, where the MLA attention applies "
        "apply_rotary_pos_emb_interleave (DeepSeek's own reference had the indexer interleaved)")),
}


#: The config's dtype names verify runs in (HF writes ``torch_dtype``, transformers 5 ``dtype``).
_DTYPES = {"float32": "float32", "bfloat16": "bfloat16", "float16": "float16", "float64": "float64",
           "fp32": "float32", "bf16": "bfloat16", "fp16": "float16", "half": "float16", "float": "float32"}


def _text(config: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The config, then its ``text_config`` (a multimodal config's language model)."""
    sub = config.get("text_config")
    return [config] + ([sub] if isinstance(sub, Mapping) else [])


def model_dtype(config: Mapping[str, Any]) -> tuple[str, str]:
    """The dtype the model runs in, from its config (``torch_dtype`` or ``dtype``), and why.

    >>> model_dtype({"torch_dtype": "bfloat16"})
    ('bfloat16', "the config's torch_dtype")
    >>> model_dtype({})[0]
    'float32'
    """
    for c in _text(config):
        for key in ("torch_dtype", "dtype"):
            v = c.get(key)
            name = str(v).removeprefix("torch.") if v is not None else ""
            if name in _DTYPES:
                return _DTYPES[name], f"the config's {key}"
    return "float32", "the config names no dtype (torch_dtype / dtype): float32"


def model_heads(config: Mapping[str, Any]) -> tuple[int, int]:
    """``(num_attention_heads, num_key_value_heads)`` of the config (kv heads default to the
    q heads; ``(1, 1)`` where the config has none).

    >>> model_heads({"num_attention_heads": 32, "num_key_value_heads": 8})
    (32, 8)
    """
    for c in _text(config):
        q = c.get("num_attention_heads")
        if isinstance(q, int) and not isinstance(q, bool) and q >= 1:
            k = c.get("num_key_value_heads")
            k = k if isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= q else q
            return q, k
    return 1, 1


def submodule_layout(config: Mapping[str, Any], entry: str) -> tuple[str, str] | None:
    """``(layout, why)`` for a sub-module entry whose convention differs from its model's
    attention: the config's ``indexer_rope_interleave`` where it has one, else
    :data:`SUBMODULE_CONVENTIONS`; None otherwise."""
    if entry == "indexer" and config.get("indexer_rope_interleave") is not None:
        inter = bool(config["indexer_rope_interleave"])
        return ("interleaved" if inter else "split"), f"config['indexer_rope_interleave']={inter}"
    conv = SUBMODULE_CONVENTIONS.get((str(config.get("model_type", "") or ""), entry))
    if conv is not None and conv.layout is not None:
        return conv.layout, conv.source
    return None


def model_convention(config: Mapping[str, Any], described_layout: str | None = None) -> tuple[str, int, str]:
    """``(layout, direction, why)`` for ``config``: the table's entry for its model type,
    else HF's layout as :func:`pe_symbolic.numeric.describe` gives it (``described_layout``),
    else ``"split"``, direction ``+1``."""
    mt = str(config.get("model_type", "") or "")
    conv = MODEL_CONVENTIONS.get(mt)
    hf = described_layout or ""
    layout = (IN_SPLIT_OUT if hf.startswith("interleaved in, split out") else
              "interleaved" if hf.startswith("interleaved pairs") else "split")
    why = f"HF's layout for model_type {mt!r}: {hf}" if hf else "split halves (rotate_half), the default"
    if conv is not None:
        if conv.layout is not None:
            layout = conv.layout
        why = f"model_type {mt!r}: {conv.source}"
        return layout, conv.direction, why
    return layout, 1, why


# ---------------------------------------------------------------------------- reading fn


def read_matrices(run: Callable[[np.ndarray, np.ndarray], np.ndarray], d: int, positions: Sequence[int],
                  axes: int = 1, axis: int | None = None) -> np.ndarray:
    """``M[t]`` (d x d) of ``fn`` at each position: ``fn`` applied to the basis vectors,
    one per head, all positions in one call (every axis at the position, or only ``axis``)."""
    x = np.zeros((1, d, len(positions), d))
    for j in range(d):
        x[0, j, :, j] = 1.0
    pos = np.asarray(positions, dtype=np.int64)[None, :]
    if axes == 1:
        ids = pos
    else:
        ids = np.zeros((axes, 1, pos.shape[1]), dtype=np.int64)
        for k in range(axes):
            if axis is None or k == axis:
                ids[k] = pos
    out = run(x, ids)
    return np.transpose(out[0], (1, 2, 0))  # [t, row, col]


def _unwrap(ms: np.ndarray, positions: Sequence[int], a: int, b: int) -> tuple[float, float, float]:
    """(inverse frequency, amplitude, angle at position 0) of the pair (a, b) from its
    angles along ``positions`` (which start 0, 1, then grow), unwrapped step by step."""
    ang = np.arctan2(ms[:, b, a], ms[:, a, a])
    amp = float(np.median(np.hypot(ms[:, a, a], ms[:, b, a])))
    offset = float(ang[0])
    omega = float(ang[1] - ang[0])
    for t in range(2, len(positions)):
        m = positions[t]
        predicted = offset + omega * m
        k = round((predicted - ang[t]) / (2 * math.pi))
        omega = (ang[t] + 2 * math.pi * k - offset) / m
    return omega, amp, offset


def ladder(context: int) -> list[int]:
    """Positions ``0, 1, 2, 3, 4, 8, ...`` below ``context``, and ``context - 1``."""
    out, m = [0, 1, 2, 3], 4
    while m < context:
        out.append(m)
        m *= 2
    out.append(context - 1)
    return sorted(set(p for p in out if p < context))


def _pairs_found(ms: np.ndarray, tol: float) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """From the matrices: the 2-slot blocks (pairs), the slots that pass through, and the
    slots mixed in some other way."""
    d = ms.shape[1]
    nz = (np.abs(ms) > tol).any(axis=0)
    pairs, still, odd, seen = [], [], [], set()
    for c in range(d):
        if c in seen:
            continue
        rows = set(np.nonzero(nz[:, c])[0]) | set(np.nonzero(nz[c, :])[0])
        if rows <= {c}:
            still.append(c)
            seen.add(c)
            continue
        if len(rows) == 2:
            a, b = sorted(rows)
            rows_b = set(np.nonzero(nz[:, b])[0]) | set(np.nonzero(nz[b, :])[0])
            if rows_b == rows:
                pairs.append((a, b))
                seen |= {a, b}
                continue
        odd.append(c)
        seen.add(c)
    return pairs, still, odd


def _pairing_name(pairs: list[tuple[int, int]], still: list[int], d: int) -> tuple[str, str]:
    """(name, rotary channels) of a pairing."""
    r = 2 * len(pairs)
    chans = ("all" if r == d else f"leading {r} of {d}" if all(c >= r for c in still) else
             f"trailing {r} of {d}" if all(c < d - r for c in still) else f"{r} of {d} (not contiguous)")
    srt = sorted(pairs)
    for lay in LAYOUTS:
        if srt == expected_pairs(r, lay):
            return lay, chans
        if r < d and srt == [(a + d - r, b + d - r) for a, b in expected_pairs(r, lay)]:
            return lay, chans
    shown = ", ".join(f"({a}, {b})" for a, b in srt[:4]) + (", ..." if len(srt) > 4 else "")
    return f"another permutation: pairs {shown}", chans


def infer(run: Callable[[np.ndarray, np.ndarray], np.ndarray], geo: Geometry, context: int, eps: float,
          dtype: str) -> dict[str, Any]:
    """What ``fn`` does, read from its float output (see the module notes)."""
    d = geo.d
    lad = ladder(context)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ms = read_matrices(run, d, lad, geo.n_axes)
    except Exception as exc:  # noqa: BLE001 - an explanation only; the verdict does not rest on it
        return {"summary": f"not read ({type(exc).__name__}: {exc})"[:200]}
    tol = max(4 * eps, 1e-12) * max(1.0, float(np.nanmax(np.abs(ms))) if np.isfinite(ms).any() else 1.0)
    pairs, still, odd = _pairs_found(ms, tol)
    out: dict[str, Any] = {}
    if odd:
        out["pairing"] = (f"not a rotation of pairs: slot {odd[0]} is mixed with slots "
                          f"{sorted(set(np.nonzero((np.abs(ms) > tol).any(axis=0)[:, odd[0]])[0]))[:6]}")
        out["summary"] = out["pairing"]
        return out
    name, chans = _pairing_name(pairs, still, d)
    out["pairing"], out["rotary_channels"] = name, chans
    # order the found pairs as the config's (by their first slot's rank in the layout)
    omegas, amps, offs = [], [], []
    for a, b in pairs:
        w, A, off = _unwrap(ms, lad, a, b)
        omegas.append(w)
        amps.append(A)
        offs.append(off)
    om = np.array(omegas)
    out["direction"] = ("R(theta)" if (om >= 0).all() else "R(-theta)" if (om <= 0).all() else
                        "mixed: some pairs turn each way")
    out["attention_factor"] = float(np.median(amps)) if amps else 1.0
    if pairs:
        by = sorted(range(len(pairs)), key=lambda i: -abs(om[i]))
        want = np.sort(np.abs(geo.want))[::-1]
        got = np.abs(om[by])
        n = min(len(got), len(want))
        rel = np.abs(got[:n] - want[:n]) / np.maximum(np.abs(want[:n]), 1e-300)
        out["frequencies"] = (f"{len(pairs)} pairs, inverse frequencies {got.max():.6g} .. {got.min():.6g}; against "
                              f"the config's (by size): max relative error {rel.max():.3g}" if n else "")
        out["max_relative_error"] = float(rel.max()) if n else 0.0
        out["offset"] = float(np.max(np.abs(offs)))
    repro = []
    cfg_pairs = sorted(geo.pairs)
    if sorted(pairs) != cfg_pairs and name in LAYOUTS:
        repro.append(f"layout={name!r}" + (" (or permute the q/k weights to the config's pairs)"))
    elif name.startswith("another"):
        repro.append("a q/k weight permutation taking the config's pairs to " + name.split(": ", 1)[1])
    if out["direction"] == "R(-theta)" and geo.direction == 1:
        repro.append("the direction R(-theta) (as NanoChat trains it): negate sin, or the config's model type's "
                     "convention")
    if out["direction"] == "R(theta)" and geo.direction == -1:
        repro.append("the direction R(theta), where this model type's convention is R(-theta)")
    out["reproduced_by"] = repro
    out["summary"] = (f"pairing {name}; rotary channels {chans}; {out['direction']}; attention factor "
                      f"{out['attention_factor']:.6g}" + (f"; {out['frequencies']}" if out.get("frequencies") else "")
                      + (f"; reproduced by {'; '.join(repro)}" if repro else "; as the config and layout say"))
    return out
