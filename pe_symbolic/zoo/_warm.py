"""Imported once by the worker processes' forkserver (:data:`pe_symbolic.zoo.run.PRELOAD`): computes
the card of a tiny config, so that every worker forked from the server starts with the package's
modules imported and its in-memory caches of proved verdicts filled (the disk cache may be off),
instead of paying for them once per group. A failure here only costs that time."""

from __future__ import annotations

import warnings

from .card import rope_card

#: A config whose card touches every part: the program, the context, each engine, the bound.
WARM_CONFIG = {"model_type": "llama", "head_dim": 8, "rope_theta": 10000.0, "max_position_embeddings": 64}

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        rope_card(WARM_CONFIG)
    except Exception:  # noqa: BLE001 - warming only
        pass
