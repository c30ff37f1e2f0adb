"""The numeric core against the ``ml_dtypes`` releases users install: import, first call, tables.

Usage::

    python -m benchmarks.dependencies [--ml-dtypes VERSIONS] [--repeat N]

``VERSIONS`` is a comma-separated list of ``ml_dtypes`` versions, or ``oldest`` (the lower
bound ``pyproject.toml`` states), ``newest`` (the newest release the package index offers) and
``installed`` (default: ``oldest,newest``). Each version is installed with ``pip install
--no-deps --target`` into a temporary folder and put ahead of the environment's own on
``PYTHONPATH``; everything else (NumPy, the package) is this environment's. For each, in
fresh processes, medians of ``--repeat`` runs, the disk cache warm (one cold run first):

* ``import numpy`` alone (the floor every figure below includes);
* ``import pe_symbolic.numeric`` (numpy included), then the first call
  ``sinusoidal_table([0, 1], 8)``, and whether either imported ``ml_dtypes`` (they must not:
  ``ml_dtypes`` 0.7 alone takes about a second to import);
* the first bfloat16 table, which does import ``ml_dtypes`` (its price, paid only there);
* ``sinusoidal_table(arange(T), d)`` in float64 and float32 against the naive NumPy recipe
  of :func:`benchmarks.run.naive_table`, as a ratio (lower is better), in one process.

Rows for two versions side by side show a release that moves any of these figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIRST = textwrap.dedent("""
    import sys, time, json
    t0, c0 = time.perf_counter(), time.process_time()
    import pe_symbolic.numeric as N
    t1, c1 = time.perf_counter(), time.process_time()
    N.sinusoidal_table([0, 1], 8)
    t2, c2 = time.perf_counter(), time.process_time()
    print(json.dumps({"import": t1 - t0, "first": t2 - t1, "cpu": c2 - c0,
                      "ml_dtypes": "ml_dtypes" in sys.modules}))
""")
BF16 = textwrap.dedent("""
    import sys, time, json
    import pe_symbolic.numeric as N
    N.sinusoidal_table([0, 1], 8)
    t0 = time.perf_counter()
    N.sinusoidal_table([0, 1], 8, dtype="bfloat16")
    t1 = time.perf_counter()
    import ml_dtypes
    print(json.dumps({"bf16_first": t1 - t0, "version": ml_dtypes.__version__}))
""")
NUMPY = "import time; t0 = time.perf_counter(); import numpy; print(time.perf_counter() - t0)"

TABLES = textwrap.dedent("""
    import json, statistics, sys, time
    import numpy as np
    sys.path.insert(0, {root!r})
    import pe_symbolic.numeric as N
    from benchmarks.run import naive_table
    T, d, repeat = {T}, {d}, {repeat}
    t = np.arange(T, dtype=np.float64)
    def med(f):
        ts = []
        for _ in range(repeat):
            t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
        return statistics.median(ts)
    out = {{}}
    for dt in (np.float64, np.float32):
        N.sinusoidal_table(t[:8], d, dtype=dt)  # constants cached
        ours = med(lambda: N.sinusoidal_table(t, d, dtype=dt))
        naive = med(lambda: naive_table(t, d, dt))
        out[np.dtype(dt).name] = [ours, naive]
    out["ml_dtypes"] = "ml_dtypes" in sys.modules
    print(json.dumps(out))
""")


def _stated_lower_bound() -> str:
    text = (ROOT / "pyproject.toml").read_text()
    m = re.search(r'"ml_dtypes>=([0-9.]+)', text)
    return m.group(1) if m else "0.5.0"


def _newest() -> str | None:
    res = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "ml_dtypes"],
                         capture_output=True, text=True)
    m = re.search(r"ml_dtypes \(([^)]+)\)", res.stdout)
    return m.group(1) if m else None


def _install(version: str, where: Path) -> str | None:
    """Install ``ml_dtypes==version`` into ``where``; the error's last line, or None."""
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
                          str(where), f"ml_dtypes=={version}"], capture_output=True, text=True)
    return None if res.returncode == 0 else (res.stderr.strip().splitlines() or ["pip failed"])[-1]


def _run(code: str, env: dict[str, str]) -> str:
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return res.stdout.strip().splitlines()[-1]


def measure(path: str | None, repeat: int, cache: str, table: tuple[int, int]) -> dict:
    """The figures of one row, with ``path`` (a ``--target`` folder) ahead on ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PE_SYMBOLIC_CACHE_DIR"] = cache
    if path:
        env["PYTHONPATH"] = os.pathsep.join([path, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    _run(FIRST, env)  # cold: proofs and lowering stored in the cache
    numpy_s = statistics.median(float(_run(NUMPY, env)) for _ in range(repeat))
    firsts = [json.loads(_run(FIRST, env)) for _ in range(repeat)]
    bf16 = [json.loads(_run(BF16, env)) for _ in range(repeat)]
    T, d = table
    tables = json.loads(_run(TABLES.format(root=str(ROOT), T=T, d=d, repeat=max(5, 2 * repeat)), env))
    return {
        "version": bf16[0]["version"],
        "numpy_ms": numpy_s * 1e3,
        "import_ms": statistics.median(f["import"] for f in firsts) * 1e3,
        "first_ms": statistics.median(f["first"] for f in firsts) * 1e3,
        "cpu_ms": statistics.median(f["cpu"] for f in firsts) * 1e3,
        "imports_ml_dtypes": any(f["ml_dtypes"] for f in firsts) or tables["ml_dtypes"],
        "bf16_first_ms": statistics.median(b["bf16_first"] for b in bf16) * 1e3,
        "f64_ratio": tables["float64"][0] / tables["float64"][1],
        "f32_ratio": tables["float32"][0] / tables["float32"][1],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.dependencies", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ml-dtypes", default="oldest,newest",
                    help="comma-separated versions, or oldest / newest / installed (default: oldest,newest)")
    ap.add_argument("--repeat", type=int, default=7, help="fresh processes per figure (median; default 7)")
    ap.add_argument("--table", default="8192,1024", help="T,d of the table timed against naive (default 8192,1024)")
    args = ap.parse_args(argv)
    try:
        T, d = (int(v) for v in args.table.split(","))
    except ValueError:
        ap.error(f"--table must be T,d (two integers); got {args.table!r}")
    if args.repeat < 1:
        ap.error(f"--repeat must be >= 1; got {args.repeat}")
    wanted = []
    for v in args.ml_dtypes.split(","):
        v = v.strip()
        if v == "oldest":
            v = _stated_lower_bound()
        elif v == "newest":
            v = _newest() or "installed"
        if v not in wanted:
            wanted.append(v)
    print("## The numeric core against ml_dtypes releases (fresh processes, disk cache warm; "
          f"medians of {args.repeat})")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'ml_dtypes':>10} {'numpy':>8} {'import':>8} {'+first':>8} {'=total':>8} {'imports':>8} "
          f"{'(CPU)':>8} {'bf16 1st':>9} {'f64/naive':>10} {'f32/naive':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for v in wanted:
            path = None
            if v != "installed":
                path = str(Path(tmp) / f"ml_dtypes-{v}")
                err = _install(v, Path(path))
                if err:
                    print(f"{v:>10} not installed here: {err}")
                    continue
            cache = str(Path(tmp) / f"cache-{v}")
            r = measure(path, args.repeat, cache, (T, d))
            print(f"{r['version']:>10} {r['numpy_ms']:6.1f}ms {r['import_ms']:6.1f}ms {r['first_ms']:6.1f}ms "
                  f"{r['import_ms'] + r['first_ms']:6.1f}ms {'yes' if r['imports_ml_dtypes'] else 'no':>8} "
                  f"{r['cpu_ms']:6.1f}ms "
                  f"{r['bf16_first_ms']:7.1f}ms {r['f64_ratio']:10.3f} {r['f32_ratio']:10.3f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"import: `import pe_symbolic.numeric`, numpy's import included; +first: "
          f"sinusoidal_table([0, 1], 8); imports: whether either imported ml_dtypes; (CPU): the CPU "
          f"time of import + first call (less moved by other work than wall time); bf16 1st: the "
          f"first bfloat16 table (ml_dtypes' import included); f64/f32 /naive: sinusoidal_table(arange({T}), "
          f"{d}) over the naive recipe, allocating")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
