"""A proof as its JSON certificate: the claim it binds and every step, as SymPy ``srepr`` data
(read back by :mod:`pe_symbolic.proof.certificates` with a whitelist parser, never evaluated).

>>> from pe_symbolic import theorems
>>> cert = certificate(theorems.get("rot2.det").prove())
>>> cert["format"] == CERTIFICATE_FORMAT, cert["verdict"], cert["parts"][0]["steps"][0]["kind"]
(True, 'proved', 'start')
"""

from __future__ import annotations

import json
from typing import Any

import sympy as sp

from ..kernel.binding import CERTIFICATE_FORMAT
from .printers import ProofLike, step_kind

__all__ = ["CERTIFICATE_FORMAT", "certificate", "json_text"]


def certificate(proof: ProofLike) -> dict[str, Any]:
    """A JSON-ready certificate: the claim it binds, and every step, as SymPy ``srepr`` data.

    The certificate holds the symbol table (each name once, with its assumptions), the
    equations, the relational assumptions and the statement; for a registered theorem also
    its id and ``d``. :func:`pe_symbolic.proof.certificates.recheck` (and ``pe-derive
    check``) re-checks it from this data alone, parsing expressions with a whitelist
    parser: nothing in a certificate is ever evaluated as code.
    """
    c = proof.claim
    extra = dict(proof.extra)
    return {
        "format": CERTIFICATE_FORMAT,
        "sympy_version": sp.__version__,
        "claim": {
            "id": c.id,
            "registered": bool(extra.pop("registered", False)),
            "d": extra.pop("d", None),
            "statement": c.statement,
            "source": c.source,
            "symbols": [
                {"name": name, "assumptions": {k: bool(v) for k, v in sorted(s.assumptions0.items())}}
                for name, s in c.symbol_table.items()
            ],
            "assumptions": [sp.srepr(a) for a in c.assumptions],
            "equations": [
                {"label": eq.label, "lhs": sp.srepr(eq.lhs), "rhs": sp.srepr(eq.rhs)} for eq in c.equations
            ],
        },
        "verdict": proof.verdict,
        "elapsed_s": round(proof.elapsed, 6),
        "parts": [
            {
                "verdict": p.verdict,
                "note": p.note,
                "counterexample": dict(p.counterexample) if p.counterexample else None,
                "point": (None if p.point is None else
                          {s.name: sp.srepr(v) for s, v in sorted(p.point.items(), key=lambda kv: kv[0].name)}),
                "entries": (None if not p.entries else
                            [[sp.srepr(a), sp.srepr(v)] for a, v in sorted(p.entries.items(), key=lambda kv: sp.srepr(kv[0]))]),
                "enclosures": dict(p.enclosures) if p.enclosures else None,
                "spot_check": (
                    None if p.spot_check is None else
                    {"points": p.spot_check.points, "dps": p.spot_check.dps,
                     "max_abs_difference": p.spot_check.max_abs_difference}
                ),
                "steps": [_step_data(s, q) for q, s in enumerate(p.steps)],
            }
            for p in proof.parts
        ],
        "extra": extra,
    }


def _step_data(step: Any, index: int) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": step_kind(step.rule, index), "rule": step.rule, "expr": sp.srepr(step.expr)}
    if step.instance:
        out["instance"] = {name: sp.srepr(v) for name, v in step.instance}
    if step.why:
        out["why"] = step.why
    return out


def json_text(proof: ProofLike) -> str:
    """The JSON certificate (see :func:`certificate`) as text.

    Raises ``ValueError`` for a proof that holds a number too long to write (more than
    Python's 4300 digits; a certificate's reader takes at most 1000 per integer)."""
    try:
        return json.dumps(certificate(proof), indent=1)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        raise ValueError(f"the claim {proof.claim.id!r} holds an integer too long for a certificate (a "
                         "certificate's reader takes at most 1000 digits per integer); write it as a power, "
                         "e.g. sp.Pow(10, 5000, evaluate=False)") from None
