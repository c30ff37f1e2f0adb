"""Command-line tools: ``pe-derive`` (``pe_symbolic.cli.derive``) and ``pe-audit``
(``pe_symbolic.cli.audit``)."""

from __future__ import annotations

from .derive import main

__all__ = ["main"]
