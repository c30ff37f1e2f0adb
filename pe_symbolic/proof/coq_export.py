r"""Claims exported to Coq, and checked by Coq: files, per-lemma statuses, counts.

:func:`export_claim` prints each equation of a claim (each entry of a matrix equation) as a
``Lemma`` (:mod:`pe_symbolic.proof.coq`) with its generated script
(:mod:`pe_symbolic.proof.coq_tactics`), or records why it is outside the printed fragment.
:func:`coq_file` writes the ``.v`` text; :func:`check` runs Coq on the lemmas and reports,
per lemma, ``checked`` (Coq's kernel accepted the proof at ``Qed``), ``failed`` (the script
did not prove it, or Coq rejected it) or ``outside`` (with the reason).

``check`` feeds the lemmas to ``coqtop`` (Coq's batch top level, which goes on after an
error, unlike ``coqc``), each followed by ``Definition pe_ok_NAME := NAME.``: that definition
exists only if the lemma was saved, so a lemma counts as ``checked`` only when Coq says so.
A failed lemma never makes another one pass: each is stated and closed on its own.

>>> import sympy as sp
>>> from pe_symbolic.proof import Claim, Equation
>>> x, y = sp.symbols("x y", real=True)
>>> ex = export_claim(Claim("demo.add", "angle addition", (Equation(sp.sin(x + y),
...     sp.sin(x) * sp.cos(y) + sp.cos(x) * sp.sin(y)),)))
>>> print(ex.lemmas[0].statement)
Lemma pe_demo_add_e0 : forall (x y : R), (sin (x + y)) = (((cos x) * (sin y)) + ((cos y) * (sin x))).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import sympy as sp

from .kernel.claims import Claim
from .coq import PREAMBLE, Env, OutsideFragment, hypotheses, lemma_statement, to_coq_ast, to_coq_derivative
from .coq_tactics import script

__all__ = ["CoqExport", "CoqLemma", "CoqReport", "CoqResult", "CoqStatus", "check", "coq_file",
           "coqtop_path", "export_claim", "lemma_name"]

CoqStatus = Literal["checked", "failed", "outside"]

#: Seconds one lemma's script may run in Coq (``Timeout``) before it counts as failed.
LEMMA_TIMEOUT = 10


def lemma_name(claim_id: str, equation: int, entry: tuple[int, int] | None = None) -> str:
    """``pe_<id>_e<equation>[_<row>_<col>]`` (dots and dashes of the id become underscores)."""
    base = "pe_" + re.sub(r"[^A-Za-z0-9_]", "_", claim_id) + f"_e{equation}"
    return base if entry is None else base + f"_{entry[0]}_{entry[1]}"


@dataclass(frozen=True)
class CoqLemma:
    """One printed equation (or matrix entry) of a claim: statement and script, or why not."""

    name: str
    claim_id: str
    equation: int
    entry: tuple[int, int] | None
    label: str
    statement: str = ""
    script: str = ""
    outside: str = ""
    """Why the equation is outside the printed fragment ('' when it is printed)."""
    dropped: tuple[str, ...] = ()
    """Assumptions of the claim the printer could not state (dropped: sound, but weaker)."""

    def text(self, *, tolerant: bool = False) -> str:
        """The lemma and its proof; ``tolerant`` adds what :func:`check` needs to go on."""
        if self.outside:
            return f"(* {self.name}: outside the exported fragment: {_comment(self.outside)} *)\n"
        head = f"(* {self.claim_id}, equation {self.equation}{_entry(self.entry)}: {_comment(self.label)} *)\n"
        if not tolerant:
            return f"{head}{self.statement}\nProof. {self.script}. Qed.\n"
        return (f"{head}{self.statement}\nProof. Timeout {LEMMA_TIMEOUT} (solve [{self.script}]). Qed.\n"
                f"Abort.\nDefinition pe_ok_{self.name} := {self.name}.\n")


def _entry(e: tuple[int, int] | None) -> str:
    return "" if e is None else f", entry ({e[0]}, {e[1]})"


def _comment(s: str) -> str:
    return s.replace("(*", "( *").replace("*)", "* )")


@dataclass(frozen=True)
class CoqExport:
    """The lemmas of one claim."""

    claim_id: str
    statement: str
    lemmas: tuple[CoqLemma, ...]

    def text(self, *, tolerant: bool = False) -> str:
        """The claim's lemmas (without the preamble), headed by the claim's statement."""
        head = f"(* ===== {self.claim_id}: {_comment(self.statement)} ===== *)\n"
        return head + "".join(lem.text(tolerant=tolerant) for lem in self.lemmas)


def export_claim(claim: Claim) -> CoqExport:
    """Print every equation of ``claim`` (every entry of a matrix equation) as a Coq lemma.

    Never raises for a construct the printer does not handle: that lemma records why
    (:attr:`CoqLemma.outside`).
    """
    lemmas: list[CoqLemma] = []
    for q, eq in enumerate(claim.equations):
        if eq.is_matrix:
            rows, cols = eq.lhs.shape
            entries = [((r, c), eq.lhs[r, c], eq.rhs[r, c]) for r in range(rows) for c in range(cols)]
        else:
            entries = [(None, eq.lhs, eq.rhs)]
        for entry, lhs, rhs in entries:
            name = lemma_name(claim.id, q, entry)
            env = Env()
            try:
                if not (isinstance(lhs, sp.Basic) and isinstance(rhs, sp.Basic)):  # a Claim holds SymPy
                    raise OutsideFragment("a side that is not a SymPy expression")  # objects only; no text
                L = to_coq_derivative(lhs, env) if isinstance(lhs, sp.Derivative) else to_coq_ast(lhs, env)
                R = to_coq_ast(rhs, env)
                hyps, dropped = hypotheses(claim, env)
            except OutsideFragment as exc:
                lemmas.append(CoqLemma(name, claim.id, q, entry, eq.label, outside=str(exc)))
                continue
            statement = lemma_statement(name, L, R, env, hyps)
            lemmas.append(CoqLemma(name, claim.id, q, entry, eq.label, statement, script(L, R),
                                   dropped=tuple(dropped)))
    return CoqExport(claim.id, claim.statement, tuple(lemmas))


def coq_file(exports: Iterable[CoqExport], *, tolerant: bool = False) -> str:
    """The ``.v`` text: the preamble, then each claim's lemmas.

    Compiled with ``coqc``, a strict file (``tolerant=False``) stops at the first lemma whose
    script fails; :func:`check` goes on and reports each lemma.
    """
    return PREAMBLE + "\n" + "\n".join(e.text(tolerant=tolerant) for e in exports)


def coqtop_path() -> str | None:
    """Where Coq's ``coqtop`` is (``None`` when Coq is not installed)."""
    return shutil.which("coqtop")


@dataclass(frozen=True)
class CoqResult:
    """What Coq said about one lemma."""

    lemma: CoqLemma
    status: CoqStatus
    why: str = ""


@dataclass(frozen=True)
class CoqReport:
    """Per-lemma statuses of a :func:`check` run, and Coq's wall time."""

    results: tuple[CoqResult, ...]
    elapsed: float
    jobs: int

    def counts(self) -> dict[str, int]:
        """``{"checked": n, "failed": n, "outside": n}``."""
        c = Counter(r.status for r in self.results)
        return {s: c.get(s, 0) for s in ("checked", "failed", "outside")}

    def by_claim(self) -> dict[str, list[CoqResult]]:
        """The results grouped by claim id, in order."""
        out: dict[str, list[CoqResult]] = {}
        for r in self.results:
            out.setdefault(r.lemma.claim_id, []).append(r)
        return out


def check(exports: Sequence[CoqExport], *, jobs: int | None = None, timeout: float = 600.0,
          coqtop: str | None = None) -> CoqReport:
    """Run Coq on every printed lemma of ``exports``; a status per lemma.

    Parameters
    ----------
    exports : sequence of CoqExport
        What :func:`export_claim` printed.
    jobs : int, optional
        Coq processes run side by side (default: the number of CPUs, at most 4).
    timeout : float
        Seconds the whole run may take; lemmas not reached count as ``failed`` ("timeout").
    coqtop : str, optional
        The ``coqtop`` executable (default: found on ``PATH``).

    Raises
    ------
    FileNotFoundError
        When Coq is not installed.
    """
    exe = coqtop or coqtop_path()
    if exe is None:
        raise FileNotFoundError("coqtop (Coq) is not installed: apt-get install coq")
    if timeout <= 0:
        raise ValueError(f"timeout={timeout!r} must be positive")
    printed = [lem for e in exports for lem in e.lemmas if not lem.outside]
    jobs = max(1, min(jobs or min(os.cpu_count() or 1, 4), len(printed) or 1))
    chunks: list[list[CoqLemma]] = [[] for _ in range(jobs)]
    sizes = [0] * jobs
    for lem in sorted(printed, key=lambda x: -len(x.statement)):  # balance by size
        k = sizes.index(min(sizes))
        chunks[k].append(lem)
        sizes[k] += len(lem.statement) + 200
    t0 = time.perf_counter()
    ok: set[str] = set()
    timed_out = False
    with tempfile.TemporaryDirectory(prefix="pe_coq_") as tmp:
        procs = []
        for k, chunk in enumerate(chunks):
            path = os.path.join(tmp, f"chunk{k}.v")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(PREAMBLE + "\n" + "".join(lem.text(tolerant=True) for lem in chunk))
            fin = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
            # run in the temporary folder: Coq's lia/nra write their caches to the working folder
            procs.append((subprocess.Popen([exe, "-q"], stdin=fin, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True, cwd=tmp), fin))
        deadline = t0 + timeout
        for p, fin in procs:
            try:
                out, _ = p.communicate(timeout=max(1.0, deadline - time.perf_counter()))
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
                timed_out = True
            fin.close()
            ok.update(re.findall(r"pe_ok_(\w+) is defined", out or ""))
    elapsed = time.perf_counter() - t0
    results = []
    for e in exports:
        for lem in e.lemmas:
            if lem.outside:
                results.append(CoqResult(lem, "outside", lem.outside))
            elif lem.name in ok:
                results.append(CoqResult(lem, "checked"))
            else:
                results.append(CoqResult(lem, "failed", "the run timed out" if timed_out else
                                         "the generated script did not prove it"))
    return CoqReport(tuple(results), elapsed, jobs)
