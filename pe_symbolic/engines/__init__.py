r"""Inference engines' RoPE as recipes of formulas, proved equal to Hugging Face's or shown to differ.

* ``pe_symbolic.engines.recipes`` -- each engine's RoPE frequency, attention-factor and
  table formulas (vLLM, SGLang, llama.cpp, TensorRT-LLM, MLX-LM; file and commit cited)
  as SymPy expressions, beside HF's;
* ``pe_symbolic.engines.compare`` -- :func:`engine_report`: every engine against HF
  per layer type, decided by the proof kernel for every pair, position and length, at the
  config and for every value of its numbers (``pe-audit --engines CONFIG``);
* ``pe_symbolic.engines.support`` -- :func:`~pe_symbolic.supports` (can this engine run the model's RoPE
  over the positions it admits, and why not) and :func:`~pe_symbolic.usable_context` (per site the admitted
  positions, the dtypes' limits, each engine's table and context cap, with their sources).

This floor sits beside :mod:`pe_symbolic.torch` and :mod:`pe_symbolic.jax`: it imports the
proof engine and the numeric floor's shipped configs, nothing above.

>>> from pe_symbolic import engines
>>> rep = engines.engine_report({"head_dim": 8, "max_position_embeddings": 64, "rope_theta": 100.0},
...                             ["vllm"], generic=False)
>>> rep.verdicts()
{(None, 'vllm'): 'equal here (proved); elsewhere undecided'}
"""

from __future__ import annotations

from ._read import LayerRope, exact, layer_ropes
from .compare import EngineCheck, EngineReport, LayerReport, RangeCheck, compare_layer, engine_report
from .recipes import ENGINES, RECIPES, Recipe, Regime, Source, recipe
from .support import DEFAULT_ENGINES, Support, UsableContext, supports, usable_context

__all__ = [
    "DEFAULT_ENGINES",
    "ENGINES",
    "RECIPES",
    "EngineCheck",
    "EngineReport",
    "LayerReport",
    "LayerRope",
    "RangeCheck",
    "Recipe",
    "Regime",
    "Source",
    "Support",
    "UsableContext",
    "compare_layer",
    "engine_report",
    "exact",
    "layer_ropes",
    "recipe",
    "supports",
    "usable_context",
]
