r"""The NumPy core: sinusoidal tables, translation matrices and rotary embeddings.

Design rules (see :mod:`pe_symbolic.numeric._kernels` for the error analysis):

* **Angles are formed in at least float64**, whatever the output dtype, from the frequency
  held as a double-double (``hi + lo`` from a 40-digit constant) and Dekker's exact product.
  The common recipe that forms ``t * omega`` in float32 is wrong by up to ~1 at positions
  near ``2**24``; the naive float64 recipe by ~2e-9, because it rounds ``omega`` first.
* **Default mode is the translation theorem used as an algorithm**:
  ``PE(t0 + j) = T(j) PE(t0)`` with a coarse grid of ``t0`` and a fine block of ``j``, both
  small tables evaluated accurately, combined by one broadcast complex multiply. Absolute
  error <= 7 u ~ 8e-16 for any accepted position, ``|t| < 2**53`` (u = 2**-53), typically
  ~2e-16; tested up to 2**53 (angles beyond 2**25 are reduced in quadrants with a
  triple-double frequency, see :mod:`pe_symbolic.numeric._kernels`).
* **Reproducible rows**: the default mode splits every position the same way
  (``t = 256*floor(t/256) + j``), so a position's row is bitwise the same whatever else is in
  the call (prefill or one-token decode).
* **float16 / bfloat16** (bfloat16 from ``ml_dtypes``): tables are the float64 ones rounded
  once (correctly: ``ml_dtypes`` rounds float64 -> bfloat16 twice, through float32);
  ``apply_rope`` converts ``x`` exactly to float32, rotates there and rounds once back.
* **Limits**, refused up front with the limit named: ``d <= 32768`` (``MAX_D``),
  ``|t| < 2**53``. NaN / inf in ``x`` propagate to their own pair unless
  ``apply_rope(..., check_finite=True)``.
* ``accurate=True``: every entry from a Cody-Waite reduction in double-double and fdlibm's
  sine/cosine kernel polynomials evaluated on the double-double reduced argument (rare
  near-zero entries recomputed at 40 digits): <= 0.8 ulp *relative* in float64 (values
  near zero too) for every accepted position; float32 is the float64 result rounded once.
* Blocked: the default path allocates no ``T x d`` temporaries beyond the output; every
  table function takes ``out=``.
* **Formulas come from proved claims**, through :mod:`pe_symbolic.numeric.lower` (the one door to
  ``lambdify``): the frequency schedule (lowered to mpmath for the 40-digit constants), the
  phasor product of the angle-addition tables (``translation.identity``) and the complex
  RoPE product (``rope.efficient_form``), each with its evaluation form proved equal to the
  proof form. If a claim is not proved, these functions refuse to run.

* **Model configs** (:mod:`pe_symbolic.numeric.config`): :func:`rope_frequencies` reads a
  ``config.json`` (every HF ``rope_type``, partial rotary, per-layer-type bases, M-RoPE
  sections) and returns float64 inverse frequencies rounded once from 40-digit values of the
  proved expressions; :func:`rope_cos_sin` and :func:`apply_rope` take the same ``config=``
  (or ``inv_freq=``), M-RoPE positions and Hugging Face ``position_ids``.

* **NumPy arrays only**: a torch tensor or a JAX array is refused with a :class:`TypeError`
  naming :mod:`pe_symbolic.torch` / :mod:`pe_symbolic.jax` (the same functions on tensors,
  from the same lowered formulas), never converted silently.
* **First call**: the verdicts of the gating claims and the lowered formulas are cached on
  disk (:mod:`pe_symbolic.numeric._diskcache`; ``$PE_SYMBOLIC_CACHE_DIR``), so a later
  process neither imports SymPy nor proves anything for them.

Conventions: pair ``i`` has frequency :math:`\omega_i`; layout ``"interleaved"`` puts it in
slots ``(2i, 2i+1)``, ``"split"`` in ``(i, i + d/2)``; order ``"sin_cos"`` puts
:math:`\sin(\omega_i t)` in the first slot. RoPE angles are :math:`m\theta_i`,
:math:`\theta_i = b^{-2i/d}`.
"""

from __future__ import annotations

from ._core import frequencies
from ._config_base import UnknownConfigKeyError, UnknownConfigKeyWarning
from ._spec import RopeFrequencies, RopeSpec
from .config import model_config, model_configs, parse_rope_config, rope_frequencies
from .describe import ConfigDescription, ConfigLayoutWarning, LayerRope, describe
from .program import RopeProgram, RopeSite, read_program
from .scales import llama4_nope_query_scale, llama4_query_scale
from .rope import apply_rope, rope_cos_sin
from .tables import sinusoidal_table, translation_matrix
from .variants import fope_cos_sin, indexer_layouts

__all__ = [
    "ConfigDescription",
    "ConfigLayoutWarning",
    "LayerRope",
    "RopeFrequencies",
    "RopeProgram",
    "RopeSite",
    "RopeSpec",
    "UnknownConfigKeyError",
    "UnknownConfigKeyWarning",
    "apply_rope",
    "describe",
    "fope_cos_sin",
    "frequencies",
    "indexer_layouts",
    "llama4_nope_query_scale",
    "llama4_query_scale",
    "model_config",
    "model_configs",
    "parse_rope_config",
    "read_program",
    "rope_cos_sin",
    "rope_frequencies",
    "sinusoidal_table",
    "translation_matrix",
]
