r"""The RoPE family that real models ship: theorems about scaled, partial, multimodal and
2-D rotary embeddings, and xPos.

Everything rests on one statement, ``family.relative``: RoPE with an *arbitrary*
frequency vector :math:`\theta` satisfies :math:`R_\theta(m)^T R_\theta(n) = R_\theta(n-m)`,
so every scaling that only changes :math:`\theta` (``linear``, NTK, ``dynamic`` at a fixed
length, ``yarn``, ``longrope`` on one side of its switch, ``llama3``, ``proportional``)
keeps attention scores functions of :math:`n - m`. Each member's own claim restates that
for its frequency vector (an instance of ``family.relative``) together with what is
particular to it. Two **honest negatives** are registered with ``expect="refuted"``: keys
cached under one dynamic-NTK base and queries rotated under another, and LongRoPE's
short/long switch, each break the relative property, and the engine must find the
counterexample.

Sign claims are written ``sign(expr) = 1`` (SymPy decides the sign from the symbols'
assumptions, as in the chapters). Ranges such as
:math:`s \ge 1` or :math:`\mathrm{high} > \mathrm{low}` are parametrised so that the
assumptions carry them (:math:`s = 1 + e`, :math:`e \ge 0`).

One module a chapter, registered in this order (the order of ``IDS``):
:mod:`~pe_symbolic.theorems.family.scalings` (``family.relative`` and the scalings of the
frequencies), :mod:`~pe_symbolic.theorems.family.partial` (partial rotary, the pairing),
:mod:`~pe_symbolic.theorems.family.multimodal` (M-RoPE, axial),
:mod:`~pe_symbolic.theorems.family.decay` (xPos, RoFormer's long-term decay) and
:mod:`~pe_symbolic.theorems.family.shipped` (variants real configs and engines ship), on what
they share (``_common``: sources, symbols, the relative property's equations and chains).

>>> from pe_symbolic import theorems
>>> theorems.get("linear.interpolation").prove().verdict
'proved'
"""

from __future__ import annotations

from . import scalings, partial, multimodal, decay, shipped  # noqa: F401, I001 - registered in this order
from .decay import roformer_decay

__all__ = ["IDS", "roformer_decay"]

#: The family's theorem ids, in the order they are registered (the docs' chapter lists them so).
IDS = (
    "family.relative",
    "linear.interpolation",
    "ntk.derive",
    "dynamic.continuity",
    "dynamic.mixed_bases",
    "yarn.correction_dim",
    "yarn.blend",
    "yarn.attention_factor",
    "yarn.relative",
    "llama3.continuity",
    "llama3.monotone",
    "llama3.bands_llama31",
    "longrope.relative",
    "longrope.switch",
    "partial.relative",
    "proportional.relative",
    "partial.permutation",
    "mrope.homomorphism",
    "mrope.reduces_to_rope",
    "axial.homomorphism",
    "xpos.relative",
    "roformer.abel",
    "ntk_alpha.base",
    "axial.spatial_ladder",
    "deepseek.interleave_in_split_out",
    "ntk_mixed.endpoints",
    "telechat3.attention_factor",
    "deepseek_v4.output_conjugate",
)
