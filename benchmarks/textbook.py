"""The prover's reach: the textbook corpus through :func:`pe_symbolic.check_identity`.

``python -m benchmarks.textbook`` reads ``tests/data/textbook_corpus.json`` (identities taken the
way SymPy's own simplification and elementary-function tests assert them, each with a certified
false mutant: :mod:`benchmarks.textbook_extract` builds it) and checks every identity and every
mutant with a per-identity budget (``--budget``, seconds), then prints

* for the true identities: proved / undecided / refuted (a true identity refuted is a defect);
* for the false mutants: proved (a defect) / undecided / refuted;
* checks past their budget (elapsed beyond the budget plus a grace for the stop to land);
* the counts per kind of identity (the heads it uses), and the issue's examples one by one.

``--save FILE`` keeps the verdicts (JSON); ``--compare FILE`` prints, for each kind, the counts of
an earlier run beside this one's (the "before -> after" of a change).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("SYMPY_CACHE_SIZE", "50000")

import sympy as sp  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "textbook_corpus.json"
#: Seconds past the budget that a check may take for its stop to land (the timer interrupts the
#: check at its next budget test).
GRACE = 2.0

_KINDS = (
    ("tan/cot/sec/csc", (sp.tan, sp.cot, sp.sec, sp.csc)),
    ("inverse trig", (sp.asin, sp.acos, sp.acot, sp.asec, sp.acsc, sp.atan2)),
    ("inverse hyperbolic", (sp.asinh, sp.acosh, sp.atanh, sp.acoth, sp.asech, sp.acsch)),
    ("hyperbolic", (sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch)),
    ("re/im/conjugate/arg", (sp.re, sp.im, sp.conjugate, sp.arg)),
    ("KroneckerDelta", (sp.KroneckerDelta,)),
    ("log", (sp.log,)),
    ("sin/cos/exp", (sp.sin, sp.cos, sp.exp, sp.atan)),
)


def kind(lhs: sp.Basic, rhs: sp.Basic) -> str:
    """The first kind of :data:`_KINDS` whose heads the identity uses; ``radicals`` for a
    nested square root, else ``algebra``."""
    for name, heads in _KINDS:
        if lhs.has(*heads) or rhs.has(*heads):
            return name
    pows = [p for side in (lhs, rhs) for p in side.atoms(sp.Pow) if not p.exp.is_Integer]
    if any(p.base.has(sp.Pow) for p in pows) or any(not p.free_symbols for p in pows):
        return "radicals"
    return "algebra"


#: The larger corpus (the same SymPy test modules, more of their asserts; it contains
#: :data:`CORPUS`): ``--corpus large``.
CORPUS_LARGE = CORPUS.with_name("textbook_corpus_large.json")


def load(path: Path = CORPUS) -> dict:
    """The corpus, its expressions read by the kernel's whitelist parser (never ``eval``)."""
    from pe_symbolic.proof.kernel.reader import parse_srepr

    data = json.loads(path.read_text(encoding="utf-8"))
    for row in data["identities"]:
        row["lhs_e"] = parse_srepr(row["lhs"], field=f"{row['id']}.lhs")
        row["rhs_e"] = parse_srepr(row["rhs"], field=f"{row['id']}.rhs")
        if "mutant" in row:
            m = row["mutant"]
            m["lhs_e"] = parse_srepr(m["lhs"], field=f"{row['id']}.mutant.lhs")
            m["rhs_e"] = parse_srepr(m["rhs"], field=f"{row['id']}.mutant.rhs")
    return data


def check(lhs: sp.Basic, rhs: sp.Basic, budget: float) -> tuple[str, float, str]:
    """``(verdict, seconds, first note)`` of one check within ``budget`` seconds."""
    from pe_symbolic import check_identity
    from pe_symbolic.proof import ClaimError

    t0 = time.perf_counter()
    try:
        p = check_identity(lhs, rhs, timeout=budget)
    except (ClaimError, TypeError, ValueError) as exc:
        return "error", time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"[:200]
    except Exception as exc:  # noqa: BLE001 - a crash is a defect: counted and named, the run goes on
        return "crash", time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"[:200]
    note = p.notes[0] if p.notes else ""
    return p.verdict, time.perf_counter() - t0, note[:200]


#: The identities the issue names (as printed before -> after), each ``(name, lhs, rhs)``.
def issue_examples() -> list[tuple[str, sp.Basic, sp.Basic]]:
    from sympy.core.parameters import evaluate

    x, y = sp.symbols("x y", real=True)
    r = sp.Symbol("r", real=True)
    j = sp.Symbol("j", integer=True)
    t, theta, x0, x1 = sp.symbols("t theta x0 x1", real=True)
    with evaluate(False):
        kd = sp.KroneckerDelta(0, j) * sp.KroneckerDelta(1, j)
        tan_value = sp.tan(sp.pi / 12)
        asin_value = sp.asin(sp.sqrt(3) / 2)
        atan2_value = sp.atan2(-1, -1)
        # torch.polar(1, t*theta) * (x0 + i x1), as Meta's code writes it; re, im and conjugate
        # held as written (SymPy would split them itself when it builds them)
        rope = (x0 + sp.I * x1) * sp.exp(sp.I * t * theta)
        rope_re, rope_im = sp.re(rope), sp.im(rope)
        rope_conj = sp.conjugate(sp.exp(sp.I * t * theta)) * sp.exp(sp.I * t * theta)
    return [
        ("log(2) + log(3) = log(6)", sp.log(2) + sp.log(3), sp.log(6)),
        ("log(12) = 2 log 2 + log 3 (expand_log(factor=True))", sp.log(12), 2 * sp.log(2) + sp.log(3)),
        ("sqrt(16 - 2 sqrt29 + 2 sqrt(55 - 10 sqrt29)) = sqrt5 + sqrt(11 - 2 sqrt29)",
         sp.sqrt(16 - 2 * sp.sqrt(29) + 2 * sp.sqrt(55 - 10 * sp.sqrt(29))), sp.sqrt(5) + sp.sqrt(11 - 2 * sp.sqrt(29))),
        ("exp(i pi/4) = sqrt2/2 + i sqrt2/2", sp.exp(sp.I * sp.pi / 4), sp.sqrt(2) / 2 + sp.I * sp.sqrt(2) / 2),
        ("KroneckerDelta(0, j) KroneckerDelta(1, j) = 0", kd, sp.Integer(0)),
        ("Morrie: cos(pi/9) cos(2pi/9) cos(3pi/9) cos(4pi/9) = 1/16",
         sp.cos(sp.pi / 9) * sp.cos(2 * sp.pi / 9) * sp.cos(3 * sp.pi / 9) * sp.cos(4 * sp.pi / 9), sp.Rational(1, 16)),
        ("RoPE complex form: re((x0 + i x1) exp(i t theta)) = x0 cos - x1 sin",
         rope_re, x0 * sp.cos(t * theta) - x1 * sp.sin(t * theta)),
        ("RoPE complex form: im((x0 + i x1) exp(i t theta)) = x0 sin + x1 cos",
         rope_im, x0 * sp.sin(t * theta) + x1 * sp.cos(t * theta)),
        ("RoPE complex form: conjugate(exp(i t theta)) exp(i t theta) = 1",
         rope_conj, sp.Integer(1)),
        ("tan(2x) = 2 tan x / (1 - tan^2 x)", sp.tan(2 * x), 2 * sp.tan(x) / (1 - sp.tan(x) ** 2)),
        ("tan(pi/12) = 2 - sqrt3", tan_value, 2 - sp.sqrt(3)),
        ("cosh^2 x - sinh^2 x = 1", sp.cosh(x) ** 2 - sp.sinh(x) ** 2, sp.Integer(1)),
        ("tanh(x + y) = (tanh x + tanh y)/(1 + tanh x tanh y)", sp.tanh(x + y),
         (sp.tanh(x) + sp.tanh(y)) / (1 + sp.tanh(x) * sp.tanh(y))),
        ("asin(sqrt3/2) = pi/3", asin_value, sp.pi / 3),
        ("atan2(-1, -1) = -3 pi/4", atan2_value, -3 * sp.pi / 4),
        ("sec^2 x - tan^2 x = 1", sp.sec(x) ** 2 - sp.tan(x) ** 2, sp.Integer(1)),
        ("FALSE: cot(r) = 2 cot(r) (must be refuted)", sp.cot(r), 2 * sp.cot(r)),
        ("FALSE: re((x0 + i x1) exp(i t theta)) = x0 cos + x1 sin (must be refuted)",
         rope_re, x0 * sp.cos(t * theta) + x1 * sp.sin(t * theta)),
    ]


def _one(row: dict, budget: float) -> dict:
    out = {"kind": kind(row["lhs_e"], row["rhs_e"])}
    out["true"] = check(row["lhs_e"], row["rhs_e"], budget)
    if "mutant" in row:
        out["mutant"] = check(row["mutant"]["lhs_e"], row["mutant"]["rhs_e"], budget)
    return out


def _one_by_id(key: str, budget: float, path: Path = CORPUS) -> tuple[str, dict]:
    """:func:`_one` in a worker process (the corpus is read there once, by the whitelist parser)."""
    global _WORKER_ROWS
    if _WORKER_ROWS is None:
        _WORKER_ROWS = {r["id"]: r for r in load(path)["identities"]}
    return key, _one(_WORKER_ROWS[key], budget)


_WORKER_ROWS: dict | None = None


def run(data: dict, budget: float, *, limit: int | None = None, ids: set[str] | None = None,
        verbose: bool = False, jobs: int = 1, path: Path = CORPUS) -> dict:
    rows = [r for r in data["identities"] if ids is None or r["id"] in ids]
    if limit is not None:
        rows = rows[:limit]
    results: dict[str, dict] = {}
    t_start = time.perf_counter()
    if jobs > 1:  # worker processes, each checking in its own main thread (the budget's timer works there)
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            done = pool.map(_one_by_id, [r["id"] for r in rows], [budget] * len(rows), [path] * len(rows),
                            chunksize=4)
            for q, (key, out) in enumerate(done):
                results[key] = out
                if q % 100 == 99:
                    print(f"  ... {q + 1}/{len(rows)} ({time.perf_counter() - t_start:.0f} s)", file=sys.stderr,
                          flush=True)
        return {r["id"]: results[r["id"]] for r in rows}
    for q, row in enumerate(rows):
        out = _one(row, budget)
        results[row["id"]] = out
        if verbose:
            print(f"{row['id']} {out['kind']:<18} {out['true'][0]:<9} {out['true'][1]:6.2f}s "
                  f"mutant {out.get('mutant', ('-', 0))[0]:<9} {row['source']}", flush=True)
        elif q % 100 == 99:
            print(f"  ... {q + 1}/{len(rows)} ({time.perf_counter() - t_start:.0f} s)", file=sys.stderr, flush=True)
    return results


def summary(results: dict, budget: float) -> list[str]:
    def counts(which: str, keys=None) -> Counter:
        return Counter(r[which][0] for k, r in results.items() if which in r and (keys is None or k in keys))

    n = len(results)
    t = counts("true")
    m = counts("mutant")
    nm = sum(m.values())
    over = [(k, w, r[w][1]) for k, r in results.items() for w in ("true", "mutant")
            if w in r and r[w][1] > budget + GRACE]
    slowest = max((r[w][1] for r in results.values() for w in ("true", "mutant") if w in r), default=0.0)
    lines = [
        f"true identities: {n}: proved {t['proved']} ({100 * t['proved'] / max(n, 1):.1f}%), "
        f"undecided {t['undecided']}, refuted {t['refuted']}" + (f", error {t['error']}" if t["error"] else "")
        + (f", CRASH {t['crash']}" if t["crash"] else ""),
        f"false mutants: {nm}: proved {m['proved']}, undecided {m['undecided']}, refuted {m['refuted']}"
        + (f", error {m['error']}" if m["error"] else "")
        + (f", CRASH {m['crash']}" if m["crash"] else ""),
        f"checks past their budget ({budget:g} s + {GRACE:g} s grace): {len(over)}; slowest check {slowest:.1f} s",
    ]
    kinds = Counter(r["kind"] for r in results.values())
    lines.append("by kind (true proved/undecided/refuted | mutants proved/undecided/refuted):")
    for k_name, k_n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        keys = {k for k, r in results.items() if r["kind"] == k_name}
        a, b = counts("true", keys), counts("mutant", keys)
        lines.append(f"  {k_name:<20} {k_n:>5}: {a['proved']:>4}/{a['undecided']:>4}/{a['refuted']:>2} | "
                     f"{b['proved']:>2}/{b['undecided']:>4}/{b['refuted']:>4}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="check the textbook corpus")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per identity (default 10)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N identities")
    ap.add_argument("--ids", default=None, help="comma-separated identity ids")
    ap.add_argument("--save", type=Path, default=None, help="write the verdicts to this JSON file")
    ap.add_argument("--compare", type=Path, default=None, help="an earlier --save file to compare with")
    ap.add_argument("--examples", action="store_true", help="only the issue's example identities")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--corpus", default="default",
                    help="'default' (tests/data/textbook_corpus.json), 'large' (textbook_corpus_large.json: more "
                         "asserts of the same tests, containing the default one) or a path")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    print("the issue's examples:")
    for name, lhs, rhs in issue_examples():
        v, secs, note = check(lhs, rhs, args.budget)
        print(f"  {v:<9} {secs:5.2f} s  {name}" + (f"  [{note[:90]}]" if v != "proved" and note else ""))
    if args.examples:
        return 0
    path = {"default": CORPUS, "large": CORPUS_LARGE}.get(args.corpus, Path(args.corpus))
    data = load(path)
    ids = set(args.ids.split(",")) if args.ids else None
    t0 = time.perf_counter()
    results = run(data, args.budget, limit=args.limit, ids=ids, verbose=args.verbose, jobs=args.jobs, path=path)
    elapsed = time.perf_counter() - t0
    print(f"corpus: {len(data['identities'])} identities from SymPy {data['sympy']}'s tests "
          f"({len(data['false_as_stated'])} more dropped as false as stated); {elapsed:.0f} s")
    for line in summary(results, args.budget):
        print(line)
    if args.compare is not None:
        before = json.loads(args.compare.read_text(encoding="utf-8"))
        common = {k: v for k, v in before.items() if k in results}
        print("before (from --compare), the same identities:")
        for line in summary(common, args.budget):
            print("  " + line)
    if args.save is not None:
        args.save.write_text(json.dumps(results, indent=0, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
