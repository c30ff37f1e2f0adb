r"""Reading and re-checking certificates: data in, a checked verdict out.

A certificate (written by :func:`pe_symbolic.proof.render.certificate`) binds what it
proves: the symbol table (each name once, with its assumptions), the equations, the
relational assumptions, the statement and, for a registered theorem, its id and ``d``.
:func:`recheck` reads it with the whitelist parser :func:`~pe_symbolic.proof.kernel.reader.parse_srepr`
(nothing is evaluated as code), then refuses (:class:`CertificateError`) anything that does
not bind:

* a symbol used in an expression that the table does not declare with exactly those
  assumptions, a table entry the claim does not use, or two entries with one name;
* for a registered theorem (``"registered": true``): a claim that differs from the one the
  registry builds for that id and ``d`` (statement, equations, labels or assumptions) —
  re-checking those needs the registry, see :func:`pe_symbolic.theorems.recheck_certificate`;
* for a user's claim: a statement that is not the rendering of its own equations.

It then re-checks every chain with the kernel. ``proved`` only if every chain re-checks; a
part recorded as ``refuted`` is re-evaluated at its recorded point (which must satisfy every
assumption); anything else comes back ``undecided``.

>>> import sympy as sp
>>> from pe_symbolic.proof.engine import check_identity
>>> x = sp.Symbol("x", real=True)
>>> cert = check_identity(sp.cos(x)**2 + sp.sin(x)**2, 1).to_json()
>>> recheck(cert).verdict
'proved'
>>> forged = cert.replace("Integer(1)", "Integer(2)")   # now it "proves" ... = 2
>>> recheck(forged)
Traceback (most recent call last):
pe_symbolic.proof.kernel.reader.CertificateError: claim.statement: '... = 1' is not the rendering of the certificate's own equations ('... = 2'); a user claim's statement must say exactly what was checked
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from .kernel import budget
from .kernel.binding import MAX_BYTES, Resolver, bind_to_registry, check_point, load, read
from .kernel.checker import Context, check_chain
from .kernel.claims import Claim
from .kernel.gate import admit, judge
from .kernel.reader import CertificateError
from .isolate import run_in_child
from .result import PartProof, Proof
from .sampler import candidates, refute, spread_parts

__all__ = ["MAX_BYTES", "RECHECK_TIMEOUT", "CertificateError", "load", "read", "recheck", "recheck_certificate"]

#: Seconds a re-check may take by default.
RECHECK_TIMEOUT = 300.0

def recheck(
    data: Mapping[str, Any] | str | bytes,
    *,
    resolve: Resolver | None = None,
    lemmas: Callable[[str], Claim] | None = None,
    timeout: float | None = RECHECK_TIMEOUT,
) -> Proof:
    """Re-check a certificate from its data alone and return the checked :class:`~pe_symbolic.proof.Proof`.

    Parameters
    ----------
    data : str, bytes or mapping
        The certificate's JSON.
    resolve : callable, optional
        ``resolve(id, d) -> Claim`` rebuilds a registered theorem's claim; required for a
        certificate with ``"registered": true`` (use
        :func:`pe_symbolic.theorems.recheck_certificate`, which passes the registry's).
    lemmas : callable, optional
        Resolves the lemmas the chains cite (see :class:`~pe_symbolic.proof.kernel.Context`);
        without it, a chain that cites a lemma does not re-check.
    timeout : float or None
        Seconds the re-check may take; on expiry the unfinished parts are ``undecided``.

    Raises
    ------
    CertificateError
        Malformed, tampered with, or not bound to its claim (see the module notes).

    Notes
    -----
    From a thread other than the main thread (where a time budget cannot interrupt a long
    computation) the certificate is read and bound here, then re-checked in a child process
    that is stopped when the budget runs out, as :func:`~pe_symbolic.proof.engine.prove` does.
    """
    start = time.perf_counter()
    if timeout is not None and not budget.interruptible():
        return _recheck_in_child(data, resolve, lemmas, timeout, start)
    claim, chains, meta = _read_and_bind(data, resolve, timeout)
    left = None if timeout is None else max(timeout - (time.perf_counter() - start), 1e-3)
    parts: list[PartProof] = []
    spotted = spread_parts(len(claim.equations))  # the numeric veto, as when proving
    sides = [x for eq in claim.equations for x in (eq.lhs, eq.rhs)]
    try:
        with budget.deadline(left):
            # the kernel's gate, as when proving: on the claim as rebuilt from the certificate
            cands = candidates(claim.symbols, claim.assumptions, sides)
            admission = admit(claim.symbols, claim.assumptions, cands)
            for q, (eq, chain) in enumerate(zip(claim.equations, chains)):
                recorded = meta["verdicts"][q]
                if recorded == "refuted" and meta["points"][q] is not None:
                    checked = check_point(claim, eq, meta["points"][q], meta["entries"][q])
                    if checked is not None:
                        cex, enclosures = checked
                        parts.append(PartProof(eq, tuple(chain), "refuted", cex, None,
                                               "the recorded counterexample was re-evaluated: the two sides' "
                                               "enclosures there are disjoint", meta["points"][q], enclosures,
                                               meta["entries"][q]))
                        continue
                    parts.append(PartProof(eq, tuple(chain), "undecided", None, None,
                                           "the recorded counterexample did not re-check"))
                    continue
                if admission.note:  # contradictory or not known satisfiable: never a plain "proved"
                    parts.append(PartProof(eq, tuple(chain), "undecided", None, None, admission.note))
                    continue
                ok, why = check_chain(eq, chain, Context(claim.assumptions, lemmas))
                if ok and q in spotted:
                    # the numbers' veto, as when the proof was found: a chain the checker
                    # accepts while the sides differ at an admissible point is never "proved"
                    r = refute(eq.lhs, eq.rhs, claim.symbols, claim.assumptions, seed=q, points=1)
                    if r.counterexample is not None:
                        parts.append(PartProof(eq, tuple(chain), "refuted", r.counterexample, r.spot_check,
                                               "ENGINE INCONSISTENCY: the chain re-checked, yet the two sides "
                                               "have disjoint enclosures at an admissible point; please "
                                               "report this certificate", r.point, r.enclosures, r.entries))
                        continue
                if not ok:
                    parts.append(PartProof(eq, tuple(chain), "undecided", None, None,
                                           f"the chain did not re-check: {why}"))
                    continue
                trivial = len(chain) == 1 and eq.lhs == eq.rhs
                proved, note = judge(eq, chain, claim.assumptions, cands, seed=q, trivial=trivial)
                parts.append(PartProof(eq, tuple(chain), "proved" if proved else "undecided", None, None, note))
    except budget.BudgetExceeded:
        budget.check()  # an enclosing budget ran out: let it reach its owner
        for eq, chain in list(zip(claim.equations, chains))[len(parts):]:
            parts.append(PartProof(eq, tuple(chain), "undecided", None, None,
                                   f"time budget of {timeout:g} s ran out; not re-checked"))
    extra = {"registered": meta["registered"], "d": meta["d"], "rechecked": True}
    return Proof(claim, tuple(parts), time.perf_counter() - start, extra)


def _read_and_bind(data: Mapping[str, Any] | str | bytes, resolve: Resolver | None,
                   timeout: float | None) -> tuple[Claim, Any, dict[str, Any]]:
    """The certificate read and bound to the registry (:func:`read`, :func:`bind_to_registry`)
    within ``timeout`` seconds; running out of it is a :class:`CertificateError`. (Where
    budgets are cooperative only, the reader is bounded before it builds anything.)"""
    try:
        with budget.deadline(timeout):
            claim, chains, meta = read(data)
            bind_to_registry(claim, meta, resolve)
    except budget.BudgetExceeded:
        budget.check()  # an enclosing budget ran out: let it reach its owner
        raise CertificateError(f"certificate: reading and binding it took longer than the time budget of "
                               f"{timeout:g} s") from None
    return claim, chains, meta


def _recheck_in_child(data: Mapping[str, Any] | str | bytes, resolve: Resolver | None,
                      lemmas: Callable[[str], Claim] | None, timeout: float, start: float) -> Proof:
    claim, chains, meta = _read_and_bind(data, resolve, timeout)

    def unbuilt(note: str) -> Proof:
        parts = tuple(PartProof(eq, tuple(chain), "undecided", None, None, note)
                      for eq, chain in zip(claim.equations, chains))
        return Proof(claim, parts, time.perf_counter() - start,
                     {"registered": meta["registered"], "d": meta["d"], "rechecked": True})

    payload = dict(data) if isinstance(data, Mapping) else data
    return run_in_child("recheck", (payload, resolve, lemmas, timeout), timeout, unbuilt)


def recheck_certificate(data: Mapping[str, Any] | str | bytes, *, resolve: Resolver | None = None) -> str:
    """The re-checked verdict of a certificate (see :func:`recheck`): ``"proved"`` only if
    every chain re-checks."""
    return recheck(data, resolve=resolve).verdict
