"""The registry of named claims about positional encodings, and their proofs.

>>> from pe_symbolic import theorems
>>> [th.id for th in theorems.all()][:3]
['trig.angle_addition', 'rot2.compose', 'rot2.transpose']
>>> theorems.get("rope.relative").prove().verdict
'proved'
"""

from __future__ import annotations

from .registry import Theorem, all, get, ids, lemma, recheck_certificate, register, theorem  # noqa: A004

# Import order is registration order (what `pe-derive list` shows).
from . import lemmas  # noqa: E402, F401, I001
from . import foundation  # noqa: E402, F401
from . import chapters  # noqa: E402, F401
from . import family  # noqa: E402, F401
from . import precision  # noqa: E402, F401

__all__ = ["Theorem", "all", "get", "ids", "lemma", "recheck_certificate", "register", "theorem"]
