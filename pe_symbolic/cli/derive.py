"""``pe-derive``: list, prove and print the theorems about positional encodings; re-check
certificates.

Commands: ``list [PREFIX]`` (ids, titles; ``--format json`` adds sources, ``concrete``,
``expect`` and ``scope``), ``prove ID [ID ...]``, ``all`` and ``check FILE.json`` (``-`` for standard
input); ``--timeout S`` bounds each proof; ``--jobs N`` proves in N processes side by side
(default: one per idle CPU, at most 4; the output is the same, in the same order); ``--version``;
``--help`` shows examples. Text wraps
long expressions to the terminal's width (``COLUMNS``) and cuts nothing; a proof with many
parts (a large ``--d``) shows them all in a file or a pipe, and in a terminal the first few,
every part not proved and the last unless ``--full`` is given.
Theorem ids are case-insensitive. A dotted prefix that is not an id itself lists the ids it
starts (``pe-derive prove rope`` lists every ``rope.*`` id with its title, proves nothing and
exits 0); any other unknown id is answered with the nearest registered ids (see
:func:`pe_symbolic.theorems.registry.nearest`).

Exit status:

* 0 -- every requested claim came out as registered: ``proved``, or ``refuted`` for a
  registered honest negative (:attr:`pe_symbolic.theorems.Theorem.expect`);
* 1 -- some claim did not (a claim expected to hold is ``refuted`` or ``undecided``, or an
  honest negative is not refuted);
* 2 -- bad usage (unknown id, invalid ``--d``, ``--format`` or ``--timeout``) and a
  malformed or tampered certificate, with a one-line message on standard error and no
  traceback.

``check`` exits 0 only when the certificate re-checks as ``proved``.

``export --coq [ID ...] [-o DIR]`` writes the theorems as Coq lemmas;
``check --coq [ID ...]`` runs Coq on them and prints, per claim and per equation, ``coq:
checked``, ``coq: failed`` or ``coq: outside the exported fragment (why)``, with the counts
and Coq's time (:mod:`pe_symbolic.proof.coq_export`). It exits 0 when every printed lemma
came out as registered (a registered honest negative must *fail* in Coq), 1 when not, and 3
when Coq is not installed. The id ``audit.bounds`` is the audit's floating-point bounds as Coq
theorems over Flocq's formats (:mod:`pe_symbolic.audit.coq_bounds`; ``export`` writes
``audit_bounds.v``, ``check`` needs Gappa and Coq's Flocq and Gappa libraries too); with no
ids, both commands do the registry and then the bounds.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections.abc import Sequence

# Proofs for a large concrete d build and compare many thousands of small expressions; SymPy's
# cache (1000 entries by default) is then far too small. Only effective before SymPy loads,
# which is the case when this module is the console script.
os.environ.setdefault("SYMPY_CACHE_SIZE", "50000")

from .._validate import check_choice, check_d

__all__ = ["main"]

_FORMATS = ("text", "latex", "json")
_LIST_FORMATS = ("text", "json")

_EPILOG = """\
examples:
  pe-derive list                                   every theorem id with its title
  pe-derive list rope                              the rope.* ids only
  pe-derive list --format json                     ids, titles, sources, concrete, expect
  pe-derive prove translation.identity             the proof for every even d (pair by pair)
  pe-derive prove rope.relative translation.identity   several claims, then one summary
  pe-derive prove ROPE.Relative                    ids are case-insensitive
  pe-derive prove rope                             a prefix, not an id: lists every rope.* id
  pe-derive prove rope.relative --d 4096           instantiated for d = 4096, block by block
  pe-derive prove rope.relative --d 64 --full      every one of the 32 parts (not a summary)
  pe-derive prove rope.relative --format latex --standalone > r.tex   a compilable document
  pe-derive prove sinusoidal.dot --format json > c.json && pe-derive check c.json
                                                   a certificate, re-checked from its data alone
  pe-derive all --d 8 --d 16                       every theorem: generic, then d = 8 and 16
  pe-derive all --timeout 60                       at most 60 s a proof (else: undecided)
  pe-derive all --jobs 2                           in 2 processes (default: one per idle CPU, at most 4)
  pe-derive export --coq rope.relative -o coq/     the claim as Coq lemmas, coq/rope_relative.v
  pe-derive check --coq                            every theorem re-checked by Coq (needs coqtop),
                                                   then the audit's bounds (needs gappa, Flocq too)
  pe-derive check --coq audit.bounds               only the audit's floating-point bounds

exit status:
  0  every requested claim came out as registered (proved; refuted for a registered negative)
  1  some claim did not (refuted or undecided where a proof was expected)
  2  bad usage (unknown id, invalid --d, --format or --timeout), or a malformed or
     tampered certificate (check): one line on stderr
  3  check --coq: Coq (coqtop) is not installed; nothing was checked
"""


def _version() -> str:
    from importlib import metadata

    from .._version import __version__

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
    ls.add_argument("prefix", nargs="?", default=None, metavar="PREFIX",
                    help="only the ids under this dotted prefix, e.g. rope (case-insensitive)")
    ls.add_argument("--format", default="text", metavar="FMT",
                    help="output format: text (default) or json (id, title, source, concrete, expect)")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("--d", action="append", default=None, metavar="N",
                       help="also instantiate for this even dimension (repeatable)")
        q.add_argument("--format", default="text", metavar="FMT",
                       help="output format: text (default), latex or json")
        q.add_argument("--no-generic", action="store_true",
                       help="with --d, skip the generic form")
        q.add_argument("--timeout", default=None, metavar="S",
                       help="seconds each proof may take (default 300); when they run out the "
                       "verdict is undecided and says so")
        q.add_argument("--jobs", default=None, metavar="N",
                       help="processes proving side by side (default: the idle CPUs, at most 4; 1: all in "
                       "this process); the output is the same, in the same order")
        q.add_argument("--standalone", action="store_true",
                       help="with --format latex, a complete document that compiles on its own")
        q.add_argument("--full", action="store_true",
                       help="show every part of a proof with many parts (a large --d); by default "
                       "a terminal shows the first few, every part not proved and the last, while "
                       "output to a file or a pipe, and LaTeX, shows them all")

    pr = sub.add_parser("prove", help="prove one or more theorems")
    pr.add_argument("ids", nargs="+", metavar="ID",
                    help="theorem id, e.g. translation.identity (case-insensitive; see `pe-derive list`)")
    common(pr)
    al = sub.add_parser("all", help="prove every theorem and print the proofs")
    common(al)
    ck = sub.add_parser("check", help="re-check a JSON certificate (a file, or - for stdin); with --coq, "
                        "check theorems with Coq")
    ck.add_argument("file", nargs="*", metavar="FILE|ID",
                    help="certificate written by `pe-derive prove ID --format json`; with --coq, theorem "
                    "ids (default: all)")
    ck.add_argument("--timeout", default=None, metavar="S", help="seconds the re-check may take (default 300; "
                    "with --coq, the whole Coq run, default 600)")
    ck.add_argument("--coq", action="store_true", help="print the theorems as Coq lemmas and run Coq on them")
    ck.add_argument("--jobs", default=None, metavar="N", help="with --coq, Coq processes side by side "
                    "(default: the CPUs, at most 4)")
    ck.add_argument("-v", "--verbose", action="store_true", help="with --coq, a line for every lemma")
    ex = sub.add_parser("export", help="write theorems as Coq lemmas (.v files)")
    ex.add_argument("ids", nargs="*", metavar="ID", help="theorem ids (default: all)")
    ex.add_argument("--coq", action="store_true", help="Coq (the one export format; required)")
    ex.add_argument("-o", "--output", default=None, metavar="DIR",
                    help="write one ID.v file per theorem into DIR (default: one file to standard output)")
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
    == rope.relative -- for every even d (pair by pair) ==
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


def _timeout(value: str | None, default: float) -> float:
    if value is None:
        return default
    try:
        t = float(value)
    except ValueError:
        t = -1.0
    if not 0 < t < float("inf"):
        raise _UsageError(f"--timeout={value!r} must be a positive number of seconds")
    return t


def _check(path: str, timeout: float) -> int:
    from .. import theorems
    from ..proof import CertificateError
    from ..proof.certificates import MAX_BYTES
    from ..proof.render import render

    try:  # never more than the limit is read: /dev/zero or a huge file is an error, not a hang
        if path == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise _UsageError(f"cannot read {path!r}: {exc.strerror}") from None
    if len(data) > MAX_BYTES:
        print(f"pe-derive: error: {path}: not a valid certificate: larger than the limit of {MAX_BYTES} bytes",
              file=sys.stderr)
        return 2
    items = _certificates_in(data)  # several certificates: what `prove` writes for several jobs
    proofs = []
    end = time.monotonic() + timeout  # --timeout bounds the whole check, however many certificates
    for n, item in enumerate(items):
        label = path if len(items) == 1 else f"{path}[{n}]"
        left = end - time.monotonic()
        try:
            if left <= 0:
                raise CertificateError(f"the time budget of {timeout:g} s ran out before this certificate")
            proofs.append(theorems.recheck_certificate(item, timeout=left))
        except CertificateError as exc:
            print(f"pe-derive: error: {label}: not a valid certificate: {exc}", file=sys.stderr)
            return 2
    for proof in proofs:
        where = "registered theorem" if proof.extra.get("registered") else "user claim"
        d = proof.extra.get("d")
        print(f"== re-checked {proof.claim.id} ({where}{'' if d is None else f', d = {d}'}) ==")
        print(render(proof, "text", full=not sys.stdout.isatty()))
        print(f"\nverdict: {proof.verdict}")
    if len(proofs) > 1:
        n_ok = sum(p.verdict == "proved" for p in proofs)
        print(f"\nsummary: {n_ok} of {len(proofs)} certificates re-checked as proved")
    return 0 if all(p.verdict == "proved" for p in proofs) else 1


def _certificates_in(data: bytes) -> list:
    """The certificates in a file: one JSON object, or a JSON list of them (as `prove` writes
    for several ids or several d); anything else goes to the certificate reader whole, which
    says what is wrong with it."""
    from ..proof.certificates import MAX_BYTES

    if len(data) <= MAX_BYTES:
        try:
            obj = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            return [data]
        if isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
            return obj
    return [data]


def _run(args: argparse.Namespace) -> int:
    from .. import theorems

    if args.command == "export":
        if not args.coq:
            raise _UsageError("export needs --coq (the one export format)")
        from ._coq import export_coq

        return export_coq(args.ids, args.output)
    if args.command == "check":
        if args.coq:
            from ._coq import check_coq

            jobs = None
            if args.jobs is not None:
                if not args.jobs.isdigit() or int(args.jobs) < 1:
                    raise _UsageError(f"--jobs={args.jobs!r} must be a positive integer")
                jobs = int(args.jobs)
            return check_coq(args.file, verbose=args.verbose, jobs=jobs, timeout=_timeout(args.timeout, 600.0))
        if len(args.file) != 1:
            raise _UsageError("check needs exactly one certificate FILE (or --coq with theorem ids)")
        return _check(args.file[0], _timeout(args.timeout, theorems.registry.DEFAULT_THEOREM_TIMEOUT))
    if args.command == "list":
        if args.format not in _LIST_FORMATS:
            raise _UsageError(f"--format={args.format!r} is not allowed for `list`; use one of "
                              + ", ".join(repr(f) for f in _LIST_FORMATS))
        ths = theorems.all()
        if args.prefix is not None:
            ths = prefix_matches(args.prefix, ths)
            if not ths:
                theorems.get(args.prefix)  # not a prefix either: the nearest ids, as for `prove`
        return _list(ths, args.format)

    fmt = _choice("--format", args.format, _FORMATS)
    dims = _dims(args.d)
    timeout = _timeout(args.timeout, theorems.registry.DEFAULT_THEOREM_TIMEOUT)
    if args.standalone and fmt != "latex":
        raise _UsageError("--standalone needs --format latex")
    if args.no_generic and not dims:
        raise _UsageError("--no-generic needs at least one --d N")
    if args.command == "prove":
        # resolve every id before proving anything; the same theorem twice is proved once. A
        # dotted prefix (`rope`) is answered with the ids under it, and nothing is proved.
        found, prefixes = {}, {}
        for name in args.ids:
            try:
                th = theorems.get(name)
            except LookupError:
                under = prefix_matches(name, theorems.all())
                if not under:
                    raise
                prefixes[name] = under
            else:
                found.setdefault(th.id, th)
        if prefixes:
            return _list_prefixes(prefixes, named=list(found))
        selected = list(found.values())
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
    workers = _workers(args.jobs)
    return _prove(jobs, fmt, several=args.command == "all" or len(jobs) > 1, timeout=timeout,
                  standalone=args.standalone, full=args.full or not sys.stdout.isatty(), workers=workers)


def _workers(value: str | None) -> int:
    """``--jobs``: how many processes prove side by side. By default the CPUs this process may
    use that are idle (less the 1-minute load average), at least 1 and at most 4: on a busy
    machine a second process only adds work (measured on 2 loaded cores: 15 % more CPU time
    and no less wall time)."""
    if value is None:
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):  # not Linux
            cpus = os.cpu_count() or 1
        try:
            idle = cpus - round(os.getloadavg()[0])
        except (AttributeError, OSError):  # no load average here
            idle = cpus
        return max(1, min(idle, 4))
    if not value.isdigit() or int(value) < 1:
        raise _UsageError(f"--jobs={value!r} must be a positive integer")
    return int(value)


def prefix_matches(prefix: str, ths: Sequence) -> list:
    """The theorems whose id starts with the dotted ``prefix`` (``rope``, ``rope.`` or
    ``rope.*``; case-insensitive), in registration order. Whole dotted parts only: ``rope``
    is the prefix of ``rope.relative``, not of ``rope_family.x`` or ``longrope.switch``.

    >>> from pe_symbolic import theorems
    >>> ids = [th.id for th in prefix_matches("ROPE", theorems.all())]
    >>> "rope.relative" in ids and all(i.startswith("rope.") for i in ids)
    True
    >>> prefix_matches("rope.rel", theorems.all())
    []
    """
    q = str(prefix).strip().casefold()
    q = q[:-2] if q.endswith(".*") else q.rstrip(".")
    if not q:
        return []
    return [th for th in ths if th.id.casefold().startswith(q + ".")]


def _list_prefixes(prefixes: dict, named: Sequence[str]) -> int:
    """``pe-derive prove PREFIX``: the ids under each prefix, how to prove them; exit 0 (2
    when real ids were named beside a prefix: nothing was proved)."""
    for n, (prefix, ths) in enumerate(prefixes.items()):
        if n:
            print()
        stem = prefix.strip().rstrip(".*").rstrip(".")
        print(f"{prefix!r} is a prefix, not a theorem id: {len(ths)} id(s) start with {stem + '.'!r}")
        _list(ths, "text")
    first = next(iter(prefixes))
    example = prefixes[first][0].id
    stem = first.strip().rstrip(".*").rstrip(".")
    print(f"\nprove one: pe-derive prove {example}; all of them: "
          f"pe-derive prove $(pe-derive list {stem} | cut -d' ' -f1)")
    if named:
        raise _UsageError(f"{', '.join(map(repr, prefixes))} named no theorem (the ids are listed above); "
                          f"nothing was proved, {', '.join(named)} included")
    return 0


def _list(ths: Sequence, fmt: str) -> int:
    if fmt == "json":
        print(json.dumps([{"id": th.id, "title": th.title, "source": th.source, "concrete": th.concrete,
                           "expect": th.expect, "scope": th.scope} for th in ths], indent=1))
        return 0
    width = max(len(th.id) for th in ths)
    for th in ths:
        mark = "" if th.expect == "proved" else f"  [expected: {th.expect}]"
        print(f"{th.id:<{width}}  {th.title}{mark}")
    return 0


_SCOPE_HEADER = {
    "every even d": "for every even d (pair by pair)",
    "lemma": "lemma (one 2x2 block or one pair)",
    "as stated": "as stated",
}


class _Progress:
    """A progress line on standard error for a proof that takes more than a couple of
    seconds (only on a terminal: logs stay clean)."""

    def __init__(self, label: str, unit: str = "parts") -> None:
        self.label, self.unit, self.start, self.shown = label, unit, time.perf_counter(), False
        self.live = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if self.live and time.perf_counter() - self.start > 2.0:
            sys.stderr.write(f"\r  proving {self.label}: {done}/{total} {self.unit}")
            sys.stderr.flush()
            self.shown = True

    def building(self, d: int | None) -> None:
        """Say that a large claim is being built (its d/2 blocks, before the first part)."""
        if self.live and d is not None and d >= 1024:
            sys.stderr.write(f"\r  building {self.label}: {d // 2} blocks")
            sys.stderr.flush()
            self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 72 + "\r")
            sys.stderr.flush()


def _prove(jobs: Sequence, fmt: str, *, several: bool, timeout: float, standalone: bool = False,
           full: bool = True, workers: int = 1) -> int:
    import shutil

    # the terminal's width (COLUMNS where set); expressions wrap to it, nothing is cut
    width = max(60, min(shutil.get_terminal_size((92, 24)).columns, 160))

    results: list[tuple[str, int | None, str, float, str]] = []
    certificates = []
    body: list[str] = []
    for n, (verdict, elapsed, shown) in enumerate(_outcomes(jobs, fmt, timeout, width, full, workers)):
        th, d = jobs[n]
        results.append((th.id, d, verdict, elapsed, th.expect))
        if fmt == "json":
            certificates.append(json.loads(shown))
        elif fmt == "latex":
            body.append(shown)
        else:
            print(shown)
    if fmt == "json":
        print(json.dumps(certificates if several else certificates[0], indent=1))
        return 1 if any(verdict != expect for _, _, verdict, _, expect in results) else 0
    if fmt == "latex":
        text = "\n\n".join(body)
        if standalone:
            from ..proof.render.latex_format import _PREAMBLE

            text = _PREAMBLE + text + "\n\\end{document}\n"
        print(text)
        print()
    if several:
        _summary(results, latex=fmt == "latex")
    return 1 if any(verdict != expect for _, _, verdict, _, expect in results) else 0


#: What the worker processes of :func:`_outcomes` read: set before they are forked.
_TASK: dict = {}


def _outcomes(jobs: Sequence, fmt: str, timeout: float, width: int, full: bool, workers: int):
    """``(verdict, elapsed, shown)`` for each job, in order: ``shown`` is what is printed for it
    (text), its LaTeX or its JSON certificate.

    With ``workers > 1`` and several jobs, the jobs are proved by that many forked processes
    (where ``fork`` exists and this process runs one thread), each proving and rendering whole
    jobs with the same engine and kernel as this process would (a lemma a job cites is proved
    in the process that needs it); their results are yielded in the jobs' order as they come.
    """
    _TASK.update(jobs=jobs, fmt=fmt, timeout=timeout, width=width, full=full)
    if workers > 1 and len(jobs) > 1 and _can_fork():
        import multiprocessing

        progress = _Progress("every claim", "claims")
        try:
            with multiprocessing.get_context("fork").Pool(min(workers, len(jobs))) as pool:
                for n, out in enumerate(pool.imap(_work, range(len(jobs)), chunksize=1), 1):
                    progress(n, len(jobs))
                    yield out
        finally:
            progress.close()
            _TASK.clear()
        return
    try:
        for n in range(len(jobs)):
            yield _outcome(n, live=True)
    finally:
        _TASK.clear()


def _can_fork() -> bool:
    """Whether worker processes may be forked here: POSIX ``fork``, and one thread in this
    process (forking a process that runs other threads may deadlock the child)."""
    import multiprocessing
    import threading

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _work(n: int) -> tuple[str, float, str]:
    """A worker process's task: :func:`_outcome` of job ``n`` (looked up when it runs)."""
    return _outcome(n)


def _outcome(n: int, live: bool = False) -> tuple[str, float, str]:
    """Prove and render job ``n`` of :data:`_TASK` (``live``: this process draws the progress
    line of its parts)."""
    from ..proof.render import latex, render

    th, d = _TASK["jobs"][n]
    fmt = _TASK["fmt"]
    progress = _Progress(th.id if d is None else f"{th.id} (d = {d})")
    progress.live = progress.live and live
    progress.building(d)
    try:
        proof = th.prove(d, timeout=_TASK["timeout"], progress=progress)
    finally:
        progress.close()
    if fmt == "json":
        shown = render(proof, "json")
    elif fmt == "latex":
        shown = latex(proof)
    else:
        where = _SCOPE_HEADER[th.scope] if d is None else f"instantiated for d = {d}"
        lines = [f"== {th.id} -- {where} ==", render(proof, fmt, width=_TASK["width"], full=_TASK["full"])]
        if th.expect == "refuted" and proof.verdict == "refuted":
            lines.append("(a registered honest negative: the claim is false, and refuting it is "
                         "the expected outcome)")
        shown = "\n".join(lines) + "\n"
    return proof.verdict, proof.elapsed, shown


def _summary(results: list[tuple[str, int | None, str, float, str]], *, latex: bool) -> None:
    """One line per proof (a verdict other than expected is marked), then one line of totals:
    the last line of the output, where a reader of a long run looks first."""
    lead = "% " if latex else ""
    n_ok = sum(1 for r in results if r[2] == "proved" and r[4] == "proved")
    n_neg = sum(1 for r in results if r[4] == "refuted")
    n_neg_ok = sum(1 for r in results if r[4] == "refuted" and r[2] == "refuted")
    n_bad = sum(1 for r in results if r[2] != r[4])
    width = max(len(r[0]) for r in results)
    print(f"{lead}results:")
    for id_, d, verdict, elapsed, expect in results:
        where = "generic" if d is None else f"d={d}"
        mark = "" if verdict == expect else f"  <- NOT AS EXPECTED (expected {expect})"
        print(f"{lead}  {verdict:<9} {id_:<{width}}  {where:<8} {elapsed:7.2f} s{mark}")
    line = f"{lead}summary: {n_ok} of {len(results) - n_neg} claims proved"
    if n_neg:
        line += f"; {n_neg_ok} of {n_neg} registered negatives refuted"
        line += ", as expected" if n_neg_ok == n_neg else ""
    line += "; all as expected" if not n_bad else f"; {n_bad} NOT AS EXPECTED (marked above)"
    print(line)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
