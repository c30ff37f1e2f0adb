"""``pe-derive export --coq`` and ``pe-derive check --coq``: the registry in Coq, checked by Coq.

Both take theorem ids (default: every registered theorem) and use each theorem's generic
claim (``d=None``: for every even d, for one pair, or as stated). The id ``audit.bounds``
names the audit's floating-point bounds as Coq theorems (:mod:`pe_symbolic.audit.coq_bounds`);
with no ids, both do the registry and then the bounds.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

__all__ = ["BOUNDS_ID", "NO_COQ", "check_coq", "export_coq"]

#: Exit status of ``check --coq`` when Coq (``coqtop``) is not installed.
NO_COQ = 3
#: The id that names the audit's bounds (not a registry theorem).
BOUNDS_ID = "audit.bounds"
#: The file ``export --coq -o DIR`` writes the bounds to.
BOUNDS_FILE = "audit_bounds.v"


def _split(ids: Sequence[str]) -> tuple[list[str], bool, bool]:
    """The registry ids, whether the bounds are wanted, whether the registry is."""
    reg = [i for i in ids if i.lower() != BOUNDS_ID]
    return reg, not ids or len(reg) < len(ids), not ids or bool(reg)


def _export_bounds(output: str | None) -> None:
    from ..audit.coq_bounds import bound_theorems, coq_file

    ths = bound_theorems()
    text = coq_file(ths)
    if output is None:
        sys.stdout.write(text)
    else:
        os.makedirs(output, exist_ok=True)
        with open(os.path.join(output, BOUNDS_FILE), "w", encoding="utf-8") as fh:
            fh.write(text)
    print(f"{len(ths)} audit bound theorem(s) printed" + (f" to {os.path.join(output, BOUNDS_FILE)}" if output
                                                          else ""), file=sys.stderr)


def _check_bounds(*, verbose: bool, jobs: int | None, timeout: float, alone: bool) -> int | None:
    """Print each case's Coq status and the counts; the number of bounds not checked, or
    ``None`` when Coq, Gappa or the Coq libraries are missing (said on standard error)."""
    from ..audit.coq_bounds import CASES, case_theorems, check_bounds, coq_bounds_available

    missing = coq_bounds_available()
    if missing:
        print(f"pe-derive: the audit's bounds were not checked: {missing}; `pe-derive export --coq "
              f"{BOUNDS_ID}` writes them without it.", file=sys.stderr)
        return None
    stated = [case_theorems(c) for c in CASES]
    report = check_bounds([th for ct in stated for th in ct.theorems], jobs=jobs, timeout=timeout)
    by = {r.theorem.name: r for r in report.results}
    if not alone:
        print()
    for ct in stated:
        c = ct.case
        res = [by[th.name] for th in ct.theorems]
        n = sum(r.status == "checked" for r in res)
        kinds = ", ".join(f"{k} {ct.bounds[k]:.6g}" for k in ("angle", "table", "output") if k not in ct.not_stated)
        head = f"coq: checked ({n} of {len(res)}: {kinds})" if n == len(res) else \
            ", ".join(f"{v} {s}" for s in ("checked", "failed", "refused")
                      if (v := sum(r.status == s for r in res))) + f" (of {len(res)})"
        print(f"{BOUNDS_ID} {c.name} ({c.recipe}, {c.dtype}, {c.config}, context {c.context}): {head}")
        for r in res:
            if r.status != "checked" or verbose:
                th = r.theorem
                what = f"coq: {r.status}" + (f" ({r.why})" if r.why else "")
                print(f"  {th.name} [{th.kind}{', pairs ' + _pairs(th.pairs) if th.pairs else ''}]: {what}")
        for k, why in ct.not_stated.items():
            print(f"  {k}: not stated ({why})")
    cnt = report.counts()
    total = sum(cnt.values())
    print(f"\nsummary (audit bounds): {cnt['checked']} of {total} bound theorems checked by Coq, {cnt['failed']} "
          f"failed, {cnt['refused']} refused (an axiom beyond Coq's reals and Flocq's, or Admitted); coqtop "
          f"{report.elapsed:.1f} s ({report.jobs} process{'es' if report.jobs > 1 else ''})")
    return total - cnt["checked"]


def _pairs(p: Sequence[int]) -> str:
    return ", ".join(map(str, p)) if len(p) <= 4 else f"{p[0]} .. {p[-1]} ({len(p)})"


def _exports(ids: Sequence[str]) -> tuple[list, list]:
    from .. import theorems
    from ..proof.coq_export import export_claim

    ths = list({th.id: th for th in map(theorems.get, ids)}.values()) if ids else theorems.all()
    # a registered honest negative's false entries are refuted in Coq, not tried as proofs
    return ths, [export_claim(th.claim(), refute=th.expect == "refuted") for th in ths]


def export_coq(ids: Sequence[str], output: str | None) -> int:
    """Write the lemmas as ``.v`` text: one file per theorem in ``output`` (a folder), or
    everything to standard output; the audit's bounds (``audit.bounds``) to
    :data:`BOUNDS_FILE` beside them."""
    ids, bounds, registry = _split(ids)
    if registry:
        _export_registry(ids, output)
    if bounds:
        _export_bounds(output)
    return 0


def _export_registry(ids: Sequence[str], output: str | None) -> None:
    from ..proof.coq_export import coq_file

    ths, exps = _exports(ids)
    n_out = sum(1 for e in exps for lem in e.lemmas if lem.outside)
    n_all = sum(len(e.lemmas) for e in exps)
    if output is None:
        sys.stdout.write(coq_file(exps))
    else:
        os.makedirs(output, exist_ok=True)
        for e in exps:
            path = os.path.join(output, e.claim_id.replace(".", "_") + ".v")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(coq_file([e]))
        print(f"wrote {len(exps)} file(s) to {output}", file=sys.stderr)
    print(f"{n_all - n_out} lemma(s) printed, {n_out} outside the exported fragment "
          f"(stated in comments), from {len(ths)} theorem(s)", file=sys.stderr)


def check_coq(ids: Sequence[str], *, verbose: bool = False, jobs: int | None = None,
              timeout: float = 600.0) -> int:
    """Print each claim's Coq status, per equation where not all are checked, and the counts.

    Returns 0 when every printed lemma came out as registered (checked for a claim expected
    to hold; for a registered honest negative, Coq does not prove every entry: its false
    entries are refuted, or at least not proved) and every audit bound is checked, 1 when not
    (a ``refuted`` entry of a claim expected to hold is listed and fails the run), :data:`NO_COQ` when Coq is not installed (or, for
    ``audit.bounds`` alone, Gappa or the Coq libraries are not).
    """
    t0 = time.perf_counter()
    ids, bounds, registry = _split(ids)
    rc = _check_registry(ids, verbose=verbose, jobs=jobs, timeout=timeout) if registry else 0
    if rc == NO_COQ or not bounds:
        return rc
    left = max(60.0, timeout - (time.perf_counter() - t0))
    bad = _check_bounds(verbose=verbose, jobs=jobs, timeout=left, alone=not registry)
    if bad is None:
        return rc if registry else NO_COQ
    return 1 if bad else rc


def _check_registry(ids: Sequence[str], *, verbose: bool, jobs: int | None, timeout: float) -> int:
    from ..proof.coq_export import STATUSES, check, coqtop_path

    if coqtop_path() is None:
        print("pe-derive: Coq is not installed (no coqtop on PATH): nothing was checked. "
              "Install it with `apt-get install coq`; `pe-derive export --coq` writes the .v files "
              "without it.", file=sys.stderr)
        return NO_COQ
    ths, exps = _exports(ids)
    report = check(exps, jobs=jobs, timeout=timeout)
    expect = {th.id: th.expect for th in ths}
    unexpected = 0
    wrong = 0  # entries of claims expected to hold that Coq refuted
    confirmed = 0  # entries of registered honest negatives that Coq refuted
    for cid, results in report.by_claim().items():
        negative = expect[cid] == "refuted"
        n = {s: sum(r.status == s for r in results) for s in STATUSES}
        if negative:
            rest = "".join(f", {n[s]} {s}" for s in ("vacuous", "failed", "outside") if n[s])
            if n["refuted"]:
                head = f"coq: refuted, as registered ({n['refuted']} refuted, {n['checked']} proved{rest})"
            elif n["checked"] == len(results):
                head = f"coq: PROVED ({len(results)} of {len(results)}), although registered as an honest negative"
            else:
                head = f"coq: not proved, as expected (a registered honest negative: {n['checked']} proved{rest})"
            confirmed += n["refuted"]
            # Coq proving every entry contradicts the registry; so do contradictory hypotheses
            unexpected += n["vacuous"] + (n["checked"] == len(results))
        elif n["checked"] == len(results):
            head = f"coq: checked ({len(results)} of {len(results)})"
        else:
            head = ", ".join(f"{v} {k}" for k, v in n.items() if v) + f" (of {len(results)})"
            if n["refuted"]:
                head += " -- REFUTED, although registered to hold"
            unexpected += n["failed"] + n["vacuous"] + n["refuted"]
            wrong += n["refuted"]
        print(f"{cid}: {head}")
        for r in results:
            if r.status == "checked" and not verbose or r.status == "refuted" and negative and not verbose:
                continue
            lem = r.lemma
            where = f"equation {lem.equation}" + ("" if lem.entry is None else f" entry {lem.entry}")
            if r.status == "outside":
                what = f"coq: outside the exported fragment ({r.why})"
            elif r.status in ("vacuous", "refuted"):
                what = f"coq: {r.status} ({r.why})"
            else:
                what = f"coq: {r.status}"
            print(f"  {where} [{lem.name}]: {what}")
    c = report.counts()
    total = sum(c.values())
    good = c["checked"] + confirmed  # proved, or refuted as the registry says
    pct = 100.0 * good / total if total else 0.0
    print(f"\nsummary: {good} of {total} equations checked by Coq ({pct:.1f}%): {c['checked']} proved, "
          f"{confirmed} refuted (registered honest negatives), {c['vacuous']} vacuous "
          f"(hypotheses contradictory or not shown satisfiable), {c['failed']} failed, "
          + (f"{wrong} REFUTED although registered to hold, " if wrong else "")
          + f"{c['outside']} outside the exported fragment; coqtop {report.elapsed:.1f} s "
          f"({report.jobs} process{'es' if report.jobs > 1 else ''})")
    return 0 if unexpected == 0 else 1
