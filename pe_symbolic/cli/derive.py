"""``pe-derive``: list, prove and print the theorems about positional encodings; re-check
certificates.

Exit status: 0 when every requested claim comes out as registered (proved; refuted for a
registered negative) and, for ``check``, when the certificate re-checks as proved; 1 when any
is refuted or undecided; 2 for bad usage (unknown id, invalid ``--d``, ``--format`` or
``--timeout``) and for a malformed or tampered certificate, with a one-line message.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .._validate import check_choice, check_d

__all__ = ["main"]

_FORMATS = ("text", "latex", "json")

_EPILOG = """\
examples:
  pe-derive list                                   every theorem id with its title
  pe-derive prove translation.identity             the generic-pair proof (covers every even d)
  pe-derive prove rope.relative --d 8              instantiated for d = 8 (symbolic base b)
  pe-derive prove sinusoidal.dot --format json     a certificate that others can re-check
  pe-derive all --d 8 --d 16                       every theorem: generic, then d = 8 and 16
  pe-derive prove rope.relative --format json > c.json && pe-derive check c.json
                                                   re-check a certificate from its data alone

exit status: 0 all requested claims proved; 1 some refuted or undecided; 2 bad usage.
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pe-derive",
        description="Derive and prove the properties of transformer positional encodings "
        "(sinusoidal PE(t), translation matrix T(k), RoPE R(m)) with SymPy.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    sub.add_parser("list", help="list theorem ids, titles and sources")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("--d", action="append", default=None, metavar="N",
                       help="also instantiate for this even dimension (repeatable)")
        q.add_argument("--format", default="text", metavar="FMT",
                       help="output format: text (default), latex or json")
        q.add_argument("--no-generic", action="store_true",
                       help="with --d, skip the generic-pair proof")
        q.add_argument("--timeout", default=None, metavar="S",
                       help="seconds each proof may take (default 300); when they run out the "
                       "verdict is undecided and says so")

    pr = sub.add_parser("prove", help="prove one theorem")
    pr.add_argument("id", help="theorem id, e.g. translation.identity (see `pe-derive list`)")
    common(pr)
    al = sub.add_parser("all", help="prove every theorem and print the proofs")
    common(al)
    ck = sub.add_parser("check", help="re-check a JSON certificate (a file, or - for stdin)")
    ck.add_argument("file", metavar="FILE", help="certificate written by `pe-derive prove ID --format json`")
    ck.add_argument("--timeout", default=None, metavar="S", help="seconds the re-check may take (default 300)")
    return p


class _UsageError(ValueError):
    pass


def _dims(values: Sequence[str] | None) -> list[int]:
    out = []
    for v in values or ():
        try:
            num = int(v)
        except ValueError:
            raise _UsageError(f"--d={v!r} must be a positive even integer") from None
        try:
            out.append(check_d(num))
        except ValueError:
            raise _UsageError(f"--d={v!r} must be a positive even integer") from None
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pe-derive`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (_UsageError, LookupError, ValueError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        print(f"pe-derive: error: {msg}", file=sys.stderr)
        return 2


def _timeout(value: str | None, default: float) -> float:
    if value is None:
        return default
    try:
        t = float(value)
    except ValueError:
        t = -1.0
    if not (t > 0 and t < float("inf")):
        raise _UsageError(f"--timeout={value!r} must be a positive number of seconds")
    return t


def _check(path: str, timeout: float) -> int:
    from .. import theorems
    from ..proof import CertificateError
    from ..proof.render import render

    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except OSError as exc:
        raise _UsageError(f"cannot read {path!r}: {exc.strerror}") from None
    try:
        proof = theorems.recheck_certificate(data, timeout=timeout)
    except CertificateError as exc:
        print(f"pe-derive: error: {path}: not a valid certificate: {exc}", file=sys.stderr)
        return 2
    where = "registered theorem" if proof.extra.get("registered") else "user claim"
    d = proof.extra.get("d")
    print(f"== re-checked {proof.claim.id} ({where}{'' if d is None else f', d = {d}'}) ==")
    print(render(proof, "text"))
    print(f"\nverdict: {proof.verdict}")
    return 0 if proof.verdict == "proved" else 1


def _run(args: argparse.Namespace) -> int:
    from .. import theorems
    from ..proof.render import render

    if args.command == "check":
        return _check(args.file, _timeout(args.timeout, theorems.registry.DEFAULT_THEOREM_TIMEOUT))

    if args.command == "list":
        ths = theorems.all()
        width = max(len(th.id) for th in ths)
        for th in ths:
            print(f"{th.id:<{width}}  {th.title}")
        return 0

    try:
        fmt = check_choice("--format", args.format, _FORMATS)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    dims = _dims(args.d)
    timeout = _timeout(args.timeout, theorems.registry.DEFAULT_THEOREM_TIMEOUT)
    if args.command == "prove":
        selected = [theorems.get(args.id)]
    else:
        selected = theorems.all()
    if args.no_generic and not dims:
        raise _UsageError("--no-generic needs at least one --d N")

    jobs: list[tuple[theorems.Theorem, int | None]] = []
    for th in selected:
        if not args.no_generic:
            jobs.append((th, None))
        for dim in dims:
            if th.concrete:
                jobs.append((th, dim))
            elif args.command == "prove":
                raise _UsageError(f"--d={dim} is not allowed: theorem {th.id!r} has no concrete-d form")

    results: list[tuple[str, int | None, str, float, str]] = []
    certificates = []
    for th, d in jobs:
        proof = th.prove(d, timeout=timeout)
        results.append((th.id, d, proof.verdict, proof.elapsed, th.expect))
        if fmt == "json":
            cert = json.loads(render(proof, "json"))
            cert["d"] = d
            certificates.append(cert)
        else:
            if fmt == "text":
                where = "generic pair (every even d)" if d is None else f"instantiated for d = {d}"
                print(f"== {th.id} -- {where} ==")
            print(render(proof, fmt))
            print()
    if fmt == "json":
        print(json.dumps(certificates if args.command == "all" or len(certificates) > 1 else certificates[0],
                         indent=1))
    elif args.command == "all" or len(results) > 1:
        _summary(results, latex=fmt == "latex")
    failed = [r for r in results if r[2] != r[4]]
    return 1 if failed else 0


def _summary(results: list[tuple[str, int | None, str, float, str]], *, latex: bool) -> None:
    lead = "% " if latex else ""
    n_ok = sum(1 for r in results if r[2] == "proved" and r[4] == "proved")
    n_neg = sum(1 for r in results if r[4] == "refuted")
    n_neg_ok = sum(1 for r in results if r[4] == "refuted" and r[2] == "refuted")
    width = max(len(r[0]) for r in results)
    line = f"{lead}summary: {n_ok} of {len(results) - n_neg} claims proved"
    if n_neg:
        line += f"; {n_neg_ok} of {n_neg} registered negatives refuted as expected"
    print(line)
    for id_, d, verdict, elapsed, expect in results:
        where = "generic" if d is None else f"d={d}"
        mark = "" if verdict == expect else f"  (expected {expect})"
        print(f"{lead}  {verdict:<9} {id_:<{width}}  {where:<8} {elapsed:7.2f} s{mark}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
