"""``pe-derive export --coq`` and ``pe-derive check --coq``: the registry in Coq, checked by Coq.

Both take theorem ids (default: every registered theorem) and use each theorem's generic
claim (``d=None``: for every even d, for one pair, or as stated).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["NO_COQ", "check_coq", "export_coq"]

#: Exit status of ``check --coq`` when Coq (``coqtop``) is not installed.
NO_COQ = 3


def _exports(ids: Sequence[str]) -> tuple[list, list]:
    from .. import theorems
    from ..proof.coq_export import export_claim

    ths = list({th.id: th for th in map(theorems.get, ids)}.values()) if ids else theorems.all()
    return ths, [export_claim(th.claim()) for th in ths]


def export_coq(ids: Sequence[str], output: str | None) -> int:
    """Write the lemmas as ``.v`` text: one file per theorem in ``output`` (a folder), or
    everything to standard output."""
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
    return 0


def check_coq(ids: Sequence[str], *, verbose: bool = False, jobs: int | None = None,
              timeout: float = 600.0) -> int:
    """Print each claim's Coq status, per equation where not all are checked, and the counts.

    Returns 0 when every printed lemma came out as registered (checked for a claim expected
    to hold; failed for a registered honest negative, which Coq must not prove), 1 when
    not, :data:`NO_COQ` when Coq is not installed.
    """
    from ..proof.coq_export import check, coqtop_path

    if coqtop_path() is None:
        print("pe-derive: Coq is not installed (no coqtop on PATH): nothing was checked. "
              "Install it with `apt-get install coq`; `pe-derive export --coq` writes the .v files "
              "without it.", file=sys.stderr)
        return NO_COQ
    ths, exps = _exports(ids)
    report = check(exps, jobs=jobs, timeout=timeout)
    expect = {th.id: th.expect for th in ths}
    unexpected = 0
    for cid, results in report.by_claim().items():
        negative = expect[cid] == "refuted"
        n = {s: sum(r.status == s for r in results) for s in ("checked", "failed", "outside")}
        if negative:
            head = (f"coq: not proved, as expected (a registered honest negative: {n['failed']} failed, "
                    f"{n['checked']} checked)")
            unexpected += n["checked"]
        elif n["checked"] == len(results):
            head = f"coq: checked ({len(results)} of {len(results)})"
        else:
            head = ", ".join(f"{v} {k}" for k, v in n.items() if v) + f" (of {len(results)})"
            unexpected += n["failed"]
        print(f"{cid}: {head}")
        for r in results:
            if r.status == "checked" and not verbose:
                continue
            lem = r.lemma
            where = f"equation {lem.equation}" + ("" if lem.entry is None else f" entry {lem.entry}")
            if r.status == "outside":
                what = f"coq: outside the exported fragment ({r.why})"
            else:
                what = f"coq: {r.status}"
            print(f"  {where} [{lem.name}]: {what}")
    c = report.counts()
    total = sum(c.values())
    pct = 100.0 * c["checked"] / total if total else 0.0
    print(f"\nsummary: {c['checked']} of {total} equations checked by Coq ({pct:.1f}%), {c['failed']} failed, "
          f"{c['outside']} outside the exported fragment; coqtop {report.elapsed:.1f} s "
          f"({report.jobs} process{'es' if report.jobs > 1 else ''})")
    return 0 if unexpected == 0 else 1
