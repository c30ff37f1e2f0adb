"""Helpers of the tutorials (the scripts in ``derivations/``): options, proofs,
certificates, figures and the closing summary.

A tutorial records what it shows in a :class:`Report` and ends with :meth:`Report.finish`:
the summary, then the exit status -- 0 when every result is the expected one (claims
proved; article claims that a numeric certificate is *meant* to refute, refuted), 1
otherwise, 2 for bad options (``argparse``).

The same scripts are the examples of the documentation's sphinx-gallery, and their
downloads (``.py`` and ``.ipynb``) run anywhere the package is installed: they import these
helpers from the package. There the text cells are the prose; :func:`figure` draws (on the
command line only with ``--plot``: a tutorial never needs matplotlib otherwise); and
:meth:`Report.finish` raises instead of exiting, so a result that is not as expected fails
the docs build or the notebook.

>>> from pe_symbolic.tutorial import Report
>>> rep = Report()
>>> rep.prove("rot2.det")  # doctest: +ELLIPSIS
-- claim rot2.det [as stated] --
rot2.det: PROVED in ... s
...
'proved'
"""

from __future__ import annotations

import importlib.util
import sys
import argparse
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import sympy as sp

from . import theorems
from .theorems.chapters.certificates import Certificate

__all__ = ["CheckRecord", "ProofRecord", "Report", "figure", "heading", "in_gallery", "in_notebook", "parse_args",
           "say", "show"]

#: Width of the printed text (proofs wrap to it).
WIDTH = 92
_OPTIONS = {"plot": False}

EXIT_STATUS = """\
exit status: 0 every result as expected (claims proved; article claims that a numeric
certificate is meant to refute, refuted); 1 otherwise; 2 bad option or missing package."""


def in_gallery() -> bool:
    """Whether the script runs inside the docs build (sphinx-gallery), not from a shell."""
    return "sphinx_gallery" in sys.modules


def in_notebook() -> bool:
    """Whether the script runs in a Jupyter kernel (the gallery's downloadable ``.ipynb``)."""
    return "ipykernel" in sys.modules


def _embedded() -> bool:
    """Run by a host (docs build, notebook): no command line, no exit, figures inline."""
    return in_gallery() or in_notebook()


def parse_args(argv: list[str] | None = None, *, default_d: int = 8,
               extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    """The script's options: ``--d`` (a positive even dimension), ``--plot``, and ``extra``.

    In the docs build ``sys.argv`` holds the script's name only, and in a notebook it is
    ignored, so the defaults apply there.
    """
    main = sys.modules.get("__main__")
    doc = (getattr(main, "__doc__", None) or "").strip()
    ap = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None,
                                 epilog=EXIT_STATUS)
    ap.add_argument("--d", type=int, default=default_d, metavar="N",
                    help=f"instantiate the claims for this even d (default {default_d})")
    ap.add_argument("--plot", action="store_true",
                    help="also draw the script's figures and show them at the end (needs matplotlib)")
    if extra is not None:
        extra(ap)
    if argv is None and in_notebook():
        argv = []  # sys.argv holds the kernel's own arguments there
    args = ap.parse_args(argv)
    if args.d < 2 or args.d % 2:
        ap.error(f"--d={args.d} must be a positive even integer")
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        ap.error("--plot needs matplotlib, which is not installed: pip install matplotlib")
    _OPTIONS["plot"] = args.plot
    return args


def heading(title: str) -> None:
    """Print a section heading (on the command line; in the docs the text cell has it)."""
    if in_gallery():
        return
    print()
    print(title)
    print("=" * min(len(title), WIDTH))


def say(text: str) -> None:
    """Print a paragraph of prose, wrapped (prose that depends on the run's values)."""
    for para in textwrap.dedent(text).strip().split("\n\n"):
        print(textwrap.fill(" ".join(para.split()), WIDTH))
        print()


def show(label: str, expr: sp.Basic) -> None:
    """Print a labelled SymPy object (pretty-printed, no line wrapping)."""
    print(f"{label}:")
    print(textwrap.indent(sp.pretty(expr, wrap_line=False), "    "))
    print()


def figure(**kwargs: Any) -> Any:
    """A new matplotlib figure, or ``None`` when this run draws nothing.

    The docs build always draws; a shell run draws only with ``--plot``. So a derivation
    never needs matplotlib unless asked for a picture::

        fig = figure(figsize=(6, 3))
        if fig is not None:
            ax = fig.subplots()
            ...

    A downloaded notebook run where matplotlib is not installed draws nothing either: it
    says so once (``pip install matplotlib`` for the pictures) and goes on.
    """
    if not (_embedded() or _OPTIONS["plot"]):
        return None
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        if _OPTIONS["plot"] and not _embedded():
            raise ModuleNotFoundError("--plot draws with matplotlib, which is not installed: "
                                      "pip install matplotlib (or run without --plot)") from None
        if not _NOTED_NO_MATPLOTLIB:
            _NOTED_NO_MATPLOTLIB.append(True)
            print("(the pictures need matplotlib, which is not installed here: pip install matplotlib; "
                  "everything else runs without it)")
        return None
    return plt.figure(**kwargs)


_NOTED_NO_MATPLOTLIB: list[bool] = []  # said once a run: no matplotlib, no pictures


class ProofRecord(NamedTuple):
    """A claim the script proved: its id, ``d`` (``None``: generic), verdict, expected verdict."""

    id: str
    d: int | None
    verdict: str
    expect: str = "proved"


class CheckRecord(NamedTuple):
    """A numeric certificate (or another check) and whether it held, and was meant to."""

    id: str
    holds: bool
    expected: bool = True
    kind: str = "certificate"


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def _expect(id: str) -> str:
    """The verdict theorem ``id`` is registered for ("proved" for ids not in the registry)."""
    try:
        return theorems.get(id).expect
    except LookupError:
        return "proved"


@dataclass
class Report:
    """What a derivation showed: proofs and certificates, each with the result it expects."""

    proofs: list[ProofRecord] = field(default_factory=list)
    checks: list[CheckRecord] = field(default_factory=list)

    def prove(self, id: str, d: int | None = None, *, max_chars: int | None = None) -> str:
        """Prove theorem ``id`` (generic or for ``d``), print the proof, record the verdict.

        The proof is printed whole (every part, long expressions wrapped); ``max_chars``
        cuts each expression to that many characters (marked ``…``) for an overview.
        """
        th = theorems.get(id)
        proof = th.prove(d)
        if d is not None:
            where = f"d = {d}"
        else:
            where = "generic: every even d" if th.concrete else "as stated"
        print(f"-- claim {id} [{where}] --")
        print(proof.to_text(width=WIDTH, full=True, max_chars=max_chars))
        if proof.verdict != th.expect:
            print(f"  NOT AS EXPECTED: registered as {th.expect!r}")
        print()
        self.proofs.append(ProofRecord(id, d, proof.verdict, th.expect))
        return proof.verdict

    def certificate(self, cert: Certificate, *, expect_holds: bool = True) -> Certificate:
        """Print a numeric certificate (never a proof) and record whether it came out as expected.

        ``expect_holds=False`` marks a certificate run to test an article's claim that the
        numbers refute: it failing is the expected result, and the summary says so.
        """
        print(f"-- {cert.label} --")
        print(cert.to_text())
        if cert.holds == expect_holds:
            if not expect_holds:
                print("  as expected: the numbers refute the article's claim over this range")
        else:
            print(f"  NOT AS EXPECTED: expected it to {'hold' if expect_holds else 'fail'}")
        print()
        self.checks.append(CheckRecord(cert.id, cert.holds, expect_holds))
        return cert

    def check(self, id: str, holds: bool, *, expected: bool = True) -> bool:
        """Record another check (e.g. a transcription against its source), printed by the caller."""
        self.checks.append(CheckRecord(id, bool(holds), expected, "check"))
        return bool(holds)

    def not_as_expected(self) -> list[str]:
        """One line per result that is not the expected one (empty when all are)."""
        bad = [f"claim {p.id}{'' if p.d is None else f' (d={p.d})'}: {p.verdict}, expected {p.expect}"
               for p in self.proofs if p.verdict != p.expect]
        bad += [f"check {c.id}: {'holds' if c.holds else 'fails'}, expected it to "
                f"{'hold' if c.expected else 'fail'}" for c in self.checks if c.holds != c.expected]
        return bad

    def summary(self) -> str:
        """The summary: what was proved, what was refuted on purpose, and the outcome.

        >>> rep = Report([ProofRecord("a", None, "proved")], [CheckRecord("c", False, False)])
        >>> print(rep.summary())
        1 claim proved; 1 article claim refuted by a numeric certificate, as expected (c).
        Numeric certificates cover their stated range only; they are not proofs.
        All as expected.
        """
        proved = [p for p in self.proofs if p.expect == "proved"]
        negatives = [p for p in self.proofs if p.expect == "refuted"]
        n_proved = sum(p.verdict == "proved" for p in proved)
        parts = [f"{n_proved} of {_n(len(proved), 'claim')} proved" if n_proved != len(proved)
                 else f"{_n(n_proved, 'claim')} proved"]
        if negatives:
            ok = sum(p.verdict == "refuted" for p in negatives)
            parts.append(f"{ok} of {_n(len(negatives), 'registered negative')} refuted, as expected")
        certs = [c for c in self.checks if c.kind == "certificate"]
        holding = [c for c in certs if c.expected and c.holds]
        if holding:
            parts.append(f"{_n(len(holding), 'numeric certificate')} held")
        refuting = [c for c in certs if not c.expected and not c.holds]
        if refuting:
            parts.append(f"{_n(len(refuting), 'article claim')} refuted by a numeric certificate, "
                         f"as expected ({', '.join(c.id for c in refuting)})")
        others = [c for c in self.checks if c.kind != "certificate" and c.holds == c.expected]
        if others:
            parts.append(f"{_n(len(others), 'check')} as expected ({', '.join(c.id for c in others)})")
        lines = ["; ".join(parts) + "."]
        if certs:
            lines.append("Numeric certificates cover their stated range only; they are not proofs.")
        bad = self.not_as_expected()
        lines += [f"NOT AS EXPECTED: {line}" for line in bad]
        lines.append("All as expected." if not bad else f"FAILED: {_n(len(bad), 'result')} not as expected.")
        return "\n".join(lines)

    def exit_code(self) -> int:
        """Print the summary; 0 if every result is the expected one, else 1."""
        heading("Summary")
        print(self.summary())
        return 1 if self.not_as_expected() else 0

    def finish(self) -> None:
        """Print the summary and end the run: exit status 0 or 1 (docs build, notebook: raise on 1).

        With ``--plot`` the figures are shown first.
        """
        code = self.exit_code()
        if _embedded():
            if code:
                raise RuntimeError("not as expected: " + "; ".join(self.not_as_expected()))
            return
        if _OPTIONS["plot"]:
            import matplotlib.pyplot as plt

            plt.show()
        if code:
            raise SystemExit(code)
