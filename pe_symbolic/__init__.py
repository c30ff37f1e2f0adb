"""pe_symbolic: derive, prove, then compute the positional encodings of transformers.

The sinusoidal encoding PE(t), the translation matrix T(k) and rotary embeddings R(m) are
built with SymPy, their properties proved by the package's proof engine, the proved
formulas lowered to a NumPy core, and that core checked against an independent mpmath
oracle. The design page of the documentation says all of this at length.

Layers -- one subpackage per floor; each floor imports only the floors below it:

* :mod:`~pe_symbolic.cli` -- ``pe-derive`` and ``pe-audit``: the tools on top;
* :mod:`~pe_symbolic.zoo` -- RoPE cards for a whole corpus of configs, deduplicated and
  resumable, on a process pool or Ray (:func:`pe_symbolic.cards`), and the diff of two sweeps
  (:func:`pe_symbolic.diff_cards`);
* :mod:`~pe_symbolic.audit` -- the precision audit of framework recipes (:func:`pe_symbolic.audit`), and
  the tolerances a kernel test can import (:func:`pe_symbolic.tolerance`);
* :mod:`~pe_symbolic.torch` -- RoPE and sinusoidal tables on torch tensors (``torch.compile``,
  autograd), lowered through ``numeric.lower`` (torch imported on first use);
* :mod:`~pe_symbolic.jax` -- the same on JAX arrays (``jax.jit``, ``jax.grad``), beside
  :mod:`~pe_symbolic.torch` on one floor;
* :mod:`~pe_symbolic.engines` -- inference engines' RoPE (vLLM, SGLang, llama.cpp, TensorRT-LLM,
  MLX-LM) as SymPy recipes, proved equal to HF's or shown to differ (``pe-audit --engines``),
  on the same floor;
* :mod:`~pe_symbolic.numeric` -- :mod:`~pe_symbolic.numeric.lower`, the one door to
  ``lambdify`` (proved claims only), and the NumPy core: tables, RoPE, kernels;
* :mod:`~pe_symbolic.theorems` -- the registry of named claims;
* :mod:`~pe_symbolic.proof` -- the engine: claims, sound rules, the checker, certificates;
* ``encodings`` -- the SymPy constructions (SymPy only): :mod:`~pe_symbolic.encodings.rot2`,
  :mod:`~pe_symbolic.encodings.sinusoidal`, :mod:`~pe_symbolic.encodings.rope`;
* ``_validate`` -- argument checks shared by every floor;
* ``_hfconfig`` -- beside it, a ``config.json`` as the model's HF config class holds it (class
  defaults, ``attribute_map`` names, per-layer overrides; pure data, imports nothing of the package).

Beside them, :mod:`~pe_symbolic.reference` is the mpmath oracle, written from the papers'
formulas: it imports no SymPy and nothing of the package but the pure-data ``_hfconfig``. These rules are a contract in
``pyproject.toml`` (``[tool.importlinter]``), checked by ``lint-imports`` in ``make test``.

Where a new piece goes: an encoding in ``encodings/``; a theorem in ``theorems/`` (with
``@theorem``; a false claim people make with ``expect="refuted"``); a numeric backend in
``numeric/``, lowered through ``numeric.lower`` and tested against ``reference``; a tool
(the audit) beside ``cli/``; a tutorial in ``derivations/``.

Verdicts (the soundness contract): ``proved`` -- true under the stated assumptions of the
symbols, by a chain whose every step is re-checked and preserves equality under them
(numbers never prove); ``refuted`` -- a counterexample at a point that satisfies every
assumption; ``undecided`` -- neither, said honestly (also when the time budget runs out).
Certificates are data, read back by a whitelist parser, never evaluated.

Submodules load on first use, so ``import pe_symbolic`` is cheap.

>>> import pe_symbolic as pe
>>> pe.theorems.get("translation.identity").id
'translation.identity'
>>> pe.theorems.get("translation.identity").prove().verdict
'proved'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

_SUBMODULES = ("encodings", "proof", "theorems", "numeric", "reference", "cli")

__all__ = ["audit", "cards", "check_identity", "diff_cards", "is_relative", "supports", "tolerance", "usable_context",
           "verify_attention", "verify_rope", "__version__", *_SUBMODULES]

if TYPE_CHECKING:  # pragma: no cover
    from . import encodings, numeric, proof, reference, theorems  # noqa: F401
    from .audit import audit  # noqa: F401
    from .audit.tolerance import tolerance  # noqa: F401
    from .audit.verify import verify_attention, verify_rope  # noqa: F401
    from .zoo import cards, diff_cards  # noqa: F401
    from .engines.support import supports, usable_context  # noqa: F401
    from .proof import check_identity  # noqa: F401
    from .theorems.relative import is_relative  # noqa: F401


def __getattr__(name: str) -> Any:
    if name == "check_identity":
        from .proof import check_identity

        return check_identity
    if name == "is_relative":
        from .theorems.relative import is_relative

        return is_relative
    if name in ("usable_context", "supports"):
        from .engines import support

        return getattr(support, name)
    if name in ("cards", "diff_cards"):
        from . import zoo

        return getattr(zoo, name)
    if name == "verify_rope":
        from .audit.verify import verify_rope

        return verify_rope
    if name == "tolerance":
        from .audit.tolerance import tolerance

        return tolerance
    if name == "verify_attention":
        from .audit.verify import verify_attention

        return verify_attention
    if name == "audit":
        from .audit import audit

        globals()["audit"] = audit  # the function, not the subpackage of the same name
        return audit
    if name in _SUBMODULES or name in ("torch", "jax", "engines", "zoo"):  # torch / jax: optional extras
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'pe_symbolic' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
