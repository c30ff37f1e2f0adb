"""``pe-derive``: list, prove and print the theorems about positional encodings.

Commands: ``list`` (ids, titles; ``--format json`` adds sources, ``concrete`` and
``expect``), ``prove ID [ID ...]`` and ``all``; ``--version``; ``--help`` shows examples.
Theorem ids are case-insensitive; an unknown id is answered with the nearest registered ids
(every ``rope.*`` id for ``rope``; see :func:`pe_symbolic.theorems.registry.nearest`).

Exit status:

* 0 -- every requested claim came out as registered: ``proved``, or ``refuted`` for a
  registered honest negative (:attr:`pe_symbolic.theorems.Theorem.expect`);
* 1 -- some claim did not (a claim expected to hold is ``refuted`` or ``undecided``, or an
  honest negative is not refuted);
* 2 -- bad usage (unknown id, invalid ``--d`` or ``--format``), with a one-line message on
  standard error and no traceback.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Sequence

from .._validate import check_choice, check_d

__all__ = ["main"]

_FORMATS = ("text", "latex", "json")
_LIST_FORMATS = ("text", "json")

_EPILOG = """\
examples:
  pe-derive list                                   every theorem id with its title
  pe-derive list --format json                     ids, titles, sources, concrete, expect
  pe-derive prove translation.identity             the generic-pair proof (covers every even d)
  pe-derive prove rope.relative translation.identity   several claims, then one summary
  pe-derive prove ROPE.Relative                    ids are case-insensitive
  pe-derive prove rope                             not an id: lists every rope.* id
  pe-derive prove rope.relative --d 8              instantiated for d = 8 (symbolic base b)
  pe-derive prove sinusoidal.dot --format json     a certificate that others can re-check
  pe-derive all --d 8 --d 16                       every theorem: generic, then d = 8 and 16

exit status:
  0  every requested claim came out as registered (proved; refuted for a registered negative)
  1  some claim did not (refuted or undecided where a proof was expected)
  2  bad usage (unknown id, invalid --d or --format): one line on stderr
"""


def _version() -> str:
    from importlib import metadata

    from .. import __version__

    try:
        sympy = metadata.version("sympy")
    except metadata.PackageNotFoundError:  # pragma: no cover - sympy is a dependency
        sympy = "not installed"
    py = ".".join(str(v) for v in sys.version_info[:3])
    return f"pe-derive {__version__} (SymPy {sympy}, Python {py})"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pe-derive",
        description="Derive and prove the properties of transformer positional encodings "
        "(sinusoidal PE(t), translation matrix T(k), RoPE R(m)) with SymPy.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=_version(),
                   help="print the version (and SymPy's, Python's) and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    ls = sub.add_parser("list", help="list theorem ids, titles and sources")
    ls.add_argument("--format", default="text", metavar="FMT",
                    help="output format: text (default) or json (id, title, source, concrete, expect)")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("--d", action="append", default=None, metavar="N",
                       help="also instantiate for this even dimension (repeatable)")
        q.add_argument("--format", default="text", metavar="FMT",
                       help="output format: text (default), latex or json")
        q.add_argument("--no-generic", action="store_true",
                       help="with --d, skip the generic-pair proof")

    pr = sub.add_parser("prove", help="prove one or more theorems")
    pr.add_argument("ids", nargs="+", metavar="ID",
                    help="theorem id, e.g. translation.identity (case-insensitive; see `pe-derive list`)")
    common(pr)
    al = sub.add_parser("all", help="prove every theorem and print the proofs")
    common(al)
    return p


class _UsageError(ValueError):
    pass


def _choice(option: str, value: str, allowed: Sequence[str]) -> str:
    try:
        return check_choice(option, value, allowed)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None


def _dims(values: Sequence[str] | None) -> list[int]:
    out = []
    for v in values or ():
        try:
            out.append(check_d(int(v)))
        except ValueError:
            raise _UsageError(f"--d={v!r} must be a positive even integer") from None
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pe-derive`` console script; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0, 1 or 2 (see the module docstring).

    Examples
    --------
    >>> main(["prove", "rope.relative"])
    == rope.relative -- generic pair (every even d) ==
    ...
    0
    """
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (_UsageError, LookupError, ValueError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        print(f"pe-derive: error: {msg}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `pe-derive list | head`: the reader left; not an error of ours
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):  # pragma: no cover - no real stdout
            pass
        return 0


def _run(args: argparse.Namespace) -> int:
    from .. import theorems

    if args.command == "list":
        if args.format not in _LIST_FORMATS:
            raise _UsageError(f"--format={args.format!r} is not allowed for `list`; use one of "
                              + ", ".join(repr(f) for f in _LIST_FORMATS))
        return _list(theorems.all(), args.format)

    fmt = _choice("--format", args.format, _FORMATS)
    dims = _dims(args.d)
    if args.no_generic and not dims:
        raise _UsageError("--no-generic needs at least one --d N")
    if args.command == "prove":
        # resolve every id before proving anything; the same theorem twice is proved once
        selected = list({th.id: th for th in map(theorems.get, args.ids)}.values())
    else:
        selected = theorems.all()

    jobs: list[tuple[theorems.Theorem, int | None]] = []
    for th in selected:
        if not args.no_generic:
            jobs.append((th, None))
        for dim in dims:
            if th.concrete:
                jobs.append((th, dim))
            elif args.command == "prove":
                raise _UsageError(f"--d={dim} is not allowed: theorem {th.id!r} has no concrete-d form")
    return _prove(jobs, fmt, several=args.command == "all" or len(jobs) > 1)


def _list(ths: Sequence, fmt: str) -> int:
    if fmt == "json":
        print(json.dumps([{"id": th.id, "title": th.title, "source": th.source,
                           "concrete": th.concrete, "expect": th.expect} for th in ths], indent=1))
        return 0
    width = max(len(th.id) for th in ths)
    for th in ths:
        mark = "" if th.expect == "proved" else f"  [expected: {th.expect}]"
        print(f"{th.id:<{width}}  {th.title}{mark}")
    return 0


def _prove(jobs: Sequence, fmt: str, *, several: bool) -> int:
    from ..proof.render import render

    results: list[tuple[str, int | None, str, float, str]] = []
    certificates = []
    for th, d in jobs:
        proof = th.prove(d)
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
        print(json.dumps(certificates if several else certificates[0], indent=1))
    elif several:
        _summary(results, latex=fmt == "latex")
    return 1 if any(verdict != expect for _, _, verdict, _, expect in results) else 0


def _summary(results: list[tuple[str, int | None, str, float, str]], *, latex: bool) -> None:
    """One line of totals, then one line per proof; a verdict other than expected is marked."""
    lead = "% " if latex else ""
    n_ok = sum(1 for r in results if r[2] == "proved" and r[4] == "proved")
    n_neg = sum(1 for r in results if r[4] == "refuted")
    n_neg_ok = sum(1 for r in results if r[4] == "refuted" and r[2] == "refuted")
    n_bad = sum(1 for r in results if r[2] != r[4])
    width = max(len(r[0]) for r in results)
    line = f"{lead}summary: {n_ok} of {len(results) - n_neg} claims proved"
    if n_neg:
        line += f"; {n_neg_ok} of {n_neg} registered negatives refuted, as expected"
    line += "; all as expected" if not n_bad else f"; {n_bad} NOT AS EXPECTED (marked below)"
    print(line)
    for id_, d, verdict, elapsed, expect in results:
        where = "generic" if d is None else f"d={d}"
        mark = "" if verdict == expect else f"  <- NOT AS EXPECTED (expected {expect})"
        print(f"{lead}  {verdict:<9} {id_:<{width}}  {where:<8} {elapsed:7.2f} s{mark}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
