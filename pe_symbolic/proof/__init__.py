"""The proof engine (rewritten by concern in the next commits)."""

from __future__ import annotations

from .engine import *  # noqa: F403
from .engine import __all__  # noqa: F401
from .engine import CERTIFICATE_FORMAT, STRATEGIES, apply_rule, certificate, check_chain, is_zero, prove_equation, reduce_to_zero  # noqa: F401
