"""Proof objects: the chain for each equation of a claim, and the verdict.

A :class:`Proof` is frozen data; :mod:`pe_symbolic.proof.render` turns it into text,
LaTeX, MyST or a JSON certificate, and nothing re-derives anything for printing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import render
from .kernel.claims import Claim, Equation, Step, Verdict
from .sampler import SpotCheck

__all__ = ["PartProof", "Proof"]


@dataclass(frozen=True)
class PartProof:
    """The chain for one equation of a claim, its verdict, and what was noticed.

    ``note`` explains an ``undecided`` or ``refuted`` verdict (which step failed, the time
    budget, why no admissible point was found) or qualifies a ``proved`` one ("equal
    wherever both sides are defined").
    """

    equation: Equation
    steps: tuple[Step, ...]
    verdict: Verdict
    counterexample: Mapping[str, str] | None = None
    spot_check: SpotCheck | None = None
    note: str = ""
    point: Mapping[Any, Any] | None = field(default=None, repr=False)
    """The refuting point itself (symbol -> exact value), for the certificate."""
    enclosures: Mapping[str, Any] | None = field(default=None, repr=False)
    """For a refutation: the disjoint enclosures of the two sides at the point (text), the
    working precision and, for a matrix, the entry."""
    entries: Mapping[Any, Any] | None = field(default=None, repr=False)
    """For a refutation: the values given to vector entries (``q[2]``) at the point."""


@dataclass(frozen=True)
class Proof:
    """The result of proving a :class:`~pe_symbolic.proof.kernel.claims.Claim`: one chain per equation."""

    claim: Claim
    parts: tuple[PartProof, ...]
    elapsed: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> Verdict:
        """``refuted`` if any part is; ``proved`` if every part is; else ``undecided``."""
        verdicts = {p.verdict for p in self.parts}
        if "refuted" in verdicts:
            return "refuted"
        if verdicts == {"proved"}:
            return "proved"
        return "undecided"

    @property
    def steps(self) -> tuple[Step, ...]:
        """Every step of every part, in order."""
        return tuple(s for p in self.parts for s in p.steps)

    @property
    def counterexample(self) -> Mapping[str, str] | None:
        """The first refuting point, if any part is refuted."""
        for p in self.parts:
            if p.counterexample is not None:
                return p.counterexample
        return None

    @property
    def lemmas(self) -> tuple[str, ...]:
        """The ids of the claims this proof cites, each once, in order of first use."""
        seen: dict[str, None] = {}
        for st in self.steps:
            if st.lemma:
                seen.setdefault(st.lemma, None)
        return tuple(seen)

    @property
    def notes(self) -> tuple[str, ...]:
        """The parts' notes, each once, in order."""
        seen: dict[str, None] = {}
        for p in self.parts:
            if p.note:
                seen.setdefault(p.note, None)
        return tuple(seen)

    @property
    def spot_check(self) -> SpotCheck | None:
        """Combined numeric spot check over the parts."""
        checks = [p.spot_check for p in self.parts if p.spot_check is not None]
        if not checks:
            return None
        return SpotCheck(
            points=sum(c.points for c in checks),
            max_abs_difference=max(c.max_abs_difference for c in checks),
            dps=min(c.dps for c in checks),
        )

    def __bool__(self) -> bool:  # pragma: no cover - guard against `if proof:` mistakes
        raise TypeError("use proof.verdict == 'proved', not the truth value of a Proof")

    def to_text(self, **kw: Any) -> str:
        """Plain-text rendering (see :func:`pe_symbolic.proof.render.text`)."""
        return render.text(self, **kw)

    def to_latex(self, **kw: Any) -> str:
        """LaTeX rendering (see :func:`pe_symbolic.proof.render.latex`)."""
        return render.latex(self, **kw)

    def to_coq(self) -> str:
        """The claim as Coq lemmas over the reals, with their generated proof scripts: ``.v`` text.

        Each equation (each entry of a matrix equation) is one ``Lemma``; an equation outside
        the printed fragment is a comment saying why (:mod:`pe_symbolic.proof.coq`). The text
        is generated from the claim, not from this proof's SymPy chain: Coq proves the
        statement on its own (``coqc`` on the text, or ``pe-derive check --coq``).

        >>> import sympy as sp
        >>> from pe_symbolic import check_identity
        >>> x = sp.Symbol("x", real=True)
        >>> text = check_identity(sp.sin(2 * x), 2 * sp.sin(x) * sp.cos(x)).to_coq()
        >>> [line for line in text.splitlines() if line.startswith("Lemma pe_")][-1]
        'Lemma pe_user_identity_e0 : forall (x_1 : R), (sin (2 * x_1)) = (2 * (cos x_1) * (sin x_1)).'
        """
        from .coq_export import coq_file, export_claim

        return coq_file([export_claim(self.claim)])

    def to_json(self) -> str:
        """The JSON certificate (see :func:`pe_symbolic.proof.render.certificate`)."""
        return render.json_text(self)

    # Jupyter and IPython: a proof shows as mathematics, not as a dataclass dump. A front end
    # takes the richest of these it can show (HTML with MathJax in JupyterLab and Notebook;
    # the LaTeX when a notebook is converted to LaTeX or PDF).
    def _repr_html_(self) -> str:
        """HTML with MathJax math (see :func:`pe_symbolic.proof.render.html`)."""
        return render.html(self)

    def _repr_markdown_(self) -> str:
        """Markdown with ``$$`` math (see :func:`pe_symbolic.proof.render.markdown`)."""
        return render.markdown(self)

    def _repr_latex_(self) -> str:
        """A LaTeX fragment (see :func:`pe_symbolic.proof.render.latex`; needs amsmath)."""
        return render.latex(self, full=False)
