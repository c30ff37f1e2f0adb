r"""Your implementation, verified: a user's RoPE function against the specification.

:func:`pe_symbolic.verify_rope` takes the RoPE a user actually wrote -- a NumPy, PyTorch or JAX callable
``fn(x, position_ids) -> x_rotated`` in Hugging Face shapes, or HF's own pair
``(rotary_emb, apply_rotary_pos_emb)`` -- and a model config, and answers with one of four
verdicts (:mod:`~pe_symbolic.audit.verify.report`) that say what was shown:

``verified``
    the structure **proved** by a symbolic trace for every position, *and* every randomized
    test passed (frequencies, attention factor, precision);
``consistent (tested)``
    not proved (the code is not branch-free, or ``trace=False``), every test passed -- the
    report lists what was tested;
``out of bound``
    the right rotation, less accurate than HF's reference recipe;
``differs``
    the first position / slot where it differs, and the cause.

The parts, each its own module:

- :mod:`~pe_symbolic.audit.verify.trace` -- the traced proof. ``fn`` runs on symbolic
  ``x`` and positions (:mod:`pe_symbolic.audit.symbolic_trace`); a data-dependent use of a value (a
  comparison, a truth value, a cast to an integer, an index or table lookup by a position)
  fails the trace, so only branch-free code is proved, at the shape traced
  ``(2, 1, 2, head_dim)``; the kernel (:func:`pe_symbolic.check_identity`) checks
  ``fn(x, m) = A R(theta(m)) x`` for every integer ``m``. A length-dependent rule
  (``dynamic``, ``longrope``) is traced at its lengths, one on each side of its switch.
- :mod:`~pe_symbolic.audit.verify.probe` -- randomized cross-checks drawn per run (the seed
  reported): every position ``0 .. 255`` and of ``[0, context)`` up to ``2**17``, positions
  spread to the largest admitted one, windows, batch >= 3, heads >= 3, sequences of 1 and
  > 64, int32 and int64 ids, repeated calls (stateful code is named), linearity at small
  and large ``|x|`` -- each call held to the oracle at the length it sees, within the bound
  of HF's recipe.
- :mod:`~pe_symbolic.audit.verify.conventions` -- the per-model-type conventions table
  (NanoChat's ``R(-theta)``, the Perception Encoder's interleaved pairs, HF's
  interleave-in-split-out) and what an implementation does, inferred from its output.
- :mod:`~pe_symbolic.audit.verify.diagnose` -- the cause of a failed test, by reproducing it.
- :mod:`~pe_symbolic.audit.verify.calling` -- the framework (detected from the function) and
  the protocols (``fn(x, ids)``, HF's pair, one-tensor ``apply``, complex ``freqs_cis``,
  partial rotary).
- :mod:`~pe_symbolic.audit.verify.report` -- :class:`VerifyReport` (text, Markdown, JSON).

>>> import numpy as np
>>> import pe_symbolic as pe
>>> cfg = {"rope_theta": 10000.0, "head_dim": 8, "hidden_size": 32, "num_attention_heads": 4,
...        "max_position_embeddings": 2048}
>>> def rope(x, position_ids):       # HF's rotate_half RoPE, float64 tables
...     inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
...     ang = position_ids[..., None] * inv
...     cos, sin = np.cos(np.concatenate([ang, ang], -1))[:, None], np.sin(np.concatenate([ang, ang], -1))[:, None]
...     x1, x2 = x[..., :4], x[..., 4:]
...     return x * cos + np.concatenate([-x2, x1], -1) * sin
>>> report = pe.verify_rope(rope, cfg, dtype="float64", seed=1)
>>> report.verdict, report.structure["method"], report.tests["seed"]
('verified', 'traced', 1)
"""

from __future__ import annotations

from .conventions import IN_SPLIT_OUT, LAYOUTS, MODEL_CONVENTIONS
from .attention import verify_attention
from .core import verify_rope
from .report import VERDICTS, AttentionReport, VerifyReport

__all__ = ["IN_SPLIT_OUT", "LAYOUTS", "MODEL_CONVENTIONS", "VERDICTS", "AttentionReport", "VerifyReport",
           "verify_attention", "verify_rope"]
