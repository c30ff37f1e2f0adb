"""Command-line tools: ``pe-derive`` (``pe_symbolic.cli.derive``)."""

from __future__ import annotations

from .derive import main

__all__ = ["main"]
