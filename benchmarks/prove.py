"""``make prove`` (``pe-derive all``): cold and warm, wall and CPU time, medians.

Usage::

    python -m benchmarks.prove [--repeat N] [--baseline SRC] [--jobs N ...]

Each run is a fresh ``pe-derive all`` process with its output to a file. *Cold*: the disk
cache (``$PE_SYMBOLIC_CACHE_DIR``, here a temporary folder) is empty, so the search for every
chain starts from its first strategy; *warm*: the same folder after a run, so the search
starts from the strategy that reached zero before (:mod:`pe_symbolic.theorems._hints`; every
chain is still found again and checked by the kernel). The operating system's file cache is
warm in both (the sources and SymPy are read once before timing). Wall time is what a
user waits; CPU time (user + system, the process and its workers) is what an idle machine
with one core would take: on a loaded machine wall time says more about the load than
about the code. The load average is printed before and after.

``--baseline SRC`` times, in the same run and interleaved with this tree, the package in
``SRC`` (a folder holding an older ``pe_symbolic/``, e.g. ``git archive <commit> pe_symbolic
| tar -x -C SRC``), run with this interpreter and its SymPy, and prints the ratios. Every
run's output is compared with the first's, timings aside: the benchmark says whether the
proofs printed are the same.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# run pe-derive from a source folder, ahead of the installed (editable) package
_FROM_TREE = """
import os, sys
tree = sys.argv.pop(1)
sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, tree)
os.environ.setdefault("SYMPY_CACHE_SIZE", "50000")
import pe_symbolic
assert pe_symbolic.__file__.startswith(os.path.abspath(tree)), pe_symbolic.__file__
from pe_symbolic.cli.derive import main
sys.exit(main())
"""


def _timeless(text: str) -> str:
    """The output with its timings removed (the summary's seconds, LaTeX's, JSON's)."""
    text = re.sub(r"\d+\.\d+ s\b", "T s", text)
    return re.sub(r"\d+\.\d+\\,s", r"T\\,s", text)


def _run(argv: list[str], cache: str, out: Path) -> tuple[float, float, int]:
    """One process: (wall seconds, CPU seconds of it and its children, exit status)."""
    env = {**os.environ, "PE_SYMBOLIC_CACHE_DIR": cache}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with out.open("w") as fh:
        rc = subprocess.run(argv, stdout=fh, stderr=subprocess.PIPE, env=env, check=False).returncode
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rc


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not POSIX
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.prove", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="warm runs per variant (default 3; the cold run is one)")
    ap.add_argument("--baseline", default=None, metavar="SRC",
                    help="a folder holding an older pe_symbolic/ to time alongside")
    ap.add_argument("--jobs", action="append", default=None, metavar="N",
                    help="pe-derive --jobs values to time (repeatable; default: 1 and the default)")
    args = ap.parse_args(argv)
    exe = [sys.executable, "-c", "import sys; from pe_symbolic.cli.derive import main; sys.exit(main())"]
    variants: list[tuple[str, list[str]]] = []
    if args.baseline:
        variants.append(("baseline", [sys.executable, "-c", _FROM_TREE, str(Path(args.baseline).resolve()), "all"]))
    for j in args.jobs or ["1", "default"]:
        variants.append((f"this tree, --jobs {j}", exe + ["all"] + ([] if j == "default" else ["--jobs", j])))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"## make prove (pe-derive all): {cpus} CPUs, Python {sys.version.split()[0]}, "
          f"load average before: {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        # read the sources and SymPy once (the OS file cache), untimed
        subprocess.run(exe + ["list"], stdout=subprocess.DEVNULL, check=False)
        caches = {name: tempfile.mkdtemp(dir=tmp) for name, _ in variants}
        wall: dict[tuple[str, str], list[float]] = {}
        cpu: dict[tuple[str, str], list[float]] = {}
        reference: str | None = None
        same = True
        for rnd in range(1 + args.repeat):  # round 0 cold, then warm; the variants interleaved
            phase = "cold" if rnd == 0 else "warm"
            for name, cmd in variants:
                out = Path(tmp) / f"out-{len(wall)}-{rnd}.txt"
                w, c, rc = _run(cmd, caches[name], out)
                if rc != 0:
                    print(f"  {name} ({phase}): exit status {rc}")
                    return 1
                wall.setdefault((name, phase), []).append(w)
                cpu.setdefault((name, phase), []).append(c)
                text = _timeless(out.read_text())
                reference = text if reference is None else reference
                same = same and text == reference
        print(f"{'variant':>24} {'phase':>5} {'runs':>4} {'wall (median)':>14} {'CPU (median)':>13}"
              + ("  CPU vs baseline" if args.baseline else ""))
        for name, _ in variants:
            for phase in ("cold", "warm"):
                w = statistics.median(wall[(name, phase)])
                c = statistics.median(cpu[(name, phase)])
                ratio = ""
                if args.baseline:
                    ratio = f"  {c / statistics.median(cpu[('baseline', phase)]):.2f}x"
                print(f"{name:>24} {phase:>5} {len(wall[(name, phase)]):>4} {w:13.1f}s {c:12.1f}s{ratio}")
        print(f"load average after: {_load()}; every run printed the same proofs (timings aside): "
              f"{'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
