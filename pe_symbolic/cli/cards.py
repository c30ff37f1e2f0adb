"""``pe-audit cards``: a RoPE card for every config of a corpus, and the diff of two sweeps.

``pe-audit cards CORPUS --out cards.jsonl [--html cards.html] [--jobs N | --ray [ADDRESS]]``
writes one card per config (:func:`pe_symbolic.cards`) and prints a summary table, one row
per group of configs that share their RoPE work. ``pe-audit cards --diff OLD.jsonl
NEW.jsonl`` prints what changed between two sweeps (:func:`pe_symbolic.diff_cards`).

Exit status: a sweep -- 0 every config has its card (``ok``, ``refused`` or ``unreadable``:
the card says why), 1 some config's work crashed, ran out of time or of memory (its card
says so; the others are written all the same), 2 bad input, 130 interrupted (every card
finished so far is in ``--out``: run the same command again to resume); ``--diff`` -- 0 no
card changed, 1 some card changed, was added or removed, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence

__all__ = ["main"]

_EPILOG = """\
examples:
  pe-audit cards models/ --out cards.jsonl --html cards.html     every models/**/config.json
  pe-audit cards configs.jsonl --out cards.jsonl --jobs 8          one config per line
  pe-audit cards hub.parquet --config-column config --name-column id --out cards.jsonl   (needs pyarrow)
  pe-audit cards shipped --out shipped.jsonl                       the configs shipped with pe_symbolic
  pe-audit cards models/ --out cards.jsonl --ray auto              the same cards from a Ray cluster
  pe-audit cards --diff cards-5.24.jsonl cards-5.25.jsonl          what changed (exit 1 if anything did)

A rerun with the same --out skips every config whose card is there (same config, same settings);
--retry computes again the ones that crashed or ran out of time or memory.

exit status: a sweep -- 0 every config has its card (ok, refused or unreadable, with the reason),
1 some config's work crashed or ran out of time or memory (its card says so), 2 bad input,
130 interrupted (rerun to resume); --diff -- 0 no card changed, 1 some card changed, was added
or removed, 2 bad input.
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pe-audit cards",
        description="A RoPE card for every config of a corpus (program per layer and sub-module, usable context, "
        "each engine's verdict and support, the audit's bound in the config's dtype, refusals with reasons), "
        "deduplicated, resumable, on a process pool or Ray; or the diff of two sweeps.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("corpus", nargs="?", metavar="CORPUS",
                   help="a folder of config.json files (any depth), a .jsonl file, a .parquet table, or 'shipped'")
    p.add_argument("--out", metavar="FILE", help="the card file (JSON Lines), written as the sweep goes; rerun to resume")
    p.add_argument("--html", metavar="FILE", help="also write the summary table as an HTML page")
    p.add_argument("--jobs", metavar="N", help="worker processes at once (default: the CPUs available)")
    p.add_argument("--ray", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="run the groups as Ray tasks (needs pip install 'pe_symbolic[ray]'); ADDRESS: a cluster "
                   "('auto', 'ray://host:10001'), default RAY_ADDRESS or a local Ray")
    p.add_argument("--timeout", default="300", metavar="S",
                   help="seconds each group of configs may take (default 300; 0: no limit)")
    p.add_argument("--memory", default="4096", metavar="MB",
                   help="address space each worker may use, MiB (default 4096; 0: no limit)")
    p.add_argument("--engine", action="append", metavar="E",
                   help="an engine on each card (repeatable; default: vllm, sglang, llama.cpp, tensorrt-llm, mlx-lm)")
    p.add_argument("--generic", action="store_true",
                   help="also compare the engines for every value of the config's numbers (slower; time-budgeted)")
    p.add_argument("--measure", action="store_true", help="also measure the audit beside its bound (seconds a group)")
    p.add_argument("--retry", action="store_true", help="compute again the cards that crashed or ran out of time/memory")
    p.add_argument("--glob", default="config.json", metavar="PATTERN",
                   help="the file names searched in a folder corpus (default config.json; e.g. '*.json')")
    p.add_argument("--config-column", default="config", metavar="C",
                   help="the column (JSON Lines key) holding a config (default 'config'; a line without it is the config)")
    p.add_argument("--name-column", default=None, metavar="C",
                   help="the column holding a config's name (default: name, id, model_id, modelId or repo_id)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--diff", nargs=2, metavar=("OLD", "NEW"), help="print what changed between two card files")
    return p


def _fail(msg: str) -> int:
    print(f"pe-audit cards: error: {msg}", file=sys.stderr)
    return 2


def _int(name: str, text: str, lo: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"--{name}={text!r} is not an integer") from None
    if value < lo:
        raise ValueError(f"--{name}={text!r} must be at least {lo}")
    return value


def _progress(tty: bool) -> Callable[[int, int, int, int], None]:
    """A bar redrawn in place on a terminal; elsewhere a line at each tenth of the corpus."""
    state: dict = {"last": None, "start": time.monotonic()}

    def show(done: int, total: int, groups_done: int, groups: int) -> None:
        if tty:
            frac = done / max(total, 1)
            bar = "#" * int(25 * frac)
            rate = done / max(time.monotonic() - state["start"], 1e-9)
            end = "\n" if done >= total and groups_done >= groups else ""
            print(f"\rcards [{bar:<25}] {done}/{total} configs, {groups_done}/{groups} groups, {rate:.1f}/s",
                  end=end, file=sys.stderr, flush=True)
            return
        key = (10 * done // max(total, 1), done >= total and groups_done >= groups)
        if key != state["last"]:
            state["last"] = key
            print(f"pe-audit cards: {done}/{total} configs, {groups_done}/{groups} groups computed", file=sys.stderr,
                  flush=True)

    return show


def _diff(old: str, new: str) -> int:
    from ..zoo import diff_cards

    try:
        d = diff_cards(old, new)
    except (OSError, ValueError) as exc:
        return _fail(str(exc))
    print(d.to_text())
    return d.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """``pe-audit cards ...`` (``argv`` without ``cards``); returns the exit status."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or bad usage (2)
        return int(exc.code or 0)
    if args.diff:
        if args.corpus is not None:
            return _fail("--diff OLD NEW takes no CORPUS")
        return _diff(*args.diff)
    ray = args.ray
    if args.corpus is None and isinstance(ray, str) and os.path.exists(ray):
        args.corpus, ray = ray, True  # `--ray CORPUS`: the corpus, not an address
    if args.corpus is None:
        return _fail("CORPUS is required (a folder of config.json files, a .jsonl file, a .parquet table or "
                     "'shipped'), or --diff OLD NEW; see pe-audit cards --help")
    try:
        jobs = None if args.jobs is None else _int("jobs", args.jobs, 1)
        timeout = float(args.timeout)
        if not timeout >= 0:
            raise ValueError(f"--timeout={args.timeout!r} must be a number of seconds, 0 for no limit")
        memory = _int("memory", args.memory, 0)
        if 0 < memory < 64:
            raise ValueError(f"--memory={args.memory!r} must be at least 64 (MiB), or 0 for no limit")
    except ValueError as exc:
        return _fail(str(exc) if "--" in str(exc) else f"--timeout={args.timeout!r} is not a number")
    from ..zoo import cards

    show = None if args.quiet else _progress(sys.stderr.isatty())
    try:
        sweep = cards(args.corpus, args.out, jobs=jobs, ray=ray, timeout=timeout or None, memory_mb=memory or None,
                      engines=args.engine, generic=args.generic, measure=args.measure, retry=args.retry,
                      pattern=args.glob, config_column=args.config_column, name_column=args.name_column,
                      progress=show)
    except KeyboardInterrupt:
        where = f"; the cards finished so far are in {args.out}: run the same command to resume" if args.out else ""
        print(f"\npe-audit cards: interrupted{where}", file=sys.stderr)
        return 130
    except (ImportError, OSError, ValueError, TypeError) as exc:
        return _fail(str(exc))
    width = max(60, shutil.get_terminal_size((100, 24)).columns)
    print(sweep.summary(width=width))
    if args.out:
        print(f"cards: {args.out}" + (f" ({sweep.dropped} earlier cards not kept: other settings or configs no longer "
                                      "in the corpus)" if sweep.dropped else ""))
    if args.html:
        try:
            with open(args.html, "w", encoding="utf-8") as fh:
                fh.write(sweep.to_html())
        except OSError as exc:
            return _fail(f"--html={args.html!r}: {exc}")
        print(f"summary page: {args.html}")
    return 1 if sweep.failed else 0
