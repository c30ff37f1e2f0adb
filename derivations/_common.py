"""Shared helpers of the chapter scripts: headings, wrapped prose, proofs and certificates.

Each chapter script collects a :class:`Report`; ``report.exit_code()`` is 0 only if every
claim it showed was proved and every certificate it expected to hold held.
"""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass, field

import sympy as sp

from pe_symbolic import theorems
from pe_symbolic.theorems.chapters.certificates import Certificate

WIDTH = 92


def heading(title: str) -> None:
    """Print a section heading."""
    print()
    print(title)
    print("=" * min(len(title), WIDTH))


def say(text: str) -> None:
    """Print a paragraph of prose, wrapped."""
    for para in textwrap.dedent(text).strip().split("\n\n"):
        print(textwrap.fill(" ".join(para.split()), WIDTH))
        print()


def show(label: str, expr: sp.Basic) -> None:
    """Print a labelled SymPy object (pretty-printed, no line wrapping)."""
    print(f"{label}:")
    print(textwrap.indent(sp.pretty(expr, wrap_line=False), "    "))
    print()


def even_d(argv: list[str] | None, description: str, default: int = 8) -> int:
    """Parse ``--d`` (a positive even dimension)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--d", type=int, default=default, help=f"instantiate for this even d (default {default})")
    d = ap.parse_args(argv).d
    if d < 2 or d % 2:
        ap.error(f"--d={d} must be a positive even integer")
    return d


def _expect(id: str) -> str:
    """The verdict theorem ``id`` is registered for ("proved" for ids not in the registry)."""
    try:
        return theorems.get(id).expect
    except LookupError:
        return "proved"


@dataclass
class Report:
    """What a chapter showed: proofs (id, d, verdict) and certificates (id, holds, expected)."""

    proofs: list[tuple[str, int | None, str]] = field(default_factory=list)
    certificates: list[tuple[str, bool, bool]] = field(default_factory=list)

    def prove(self, id: str, d: int | None = None, *, max_chars: int = 160) -> str:
        """Prove theorem ``id`` (generic or for ``d``), print the proof, record the verdict."""
        th = theorems.get(id)
        proof = th.prove(d)
        if d is not None:
            where = f"d = {d}"
        else:
            where = "generic: every even d" if th.concrete else "as stated"
        print(f"-- claim {id} [{where}] --")
        print(proof.to_text(max_chars=max_chars))
        print()
        self.proofs.append((id, d, proof.verdict))
        return proof.verdict

    def certificate(self, cert: Certificate, *, expect_holds: bool = True) -> Certificate:
        """Print a numeric certificate (never a proof) and record whether it came out as expected."""
        print(f"-- {cert.label} --")
        print(cert.to_text())
        print()
        self.certificates.append((cert.id, cert.holds, expect_holds))
        return cert

    def exit_code(self) -> int:
        """Print the summary; 0 if every claim is proved and every certificate is as expected."""
        # a registered honest negative (expect="refuted") is as expected when refuted
        bad = [f"{i}{'' if d is None else f' (d={d})'}: {v}" for i, d, v in self.proofs
               if v != _expect(i)]
        bad += [f"certificate {i}: holds={h}, expected {e}" for i, h, e in self.certificates if h != e]
        heading("Summary")
        negatives = sum(_expect(i) == "refuted" for i, _, _ in self.proofs)
        refuted = sum(_expect(i) == "refuted" and v == "refuted" for i, _, v in self.proofs)
        neg = f" ({refuted} of {negatives} registered negatives refuted as expected)" if negatives else ""
        print(f"{len(self.proofs)} proofs, {sum(v == 'proved' for _, _, v in self.proofs)} proved{neg}; "
              f"{len(self.certificates)} numeric certificate(s) (certificates cover their stated range "
              "only; they are not proofs)")
        for line in bad:
            print(f"  NOT AS EXPECTED: {line}")
        print("all claims proved" if not bad else "NOT ALL CLAIMS PROVED")
        return 0 if not bad else 1
