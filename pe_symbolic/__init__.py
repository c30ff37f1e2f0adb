"""pe_symbolic: derive, prove, then compute the positional encodings of transformers.

Layers (imports go one way, downwards in this list):

* symbolic, SymPy only: :mod:`~pe_symbolic.encodings.symbols`, :mod:`~pe_symbolic.encodings.rot2`,
  :mod:`~pe_symbolic.encodings.sinusoidal`, :mod:`~pe_symbolic.encodings.rope`;
* proofs: :mod:`~pe_symbolic.proof` (the engine) and :mod:`~pe_symbolic.theorems` (the
  registry of named claims);
* numbers: :mod:`~pe_symbolic.numeric.lower` (the one door to ``lambdify``) and
  :mod:`~pe_symbolic.numeric` (the NumPy core);
* :mod:`~pe_symbolic.reference`: the mpmath oracle, written from the papers' formulas and
  sharing no code with the symbolic layer;
* on top: :func:`pe_symbolic.audit` (:mod:`pe_symbolic.audit`, the precision audit of
  framework recipes) and the command-line tools.

Submodules load on first use, so ``import pe_symbolic`` is cheap.

>>> import pe_symbolic as pe
>>> pe.theorems.get("translation.identity").id
'translation.identity'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_SUBMODULES = ("encodings", "proof", "theorems", "numeric", "reference", "cli")

__all__ = ["audit", "check_identity", "__version__", *_SUBMODULES]

if TYPE_CHECKING:  # pragma: no cover
    from . import encodings, numeric, proof, reference, theorems  # noqa: F401
    from .audit import audit  # noqa: F401
    from .proof import check_identity  # noqa: F401


def __getattr__(name: str) -> Any:
    if name == "check_identity":
        from .proof import check_identity

        return check_identity
    if name == "audit":
        from .audit import audit

        globals()["audit"] = audit  # the function, not the subpackage of the same name
        return audit
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'pe_symbolic' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
