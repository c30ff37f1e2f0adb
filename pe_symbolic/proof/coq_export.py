r"""Claims exported to Coq, and checked by Coq: files, per-lemma statuses, counts.

:func:`export_claim` prints each equation of a claim (each entry of a matrix equation) as a
``Lemma`` (:mod:`pe_symbolic.proof.coq`) with its generated script
(:mod:`pe_symbolic.proof.coq_tactics`), or records why it is outside the printed fragment.
:func:`coq_file` writes the ``.v`` text; :func:`check` runs Coq on the lemmas and reports,
per lemma:

``checked``
    Coq's kernel accepted the proof at ``Qed``, the proof rests on the preamble and the
    standard library only (the lemma declares nothing and cites no other lemma of the run,
    :func:`depends_on_preamble_only`; with ``assumptions=True`` Coq's ``Print Assumptions``
    must list only :data:`ALLOWED_AXIOMS`), and the lemma's hypotheses hold at a witness point (Coq proves ``exists vars, hyps`` with the values the
    kernel's gate found), so the lemma is not vacuous;
``vacuous``
    the proof was accepted, but its hypotheses are contradictory (the kernel's gate says so, or
    Coq proves ``False`` from them) or were not shown satisfiable: anything follows from
    nothing, so this is never a plain ``checked``;
``refuted``
    Coq proved the printed equation **false** at a point: the negation of the lemma's
    statement, ``~ (forall vars, hyps -> lhs = rhs)``, was accepted at ``Qed`` (with the same
    dependency rules as a proof). Asked only for a lemma exported with ``refute=True`` whose
    entry the kernel's refuter found false at an exact point (:mod:`~pe_symbolic.proof.coq_refute`);
    that lemma's proof is then not tried. For a registered honest negative it confirms the
    registry's verdict; for a claim expected to hold it is a failure;
``failed``
    the script did not prove it (nor, where one was asked, did Coq refute it), Coq rejected
    it, or the proof depends on another axiom;
``outside``
    with the reason.

``check`` feeds the lemmas to ``coqtop`` (Coq's batch top level, which goes on after an
error, unlike ``coqc``). In that run every lemma is named by an opaque token, ``pe_t<k>``
(``k`` its position in the run), whatever its readable name, and what Coq says is read back
by that token only (``Definition pe_ok_<k> := pe_t<k>.`` exists only if the lemma was saved):
two claims whose ids print alike can never lend each other a ``checked``. A failed lemma never
makes another one pass: each is stated and closed on its own. Readable lemma names
(:func:`lemma_name`, for the ``.v`` files) are injective in the claim id.

>>> import sympy as sp
>>> from pe_symbolic.proof import Claim, Equation
>>> x, y = sp.symbols("x y", real=True)
>>> ex = export_claim(Claim("demo.add", "angle addition", (Equation(sp.sin(x + y),
...     sp.sin(x) * sp.cos(y) + sp.cos(x) * sp.sin(y)),)))
>>> print(ex.lemmas[0].statement)
Lemma pe_demo_add_e0 : forall (x_1 y_1 : R), (sin (x_1 + y_1)) = (((cos x_1) * (sin y_1)) + ((cos y_1) * (sin x_1))).
"""

from __future__ import annotations

import functools
import hashlib
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

from .. import _store
from .coq import Env, OutsideFragment, to_coq_equation
from .coq_preamble import PREAMBLE, PREAMBLE_NO_COQUELICOT, PREAMBLE_NO_INTERVAL
from .coq_syntax import binders_text, goal_text, hypotheses, proposition, witness_text
from .coq_refute import counterexample, negation, script as refutation_script
from .coq_tactics import script
from .kernel.claims import Claim
from .kernel import budget
from .kernel.gate import Admission, admit
from .sampler import candidates

__all__ = ["ALLOWED_AXIOMS", "CACHE_ENV", "STATUSES", "CoqExport", "CoqLemma", "CoqReport", "CoqResult", "CoqStatus",
           "check", "coq_cache_dir", "coq_file", "coqtop_path", "coquelicot_installed", "interval_installed", "preamble", "depends_on_preamble_only", "export_claim", "lemma_name"]

CoqStatus = Literal["checked", "refuted", "vacuous", "failed", "outside"]
#: The statuses, in the order reports count them.
STATUSES: tuple[str, ...] = ("checked", "refuted", "vacuous", "failed", "outside")

#: Seconds one lemma's script may run in Coq (``Timeout``) before it counts as failed.
LEMMA_TIMEOUT = 10
#: Seconds one refutation may run: no search, one Interval bound after another at a point, of
#: which a long sum may take seconds (a refutation is asked once, then its answer is cached).
REFUTE_TIMEOUT = 30
#: Seconds the kernel's gate may take to decide a claim's assumptions when it is exported.
ADMIT_TIMEOUT = 30.0
#: Seconds the search for a contradiction in, or a witness of, a lemma's hypotheses may run.
SIDE_TIMEOUT = 5
#: The axioms a checked proof may depend on: those of Coq's standard library of real numbers
#: (``Print Assumptions`` of the preamble's own lemmas lists them; a test keeps this in step).
ALLOWED_AXIOMS = frozenset({
    "Classical_Prop.classic",
    "ClassicalDedekindReals.sig_forall_dec",
    "ClassicalDedekindReals.sig_not_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
})

_READABLE = re.compile(r"[A-Za-z0-9]+(_[A-Za-z0-9]+)*(\.[A-Za-z0-9]+(_[A-Za-z0-9]+)*)*\Z")


def lemma_name(claim_id: str, equation: int, entry: tuple[int, int] | None = None) -> str:
    """``pe_<id>_e<equation>[_<row>_<col>]``, injective in the id: a dot of the id becomes
    ``_`` and an underscore ``__`` (``rope.pair_relative`` -> ``pe_rope_pair__relative_e0``);
    an id with any other character (or with an underscore next to a dot or another
    underscore) is written in hexadecimal after ``pe'`` (``u-a`` -> ``pe'752d61_e0``).

    >>> [lemma_name(i, 0) for i in ("u.a", "u_a", "u-a")]
    ['pe_u_a_e0', 'pe_u__a_e0', "pe'752d61_e0"]
    """
    if _READABLE.match(claim_id):
        base = "pe_" + claim_id.replace("_", "__").replace(".", "_")
    else:
        base = "pe'" + claim_id.encode("utf-8").hex()
    base += f"_e{equation}"
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
    proposition: str = ""
    """The statement without ``Lemma NAME :`` (what :func:`check` states under its token)."""
    binders: str = ""
    """The lemma's variables as Coq binders (``''`` for none)."""
    hypotheses: tuple[str, ...] = ()
    """The lemma's hypotheses, as printed."""
    witness: str | None = None
    """Values for the variables at which the kernel's gate found every assumption to hold
    (the arguments of ``exists``), or ``None``."""
    vacuous: str = ""
    """Why the kernel's gate calls the claim's assumptions vacuous ('' when it does not)."""
    refutation: str = ""
    """The script that proves the statement's negation at the kernel's counterexample
    (:mod:`~pe_symbolic.proof.coq_refute`; '' when none was asked or found): :func:`check`
    then asks Coq for the refutation, not for the proof."""
    counterexample: str = ""
    """The point of :attr:`refutation`, readable (``theta_0 = 38``)."""

    def text(self, *, tolerant: bool = False, token: int | None = None) -> str:
        """The lemma and its proof. ``tolerant`` (with the run's ``token``) adds what
        :func:`check` needs to go on and to read Coq's answers back."""
        if self.outside:
            return f"(* {self.name}: outside the exported fragment: {_comment(self.outside)} *)\n"
        head = (f"(* {_comment(self.claim_id)}, equation {self.equation}{_entry(self.entry)}: "
                f"{_comment(self.label)} *)\n")
        if not tolerant and self.refutation:  # the statement is false: its negation is proved
            return (f"{head}(* {_comment(self.statement)} *)\n(* is false{_at(self.counterexample)}: *)\n"
                    f"Lemma {self.name}_refuted : {negation(self.proposition)}.\nProof. {self.refutation}. Qed.\n")
        if not tolerant:
            return f"{head}{self.statement}\nProof. {self.script}. Qed.\n"
        k = token if token is not None else 0
        if self.refutation:
            return (f"{head}(* {self.name}: refuted{_at(self.counterexample)} *)\n"
                    f"Lemma pe_r{k} : {negation(self.proposition)}.\n"
                    f"Proof. Timeout {REFUTE_TIMEOUT} (solve [{self.refutation}]). Qed.\nAbort.\n"
                    f"Definition pe_no_{k} := pe_r{k}.\n")
        # issue 36 (coqtac): `Abort All.`, which ends a proof left open by a failure and, unlike
        # `Abort.`, reports no error after a saved one (a fifth of coqtop's CPU on small lemmas)
        return (f"{head}(* {self.name} *)\nLemma pe_t{k} : {self.proposition}.\n"
                f"Proof. Timeout {LEMMA_TIMEOUT} (solve [{self.script}]). Qed.\nAbort All.\n"
                f"Definition pe_ok_{k} := pe_t{k}.\n")

    def side_text(self, u: int) -> str:
        """What :func:`check` asks Coq about the lemma's hypotheses, under the token ``u``:
        that they hold at the witness (``pe_sat_<u>``), or, without a witness, that they are
        contradictory (``pe_vac_<u>``)."""
        if not self.hypotheses:
            return ""
        if self.witness is not None:
            conj = " /\\ ".join(f"({h})" for h in self.hypotheses)
            lead = f"exists {self.binders}, " if self.binders else ""
            intro = f"exists {self.witness}; " if self.binders else ""
            return (f"Lemma pe_s{u} : {lead}{conj}.\n"
                    f"Proof. Timeout {SIDE_TIMEOUT} (solve [{intro}pe_sat]). Qed.\nAbort.\n"
                    f"Definition pe_sat_{u} := pe_s{u}.\n")
        hyps = " -> ".join(self.hypotheses)
        lead = f"forall {self.binders}, " if self.binders else ""
        return (f"Lemma pe_f{u} : {lead}{hyps} -> False.\n"
                f"Proof. Timeout {SIDE_TIMEOUT} (solve [intros; pe_contra]). Qed.\nAbort.\n"
                f"Definition pe_vac_{u} := pe_f{u}.\n")

    def side_key(self) -> tuple:
        """Lemmas with one key share one question about their hypotheses."""
        return (self.binders, self.hypotheses, self.witness)


def _at(point: str, comment: bool = True) -> str:
    """`` at x = 1, n = 3`` (``''`` for a lemma without variables)."""
    return f" at {_comment(point) if comment else point}" if point else ""


def _entry(e: tuple[int, int] | None) -> str:
    return "" if e is None else f", entry ({e[0]}, {e[1]})"


def _comment(s: str) -> str:
    """Text made safe inside a Coq comment (no comment delimiters, no string quotes: Coq
    reads strings inside comments)."""
    return s.replace("(*", "( *").replace("*)", "* )").replace('"', "''")


@dataclass(frozen=True)
class CoqExport:
    """The lemmas of one claim."""

    claim_id: str
    statement: str
    lemmas: tuple[CoqLemma, ...]

    def text(self, *, tolerant: bool = False) -> str:
        """The claim's lemmas (without the preamble), headed by the claim's statement."""
        head = f"(* ===== {_comment(self.claim_id)}: {_comment(self.statement)} ===== *)\n"
        return head + "".join(lem.text(tolerant=tolerant) for lem in self.lemmas)


def export_claim(claim: Claim, *, refute: bool = False) -> CoqExport:
    """Print every equation of ``claim`` (every entry of a matrix equation) as a Coq lemma.

    With ``refute`` (for a claim registered false: ``expect="refuted"``), each entry the kernel's
    refuter finds false at an exact point gets a refutation (:attr:`CoqLemma.refutation`, see
    :mod:`~pe_symbolic.proof.coq_refute`), which :func:`check` asks Coq for instead of a proof.

    Never raises for a construct the printer does not handle: that lemma records why
    (:attr:`CoqLemma.outside`). The kernel's gate (:func:`~pe_symbolic.proof.kernel.gate.admit`)
    is asked once: a claim whose assumptions are contradictory or not known satisfiable has its
    lemmas marked :attr:`CoqLemma.vacuous`; otherwise its witness point becomes each lemma's
    :attr:`CoqLemma.witness`.
    """
    try:
        with budget.deadline(ADMIT_TIMEOUT):
            admission = admit(claim.symbols, claim.assumptions,
                              candidates(claim.symbols, claim.assumptions,
                                         [x for eq in claim.equations for x in (eq.lhs, eq.rhs)]))
    except budget.BudgetExceeded:
        budget.check()  # an enclosing budget ran out: let it reach its owner
        admission = Admission(f"the assumptions were not decided satisfiable within {ADMIT_TIMEOUT:g} s")
    lemmas: list[CoqLemma] = []
    for q, eq in enumerate(claim.equations):
        if eq.is_matrix:
            rows, cols = eq.lhs.shape
            entries = [((r, c), eq.lhs[r, c], eq.rhs[r, c]) for r in range(rows) for c in range(cols)]
        else:
            entries = [(None, eq.lhs, eq.rhs)]
        for entry, lhs, rhs in entries:
            name = lemma_name(claim.id, q, entry)
            env = Env()  # one fresh-name supply per lemma: every variable a name of its own
            try:
                if not (isinstance(lhs, sp.Basic) and isinstance(rhs, sp.Basic)):  # a Claim holds SymPy
                    raise OutsideFragment("a side that is not a SymPy expression")  # objects only; no text
                L, R = to_coq_equation(lhs, rhs, env)  # terms; a derivative, complex sides: coq.py
                hyps, dropped = hypotheses(claim, env)
            except OutsideFragment as exc:
                lemmas.append(CoqLemma(name, claim.id, q, entry, eq.label, outside=str(exc)))
                continue
            binders = binders_text(env)
            prop = proposition(binders, hyps, goal_text(L, R))
            witness = witness_text(env, admission.point) if admission.point is not None else None
            found = _counterexample(claim, lhs, rhs, env) if refute and L[0] != "deriv" else None
            lemmas.append(CoqLemma(name, claim.id, q, entry, eq.label, f"Lemma {name} : {prop}.", script(L, R),
                                   dropped=tuple(dropped), proposition=prop, binders=binders,
                                   hypotheses=tuple(hyps), witness=witness, vacuous=admission.note,
                                   refutation=refutation_script(found, binders=bool(binders)) if found else "",
                                   counterexample=found.point if found else ""))
    return CoqExport(claim.id, claim.statement, tuple(lemmas))


def _counterexample(claim: Claim, lhs: sp.Basic, rhs: sp.Basic, env: Env):
    """The kernel refuter's point for one entry (:func:`~pe_symbolic.proof.coq_refute.counterexample`),
    within :data:`ADMIT_TIMEOUT`; ``None`` when none is found in time."""
    try:
        with budget.deadline(ADMIT_TIMEOUT):
            return counterexample(lhs, rhs, claim.symbols, claim.assumptions, env)
    except budget.BudgetExceeded:
        budget.check()  # an enclosing budget ran out: let it reach its owner
        return None


def coq_file(exports: Iterable[CoqExport], *, tolerant: bool = False) -> str:
    """The ``.v`` text: the preamble, then each claim's lemmas.

    Compiled with ``coqc``, a strict file (``tolerant=False``) stops at the first lemma whose
    script fails; :func:`check` goes on and reports each lemma.
    """
    return preamble() + "\n" + "\n".join(e.text(tolerant=tolerant) for e in exports)


@functools.lru_cache(maxsize=16)
def _library_installed(coqtop: str | None, package: str, vo: str) -> bool | None:
    """Whether ``user-contrib/<package>/<vo>`` is in the library folder of ``coqtop`` (``None``: no Coq)."""
    exe = coqtop or coqtop_path()
    if exe is None:
        return None
    try:
        where = subprocess.run([exe, "-where"], capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return False
    return os.path.exists(os.path.join(where, "user-contrib", package, vo))


def interval_installed(coqtop: str | None = None) -> bool | None:
    """Whether Coq's Interval package is installed beside ``coqtop`` (``None``: no Coq)."""
    return _library_installed(coqtop, "Interval", "Tactic.vo")


def coquelicot_installed(coqtop: str | None = None) -> bool | None:
    """Whether Coq's Coquelicot library is installed beside ``coqtop`` (``None``: no Coq)."""
    return _library_installed(coqtop, "Coquelicot", "AutoDerive.vo")


def preamble(coqtop: str | None = None) -> str:
    """:data:`~pe_symbolic.proof.coq_preamble.PREAMBLE`, or, where Coq is installed without the Interval
    package, :data:`~pe_symbolic.proof.coq_preamble.PREAMBLE_NO_INTERVAL` (numeric bounds then fail), and
    without Coquelicot either, :data:`~pe_symbolic.proof.coq_preamble.PREAMBLE_NO_COQUELICOT` (derivatives
    inside an expression then fail too)."""
    if interval_installed(coqtop) is not False:
        return PREAMBLE
    return PREAMBLE_NO_INTERVAL if coquelicot_installed(coqtop) is not False else PREAMBLE_NO_COQUELICOT


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
        """``{"checked": n, "refuted": n, "vacuous": n, "failed": n, "outside": n}``."""
        c = Counter(r.status for r in self.results)
        return {s: c.get(s, 0) for s in STATUSES}

    def by_claim(self) -> dict[str, list[CoqResult]]:
        """The results grouped by claim id, in order."""
        out: dict[str, list[CoqResult]] = {}
        for r in self.results:
            out.setdefault(r.lemma.claim_id, []).append(r)
        return out


def _axioms(path: str) -> set[str] | None:
    """The axioms ``Print Assumptions`` listed (``None`` when it printed nothing readable): each
    starts a line (``Name`` or ``Name : type``); the types' lines are indented."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        return None
    if "Closed under the global context" in text:
        return set()
    if "Axioms:" not in text:
        return None
    out: set[str] = set()
    for line in text.split("Axioms:", 1)[1].splitlines():
        if line and not line[0].isspace():
            out.add(line.split(" :", 1)[0].strip())
    return out


#: Words a generated lemma never contains outside comments: a declaration that would let a
#: proof rest on more than the preamble, or an unfinished proof.
_FORBIDDEN = re.compile(r"\b(Axiom|Axioms|Parameter|Parameters|Variable|Variables|Hypothesis|Hypotheses|Conjecture"
                        r"|Admitted|admit|give_up|Context|Require|Import|Load|Declare"
                        # the Interval package only through the preamble's pe_interval (its floats
                        # over Coq's integers; the bare tactic may compute with primitive floats)
                        r"|interval|integral|i_prec|i_native_compute)\b")
#: The names check() gives the lemmas of a run: a lemma may cite none of them.
_TOKENS = re.compile(r"\bpe_(t|s|f|m|r|ok_|vac_|sat_|no_)\d+\b")


def depends_on_preamble_only(lemma: CoqLemma) -> str:
    """``''`` when the lemma's statement and script can only rest on the preamble and Coq's
    standard library: they declare nothing, leave nothing unfinished and cite no other lemma of
    the run (by their tokens); else why not. A cheap, static check of every lemma; ``check(...,
    assumptions=True)`` also asks Coq (``Print Assumptions``), which takes seconds a lemma."""
    text = (f"{lemma.proposition}\n{lemma.script}\n{lemma.witness or ''}\n{' '.join(lemma.hypotheses)}\n"
            f"{lemma.refutation}")
    m = _FORBIDDEN.search(text) or _TOKENS.search(text)
    if m:
        return f"the lemma's text contains {m.group(0)!r}"
    if lemma.refutation:
        try:
            negation(lemma.proposition)
        except ValueError as exc:
            return str(exc)
    return ""


#: Environment variable of the package's disk cache (``pe_symbolic.numeric._diskcache``):
#: Coq's answers live in its ``coq/`` folder; ``""``, ``0``, ``off``, ``none`` turn the cache off.
CACHE_ENV = _store.ENV
_CACHE_FORMAT = 1


def coq_cache_dir() -> str | None:
    """Where :func:`check` keeps Coq's answers (``None``: no cache), see :func:`check`.

    >>> import os
    >>> old = os.environ.get(CACHE_ENV)
    >>> os.environ[CACHE_ENV] = "off"
    >>> coq_cache_dir() is None
    True
    >>> os.environ[CACHE_ENV] = "/tmp/pe-cache"
    >>> coq_cache_dir()
    '/tmp/pe-cache/coq'
    >>> _ = os.environ.pop(CACHE_ENV) if old is None else os.environ.__setitem__(CACHE_ENV, old)
    """
    root = _store.cache_root()
    return None if root is None else os.path.join(root, "coq")


@functools.lru_cache(maxsize=8)
def _coq_fingerprint(exe: str) -> str:
    """What decides Coq's answer besides the text: Coq's version, its library folder, and the
    size and time of the ``coqtop`` executable and of the Interval package the preamble loads."""
    parts = []
    for args in ([exe, "-v"], [exe, "-where"]):
        try:
            parts.append(subprocess.run(args, capture_output=True, text=True, timeout=60).stdout.strip())
        except (OSError, subprocess.SubprocessError):
            parts.append("?")
    for path in (exe, os.path.join(parts[-1], "user-contrib", "Interval", "Tactic.vo"),
                 os.path.join(parts[-1], "user-contrib", "Coquelicot", "AutoDerive.vo")):
        try:
            st = os.stat(path)
            parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{path}:absent")
    return "\n".join(parts)


def _cache_key(fingerprint: str, pre: str, kind: str, text: str) -> str:
    h = hashlib.sha256()
    for part in (str(_CACHE_FORMAT), fingerprint, pre, kind, str(LEMMA_TIMEOUT), str(SIDE_TIMEOUT), text):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def _cache_load(root: str | None, key: str) -> dict | None:
    """The stored answer to question ``key``, or ``None``: read only when every folder from the
    disk cache's root down to it, and the entry, are this user's and no one else's to write,
    with no link below the root (:mod:`pe_symbolic._store`); never an error."""
    if root is None:
        return None
    entry = _store.read_json(os.path.dirname(root), (os.path.basename(root), key[:2], key + ".json"))
    if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("defined"), bool):
        return None
    axioms = entry.get("axioms", [])
    return entry if isinstance(axioms, list) and all(isinstance(a, str) for a in axioms) else None


def _cache_store(root: str | None, key: str, entry: dict) -> None:
    if root is not None:  # a cache that cannot be written is no cache: never an error
        _store.write_json(os.path.dirname(root), (os.path.basename(root), key[:2], key + ".json"), {**entry, "key": key})


_MARK = re.compile(r"\bpe_m(\d+) is defined")


def _segments(out: str) -> dict[int, str]:
    """Coq's output cut at the markers ``pe_m<n>`` that :func:`check` puts before each question:
    ``n -> what Coq said about question n`` (only for the questions Coq reached)."""
    marks = list(_MARK.finditer(out))
    return {int(m.group(1)): out[m.end():(marks[i + 1].start() if i + 1 < len(marks) else len(out))]
            for i, m in enumerate(marks)}


def check(exports: Sequence[CoqExport], *, jobs: int | None = None, timeout: float = 600.0,
          coqtop: str | None = None, assumptions: bool = False, cache: bool = True) -> CoqReport:
    """Run Coq on every printed lemma of ``exports``; a status per lemma (see the module notes).

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
    assumptions : bool
        Also ask Coq which axioms each proof depends on (``Print Assumptions``; anything
        beyond :data:`ALLOWED_AXIOMS` fails the lemma). Thorough and slow (seconds a lemma);
        every lemma is checked statically either way (:func:`depends_on_preamble_only`).
    cache : bool
        Reuse Coq's earlier answers (default). Each question put to Coq -- a lemma with its
        script, the ``Print Assumptions`` of its proof, a question about its hypotheses -- is
        keyed by a SHA-256 over its exact text (with the run's token set to 0), the preamble,
        the timeouts, Coq's version and library folder, and the size and time of ``coqtop`` and
        of the Interval package: the same key means the same input to the same Coq, so the same
        answer. What Coq proved is stored, and so is what it did not prove, except a question whose
        output mentions a timeout or that the run did not reach (asked again next time: under
        load a script may run out of time). The cache lives in the ``coq/`` folder of the
        package's disk cache (:func:`coq_cache_dir`; ``$PE_SYMBOLIC_CACHE_DIR``, ``off`` turns
        it off; the tests run without it); deleting it is always safe. An answer is read only
        when every folder from that root down to it, and the answer's file, are this user's and
        no one else's to write, with no link below the root (:mod:`pe_symbolic._store`):
        anything else is asked again.

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
    all_lemmas = [lem for e in exports for lem in e.lemmas]
    printed = [k for k, lem in enumerate(all_lemmas) if not lem.outside]  # tokens: positions in the run
    # one question per distinct set of hypotheses (the entries of a matrix share theirs)
    side: dict[tuple, int] = {}
    side_of: dict[int, int] = {}
    for k in printed:
        if all_lemmas[k].hypotheses and not all_lemmas[k].vacuous and not all_lemmas[k].refutation:
            side_of[k] = side.setdefault(all_lemmas[k].side_key(), len(side))
    t0 = time.perf_counter()
    pre = preamble(exe)
    root = coq_cache_dir() if cache else None
    fp = _coq_fingerprint(exe) if root is not None else ""
    ok: set[int] = set()
    refuted: set[int] = set()  # the lemmas whose negation Coq proved (asked instead of a proof)
    vac: set[int] = set()
    sat: set[int] = set()
    axioms: dict[int, set[str] | None] = {}
    # the questions Coq is asked: (kind, lemma or hypotheses token, the text under token 0, cache key)
    questions: list[tuple[str, int, str, str]] = []
    asked: set[int] = set()
    for k in printed:
        lem = all_lemmas[k]
        if lem.refutation and depends_on_preamble_only(lem):
            continue  # never asked (a proposition whose negation cannot be stated): failed
        kind0, name0 = ("refute", "pe_r0") if lem.refutation else ("lemma", "pe_t0")
        qs = [(kind0, k, lem.text(tolerant=True, token=0)
               + (f'Redirect "pe_ax_0" Print Assumptions {name0}.\n' if assumptions else ""))]
        if k in side_of and side_of[k] not in asked:  # each question once in the run
            u = side_of[k]
            asked.add(u)
            qs.append(("sat" if lem.witness is not None else "vac", u, lem.side_text(0)))
        for kind, tok, text0 in qs:
            key = _cache_key(fp, pre, kind, text0) if root is not None else ""
            hit = _cache_load(root, key) if root is not None else None
            if hit is None:
                questions.append((kind, tok, text0, key))
            elif hit.get("defined") is True:
                if kind in ("lemma", "refute"):
                    (ok if kind == "lemma" else refuted).add(tok)
                    axioms[tok] = set(hit.get("axioms") or ()) if assumptions else set()
                else:
                    (sat if kind == "sat" else vac).add(tok)
    jobs = max(1, min(jobs or min(os.cpu_count() or 1, 4), len(questions) or 1))
    chunks: list[list[int]] = [[] for _ in range(jobs)]
    sizes = [0] * jobs
    for n in sorted(range(len(questions)), key=lambda n: -len(questions[n][2])):  # balance by size
        c = sizes.index(min(sizes))
        chunks[c].append(n)
        sizes[c] += len(questions[n][2]) + 200
    owner_of = {u: k for k, u in reversed(list(side_of.items()))}  # the first lemma with those hypotheses
    timed_out = False
    answered: dict[int, bool] = {}  # question -> whether its answer may be stored
    with tempfile.TemporaryDirectory(prefix="pe_coq_") as tmp:
        procs = []
        for c, chunk in enumerate(chunks):
            if not chunk:
                continue
            path = os.path.join(tmp, f"chunk{c}.v")
            texts = []
            for n in sorted(chunk):
                kind, tok, _, _ = questions[n]
                texts.append(f"Definition pe_m{n} := 0.\n")
                if kind in ("lemma", "refute"):
                    lem = all_lemmas[tok]
                    texts.append(lem.text(tolerant=True, token=tok))
                    if assumptions:
                        texts.append(f'Redirect "pe_ax_{tok}" Print Assumptions pe_{"t" if kind == "lemma" else "r"}{tok}.\n')
                else:
                    texts.append(all_lemmas[owner_of[tok]].side_text(tok))
            texts.append(f"Definition pe_m{len(questions) + c} := 0.\n")  # the end of the chunk
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(pre + "\n" + "".join(texts))
            fin = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
            fout = open(path + ".out", "w", encoding="utf-8")  # noqa: SIM115 - closed below
            # run in the temporary folder: Coq's lia/nra write their caches to the working
            # folder, and Redirect writes each lemma's Print Assumptions there. The output goes
            # to a file, not a pipe: a pipe read after another process's would fill up and stall
            # its writer, running the processes one after the other
            try:
                proc = subprocess.Popen([exe, "-q"], stdin=fin, stdout=fout, stderr=subprocess.STDOUT, cwd=tmp)
            except BaseException:
                fin.close()
                fout.close()
                for p, pin, pout, _ in procs:  # the processes already started end with this run
                    p.kill()
                    p.wait()
                    pin.close()
                    pout.close()
                raise
            procs.append((proc, fin, fout, path + ".out"))
        deadline = t0 + timeout
        for p, fin, fout, out_path in procs:
            try:
                p.wait(timeout=max(1.0, deadline - time.perf_counter()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                timed_out = True
            fin.close()
            fout.close()
            with open(out_path, encoding="utf-8", errors="replace") as fh:
                out = fh.read()
            ok.update(int(k) for k in re.findall(r"\bpe_ok_(\d+) is defined", out or ""))
            refuted.update(int(k) for k in re.findall(r"\bpe_no_(\d+) is defined", out or ""))
            vac.update(int(k) for k in re.findall(r"\bpe_vac_(\d+) is defined", out or ""))
            sat.update(int(k) for k in re.findall(r"\bpe_sat_(\d+) is defined", out or ""))
            segs = _segments(out or "")
            last = max(segs, default=-1)
            for n, seg in segs.items():  # complete when Coq reached the next marker
                if n < len(questions):
                    answered[n] = n < last and "Timeout!" not in seg
        for k in ok | refuted:
            if k not in axioms:
                axioms[k] = _axioms(os.path.join(tmp, f"pe_ax_{k}.out")) if assumptions else set()
    for n, storable in answered.items():
        kind, tok, _, key = questions[n]
        if root is None or not storable:
            continue
        if kind in ("lemma", "refute"):
            done = ok if kind == "lemma" else refuted
            entry: dict = {"defined": tok in done}
            if assumptions and tok in done:
                if axioms.get(tok) is None:
                    continue  # Print Assumptions not read: ask again
                entry["axioms"] = sorted(axioms[tok] or ())
        else:
            entry = {"defined": tok in (sat if kind == "sat" else vac)}
        _cache_store(root, key, entry)
    elapsed = time.perf_counter() - t0
    results = []
    for k, lem in enumerate(all_lemmas):
        results.append(CoqResult(lem, *_status(k, side_of.get(k), lem, ok, vac, sat, axioms, timed_out, refuted)))
    return CoqReport(tuple(results), elapsed, jobs)


def _status(k: int, u: int | None, lem: CoqLemma, ok: set[int], vac: set[int], sat: set[int],
            axioms: dict[int, set[str] | None], timed_out: bool, refuted: set[int] = frozenset()) -> tuple[str, str]:
    if lem.outside:
        return "outside", lem.outside
    if lem.refutation:  # only the negation was asked: refuted, or failed (never checked)
        why = depends_on_preamble_only(lem)
        if why:
            return "failed", why
        if k in ok:
            return "failed", "Coq proved the lemma, which was asked to be refuted"  # never asked both
        if k not in refuted:
            return "failed", ("the run timed out" if timed_out else
                              f"Coq did not refute it at the kernel's counterexample{_at(lem.counterexample, False)}; "
                              "its proof was not tried (the kernel certifies it false there)")
        used = axioms.get(k)
        if used is None:
            return "failed", "Coq's Print Assumptions of the refutation could not be read"
        extra = sorted(used - ALLOWED_AXIOMS)
        if extra:
            return "failed", f"the refutation depends on {', '.join(extra)}, beyond the standard library's axioms"
        return "refuted", f"Coq proved the printed equation false{_at(lem.counterexample, False)}"
    if k not in ok:
        return "failed", "the run timed out" if timed_out else "the generated script did not prove it"
    why = depends_on_preamble_only(lem)
    if why:
        return "failed", why
    used = axioms.get(k)
    if used is None:
        return "failed", "Coq's Print Assumptions of the proof could not be read"
    extra = sorted(used - ALLOWED_AXIOMS)
    if extra:
        return "failed", f"the proof depends on {', '.join(extra)}, beyond the standard library's axioms"
    if lem.vacuous:
        return "vacuous", lem.vacuous
    if u is not None and u in vac:
        return "vacuous", "Coq proves False from the lemma's hypotheses: they are contradictory"
    if lem.hypotheses and (u is None or u not in sat):
        return "vacuous", ("the lemma's hypotheses were not shown satisfiable (no witness point, or Coq did not "
                           "check it): a proof from them may say nothing")
    return "checked", ""
